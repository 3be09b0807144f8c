# SPDX-License-Identifier: BSD-3-Clause
"""The original programs' public sources, pinned to one commit each and checked file by file.

Sources of ``ht_loc`` and LOGAN's demo are never committed here; a machine gets them, in order:
a folder the user names (``lassm run --originals DIR`` or ``LASSM_ORIGINALS``: ``DIR/gpu_local_ht``,
``DIR/LOGAN``, each a copy at the pinned commit), the user's cache
(``$XDG_CACHE_HOME/lassm/originals/<name>-<commit>``), or GitHub's tarball downloaded into it
(``LASSM_ORIGINALS_URL`` replaces ``https://codeload.github.com``). Every file the build reads
must match its SHA-256 in ``pins.json``, so a measurement names exactly the code that ran; a
tree that differs is refused with its differing files. The machinery, shared with the
``hip-cpu`` runtime, is :mod:`lassm.backends.pinned`."""
from __future__ import annotations

from pathlib import Path

from ...backends.pinned import (DEFAULT_URL, DOWNLOAD_TIMEOUT, URL_ENV, Source, SourceUnavailable, differences, download,
                                file_pins, locate)

#: Environment variable naming the folder of sources for offline nodes.
FOLDER_ENV = "LASSM_ORIGINALS"
#: Every file each original's build reads, with its SHA-256 (:func:`~lassm.backends.pinned.file_pins`).
PINS = Path(__file__).with_name("pins.json")


#: MetaHipMer's local-assembly program as the study's authors published it. mgawan/gpu_local_ht,
#: where it began, writes its output to a fixed path on NERSC's scratch file system and takes no
#: output argument; Lindsey's copy (the paper's) takes ``input k output``.
HT_LOC = Source(
    name="gpu_local_ht", repo="leannmlindsey/gpu_local_ht", commit="cff69f4209c0778c9f29004a822e95674ea8fc61",
    files=file_pins(PINS, "gpu_local_ht"),
    why="the paper's ht_loc (input, k and output on the command line)")

#: LOGAN's X-drop library and demo at its newest commit.
LOGAN = Source(
    name="LOGAN", repo="albertozeni/LOGAN", commit="336907643a8404798ceaa33c7f0db05fcce6e030",
    files=file_pins(PINS, "LOGAN"), why="LOGAN's demo and library (Zeni et al., IPDPS 2020)")

#: Jin and Vetter's CUDA programs (the suite's originals): the files of the five it builds.
HECBENCH = Source(
    name="HeCBench", repo="zjin-lcf/HeCBench", commit="f27000a5188f8ac79bd43fc95a1b3f890c18823d",
    files=file_pins(PINS, "HeCBench"), why="the CUDA programs of Jin and Vetter's kernels")

SOURCES: dict[str, Source] = {"ht_loc": HT_LOC, "logan": LOGAN, "hecbench": HECBENCH}


def cache_root() -> Path:
    """``LASSM_CACHE``, else ``$XDG_CACHE_HOME/lassm``, else ``~/.cache/lassm``; then ``originals/``."""
    return HT_LOC.cache_root()


__all__ = ["DEFAULT_URL", "DOWNLOAD_TIMEOUT", "FOLDER_ENV", "HECBENCH", "HT_LOC", "LOGAN", "SOURCES", "Source", "SourceUnavailable",
           "URL_ENV", "cache_root", "differences", "download", "locate"]

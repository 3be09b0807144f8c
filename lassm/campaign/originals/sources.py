# SPDX-License-Identifier: BSD-3-Clause
"""The original programs' public sources, pinned to one commit each and checked file by file.

The study compares our kernels with the programs they came from: MetaHipMer's local-assembly
program ``ht_loc`` and LOGAN's X-drop demo. Their sources are never committed here; a machine
gets them in one of three ways, tried in this order:

1. a folder the user names (``lassm run --originals DIR`` or ``LASSM_ORIGINALS``), for nodes
   without internet: ``DIR/<name>`` (``DIR/gpu_local_ht``, ``DIR/LOGAN``), a copy of the
   repository at the pinned commit (a ``git clone``, or GitHub's tarball unpacked);
2. the user's cache (``$XDG_CACHE_HOME/lassm/originals/<name>-<commit>``), from an earlier run;
3. GitHub's tarball of the pinned commit, downloaded into that cache where the network allows
   (``LASSM_ORIGINALS_URL`` replaces ``https://codeload.github.com`` for a mirror).

Whichever way it came, every file the build reads must have the SHA-256 recorded below, so a
measurement always names exactly the code that ran. A tree that differs is refused with the
files that differ, never silently built. The machinery is :mod:`lassm.backends.pinned`, which the
``hip-cpu`` backend's pinned HIP-CPU runtime shares; this module holds the originals' pins.
"""
from __future__ import annotations

from pathlib import Path

from ...backends.pinned import DEFAULT_URL, DOWNLOAD_TIMEOUT, URL_ENV, Source, SourceUnavailable, differences, download, locate

#: Environment variable naming the folder of sources for offline nodes.
FOLDER_ENV = "LASSM_ORIGINALS"


#: MetaHipMer's local-assembly program as the study's authors published it. mgawan/gpu_local_ht,
#: where it began, writes its output to a fixed path on NERSC's scratch file system and takes no
#: output argument; Lindsey's copy (the paper's) takes ``input k output``.
HT_LOC = Source(
    name="gpu_local_ht", repo="leannmlindsey/gpu_local_ht", commit="cff69f4209c0778c9f29004a822e95674ea8fc61",
    files={
        "src/main.cpp": "eb061746b35e52e95fe071fba7916baa3fe87b07cd318c64bd9d4042c82c8904",
        "src/kernel.cpp": "a4ddb4a7d740d322110a3016a98f4a854f14ab8c3ca423135a94a68bbea66956",
        "src/helper.cpp": "ccf44b4dce39c988e4dc697cdb98937b785f08513a8d41fcb13994040c63b4da",
        "src/kernel.hpp": "7e69e6f21817e6999b327117c48f7c1a8835831ca4c0cb496a77a7205becf582",
        "src/helper.hpp": "64487002bd57080f1d87431c5f364763a64f0dfd87e5bef900a7744f146fd155",
    },
    why="the paper's ht_loc (input, k and output on the command line)")

#: LOGAN's X-drop library and demo at its newest commit.
LOGAN = Source(
    name="LOGAN", repo="albertozeni/LOGAN", commit="336907643a8404798ceaa33c7f0db05fcce6e030",
    files={
        "src/demo.cu": "dbfcf7df6e1a10d56824cca8e691a26b45c662c26ca150cefcb1221022e222ad",
        "src/logan.cuh": "5ee58d4efa2675ea2b8f60a45c2db1852475a6c3ac727b3d95e6b0398ffe54cf",
        "src/logan_functions.cu": "9bb03c1b50a0e9743ee543337b1ac14b46f183e3b384161ec36721d4c6120c1e",
        "src/logan_functions.cuh": "4bbcf3b54357ca3fccd62c34bc2991217e2d2fa1844778a1acd83343ffbeabad",
        "src/score.cu": "31b906a0bc2f7771288954b57e0c2b0edc20187cfd5ba66361445c8016c04a92",
        "src/score.cuh": "e6f017c193d772a7f4bd343aa24667ec0b8b37ca0a328a7827f7e0f143d1876e",
        "src/seed.cu": "10055a5f56ae76d2d40abcf323a42a317e20a12ebd3f4007380e72dcbcbf9b6a",
        "src/seed.cuh": "f8fa4e6266a1f2caac4ea8fe5afbf044bff81d872f7b90a5879a2d71ed417291",
    },
    why="LOGAN's demo and library (Zeni et al., IPDPS 2020)")

#: Jin and Vetter's CUDA programs (the suite's originals): the files of the five it builds.
HECBENCH = Source(
    name="HeCBench", repo="zjin-lcf/HeCBench", commit="f27000a5188f8ac79bd43fc95a1b3f890c18823d",
    files={
        "src/all-pairs-distance-cuda/main.cu": "964ce6b2722c811f40007d6ed20a925328c05bc474b560d6c3e580492f6231ac",
        "src/epistasis-cuda/main.cu": "5f3b331656414ed2bf62d704278069a74fe8f63cda12509efbd164c3d5b20f73",
        "src/epistasis-cuda/reference.h": "ba97eaf4ba9013560154a9dd4bd7ca6c5a82740fcf198d0681965333525a0826",
        "src/nw-cuda/nw.cu": "c642c104c4b7836b6dfc7223e40a874f3f065689c22fcb8d4ecf6bcc7d1cb130",
        "src/nw-cuda/reference.h": "75d080186e30c2c6b073a4fc50fd660c0e1ea838bc00abe27dbda3b146ad2df2",
        "src/minkowski-cuda/main.cu": "2093928d71fc24ccdaea001c4d350eb447862902b801d37ff4cb422034743aea",
        "src/minkowski-cuda/verify.cpp": "ea9eb06475c93631f318ee24a4c45ef3b78f859907445090e780727aef9ed9a6",
        "src/cm-cuda/main.cpp": "21ec106220466fcaa24f5879e13202451b9317e5f56145b6ea6616c1b0230c4d",
        "src/cm-cuda/io.cpp": "e05ff247e89af9e617d76fe23dc682b05b4807708264c480c188802bdd819378",
        "src/cm-cuda/process.cu": "27f17b2a6c63646a8adc405dcec96800d2fdc6c38e10611b30d10d513045d67c",
        "src/cm-cuda/utils.h": "e954aace075f64e1f3bb6c961d77d0efc503a2c71f1b4992a09071825509b836",
        "src/cm-cuda/kernels.h": "ccad1f2ce9803c7283ead4d07381d48a75d76a3fcff10d540d3f6fc9d2613a3f",
    },
    why="the CUDA programs of Jin and Vetter's kernels")

SOURCES: dict[str, Source] = {"ht_loc": HT_LOC, "logan": LOGAN, "hecbench": HECBENCH}


def cache_root() -> Path:
    """``LASSM_CACHE``, else ``$XDG_CACHE_HOME/lassm``, else ``~/.cache/lassm``; then ``originals/``."""
    return HT_LOC.cache_root()


__all__ = ["DEFAULT_URL", "DOWNLOAD_TIMEOUT", "FOLDER_ENV", "HECBENCH", "HT_LOC", "LOGAN", "SOURCES", "Source", "SourceUnavailable",
           "URL_ENV", "cache_root", "differences", "download", "locate"]

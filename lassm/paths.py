# SPDX-License-Identifier: BSD-3-Clause
"""Where the project's files are: kernel sources (``kernels/``, shipped as ``lassm.kernels``),
embedded data (``data/``), results.
"""
from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from . import settings
from .errors import LassmError

REPO = Path(__file__).resolve().parent.parent


def kernel_dir() -> Path:
    """The folder holding one folder per kernel (``local_assembly/``), each with ``cuda/`` and ``opencl/``.

    A source tree's own ``kernels/`` comes first, so a second checkout on ``PYTHONPATH`` builds its
    own kernels rather than the editable install's; a wheel uses the package."""
    if (REPO / "kernels" / "local_assembly").is_dir():
        return REPO / "kernels"
    try:
        from importlib.resources import files

        d = Path(str(files("lassm.kernels")))
        if (d / "local_assembly").is_dir():
            return d
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    return REPO / "kernels"


def kernel_source(relpath: str) -> Path:
    """Path of one kernel source, e.g. ``kernel_source("local_assembly/cuda/faithful.cu")``."""
    path = kernel_dir() / relpath
    if not path.exists():
        raise FileNotFoundError(f"kernel source {relpath} not found under {kernel_dir()}")
    return path


def data_dir() -> Path:
    """The project's ``data/`` folder (override with ``LASSM_DATA``)."""
    return settings.value("LASSM_DATA") or REPO / "data"


def sample(name: str = "k77") -> Path:
    """The embedded real MetaHipMer inputs: ``k77`` (3,296 contigs) or ``k21`` (one contig)."""
    files = {"k77": "localassm_extend_9-77.dat", "k21": "localassm_562299.dat"}
    return data_dir() / "metahipmer-sample" / files[name]


def sample_reference(name: str = "k77") -> Path:
    """MetaHipMer's own output for :func:`sample`."""
    return sample(name).with_name("res_" + sample(name).name)


#: Start k of each embedded sample.
SAMPLE_K = {"k77": 77, "k21": 21}


def results_dir(machine: str) -> Path:
    """``data/results/<machine>/``: one folder per machine, one subfolder per run.

    ``LASSM_RESULTS`` moves the results root (tests write to a temporary folder).
    """
    return results_root() / machine


def cache_dir() -> Path:
    """``LASSM_CACHE``, else ``$XDG_CACHE_HOME/lassm``, else ``~/.cache/lassm``: what lassm keeps between runs."""
    return settings.value("LASSM_CACHE") or Path(os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lassm"))


#: The longest machine folder name (once slugged): the folder is one path component, and a file
#: system's component ends at 255 bytes; 100 leaves room for the names built from it (a notebook
#: ``<machine>.ipynb``, a temporary ``.<machine>.<random>``) and keeps paths readable.
MAX_MACHINE_NAME = 100


def _ascii(text: str) -> str:
    """``text`` with each letter's accents dropped (``é`` is ``e``, ``ï`` is ``i``: Unicode's
    compatibility decomposition); a character without an ASCII form is left out."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def slug(text: str) -> str:
    """A folder-safe lower-case name: letters, digits and dashes (every machine folder's); an
    accented letter keeps its letter (``mé-ünï`` is ``me-uni``), not a dash."""
    return re.sub(r"[^a-z0-9]+", "-", _ascii(text).lower()).strip("-") or "unknown"


def machine_slug(text: str) -> str:
    """The one rule for a machine's name, from any source: slugged (:func:`slug`), so it always names a
    folder directly under the results root; an accented letter keeps its letter.

    Raises
    ------
    LassmError
        A name without a letter or digit, a letter with no ASCII form, or a slug longer than
        :data:`MAX_MACHINE_NAME`.
    """
    lost = sorted({c for c in text if c.isalnum() and not _ascii(c)})
    if lost:  # left out, two names would share a folder (a name of them alone, 'unknown')
        raise LassmError(f"{text!r}: letters without an ASCII form ({', '.join(lost)}); a machine folder's name is "
                         "spelled in ASCII letters and digits")
    if not re.search(r"[A-Za-z0-9]", _ascii(text)):
        raise LassmError(f"{text!r}: a machine name needs a letter or a digit")
    name = slug(text)
    if len(name) > MAX_MACHINE_NAME:
        raise LassmError(f"a machine name of {len(name)} characters; at most {MAX_MACHINE_NAME}")
    return name


def env_machine() -> str | None:
    """``LASSM_MACHINE`` under :func:`machine_slug`'s rule, or None where it is unset or empty."""
    text = settings.value("LASSM_MACHINE")
    if not text:
        return None
    try:
        return machine_slug(text)
    except LassmError as exc:
        raise LassmError(f"LASSM_MACHINE: {exc}") from None


def machine_dir(text: str) -> Path:
    """The results folder of the machine ``text`` names, by :func:`machine_slug`'s rule: always
    directly under :func:`results_root`."""
    return results_root() / machine_slug(text)


def results_root() -> Path:
    """``data/results/``, or ``LASSM_RESULTS`` (tests write to a temporary folder)."""
    return settings.value("LASSM_RESULTS") or data_dir() / "results"

# SPDX-License-Identifier: BSD-3-Clause
"""Every ``LASSM_*`` environment variable lassm reads: its type, its range, and the one check.

Each is declared once in :data:`SETTINGS`; :func:`value` reads and checks one; :func:`check_all`
checks every set one when a command starts. The install page lists the same table (a test holds
the two equal). :mod:`lassm.timeline` and :mod:`lassm.backends.cuinit` read theirs themselves,
running before any other import.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import LassmError


def _seconds(text: str, least: float, strict: bool) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < least or (strict and seconds == least):
        raise ValueError(f"not a number of seconds, {'more than' if strict else 'at least'} {least:g}")
    return seconds


def seconds(text: str) -> float:
    """A duration in seconds, finite and more than 0."""
    return _seconds(text, 0.0, True)


def seconds_or_none(text: str) -> float:
    """A duration in seconds, finite and 0 or more."""
    return _seconds(text, 0.0, False)


def byte_count(text: str) -> int:
    """A number of bytes: a whole number (``1e9`` too), 1 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise ValueError("not a number of bytes, a whole number 1 or more")
    return int(value)


def _nearest(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path("/")


def folder(text: str) -> Path:
    """A folder, or a path where one can be made: not a file, nor under one."""
    path = Path(text).expanduser()
    base = _nearest(path)
    if not base.is_dir():
        raise ValueError(f"{base}: not a folder, on the way to {path}" if base != path else "not a folder")
    return path


def file(text: str) -> Path:
    """A file to write, or one that exists: not a folder, and its folder exists."""
    path = Path(text).expanduser()
    if path.is_dir():
        raise ValueError("a folder, not a file")
    if not path.parent.is_dir():
        raise ValueError(f"no folder {path.parent}")
    return path


def existing_file(text: str) -> Path:
    """A file that exists (a program, a library)."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise ValueError("no such file")
    return path


def line(text: str) -> str:
    """One line of printable text."""
    if not text.isprintable():
        raise ValueError("want one line of printable text")
    return text


def one_of(*choices: str) -> Callable[[str], str]:
    """One of ``choices``, any case."""
    def parse(text: str) -> str:
        if text.strip().lower() not in choices:
            raise ValueError(f"want {' or '.join(choices)}")
        return text.strip().lower()
    parse.__doc__ = f"one of {', '.join(choices)}"
    return parse


def switch(text: str) -> bool:
    """On unless empty or ``0``."""
    if text.strip() not in ("", "0", "1"):
        raise ValueError("want 1 (on) or 0 (off)")
    return text.strip() == "1"


@dataclass(frozen=True)
class Setting:
    """One environment variable: what it takes (``kind``, for the table), what unset means, and
    what it does; ``parse`` turns its text into the value or raises ValueError saying why not."""

    name: str
    kind: str
    default: str
    what: str
    parse: Callable[[str], Any]


#: Every LASSM_* variable lassm reads, in the order of the install page's table.
SETTINGS: tuple[Setting, ...] = (
    Setting("LASSM_DATA", "folder", "the repository's data/", "where the embedded data, the results and the paper's files are", folder),
    Setting("LASSM_RESULTS", "folder", "data/results", "the results root: one folder per machine", folder),
    Setting("LASSM_CACHE", "folder", "$XDG_CACHE_HOME/lassm, ~/.cache/lassm", "what lassm keeps between runs: built drivers, generated data", folder),
    Setting("LASSM_XDROP_DATA", "folder", "the cache's xdrop/", "where X-drop pair sets are generated", folder),
    Setting("LASSM_MACHINE", "machine name", "the device's name", "the machine folder results are filed under", line),
    Setting("LASSM_MEMORY_BYTES", "bytes", "the physical memory", "the memory a requested size is checked against", byte_count),
    Setting("LASSM_WORKER_MEMORY_BYTES", "bytes", "the worker's limit", "what one shard's extension may take", byte_count),
    Setting("LASSM_DEVICE_WAIT", "seconds, 0 or more", "600", "how long a run waits for another run's GPU before it times a shared one", seconds_or_none),
    Setting("LASSM_LOCK_DIR", "folder", "$XDG_RUNTIME_DIR/lassm-devices", "where the GPUs' locks of this host are", folder),
    Setting("LASSM_CLUSTER_TIMEOUT", "seconds", "Dask's connect timeout", "how long a run waits for a cluster's scheduler", seconds),
    Setting("LASSM_HIP_CPU", "folder", "the cache's hip-cpu/", "a copy of ROCm's HIP-CPU at its pinned commit", folder),
    Setting("LASSM_HIP_CPU_TIMEOUT", "seconds", "600", "how long one HIP-CPU launch may run", seconds),
    Setting("LASSM_HIPCC", "file", "hipcc on PATH", "the hipcc that compiles the kernels for AMD GPUs", existing_file),
    Setting("LASSM_NVRTC", "file", "NVRTC found beside CUDA", "the NVRTC library that compiles the CUDA kernels", existing_file),
    Setting("LASSM_CUDA_RUNTIME", "driver or cupy", "chosen per kernel", "how CUDA kernels are launched", one_of("driver", "cupy")),
    Setting("LASSM_XDROP_LAYOUT", "logan or warps", "logan", "the X-drop CUDA plan: LOGAN's block, or tasks heaviest first and the wide-band block", one_of("logan", "warps")),
    Setting("LASSM_OPENCL_DEVICE", "text", "the first device", "the OpenCL device: a piece of its name, or pocl", line),
    Setting("LASSM_SYCL_DEVICE", "text", "the default device", "the SYCL device filter", line),
    Setting("LASSM_SYCL_KEEP_ICD", "1 or 0", "0", "1 leaves the OpenCL loader's drivers as they are", switch),
    Setting("LASSM_SEQAN_INCLUDE", "folder", "/usr/include", "where SeqAn 2's headers are", folder),
    Setting("LASSM_ORIGINALS", "folder", "the cache", "copies of the original programs' sources", folder),
    Setting("LASSM_ORIGINALS_URL", "text", "GitHub", "where the original programs' sources are fetched", line),
    Setting("LASSM_GIT_SHA", "text", "git's", "the commit recorded with each result", line),
    Setting("LASSM_PY_WRITER", "any", "unset", "set: the dataset writers stay in Python (no numba)", str),
    Setting("LASSM_TIMELINE", "file", "unset", "a file each step of a command is stamped into", file),
    Setting("LASSM_RAN_WHERE", "file", "_build/ran-where.json", "where the test suite notes what ran where", file),
    Setting("LASSM_GPU_INDEX", "text", "set by lassm", "the GPU a Dask worker was started for", line),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def table() -> str:
    """:data:`SETTINGS` as the Markdown table of the book's install page."""
    rows = ["| variable | takes | unset | what it sets |", "| --- | --- | --- | --- |"]
    rows += [f"| `{s.name}` | {s.kind} | {s.default} | {s.what} |" for s in SETTINGS]
    return "\n".join(rows)


def value(name: str) -> Any:
    """The checked value of ``name`` (a :data:`SETTINGS` entry), or None where it is unset or empty;
    a bad value raises :class:`LassmError`, one line naming the variable and what it takes."""
    setting = _BY_NAME[name]
    text = os.environ.get(name, "")
    if not text.strip():
        return None
    try:
        return setting.parse(text)
    except ValueError as exc:
        raise LassmError(f"{name}={text!r}: {exc}; unset it for the default ({setting.default})") from None


def check_all() -> None:
    """Checks every variable of :data:`SETTINGS` that is set, and a timeline that could not be
    written: what a command does first, before any work."""
    for setting in SETTINGS:
        value(setting.name)
    check_timeline()


def check_timeline() -> None:
    """Refuses a timeline whose stamps could not be written (``LASSM_TIMELINE=/dev/full``)."""
    from . import timeline

    fault = timeline.fault()
    if fault is not None:
        raise LassmError(f"LASSM_TIMELINE={os.environ.get('LASSM_TIMELINE', '')!r}: {fault}")


__all__ = ["SETTINGS", "Setting", "byte_count", "check_all", "check_timeline", "existing_file", "file", "folder",
           "line", "one_of", "seconds", "seconds_or_none", "switch", "table", "value"]

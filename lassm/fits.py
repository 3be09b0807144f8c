# SPDX-License-Identifier: BSD-3-Clause
"""Whether a requested size fits this machine's memory or disk, refused at once with the largest
that would.

Each generator states its peak bytes per unit of size; memory is the physical memory
(``LASSM_MEMORY_BYTES`` overrides it), disk the free space where a streaming writer writes
(:func:`disk_bytes`). One rule, :func:`refuse_beyond`, serves both.
"""
from __future__ import annotations

import math
import os

from . import settings
from .errors import LassmError


def memory_bytes() -> int:
    """This machine's memory in bytes: ``LASSM_MEMORY_BYTES``, else its physical pages (0: unknown)."""
    given = settings.value("LASSM_MEMORY_BYTES")
    if given is not None:
        return given
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # a system that does not say: no bound
        return 0


def disk_bytes(path: str | os.PathLike) -> int:
    """The bytes a user may still write on the file system that ``path`` (a file or folder to be
    made) would be on: its nearest existing folder's ``statvfs`` (0: unknown, no bound)."""
    folder = os.path.abspath(path)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    try:
        st = os.statvfs(folder)
    except OSError:
        return 0
    return int(st.f_bavail) * int(st.f_frsize)


def refuse_beyond(what: str, value: float, bytes_per_unit: float, beside: float = 0.0,
                  disk: str | os.PathLike | None = None) -> None:
    """Raises when ``value`` units of ``bytes_per_unit``, plus ``beside`` bytes already taken, would
    not fit memory (or, with ``disk``, the free space there); the line names ``what``, the bytes it
    would take and the largest value that fits."""
    have = memory_bytes() if disk is None else disk_bytes(disk)
    need = float(beside) + float(value) * float(bytes_per_unit)
    if have and need > have:
        largest = max(0.0, (have - float(beside)) / float(bytes_per_unit))
        shown = f"{math.floor(largest):,}" if isinstance(value, int) else f"{largest:.3g}"
        where = ("of memory, and this machine has " + _size(have) if disk is None
                 else f"on disk, and the file system of {disk} has {_size(have)} free")
        raise LassmError(f"{what}: needs about {_size(need)} {where}; at most {shown} fits")


def _size(n: float) -> str:
    """Bytes in the largest unit that keeps a number >= 1 (GB, TB, ...), up to YB, then as a power of ten."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"):
        if n < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} YB"


__all__ = ["disk_bytes", "memory_bytes", "refuse_beyond"]

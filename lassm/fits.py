# SPDX-License-Identifier: BSD-3-Clause
"""Whether a requested size fits this machine's memory: a size that cannot is refused at once, with
the largest that would, rather than run until the memory runs out.

Each generator states how many bytes one unit of its size takes at its peak (measured, rounded
up); the machine's memory is its physical memory (``LASSM_MEMORY_BYTES`` stands in for it, as on a
node whose scheduler grants less than the machine has).
"""
from __future__ import annotations

import math
import os

from .errors import LassmError


def memory_bytes() -> int:
    """This machine's memory in bytes: ``LASSM_MEMORY_BYTES``, else its physical pages (0: unknown)."""
    given = os.environ.get("LASSM_MEMORY_BYTES")
    if given:
        try:
            return int(float(given))
        except ValueError:
            raise LassmError(f"LASSM_MEMORY_BYTES={given!r}: not a number of bytes") from None
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # a system that does not say: no bound
        return 0


def refuse_beyond(what: str, value: float, bytes_per_unit: float, beside: float = 0.0) -> None:
    """Raises when ``value`` units of ``bytes_per_unit`` each, plus ``beside`` bytes that other
    options already take, would not fit; the line names ``what`` (the option or the dataset), the
    memory it would take and the largest value that fits (a whole number for a count), so the
    user learns the bound before any work rather than when the memory runs out."""
    have = memory_bytes()
    need = float(beside) + float(value) * float(bytes_per_unit)
    if have and need > have:
        largest = max(0.0, (have - float(beside)) / float(bytes_per_unit))
        shown = f"{math.floor(largest):,}" if isinstance(value, int) else f"{largest:.3g}"
        raise LassmError(f"{what}: needs about {_size(need)} of memory, and this machine has {_size(have)}; "
                         f"at most {shown} fits")


def _size(n: float) -> str:
    """Bytes in the largest unit that keeps a number >= 1 (GB, TB, ...), up to YB, then as a power of ten."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"):
        if n < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} YB"


__all__ = ["memory_bytes", "refuse_beyond"]

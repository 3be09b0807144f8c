# SPDX-License-Identifier: BSD-3-Clause
"""Whether a requested size fits this machine's memory: a size that cannot is refused at once, with
the largest that would, rather than run until the memory runs out.

Each generator states how many bytes one unit of its size takes at its peak (measured, rounded
up); the machine's memory is its physical memory (``LASSM_MEMORY_BYTES`` stands in for it, as on a
node whose scheduler grants less than the machine has).
"""
from __future__ import annotations

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


def refuse_beyond(what: str, value: float, bytes_per_unit: float) -> None:
    """Raises when ``value`` units of ``bytes_per_unit`` each would not fit; the line names ``what``
    (the option or the dataset), the memory it would take and the largest value that fits."""
    have = memory_bytes()
    need = float(value) * float(bytes_per_unit)
    if have and need > have:
        largest = have / float(bytes_per_unit)
        raise LassmError(f"{what}: needs about {_size(need)} of memory, and this machine has {_size(have)}; "
                         f"at most {largest:.3g} fits")


def _size(n: float) -> str:
    """Bytes in the largest unit that keeps a number >= 1 (GB, TB, ...), up to YB, then as a power of ten."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"):
        if n < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n * 1e24:.2g} B"


__all__ = ["memory_bytes", "refuse_beyond"]

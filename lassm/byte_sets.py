# SPDX-License-Identifier: BSD-3-Clause
"""Whether a flat column of bytes is sound: only allowed bytes, offsets that cut it into records.

Checked whole, vectorized a cache-sized block at a time; only a failing column is searched byte
by byte to name the fault.
"""
from __future__ import annotations

import numpy as np



def offsets_of(lengths) -> np.ndarray:
    """Offsets (int64, a leading 0) of consecutive records of ``lengths``."""
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    return off

def first_outside(values: np.ndarray, allowed: np.ndarray) -> int:
    """Index of the first byte of ``values`` (uint8) not in ``allowed`` (a 256-entry mask), or -1:
    :func:`all_inside` first, the byte-by-byte look-up only for a column that fails it."""
    if all_inside(values, allowed):
        return -1
    bad = np.flatnonzero(~allowed[values])
    return int(bad[0]) if len(bad) else -1


#: Bytes a column is checked in at a time: the comparisons' temporaries stay in cache instead of
#: being fresh pages the size of the column (three times faster on a 280 MB column).
CHECK_BLOCK = 1 << 20


def all_inside(values: np.ndarray, allowed: np.ndarray) -> bool:
    """Whether every byte of ``values`` is in ``allowed``, a block at a time: a contiguous run of
    allowed bytes is one wrapped subtraction and a maximum; a few allowed bytes are one comparison
    each."""
    codes = np.flatnonzero(allowed)
    lo, hi = int(codes[0]), int(codes[-1])
    ranged = hi - lo + 1 == len(codes)  # the qualities: bytes below lo wrap past hi - lo
    if not ranged and len(codes) > 8:
        return bool(allowed[values].all())
    n = min(len(values), CHECK_BLOCK)
    ok, other = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
    wrapped = np.empty(n, dtype=np.uint8)
    for at in range(0, len(values), CHECK_BLOCK):
        block = values[at : at + CHECK_BLOCK]
        if ranged:
            if int(np.subtract(block, np.uint8(lo), out=wrapped[: len(block)]).max()) > hi - lo:
                return False
            continue
        mine, tmp = ok[: len(block)], other[: len(block)]
        np.equal(block, np.uint8(codes[0]), out=mine)  # uint8 against uint8: no widening
        for code in codes[1:]:
            mine |= np.equal(block, np.uint8(code), out=tmp)
        if not mine.all():
            return False
    return True


def check_offsets(name: str, offsets: np.ndarray, total: int) -> None:
    """Refuses ``offsets`` that do not cut a flat column of ``total`` bytes into records (int64,
    rising from 0 to ``total``): a reads set and an X-drop pairs set keep their sequences so, and a
    wrong cut would read past a record's end in every kernel."""
    if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) < 1:
        raise TypeError(f"{name} must be a 1-D int64 array, got {offsets.dtype} {offsets.shape}")
    if offsets[0] != 0 or offsets[-1] != total or np.any(np.diff(offsets) < 0):
        raise ValueError(f"{name} must rise from 0 to {total}")

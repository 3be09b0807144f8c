# SPDX-License-Identifier: BSD-3-Clause
"""Exact shared k-mers of two reads, by a small k-mer index of our own (NumPy, no external tool).

K-mers of ACGT pack two bits a base into an int64 (k <= 31; one holding N is no seed). H's
k-mers are looked up in V's sorted ones (``searchsorted``); the seed is the shared occurrence
nearest the caller's point (the overlap's middle), so a repeat does not beat the true diagonal.
"""
from __future__ import annotations

import numpy as np

#: The longest k a packed int64 holds.
MAX_K = 31
_CODE = np.full(256, -1, dtype=np.int64)
for _i, _b in enumerate(b"ACGT"):
    _CODE[_b] = _i


def kmers(seq: bytes | np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The packed k-mers of ``seq`` (bytes or uint8) and their start positions, as equal-length int64
    arrays, those with a non-ACGT base left out; ``k`` is 1 to :data:`MAX_K`."""
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k = {k} must be in 1..{MAX_K}")
    arr = np.frombuffer(seq, dtype=np.uint8) if isinstance(seq, bytes) else np.asarray(seq, dtype=np.uint8)
    n = len(arr) - k + 1
    if n <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    code = _CODE[arr]
    values = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    for t in range(k):
        window = code[t:t + n]
        values = (values << 2) | np.maximum(window, 0)
        bad |= window < 0
    starts = np.flatnonzero(~bad).astype(np.int64)
    return values[starts], starts


def shared_kmers(h: bytes, v: bytes, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(pos_h, pos_v)`` where H and V hold the same k-mer, as two int64 arrays."""
    vals_h, pos_h = kmers(h, k)
    vals_v, pos_v = kmers(v, k)
    order = np.argsort(vals_v, kind="stable")
    sorted_v = vals_v[order]
    lo = np.searchsorted(sorted_v, vals_h, side="left")
    hi = np.searchsorted(sorted_v, vals_h, side="right")
    hits = hi - lo
    out_h = np.repeat(pos_h, hits)
    first = np.repeat(lo - (np.cumsum(hits) - hits), hits)  # each hit's index into sorted_v
    out_v = pos_v[order[first + np.arange(int(hits.sum()), dtype=np.int64)]]
    return out_h, out_v


def nearest_seed(h: bytes, v: bytes, k: int, mid_h: int, mid_v: int) -> tuple[int, int] | None:
    """The shared k-mer of ``h`` and ``v`` (same strand) nearest ``(mid_h, mid_v)``, the overlap's middle
    in each, as ``(pos_h, pos_v)``: least summed distance, then lower ``pos_h``, then lower
    ``pos_v``; None when they share none."""
    sh, sv = shared_kmers(h, v, k)
    if not len(sh):
        return None
    dist = np.abs(sh - mid_h) + np.abs(sv - mid_v)
    best = np.lexsort((sv, sh, dist))[0]
    return int(sh[best]), int(sv[best])

# SPDX-License-Identifier: BSD-3-Clause
"""Copies of many byte segments in one pass, compiled by numba and cached on disk.

The contigs' reverse complement and a launch's gather touch every base before a kernel starts;
NumPy index arithmetic would cost an int64 per byte, this loop reads and writes each byte once.
Imported on first use, so commands that launch no kernel do not import numba.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .segment_index import segment_offsets


@njit(cache=True)
def _revcomp(seqs: np.ndarray, offsets: np.ndarray, table: np.ndarray, out: np.ndarray) -> None:
    for i in range(len(offsets) - 1):
        start, stop = offsets[i], offsets[i + 1]
        for j in range(stop - start):
            out[start + j] = table[seqs[stop - 1 - j]]


@njit(cache=True)
def _gather(buf: np.ndarray, starts: np.ndarray, new_off: np.ndarray, out: np.ndarray) -> None:
    for i in range(len(starts)):
        src, dst = starts[i], new_off[i]
        for j in range(new_off[i + 1] - dst):
            out[dst + j] = buf[src + j]


def revcomp_segments(seqs: np.ndarray, offsets: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Each segment ``seqs[offsets[i]:offsets[i+1]]`` reversed and mapped through ``table``, in place
    of itself (the same offsets)."""
    out = np.empty_like(seqs)
    if len(seqs):
        _revcomp(np.ascontiguousarray(seqs), np.ascontiguousarray(offsets, dtype=np.int64), table, out)
    return out


def gather_segments(buf: np.ndarray, offsets: np.ndarray, index: np.ndarray, pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Segments ``index`` of a flat buffer concatenated in that order, then ``pad`` zero items;
    returns ``(buffer, int64 offsets)``, ``len(index) + 1`` offsets from 0."""
    starts, new_off = segment_offsets(offsets, index)
    out = np.zeros(int(new_off[-1]) + pad, dtype=buf.dtype)
    if new_off[-1]:
        _gather(np.ascontiguousarray(buf), starts, new_off, out)
    return out, new_off

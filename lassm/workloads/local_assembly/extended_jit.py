# SPDX-License-Identifier: BSD-3-Clause
"""MetaHipMer's output lines (``cid extended_sequence``) written by one compiled loop, numba, cached
on disk.

Every output byte is written once with the GIL released, where
:func:`lassm.workloads.local_assembly.dat_bulk.extended_blocks` builds Python bytes per line.
Same bytes (a test compares them); :func:`lassm.workloads.local_assembly.formats.extended_into`
picks this writer only where numba's import pays off.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np
from numba import njit

from .dataset import _COMPLEMENT

#: Bytes of an int64's decimal text, sign included.
_ID_BYTES = 20


@njit(cache=True, nogil=True)
def _lines(cids, seqs, offsets, lbuf, lstart, llen, rbuf, rstart, rlen, comp, a, b, out):  # pragma: no cover (compiled)
    pos = 0
    for i in range(a, b):
        c = cids[i]
        if c < 0:
            out[pos] = 45  # '-'
            pos += 1
            m = np.uint64(-(c + 1)) + np.uint64(1)  # the magnitude, int64's least value included
        else:
            m = np.uint64(c)
        digits = 1
        u = m // np.uint64(10)
        while u != 0:
            digits += 1
            u //= np.uint64(10)
        for d in range(digits):  # the last digit first
            out[pos + digits - 1 - d] = np.uint8(48 + m % np.uint64(10))
            m //= np.uint64(10)
        pos += digits
        out[pos] = 32  # ' '
        pos += 1
        s, n = lstart[i], llen[i]
        for j in range(n):  # the left walk, reverse-complemented
            out[pos + j] = comp[lbuf[s + n - 1 - j]]
        pos += n
        s, n = offsets[i], offsets[i + 1] - offsets[i]
        out[pos : pos + n] = seqs[s : s + n]
        pos += n
        s, n = rstart[i], rlen[i]
        out[pos : pos + n] = rbuf[s : s + n]
        pos += n
        out[pos] = 10  # '\n'
        pos += 1
    return pos


def _starts(side) -> np.ndarray:
    """Where each walk of a side starts in its buffer, in either layout."""
    if side.offsets is not None:
        return np.ascontiguousarray(side.offsets, dtype=np.int64)
    return np.arange(len(side.walk_len), dtype=np.int64) * int(side.max_walk)


def extended_blocks(ext, block: int) -> Iterator[memoryview]:
    """The output of ``ext`` (an :class:`~lassm.workloads.local_assembly.result.Extension`),
    ``block`` contigs at a time, as the Python writer cuts it."""
    ds = ext.dataset
    left, right = ext.left, ext.right
    lstart, rstart = _starts(left), _starts(right)
    llen, rlen = left.walk_len.astype(np.int64), right.walk_len.astype(np.int64)
    cids = np.ascontiguousarray(ds.cids, dtype=np.int64)
    seqs, offsets = np.ascontiguousarray(ds.seqs), np.ascontiguousarray(ds.offsets, dtype=np.int64)
    for a in range(0, ds.n_contigs, block):
        b = min(a + block, ds.n_contigs)
        bound = (b - a) * (_ID_BYTES + 2) + int(offsets[b] - offsets[a]) + int(llen[a:b].sum()) + int(rlen[a:b].sum())
        out = np.empty(bound, dtype=np.uint8)
        pos = _lines(cids, seqs, offsets, left.walks, lstart, llen, right.walks, rstart, rlen, _COMPLEMENT, a, b, out)
        yield out.data[:pos]

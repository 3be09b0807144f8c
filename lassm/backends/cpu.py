# SPDX-License-Identifier: BSD-3-Clause
"""The CPU backend: numba, parallel over contig ends; the oracle every other backend matches.

Follows ``../shared/spec/local-assembly.md`` step by step with the paper's names (``count_mers``,
``set_ext``, ``walk_mers``, ``iterative_walk``). Each end owns an open-addressing table (linear
probing, MurmurHash2) keyed into the read buffer, sized never to fill, so layout cannot change
the result.
"""
from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit, prange

from ..workloads.local_assembly.result import SideResult
from .sides import Side
from .threads import choose_layer

choose_layer()  # OpenMP, whichever library loaded libtbb first (lassm.backends.threads)

_M = np.uint64(0x5BD1E995)
_MASK = np.uint64(0xFFFFFFFF)
_SEED = np.uint64(0x3FB0BB5F)

# Byte -> base index (A C G T = 0..3, anything else -1).
_BASE_INDEX = np.full(256, -1, dtype=np.int8)
for _i, _b in enumerate(b"ACGT"):
    _BASE_INDEX[_b] = _i
_BASE_CHARS = np.frombuffer(b"ACGT", dtype=np.uint8).copy()
_X, _F, _R = ord("X"), ord("F"), ord("R")


@njit(cache=True, inline="always")
def murmur_hash2(buf, start, length, table_size):
    """MurmurHash2 (m = 0x5bd1e995, r = 24, seed 0x3FB0BB5F) of ``buf[start:start+length]``, mod size."""
    h = (_SEED ^ np.uint64(length)) & _MASK
    i = start
    n = length
    while n >= 4:
        k = (np.uint64(buf[i]) | (np.uint64(buf[i + 1]) << np.uint64(8))
             | (np.uint64(buf[i + 2]) << np.uint64(16)) | (np.uint64(buf[i + 3]) << np.uint64(24)))
        k = (k * _M) & _MASK
        k ^= k >> np.uint64(24)
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
        i += 4
        n -= 4
    if n == 3:
        h ^= np.uint64(buf[i + 2]) << np.uint64(16)
    if n >= 2:
        h ^= np.uint64(buf[i + 1]) << np.uint64(8)
    if n >= 1:
        h ^= np.uint64(buf[i])
        h = (h * _M) & _MASK
    h ^= h >> np.uint64(13)
    h = (h * _M) & _MASK
    h ^= h >> np.uint64(15)
    return np.int64(h % np.uint64(table_size))


@njit(cache=True, inline="always")
def _same(a, ia, b, ib, k):
    for t in range(k):
        if a[ia + t] != b[ib + t]:
            return False
    return True


@njit(cache=True, inline="always")
def _probe(keys, key_buf, buf, pos, k):
    """The slot holding the k-mer ``buf[pos:pos+k]``, else the empty slot where linear probing
    from its hash stops: the one walk that both insert and find take."""
    size = len(keys)
    slot = murmur_hash2(buf, pos, k, size)
    while True:
        kp = keys[slot]
        if kp < 0 or _same(key_buf, kp, buf, pos, k):
            return slot
        slot += 1
        if slot == size:
            slot = 0


@njit(cache=True)
def ht_insert(keys, key_buf, reads, pos, k):
    """Insert-or-find the k-mer ``reads[pos:pos+k]``; returns its slot (keys point into ``reads``)."""
    slot = _probe(keys, key_buf, reads, pos, k)
    if keys[slot] < 0:
        keys[slot] = pos
    return slot


@njit(cache=True)
def ht_find(keys, key_buf, buf, pos, k):
    """Slot of the k-mer ``buf[pos:pos+k]``, or -1 when absent."""
    slot = _probe(keys, key_buf, buf, pos, k)
    return slot if keys[slot] >= 0 else -1


@njit(cache=True)
def count_mers(keys, votes, seqs, quals, offsets, r0, r1, k, qual_offset, base_index):
    """Algorithm 1: every k-mer of every read (but the last) votes for the base after it; returns
    the number of insertions. ``votes[slot, 0:4]`` count votes with q >= MIN_QUAL, ``4:8`` high ones."""
    keys[:] = -1
    votes[:, :] = 0
    n_ins = 0
    for j in range(r0, r1):
        a = offsets[j]
        n = offsets[j + 1] - a
        for s in range(n - k):
            slot = ht_insert(keys, seqs, seqs, a + s, k)
            n_ins += 1
            b = base_index[seqs[a + s + k]]
            if b < 0:  # 'N' or another non-ACGT base: no vote
                continue
            q = np.int64(quals[a + s + k]) - qual_offset
            if q >= 10:  # MIN_QUAL
                votes[slot, b] += 1
            if q >= 20:  # MIN_HI_QUAL
                votes[slot, 4 + b] += 1
    return n_ins


@njit(cache=True, inline="always")
def base_rating(nv, hq, min_viable, min_expected):
    if nv == 0:
        return 0
    if nv == 1:
        return 1
    if nv < min_viable:
        return 2
    if nv < min_expected:
        return 3 if hq < min_viable else 4
    if hq < min_viable:
        return 5
    if min_viable < hq and hq < min_expected:
        return 6
    return 7


@njit(cache=True)
def set_ext(v, depth, base_chars):
    """The vote: the extension base of a k-mer, or X (dead end) / F (fork)."""
    d = np.float64(depth)
    min_viable = max(0.2 * d, 2.0)
    min_expected = max(0.3 * d, 2.0)
    rating = np.empty(4, dtype=np.int64)
    order = np.empty(4, dtype=np.int64)
    for b in range(4):
        rating[b] = base_rating(v[b], v[4 + b], min_viable, min_expected)
        order[b] = b
    # Sort bases by (rating, hi-q votes, votes), highest first (insertion sort of four).
    for i in range(1, 4):
        j = i
        while j > 0:
            x, y = order[j], order[j - 1]
            if (rating[x], v[4 + x], v[x]) > (rating[y], v[4 + y], v[y]):
                order[j], order[j - 1] = y, x
                j -= 1
            else:
                break
    b0, b1, b2 = order[0], order[1], order[2]
    top, runner = rating[b0], rating[b1]
    if top <= 0:  # RATING_THRES
        return _X
    if top <= 3:
        return base_chars[b0] if runner == 0 else _X
    if top < 6:
        return base_chars[b0] if runner < 3 else _X
    if top == 6:
        return base_chars[b0] if runner < 4 else _X
    if runner < 7:
        return base_chars[b0]
    if rating[b2] == 7 or v[b0] == v[b1]:
        return _F
    return base_chars[b0] if v[b0] > v[b1] else base_chars[b1]


@njit(cache=True)
def walk_mers(keys, votes, seqs, wbuf, k, max_walk, depth, visited, base_chars):
    """Algorithm 2: walk from the k-mer ``wbuf[0:k]``, appending bases to ``wbuf``.

    Returns ``(walk length, termination code)``.
    """
    visited[:] = -1
    wl = 0
    for _ in range(max_walk):
        if ht_find(visited, wbuf, wbuf, wl, k) >= 0:
            return wl, _R
        ht_insert(visited, wbuf, wbuf, wl, k)
        slot = ht_find(keys, seqs, wbuf, wl, k)
        if slot < 0:
            return wl, _X
        ext = set_ext(votes[slot], depth, base_chars)
        if ext == _X or ext == _F:
            return wl, ext
        wbuf[wl + k] = ext
        wl += 1
    return wl, _X


@njit(cache=True)
def iterative_walk(ctg, seqs, quals, offsets, r0, r1, depth, start_k, max_walk, qual_offset,
                   best, base_index, base_chars):
    """The k-shift loop for one contig end; the longest walk is left in ``best``.

    Returns ``(walk_len, best_k, term, n_k, steps, insertions, start_insertions)``.
    """
    n_kmers = 0
    for j in range(r0, r1):
        n_kmers += max(offsets[j + 1] - offsets[j] - 21, 0)  # most k-mers at the smallest k
    keys = np.empty(2 * n_kmers + 1, dtype=np.int64)
    votes = np.empty((2 * n_kmers + 1, 8), dtype=np.int32)
    visited = np.empty(2 * max_walk + 1, dtype=np.int64)
    wbuf = np.empty(121 + max_walk, dtype=np.uint8)
    clen = len(ctg)
    max_k = min(121, clen)
    best_len, best_k, best_term, last_term = 0, 0, 0, 0
    n_k, steps, n_ins, start_ins = 0, 0, 0, 0
    shift = 0
    k = start_k
    while 21 <= k <= max_k:
        ins = count_mers(keys, votes, seqs, quals, offsets, r0, r1, k, qual_offset, base_index)
        if n_k == 0:
            start_ins = ins
        n_ins += ins
        n_k += 1
        wbuf[:k] = ctg[clen - k:]
        wl, term = walk_mers(keys, votes, seqs, wbuf, k, max_walk, depth, visited, base_chars)
        steps += wl
        last_term = term
        if wl > best_len:
            best_len, best_k, best_term = wl, k, term
            best[:wl] = wbuf[k:k + wl]
        if term == _X:
            if shift == 8:
                break
            shift = -8
        else:
            if shift == -8:
                break
            shift = 8
        k += shift
    if best_len == 0:
        best_term = last_term
    return best_len, best_k, best_term, n_k, steps, n_ins, start_ins


@njit(cache=True, parallel=True)
def _extend_side(ctg_seqs, ctg_off, depths, seqs, quals, offsets, contig_offsets, run_mask,
                 start_k, max_walk, qual_offset, walks, walk_len, best_k, term, n_k, steps,
                 insertions, start_insertions, base_index, base_chars):
    n = len(ctg_off) - 1
    for i in prange(n):
        if not run_mask[i]:
            continue
        ctg = ctg_seqs[ctg_off[i]:ctg_off[i + 1]]
        res = iterative_walk(ctg, seqs, quals, offsets, contig_offsets[i], contig_offsets[i + 1],
                             np.int64(depths[i]), start_k, max_walk, qual_offset,
                             walks[i * max_walk:(i + 1) * max_walk], base_index, base_chars)
        walk_len[i], best_k[i], term[i], n_k[i] = res[0], res[1], res[2], res[3]
        steps[i], insertions[i], start_insertions[i] = res[4], res[5], res[6]


def extend_side(side: Side, threads: int | None = None) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set (contigs already oriented) on
    ``threads`` numba threads (None: all cores); ``side.bin_counts`` is unused."""
    ctg_seqs, ctg_off, depths, reads, run_mask, params = (side.ctg_seqs, side.ctg_off, side.depths, side.reads,
                                                          side.run_mask, side.params)
    n = len(ctg_off) - 1
    out = SideResult.empty(n, params.max_walk)
    old = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        t0 = time.perf_counter()
        _extend_side(ctg_seqs, ctg_off, depths, reads.seqs, reads.quals, reads.offsets, reads.contig_offsets,
                     np.ascontiguousarray(run_mask, dtype=np.bool_), np.int64(params.k), np.int64(params.max_walk),
                     np.int64(params.qual_offset), out.walks, out.walk_len, out.final_k, out.term, out.n_k,
                     out.steps, out.insertions, out.start_insertions, _BASE_INDEX, _BASE_CHARS)
        out.kernel_seconds = time.perf_counter() - t0
    finally:
        numba.set_num_threads(old)
    return out


def available() -> tuple[bool, str]:
    """The CPU backend is always present."""
    return True, f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads"

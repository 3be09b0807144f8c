# SPDX-License-Identifier: BSD-3-Clause
"""Step 2, sequencing: read pairs as genome intervals (merged where mates overlap), then their
bases and qualities with the sample's error profile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....byte_sets import offsets_of
from .arrays import ranges
from .community import Community
from .profiles import Profile

#: Read length of the simulated sequencer, and the longest merged pair (150 + 150 - 12).
READ_LEN = 150
MIN_MERGE_OVERLAP = 12
MAX_MERGED = 2 * READ_LEN - MIN_MERGE_OVERLAP


@dataclass
class ReadIntervals:
    """Every simulated read as a genome interval, sorted by start: ``kind`` 0 forward mate, 1 reverse
    mate, 2 merged; ``mate`` the other mate (-1 merged); ``frag`` fragment number; ``first`` whether
    ``/1``; ``plus`` whether the read as named runs along the genome."""

    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    mate: np.ndarray
    frag: np.ndarray
    first: np.ndarray
    plus: np.ndarray


def sequence_reads(rng: np.random.Generator, com: Community, prof: Profile) -> ReadIntervals:
    """Fragments per strain (Poisson in coverage x length) and their reads."""
    mean_bases = 2 * READ_LEN
    n_frag = rng.poisson(com.coverage * com.lengths / mean_bases)
    strain = np.repeat(np.arange(len(com.lengths)), n_frag)
    flen = np.rint(rng.normal(prof.frag_mean, prof.frag_sd, size=len(strain))).astype(np.int64)
    flen = np.clip(flen, READ_LEN + 10, None)
    flen = np.minimum(flen, com.lengths[strain])
    fstart = com.starts[strain] + np.floor(rng.random(len(strain)) * (com.lengths[strain] - flen + 1)).astype(np.int64)
    merged = flen <= MAX_MERGED
    n = len(flen)
    fid = np.arange(n, dtype=np.int64)
    fwd_first = rng.random(n) < 0.5
    # merged: one read over the fragment; otherwise forward mate then reverse mate.
    m, u = fid[merged], fid[~merged]
    start = np.concatenate([fstart[m], fstart[u], fstart[u] + flen[u] - READ_LEN])
    end = np.concatenate([fstart[m] + flen[m], fstart[u] + READ_LEN, fstart[u] + flen[u]])
    kind = np.concatenate([np.full(len(m), 2, np.int8), np.zeros(len(u), np.int8), np.ones(len(u), np.int8)])
    frag = np.concatenate([m, u, u])
    first = np.concatenate([np.ones(len(m), bool), fwd_first[u], ~fwd_first[u]])
    nm, nu = len(m), len(u)
    mate = np.concatenate([np.full(nm, -1, np.int64), np.arange(nm + nu, nm + 2 * nu), np.arange(nm, nm + nu)])
    order = np.argsort(start, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    mate = np.where(mate >= 0, rank[np.maximum(mate, 0)], -1)[order]
    plus = np.concatenate([fwd_first[m], np.ones(nu, bool), np.zeros(nu, bool)])
    return ReadIntervals(start[order], end[order], kind[order], mate, frag[order], first[order], plus[order])


@dataclass
class ReadBases:
    """Bases (codes 0..3) and Phred values of reads, genome-forward, with int64 offsets."""

    seqs: np.ndarray
    quals: np.ndarray
    offsets: np.ndarray


#: Qualities other than Q31 and Q3 in the sample (Q4..Q30), as relative frequencies: the
#: sample's histogram of its 1.43 M read bases, rounded.
_MID_QUALS = np.arange(4, 31)
_MID_WEIGHTS = np.array(
    [18, 81, 2569, 706, 3999, 1874, 636, 2303, 543, 831, 1135, 689, 4123, 1449, 2902, 5208,
     3966, 8084, 1977, 2858, 8318, 12242, 12507, 8281, 20415, 6133, 26339], dtype=np.float64)
_MID_CDF = np.cumsum(_MID_WEIGHTS) / _MID_WEIGHTS.sum()
_CYCLE = np.arange(READ_LEN) / (READ_LEN - 1)
#: Chance of a Q3 base and of a mid-range quality by sequencing cycle, before the per-read factor.
_P_LOW = (0.025 + 0.22 * _CYCLE ** 6).astype(np.float32)
_P_MID = (0.10 + 0.09 * _CYCLE ** 3).astype(np.float32)
#: Substitution probability by Phred value (fitted on the sample: see
#: :mod:`lassm.workloads.local_assembly.generate`).
_P_ERR = np.minimum(0.5, 0.66 * 10.0 ** (np.arange(64) / -10.0)).astype(np.float32)


def _phred(rng: np.random.Generator, cycle: np.ndarray, read_of: np.ndarray, n_raw: int) -> np.ndarray:
    """Qualities by sequencing cycle: Q31 mostly, mid values as in the sample, Q3 rising towards 3',
    with a per-read multiplier (some reads are much worse, as in the sample)."""
    low_m = rng.gamma(2.0, 0.5, size=n_raw).astype(np.float32)
    mid_m = rng.gamma(4.0, 0.25, size=n_raw).astype(np.float32)
    p_low = np.minimum(np.float32(0.5), low_m[read_of] * _P_LOW[cycle])
    p_mid = p_low + np.minimum(np.float32(0.45), mid_m[read_of] * _P_MID[cycle])
    x = rng.random(len(cycle), dtype=np.float32)
    qual = np.full(len(cycle), 31, dtype=np.uint8)
    mid = np.flatnonzero(x < p_mid)
    pick = np.searchsorted(_MID_CDF, rng.random(len(mid)), side="right")
    qual[mid] = _MID_QUALS[np.minimum(pick, len(_MID_QUALS) - 1)]
    qual[x < p_low] = 3
    return qual


def read_bases(rng: np.random.Generator, com: Community, reads: ReadIntervals) -> ReadBases:
    """Sequences every read: qualities, substitutions, and the merging of overlapping mates."""
    n = len(reads.start)
    kind = reads.kind
    is_m = kind == 2
    idx_m = np.flatnonzero(is_m)
    # Raw sequenced mates: read i itself (a merged read: its forward mate), then the reverse
    # mates of merged reads.
    raw_start = np.concatenate([reads.start, reads.end[is_m] - READ_LEN])
    raw_rev = np.concatenate([kind == 1, np.ones(len(idx_m), bool)])
    n_raw = len(raw_start)
    rid = np.repeat(np.arange(n_raw, dtype=np.int32), READ_LEN)
    t = np.tile(np.arange(READ_LEN, dtype=np.int32), n_raw)
    cycle = np.where(raw_rev[rid], READ_LEN - 1 - t, t)
    qual = _phred(rng, cycle, rid, n_raw)
    del cycle
    base = com.genome[np.repeat(raw_start, READ_LEN) + t]
    del rid, t
    err = rng.random(len(base), dtype=np.float32) < _P_ERR[qual]
    base[err] = (base[err] + rng.integers(1, 4, size=int(err.sum()), dtype=np.uint8)) % 4
    lens = reads.end - reads.start
    off = offsets_of(lens)
    seq = np.empty(off[-1], dtype=np.uint8)
    q = np.empty(off[-1], dtype=np.uint8)
    # Unmerged reads are their raw mate.
    u = np.flatnonzero(~is_m)
    _, dst = ranges(off[u], lens[u])
    _, src = ranges(u * READ_LEN, lens[u])
    seq[dst], q[dst] = base[src], qual[src]
    if len(idx_m):
        # Merged: forward mate on [0, 150), reverse mate on [F - 150, F); in the overlap the
        # better base wins and a disagreement gets Q2 ('#').
        F = lens[idx_m]
        owner, pos = ranges(np.zeros(len(idx_m), dtype=np.int64), F)
        Fo = F[owner]
        has_f = pos < READ_LEN
        has_r = pos >= Fo - READ_LEN
        fsrc = idx_m[owner] * READ_LEN + np.minimum(pos, READ_LEN - 1)
        rsrc = (n + owner) * READ_LEN + np.clip(pos - (Fo - READ_LEN), 0, READ_LEN - 1)
        fb, fq, rbase, rq = base[fsrc], qual[fsrc], base[rsrc], qual[rsrc]
        both = has_f & has_r
        use_r = ~has_f | (both & (rq > fq))
        mq = np.where(both, np.maximum(fq, rq), np.where(has_f, fq, rq))
        mq[both & (fb != rbase)] = 2
        dstm = off[idx_m][owner] + pos
        seq[dstm] = np.where(use_r, rbase, fb)
        q[dstm] = mq
    return ReadBases(seq, q, off)

# SPDX-License-Identifier: BSD-3-Clause
"""Step 4, read selection: where reads align to a contig (an error-free k-mer seed) and which
end each read, or its projected mate, goes to, by MetaHipMer's ``localassm`` rules.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....byte_sets import offsets_of
from .arrays import ranges, unique
from .community import Community
from .sequencing import READ_LEN, ReadBases, ReadIntervals

#: MetaHipMer's ``min_pair_len`` = insert mean + 3 sd: a mate is projected past a contig end only
#: if the pair could reach past it. The reference runs' walk limit 613 = 121 + 2 x 246 gives the
#: insert statistics they used: 121 + 3 x 246.
PAIR_SPAN = 121 + 3 * 246


def seed_index(com: Community, reads: ReadIntervals, rb: ReadBases, k: int) -> np.ndarray:
    """Prefix counts of read positions that end an error-free k-window, flat over all reads
    (``counts[i]``: windows ending before position ``i``); MetaHipMer's aligner aligns a read only
    where it holds an error-free k-mer of the contig."""
    n = len(rb.seqs)
    lens = np.diff(rb.offsets)
    gpos = np.repeat(reads.start - rb.offsets[:-1], lens)
    gpos += np.arange(n)
    bad = rb.seqs != com.genome[gpos]
    del gpos
    # Position of the last error (or read start) at or before each base; int32 keeps it small.
    reset = np.zeros(n, dtype=np.int32)
    reset[bad] = np.flatnonzero(bad).astype(np.int32) + 1
    starts = rb.offsets[:-1][lens > 0].astype(np.int32)
    reset[starts] = np.maximum(reset[starts], starts)
    np.maximum.accumulate(reset, out=reset)
    clean = (np.arange(n, dtype=np.int32) - reset) >= k - 1
    counts = offsets_of(clean)
    return counts


def align_reads(reads: ReadIntervals, rb: ReadBases, seeds: np.ndarray, p: np.ndarray, e: np.ndarray, k: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """(occurrence, read) pairs where the read holds an error-free k-mer of ``[p, e)``.

    The simulated reads carry no indels, so the overlap is the alignment.
    """
    max_len = int((reads.end - reads.start).max(initial=READ_LEN))
    lo = np.searchsorted(reads.start, p + k - max_len, side="left")
    hi = np.searchsorted(reads.start, e - k, side="right")
    occ, r = ranges(lo, np.maximum(hi - lo, 0))
    a = reads.start[r]
    x0 = np.maximum(a, p[occ]) - a
    x1 = np.minimum(reads.end[r], e[occ]) - a
    keep = x1 - x0 >= k
    occ, r, x0, x1 = occ[keep], r[keep], x0[keep], x1[keep]
    base = rb.offsets[r]
    keep = seeds[base + x1] > seeds[base + x0 + k - 1]
    return occ[keep], r[keep]


@dataclass(frozen=True)
class EndReads:
    """The reads chosen at the contig ends, one entry each: the unitig occurrence, the side
    (0 = left, 1 = right) and the read, sorted by (occurrence, side, read)."""

    occ: np.ndarray
    side: np.ndarray
    read: np.ndarray


def select_end_reads(reads: ReadIntervals, occ: np.ndarray, r: np.ndarray, p: np.ndarray, e: np.ndarray, pair_span: int
            ) -> EndReads:
    """The reads of each contig end (:class:`EndReads`), by MetaHipMer's ``process_alns`` rules.

    Each read keeps its best (longest) alignment and goes to the end it runs off (its own 5' side
    first when both); unless the pair cannot reach past the end (``pair_span``, MetaHipMer's
    ``min_pair_len``), its mate is projected to the end the read points at. Merged reads have no mate."""
    a, b = reads.start[r], reads.end[r]
    ov = np.minimum(b, e[occ]) - np.maximum(a, p[occ])
    order = np.lexsort((occ, ov, r))
    last = np.ones(len(order), dtype=bool)
    last[:-1] = r[order][1:] != r[order][:-1]
    best = order[last]
    occ, r, a, b = occ[best], r[best], a[best], b[best]
    po, eo = p[occ], e[occ]
    plus = reads.plus[r]
    before, after = a < po, b > eo
    to_left = np.where(plus, before, before & ~after)
    to_right = np.where(plus, ~before & after, after)
    mate = reads.mate[r]
    rlen = b - a
    proj_r = (mate >= 0) & plus & (a + pair_span - rlen >= eo)
    proj_l = (mate >= 0) & ~plus & (b - pair_span + rlen <= po)
    oo = np.concatenate([occ[to_left], occ[to_right], occ[proj_l], occ[proj_r]]).astype(np.int64)
    ss = np.concatenate([np.zeros(to_left.sum(), np.int64), np.ones(to_right.sum(), np.int64),
                         np.zeros(proj_l.sum(), np.int64), np.ones(proj_r.sum(), np.int64)])
    rr = np.concatenate([r[to_left], r[to_right], mate[proj_l], mate[proj_r]]).astype(np.int64)
    nr = np.int64(len(reads.start))
    key = unique((oo * 2 + ss) * nr + rr)[0]
    return EndReads(key // nr // 2, (key // nr) % 2, key % nr)

# SPDX-License-Identifier: BSD-3-Clause
"""Step 5, the earlier rounds: every contig end walked as the kernel would at each smaller k of
MetaHipMer's schedule, so a dataset's contigs already reach where their reads stop agreeing.
"""
from __future__ import annotations

import numpy as np

from ....byte_sets import offsets_of
from .arrays import ranges, unique
from .end_reads import EndReads
from .sequencing import ReadBases, ReadIntervals
from .unitigs import Unitigs

#: MetaHipMer's k schedule: a dataset at k went through one local-assembly round at every
#: smaller k of it (see :func:`walk_ext`); the k = 21 dataset is the first round.
MHM_KS = (21, 33, 55, 77, 99)
#: Longest walk of an earlier round (MetaHipMer's walk limit in the reference runs).
MAX_WALK_PRE = 613
#: k of the earlier rounds' walks: MetaHipMer's smallest, which every round falls back to.
PRE_K = 21


def _choose(nv: np.ndarray, hq: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The kernel's extension choice per row of vote counts (``nv``, ``hq``: rows x 4): base 0..3, or
    -1 for a dead end or fork (``shared/spec/local-assembly.md``, step 1)."""
    d = np.floor(depth)[:, None]
    viable = np.maximum(0.2 * d, 2.0)
    expected = np.maximum(0.3 * d, 2.0)
    rating = np.select(
        [nv == 0, nv == 1, nv < viable, (nv < expected) & (hq < viable), nv < expected, hq < viable,
         (viable < hq) & (hq < expected)],
        [0, 1, 2, 3, 4, 5, 6], default=7)
    key = (rating.astype(np.int64) << 40) | (hq.astype(np.int64) << 20) | nv.astype(np.int64)
    order = np.argsort(-key, axis=1, kind="stable")
    rows = np.arange(len(nv))
    top, run, third = (rating[rows, order[:, i]] for i in range(3))
    nv_top, nv_run = nv[rows, order[:, 0]], nv[rows, order[:, 1]]
    ok = (top > 0) & (((top <= 3) & (run == 0)) | (((top == 4) | (top == 5)) & (run < 3))
                      | ((top == 6) & (run < 4)) | ((top == 7) & (run < 7)))
    both7 = (top == 7) & (run == 7)
    pick_run = both7 & (third != 7) & (nv_run > nv_top)
    fork = both7 & ((third == 7) | (nv_run == nv_top))
    out = np.where(ok | (both7 & ~fork), np.where(pick_run, order[:, 1], order[:, 0]), -1)
    return out


def walk_ext(reads: ReadIntervals, rb: ReadBases, selected: EndReads, utg: Unitigs, tails: np.ndarray,
             k: int) -> tuple[np.ndarray, np.ndarray]:
    """One earlier round of local assembly on every contig end: how far it got, and its bases.

    All ends are walked at once, column by column (``selected``: end reads; ``utg``: unitigs;
    ``tails``: each end's last k bases, nearest first): a read votes for column ``j`` when it holds
    the k-mer before ``j`` and its base there has quality >= 10; :func:`_choose` rates the votes.
    Hash-table details are left out. Returns (walk length per end ``2 * contig + side``, flat bases
    in the forward frame, end by end, each ordered away from its contig)."""
    so, ss, sr = selected.occ, selected.side, selected.read
    p, e, contig, depth = utg.occ_start, utg.occ_end, utg.occ_contig, utg.depth
    n_ends = 2 * len(depth)
    right = ss == 1
    a, b = reads.start[sr], reads.end[sr]
    ed = np.where(right, e[so], p[so])
    lo = np.where(right, a - ed, ed - b)
    hi = np.where(right, b - ed, ed - a)
    base0 = np.where(right, ed - a, ed - 1 - a) + rb.offsets[sr]
    step = np.where(right, 1, -1)
    end = 2 * contig[so] + ss
    # Mismatches against the contig's last k bases.
    owner, col = ranges(np.maximum(lo, -k), np.maximum(np.minimum(hi, 0) - np.maximum(lo, -k), 0))
    rbase = rb.seqs[base0[owner] + step[owner] * col]
    mism = rbase != tails[end[owner], -col - 1]
    last_mm = np.full(len(sr), -k - 1, dtype=np.int64)
    np.maximum.at(last_mm, owner[mism], col[mism])
    out_end: list[np.ndarray] = []
    out_base: list[np.ndarray] = []
    length = np.zeros(n_ends, dtype=np.int64)
    live = np.ones(n_ends, dtype=bool)
    keep = hi > 0
    lo, hi, base0, step, end, last_mm = lo[keep], hi[keep], base0[keep], step[keep], end[keep], last_mm[keep]
    j = 0
    while len(end) and j < MAX_WALK_PRE:
        cover = lo <= j
        voter = cover & (lo <= j - k) & (last_mm < j - k)
        src = base0 + step * j
        src_c = np.where(cover, src, 0)
        bj, qj = rb.seqs[src_c], rb.quals[src_c]
        vote = voter & (qj >= 10)
        ends_v, inv, _ = unique(end[vote])
        nv = np.zeros((len(ends_v), 4), dtype=np.int64)
        hq = np.zeros((len(ends_v), 4), dtype=np.int64)
        np.add.at(nv, (inv, bj[vote]), 1)
        np.add.at(hq, (inv, bj[vote]), (qj[vote] >= 20).astype(np.int64))
        choice = np.full(n_ends, -1, dtype=np.int64)
        choice[ends_v] = _choose(nv, hq, depth[ends_v // 2])
        ok = choice >= 0
        ok &= live
        chosen = np.flatnonzero(ok)
        out_end.append(chosen)
        out_base.append(choice[chosen].astype(np.uint8))
        length[chosen] += 1
        live &= ok
        c_pair = choice[end]
        last_mm = np.where(cover & (bj != c_pair), j, last_mm)
        j += 1
        still = live[end] & (hi > j)
        lo, hi, base0, step, end, last_mm = lo[still], hi[still], base0[still], step[still], end[still], last_mm[still]
    if out_end:
        ends_all = np.concatenate(out_end)
        bases_all = np.concatenate(out_base)
        order = np.argsort(ends_all, kind="stable")
        return length, bases_all[order]
    return length, np.zeros(0, dtype=np.uint8)


def new_tails(tails: np.ndarray, length: np.ndarray, bases: np.ndarray) -> np.ndarray:
    """Every end's last k bases (nearest first) after appending its walk."""
    k = tails.shape[1]
    off = np.cumsum(length) - length
    i = np.arange(k)[None, :]
    from_walk = i < length[:, None]
    idx = np.where(from_walk, off[:, None] + length[:, None] - 1 - i, 0)
    old = np.take_along_axis(tails, np.clip(i - length[:, None], 0, k - 1), axis=1)
    return np.where(from_walk, bases[idx] if len(bases) else 0, old).astype(np.uint8)


def join_rounds(parts: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """Concatenates per-round extensions (lengths, flat bases) contig by contig, in round order."""
    total = np.zeros(n, dtype=np.int64)
    for ln, _ in parts:
        total += ln
    off = offsets_of(total)
    out = np.empty(off[-1], dtype=np.uint8)
    done = np.zeros(n, dtype=np.int64)
    for (ln, bases) in parts:
        _, dst = ranges(off[:-1] + done, ln)
        out[dst] = bases
        done += ln
    return out

# SPDX-License-Identifier: BSD-3-Clause
"""Step 6, extraction: a dataset cut from one or more simulated communities, reads grouped by
contig end and oriented as MetaHipMer stores them.
"""
from __future__ import annotations

import numpy as np

from ....byte_sets import offsets_of
from ..dataset import Dataset, Reads
from .arrays import ASCII, ranges
from .batch import Batch

#: Phred offset of the qualities written (MetaHipMer's, and the kernel's default).
QUAL_OFFSET = 33


def extract(rng: np.random.Generator, batches: list[Batch], target: int, k: int, name: str) -> Dataset:
    """Draws ``target`` contigs with reads (and the same share of those without): the Dataset."""
    b_of = np.concatenate([np.full(len(bt.depth), i) for i, bt in enumerate(batches)])
    c_of = np.concatenate([np.arange(len(bt.depth)) for bt in batches])
    has = np.concatenate([bt.has_reads for bt in batches])
    with_r, without = np.flatnonzero(has), np.flatnonzero(~has)
    pick_w = rng.choice(with_r, size=target, replace=False)
    n_wo = min(len(without), int(round(target / len(with_r) * len(without))))
    pick = np.concatenate([pick_w, rng.choice(without, size=n_wo, replace=False)])
    rng.shuffle(pick)
    n = len(pick)
    slot_b, slot_c = b_of[pick], c_of[pick]
    depths = np.empty(n, dtype=np.float64)
    lens = np.empty(n, dtype=np.int64)
    for i, bt in enumerate(batches):
        mine = slot_b == i
        depths[mine] = bt.depth[slot_c[mine]]
        lens[mine] = np.diff(bt.contig_off)[slot_c[mine]]
    offsets = offsets_of(lens)
    seqs = np.empty(offsets[-1], dtype=np.uint8)
    sides: dict[int, list] = {0: [], 1: []}
    frag_base = 0
    for i, bt in enumerate(batches):
        mine = np.flatnonzero(slot_b == i)
        c = slot_c[mine]
        _, dst = ranges(offsets[mine], lens[mine])
        _, src = ranges(bt.contig_off[c], lens[mine])
        seqs[dst] = bt.contig_seq[src]
        slot = np.full(len(bt.depth), -1, dtype=np.int64)
        slot[c] = mine
        out = slot[bt.sel_contig]
        ok = out >= 0
        for side in (0, 1):
            m = ok & (bt.sel_side == side)
            sides[side].append((out[m], bt.sel_read[m], bt, frag_base))
        frag_base += bt.n_frags
    return Dataset(cids=np.arange(n, dtype=np.int64), seqs=seqs, offsets=offsets, depths=depths,
                   left=_side_reads(sides[0], n, left=True), right=_side_reads(sides[1], n, left=False),
                   name=name, k=k)


def _side_reads(parts: list, n: int, left: bool) -> Reads:
    """One side's :class:`Reads`, grouped by output contig, pairs together (``/1`` first).

    Right reads are stored genome-forward; left reads reverse complemented, qualities reversed.
    """
    slot = np.concatenate([p[0] for p in parts])
    read = np.concatenate([p[1] for p in parts])
    bidx = np.concatenate([np.full(len(p[0]), i) for i, p in enumerate(parts)])
    frag = np.concatenate([p[2].frag[p[1]] + p[3] for p in parts])
    first = np.concatenate([p[2].first[p[1]] for p in parts])
    order = np.lexsort((~first, frag, slot))
    slot, read, bidx, frag, first = slot[order], read[order], bidx[order], frag[order], first[order]
    lens = np.concatenate([np.diff(p[2].bases.offsets)[p[1]] for p in parts])[order]
    offsets = offsets_of(lens)
    seqs = np.empty(offsets[-1], dtype=np.uint8)
    quals = np.empty(offsets[-1], dtype=np.uint8)
    for i, part in enumerate(parts):
        sel = np.flatnonzero(bidx == i)
        if len(sel) == 0:
            continue
        bases = part[2].bases
        ln = lens[sel]
        owner, dst = ranges(offsets[sel], ln)
        w = dst - offsets[sel][owner]
        src = bases.offsets[read[sel]][owner] + (ln[owner] - 1 - w if left else w)
        b = bases.seqs[src]
        seqs[dst] = ASCII[3 - b] if left else ASCII[b]
        quals[dst] = bases.quals[src] + QUAL_OFFSET
    coff = offsets_of(np.bincount(slot, minlength=n))
    ids = [f"@r{f}/{1 if fi else 2}" for f, fi in zip(frag.tolist(), first.tolist())]
    return Reads(seqs, quals, offsets, coff, ids)

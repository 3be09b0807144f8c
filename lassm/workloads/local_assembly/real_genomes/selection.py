# SPDX-License-Identifier: BSD-3-Clause
"""Steps 5-6 read back: minimap2's primary alignments, MetaHipMer's ``localassm`` read selection
at every contig end, and the dataset of one k.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from ....byte_sets import offsets_of
from ..dataset import Dataset, Reads
from .merging import ReadSet
from .presets import PAIR_SPAN
from .sequence_files import revcomp

_CIGAR = re.compile(r"(\d+)([MIDNSHP=X])")


@dataclass(frozen=True)
class Alignment:
    """One primary alignment: read index, contig, strand, ``start``/``end`` on the contig (0-based, half
    open), and ``clip_left``/``clip_right`` read bases beyond it, in the contig's forward direction."""

    read: int
    contig: str
    plus: bool
    start: int
    end: int
    clip_left: int
    clip_right: int


def parse_sam(path: Path) -> Iterator[Alignment]:
    """Primary mapped alignments of a SAM file whose read names are read indices."""
    with open(path, "r") as fh:
        for line in fh:
            if line.startswith("@"):
                continue
            f = line.split("\t", 6)
            flag = int(f[1])
            if flag & 0x904 or f[2] == "*":
                continue
            ops = [(int(n), op) for n, op in _CIGAR.findall(f[5])]
            span = sum(n for n, op in ops if op in "MDN=X")
            lead = sum(n for n, op in ops[:2] if op in "SH") if ops and ops[0][1] in "SH" else 0
            trail = sum(n for n, op in ops[-2:] if op in "SH") if ops and ops[-1][1] in "SH" else 0
            start = int(f[3]) - 1
            yield Alignment(int(f[0]), f[2], not flag & 0x10, start, start + span, lead, trail)


def select_reads(alns: Iterable[Alignment], clen: dict[str, int], reads: ReadSet, pair_span: int = PAIR_SPAN
                 ) -> tuple[dict[str, list[tuple[int, bool]]], dict[str, list[tuple[int, bool]]], dict[str, float]]:
    """MetaHipMer's candidate reads of every contig end, and each contig's depth: ``(left, right,
    depth)``, sorted lists of ``(read index, on the forward strand)`` per contig, and aligned bases /
    length."""
    left: dict[str, set[tuple[int, bool]]] = {c: set() for c in clen}
    right: dict[str, set[tuple[int, bool]]] = {c: set() for c in clen}
    covered = dict.fromkeys(clen, 0)
    for a in alns:
        n = clen[a.contig]
        covered[a.contig] += a.end - a.start
        before = a.start == 0 and a.clip_left > 0
        after = a.end == n and a.clip_right > 0
        # A read running off both ends goes to its own 5' side only.
        if before and (a.plus or not after):
            left[a.contig].add((a.read, a.plus))
        elif after:
            right[a.contig].add((a.read, a.plus))
        mate = reads.mate[a.read]
        if mate < 0:
            continue
        rlen = a.clip_left + (a.end - a.start) + a.clip_right
        if a.plus and (a.start - a.clip_left) + pair_span - rlen >= n:
            right[a.contig].add((mate, False))
        elif not a.plus and (a.end + a.clip_right) - pair_span + rlen <= 0:
            left[a.contig].add((mate, True))
    depth = {c: covered[c] / clen[c] for c in clen}
    return ({c: sorted(v) for c, v in left.items()}, {c: sorted(v) for c, v in right.items()}, depth)


def _oriented(reads: ReadSet, j: int, plus: bool, left: bool) -> tuple[str, bytes, bytes]:
    """Read ``j`` as stored for its side: forward on the contig (right), then rc for the left."""
    seq, qual = reads.seqs[j], reads.quals[j]
    if plus == left:  # rc exactly once: a forward read on the left, a reverse one on the right
        seq, qual = revcomp(seq), qual[::-1]
    return reads.ids[j], seq, qual


def make_dataset(contigs: list[bytes], sam: Path, reads: ReadSet, k: int, name: str,
                 pair_span: int = PAIR_SPAN) -> Dataset:
    """The local-assembly input of one k: contig ``i`` is ``contigs[i]`` (named ``str(i)`` in
    ``sam``), its depth, and the reads of each end (mates projected within ``pair_span``)."""
    names = [str(i) for i in range(len(contigs))]
    clen = {nm: len(s) for nm, s in zip(names, contigs)}
    left, right, depth = select_reads(parse_sam(sam), clen, reads, pair_span)
    offsets = offsets_of([len(s) for s in contigs])
    return Dataset(
        cids=np.arange(len(contigs), dtype=np.int64),
        seqs=np.frombuffer(b"".join(contigs), dtype=np.uint8).copy(),
        offsets=offsets,
        depths=np.array([round(depth[nm], 4) for nm in names], dtype=np.float64),
        left=Reads.from_lists([[_oriented(reads, j, p, True) for j, p in left[nm]] for nm in names]),
        right=Reads.from_lists([[_oriented(reads, j, p, False) for j, p in right[nm]] for nm in names]),
        name=name,
        k=k,
    )

# SPDX-License-Identifier: BSD-3-Clause
"""Step 3, merging: mates whose ends overlap exactly become one read, as MetaHipMer's
``merge_reads`` stage makes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .sequence_files import revcomp

#: Shortest exact overlap that merges two mates (the generator's, after the sample's 288 bp).
MIN_MERGE_OVERLAP = 12


@dataclass
class ReadSet:
    """Every read after merging: index ``j`` is a merged pair or one mate; ``mate[j]`` is the other
    mate (-1 when merged); ``ids`` are ``@r<pair>/1`` and ``/2`` (a merged pair keeps ``/1``)."""

    ids: list[str]
    seqs: list[bytes]
    quals: list[bytes]
    mate: list[int]


def merge_pair(r1: bytes, q1: bytes, r2: bytes, q2: bytes, min_overlap: int = MIN_MERGE_OVERLAP
               ) -> tuple[bytes, bytes] | None:
    """Merges two mates whose 3' ends overlap exactly by >= ``min_overlap`` bases (the longest overlap,
    the better quality per base), else None; mates disagreeing in the overlap stay unmerged."""
    m2, mq2 = revcomp(r2), q2[::-1]
    for o in range(min(len(r1), len(m2)), min_overlap - 1, -1):
        if r1[len(r1) - o:] == m2[:o]:
            qa, qb = q1[len(q1) - o:], mq2[:o]
            qo = bytes(max(a, b) for a, b in zip(qa, qb))
            return r1 + m2[o:], q1[: len(q1) - o] + qo + mq2[o:]
    return None


def merge_reads(pairs: Iterable[tuple[bytes, bytes, bytes, bytes]]) -> ReadSet:
    """Numbers the pairs ``r0, r1, ...`` in order and merges those that overlap."""
    rs = ReadSet([], [], [], [])
    for n, (s1, q1, s2, q2) in enumerate(pairs):
        merged = merge_pair(s1, q1, s2, q2)
        if merged is not None:
            rs.ids.append(f"@r{n}/1")
            rs.seqs.append(merged[0])
            rs.quals.append(merged[1])
            rs.mate.append(-1)
        else:
            j = len(rs.ids)
            rs.ids += [f"@r{n}/1", f"@r{n}/2"]
            rs.seqs += [s1, s2]
            rs.quals += [q1, q2]
            rs.mate += [j + 1, j]
    return rs

# SPDX-License-Identifier: BSD-3-Clause
"""Step 4's output read back: MEGAHIT's contigs at one k, in a canonical form that makes their
ids (ranks) reproducible.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from .sequence_files import read_fasta, revcomp


def canonical_contigs(contigs: Iterable[tuple[str, bytes]]) -> list[bytes]:
    """Contigs in a canonical form: each as the smaller of itself and its reverse complement,
    sorted. MEGAHIT with two threads makes the same contigs run after run, but numbers and
    orients them in an order that varies; this makes the contig ids (their rank) reproducible.
    """
    return sorted(min(seq, revcomp(seq)) for _, seq in contigs)


def contigs_at(folder: Path, k: int, ks: Iterable[int]) -> Iterator[tuple[str, bytes]]:
    """MEGAHIT's contigs at ``k``: ``k<k>.contigs.fa`` plus the contigs set aside as final at this or
    any smaller k of ``ks``, since MetaHipMer keeps every contig in every round."""
    for kk in sorted(int(x) for x in ks):
        if kk > k:
            break
        names = ([f"k{kk}.contigs.fa"] if kk == k else []) + [f"k{kk}.final.contigs.fa"]
        for name in names:
            if (folder / name).exists():
                yield from read_fasta(folder / name)

# SPDX-License-Identifier: BSD-3-Clause
"""Step 1, the community: species genomes with repeats, their strains and their abundances."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .profiles import Profile

#: Median species genome length. Real genomes are megabases long, but an extracted dataset holds
#: a few contigs from each of many species: many short genomes keep the figures from hanging on
#: the draw of a few species' abundances.
GENOME_MEDIAN = 8_000
#: Diverged repeat copies (100-1,500 bp, 0-2 % divergent) per kb of genome, and short tandem
#: repeats per kb.
REPEAT_RATE = 0.3
TANDEM_RATE = 0.05
#: Most strains of one species besides its reference.
MAX_EXTRA_STRAINS = 3


@dataclass
class Community:
    """Strain genomes concatenated (codes 0..3) with per-strain start, length and coverage."""

    genome: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    coverage: np.ndarray


def _mutate(rng: np.random.Generator, seq: np.ndarray, rate: float) -> None:
    """Substitutes ``rate`` of the bases of ``seq`` in place (always to a different base)."""
    n = rng.binomial(len(seq), rate)
    if n:
        pos = rng.choice(len(seq), size=n, replace=False)
        seq[pos] = (seq[pos] + rng.integers(1, 4, size=n)) % 4


def _species_reference(rng: np.random.Generator, length: int) -> np.ndarray:
    """One species genome: biased composition, diverged internal repeats, tandem repeats."""
    gc = rng.uniform(0.3, 0.7)
    ref = rng.choice(4, size=length, p=[(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]).astype(np.uint8)
    # Diverged copies of a segment elsewhere in the genome (IS elements, paralogs): forks at k.
    for _ in range(rng.poisson(length / 1000 * REPEAT_RATE)):
        span = int(rng.integers(100, 1500))
        if span * 3 > length:
            continue
        src, dst = rng.integers(0, length - span, size=2)
        seg = ref[src:src + span].copy()
        _mutate(rng, seg, rng.uniform(0.0, 0.02))
        ref[dst:dst + span] = seg
    # Short tandem repeats: loops in the graph at small k.
    for _ in range(rng.poisson(length / 1000 * TANDEM_RATE)):
        unit = rng.integers(0, 4, size=int(rng.integers(2, 7))).astype(np.uint8)
        span = int(rng.integers(20, 90))
        dst = int(rng.integers(0, length - span))
        ref[dst:dst + span] = np.resize(unit, span)
    return ref


def _strain(rng: np.random.Generator, ref: np.ndarray, snp_rate: float) -> np.ndarray:
    """A strain: the reference with SNPs and a few 1-4 bp indels."""
    seq = ref.copy()
    _mutate(rng, seq, snp_rate)
    n_indel = rng.binomial(len(seq), snp_rate / 15)
    if n_indel:
        pos = np.sort(rng.choice(len(seq), size=n_indel, replace=False))
        sizes = rng.integers(1, 5, size=n_indel)
        is_del = rng.random(n_indel) < 0.5
        keep = np.ones(len(seq), dtype=bool)
        for p, s in zip(pos[is_del], sizes[is_del]):
            keep[p:p + s] = False
        ins_at = pos[~is_del]
        ins = [rng.integers(0, 4, size=s).astype(np.uint8) for s in sizes[~is_del]]
        pieces = []
        prev = 0
        for p, extra in zip(ins_at, ins):
            pieces.append(seq[prev:p][keep[prev:p]])
            pieces.append(extra)
            prev = p
        pieces.append(seq[prev:][keep[prev:]])
        seq = np.concatenate(pieces)
    return seq


def make_community(rng: np.random.Generator, ref_bases: int, prof: Profile) -> Community:
    """Species until ``ref_bases`` reference bases, each with its strains and coverages."""
    strains: list[np.ndarray] = []
    cover: list[float] = []
    total = 0
    while total < ref_bases:
        length = int(np.clip(rng.lognormal(np.log(GENOME_MEDIAN), 0.5), GENOME_MEDIAN // 4, GENOME_MEDIAN * 5))
        ref = _species_reference(rng, length)
        total += length
        cov = float(rng.lognormal(np.log(prof.cov_median), prof.cov_sigma))
        n_extra = min(int(rng.poisson(prof.strains)), MAX_EXTRA_STRAINS)
        if n_extra == 0:
            members = [ref]
        else:
            rates = prof.snp_rate * rng.lognormal(0.0, 0.4, size=n_extra + 1)
            members = [_strain(rng, ref, r) for r in rates]
        # Strains split the species' abundance unevenly; a species with more strains is also
        # somewhat more abundant (sqrt), so its strains are not all starved of reads.
        shares = rng.dirichlet(np.full(len(members), 1.5))
        for seq, share in zip(members, shares):
            strains.append(seq)
            cover.append(cov * share * len(members) ** 0.5)
    lengths = np.array([len(s) for s in strains], dtype=np.int64)
    starts = np.zeros(len(strains), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return Community(np.concatenate(strains), starts, lengths, np.array(cover))

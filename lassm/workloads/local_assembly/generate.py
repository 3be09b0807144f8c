# SPDX-License-Identifier: BSD-3-Clause
"""A synthetic metagenome in MetaHipMer's local-assembly input form, calibrated to Table II.

The paper's k = 21/33/55 datasets are not public and the k = 77 one (``data/metahipmer-sample``,
whose figures are Table II's row) is small, so scale runs need generated data; and it must look
like the real thing to the kernel: contig ends where the de Bruijn graph forks or coverage runs
out, reads of several strains, low-quality bases that cast no votes, merged pairs. The generator
follows MetaHipMer's pipeline in miniature:

1. **Community.** Species genomes (random, GC 30-70 %, short: :data:`GENOME_MEDIAN`) with
   diverged internal repeats and short tandem repeats. A species has 1-4 strains (SNPs and
   1-4 bp indels against a common reference); species abundance is log-normal, strain shares
   Dirichlet.
2. **Sequencing.** Read pairs (2 x 150 bp) from normally distributed fragments; mates that
   overlap by >= 12 bases are merged into one read of up to 288 bp, as in the sample. Qualities
   follow the sample: mostly ``@`` (Q31), mid values as in its histogram, ``$`` (Q3) growing
   towards the 3' end, per-read variation. Substitutions occur with probability
   ``0.66 x 10^(-Q/10)`` (fitted on the sample's reads against their contigs: Q3 bases are
   wrong a third of the time, Q31 bases 1 in 2,000). In a merged overlap the better base wins;
   a disagreement becomes ``#`` (Q2), as in the sample.
3. **Contigs.** Unitigs of the de Bruijn graph at k of the strain genomes, over k-mers that two
   or more reads cover (MetaHipMer's depth floor; the sample's depths start at 2.0): a contig
   ends where a k-mer has several successors (strain SNP, repeat copy), the next k-mer several
   predecessors, or coverage drops. Depth is the mean k-mer count.
4. **Read selection**, as MetaHipMer's ``localassm`` does it: a read aligns to a contig where it
   holds an error-free k-mer of it (a seed), and keeps only its best (longest) alignment; it
   goes to the end it runs off, and its mate is projected to the end it points at when the pair
   could reach past it (``min_pair_len`` = :data:`PAIR_SPAN`). Right reads are stored forward,
   left reads reverse complemented.
5. **Earlier rounds.** MetaHipMer runs local assembly at k = 21, 33, 55, 77 in turn, feeding
   each round's extended contigs to the next, so a dataset at k holds contigs that every
   smaller k already walked (:func:`_walk_ext`: the kernel's vote rules, column by column, then
   reselection) and that stop a base or two short of that walk (:data:`TRIM_P`). That is why
   the kernel's walks are short: the sample's ends walk 0 (30 %), 1 (52 %) or 2 (11 %) bases.
6. **Extraction.** Like the paper, a dataset is cut from a larger assembly (:data:`POOL_KB`):
   ``round(scale x contigs)`` random contigs with reads, and the same share of contigs without
   (MetaHipMer's rules leave many short contigs without reads: about 79 % at k = 21 and 27 % at
   k = 77, against 23 % in the sample).

Calibration (:data:`PROFILES`): the per-k knobs were tuned against
:data:`lassm.workloads.local_assembly.stats.PAPER_TABLE2` by running the numba CPU kernel on the generated data and taking
:func:`lassm.workloads.local_assembly.stats.table2_row` (``tests/test_generate.py`` repeats that check at scale 1), over
several seeds:

* ``frag_mean`` sets the share of merged pairs and so ``avg read length`` (155/159/166/175);
* ``cov_median`` sets reads per contig (5.22/4.65/3.97/3.08);
* ``snp_rate`` and ``strains`` set how often the graph forks and so contig length, the bulk of
  ``avg extension length`` (48.2/88.2/161/227);
* ``contigs`` is Table II's count of contigs with reads (the scale-1 size).

Other k values interpolate the profiles linearly (clamped outside 21..77). Only numpy and the
standard library are used: the generator must run on GPU nodes that lack numba and pyarrow.

This module is over 500 lines because its stages (community, sequencing, unitigs, read
selection, earlier rounds) share private array records (``_Community``, ``_Reads``,
``_ReadBases``, ``_Unitigs``, ``_Batch``) and calibration constants; one module per stage is the
next step of issue 14.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields
from typing import Iterator

import numpy as np

from .dataset import Dataset, Reads

#: Read length of the simulated sequencer, and the longest merged pair (150 + 150 - 12).
READ_LEN = 150
MIN_MERGE_OVERLAP = 12
MAX_MERGED = 2 * READ_LEN - MIN_MERGE_OVERLAP
#: MetaHipMer's k-mer depth floor: k-mers seen fewer times are not in the graph.
MIN_KMER_COUNT = 2
QUAL_OFFSET = 33
#: MetaHipMer's ``min_pair_len`` = insert mean + 3 sd: a mate is projected past a contig end only
#: if the pair could reach past it. The reference runs' walk limit 613 = 121 + 2 x 246 gives the
#: insert statistics they used: 121 + 3 x 246.
PAIR_SPAN = 121 + 3 * 246
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
#: Reference bases (kb) the extraction draws from, where that is at most 3x what it keeps.
POOL_KB = 1200
#: Largest community simulated at once (kb of reference); larger datasets take several, which
#: bounds memory (about 0.7 GB at k = 21).
MAX_BATCH_KB = 1500
#: MetaHipMer's k schedule: a dataset at k went through one local-assembly round at every
#: smaller k of it (see :func:`_walk_ext`); the k = 21 dataset is the first round.
MHM_KS = (21, 33, 55, 77, 99)
#: Longest walk of an earlier round (MetaHipMer's walk limit in the reference runs).
MAX_WALK_PRE = 613
#: Bases (0, 1, 2) a contig end stops short of its earlier walk, with these probabilities: the
#: sample's walks of 0, 1 and 2 bases (29, 51 and 11 % of its ends), normalised.
TRIM_P = (0.32, 0.56, 0.12)
#: k of the earlier rounds' walks: MetaHipMer's smallest, which every round falls back to.
PRE_K = 21

#: Qualities other than Q31 and Q3 in the sample (Q4..Q30), as relative frequencies: the
#: sample's histogram of its 1.43 M read bases, rounded.
_MID_QUALS = np.arange(4, 31)
_MID_WEIGHTS = np.array(
    [18, 81, 2569, 706, 3999, 1874, 636, 2303, 543, 831, 1135, 689, 4123, 1449, 2902, 5208,
     3966, 8084, 1977, 2858, 8318, 12242, 12507, 8281, 20415, 6133, 26339], dtype=np.float64)
_MID_CDF = np.cumsum(_MID_WEIGHTS) / _MID_WEIGHTS.sum()

_ASCII = np.frombuffer(b"ACGT", dtype=np.uint8)


@dataclass(frozen=True)
class Profile:
    """Per-k knobs of the simulation (see the module docstring for what each one calibrates).

    Parameters
    ----------
    contigs : contigs with reads at scale 1 (Table II).
    frag_mean, frag_sd : fragment length distribution (bp).
    cov_median, cov_sigma : species read coverage, log-normal.
    snp_rate : per-strain SNP rate against the species reference.
    strains : mean number of extra strains per species (Poisson, capped at 3).
    yield_per_kb : contigs with reads per kb of reference genome, as measured (sizes the pool).
    """

    contigs: float
    frag_mean: float
    frag_sd: float
    cov_median: float
    cov_sigma: float
    snp_rate: float
    strains: float
    yield_per_kb: float


#: Calibrated profiles (k -> knobs); targets from :data:`lassm.workloads.local_assembly.stats.PAPER_TABLE2`.
PROFILES: dict[int, Profile] = {
    21: Profile(contigs=14195, frag_mean=340.0, frag_sd=60.0, cov_median=4.5, cov_sigma=0.4,
                snp_rate=0.025, strains=3.0, yield_per_kb=18.0),
    33: Profile(contigs=4394, frag_mean=325.0, frag_sd=60.0, cov_median=3.8, cov_sigma=0.4,
                snp_rate=0.030, strains=2.5, yield_per_kb=12.4),
    55: Profile(contigs=3319, frag_mean=297.0, frag_sd=60.0, cov_median=4.0, cov_sigma=0.4,
                snp_rate=0.033, strains=2.5, yield_per_kb=8.2),
    77: Profile(contigs=2544, frag_mean=270.0, frag_sd=60.0, cov_median=4.1, cov_sigma=0.4,
                snp_rate=0.034, strains=0.8, yield_per_kb=5.0),
}


def profile_for(k: int) -> Profile:
    """The calibrated profile at ``k``, interpolated linearly between the table's k values."""
    ks = sorted(PROFILES)
    if k <= ks[0]:
        return PROFILES[ks[0]]
    if k >= ks[-1]:
        return PROFILES[ks[-1]]
    hi = next(x for x in ks if x >= k)
    lo = max(x for x in ks if x <= k)
    if hi == lo:
        return PROFILES[lo]
    t = (k - lo) / (hi - lo)
    a, b = PROFILES[lo], PROFILES[hi]
    return Profile(**{f.name: (1 - t) * getattr(a, f.name) + t * getattr(b, f.name) for f in fields(Profile)})


# --------------------------------------------------------------------------- helpers


def _unique(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct values, inverse, index of each value's first occurrence).

    A sort-based ``np.unique``: numpy 2's hash-based path is many times slower on millions of
    distinct 64-bit keys.
    """
    order = np.argsort(x, kind="stable")
    s = x[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] != s[:-1]
    ids = np.cumsum(new) - 1
    inv = np.empty(len(x), dtype=np.int64)
    inv[order] = ids
    return s[new], inv, order[new]


def _ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, value) for the concatenated ranges ``starts[i] .. starts[i] + counts[i] - 1``."""
    owner = np.repeat(np.arange(len(counts)), counts)
    first = np.cumsum(counts) - counts
    return owner, np.repeat(starts, counts) + (np.arange(int(counts.sum())) - np.repeat(first, counts))


# --------------------------------------------------------------------------- progress


class _Steps:
    """A rich progress bar over the generator's stages, or nothing (rich absent / not wanted)."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self._bar = None
        self._task = None
        if not enabled:
            return
        try:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            return
        self._bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                             TextColumn("{task.completed}/{task.total}"), TextColumn("{task.fields[stage]}"),
                             TimeElapsedColumn(), transient=False)
        self._task = self._bar.add_task(label, total=total, stage="")

    @contextlib.contextmanager
    def running(self) -> Iterator["_Steps"]:
        if self._bar is None:
            yield self
            return
        with self._bar:
            yield self

    def stage(self, text: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, stage=text)

    def advance(self, steps: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, steps)

    def add_total(self, steps: int) -> None:
        if self._bar is not None:
            self._bar.update(self._task, total=self._bar.tasks[0].total + steps)


# --------------------------------------------------------------------------- community


@dataclass
class _Community:
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


def _community(rng: np.random.Generator, ref_bases: int, prof: Profile) -> _Community:
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
    return _Community(np.concatenate(strains), starts, lengths, np.array(cover))


# --------------------------------------------------------------------------- reads (intervals)


@dataclass
class _Reads:
    """Every simulated read as a genome interval, sorted by start.

    ``kind``: 0 forward mate, 1 reverse mate, 2 merged pair. ``mate``: index of the other mate
    (-1 for merged reads). ``frag``: fragment number; ``first``: whether this read is ``/1``;
    ``plus``: whether the read as named runs along the genome (a merged read takes ``/1``'s).
    """

    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    mate: np.ndarray
    frag: np.ndarray
    first: np.ndarray
    plus: np.ndarray


def _sequence(rng: np.random.Generator, com: _Community, prof: Profile) -> _Reads:
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
    return _Reads(start[order], end[order], kind[order], mate, frag[order], first[order], plus[order])


# --------------------------------------------------------------------------- de Bruijn graph


def _kmer_ids(genome: np.ndarray, k: int) -> np.ndarray:
    """A 64-bit polynomial hash of every k-mer start (rolling, mod 2^64, odd base)."""
    n = len(genome)
    base = np.uint64(0x9E3779B97F4A7C15)
    inv = np.uint64(pow(int(base), -1, 1 << 64))
    with np.errstate(over="ignore"):
        pw = np.empty(n + 1, dtype=np.uint64)
        pw[0] = 1
        pw[1:] = base
        np.cumprod(pw, out=pw)
        ipw = np.empty(n, dtype=np.uint64)
        ipw[0] = 1
        ipw[1:] = inv
        np.cumprod(ipw, out=ipw)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum((genome.astype(np.uint64) + np.uint64(1)) * pw[:n], out=prefix[1:])
        m = n - k + 1
        h = (prefix[k:] - prefix[:m]) * ipw[:m]
    return h


@dataclass
class _Unitigs:
    """Contigs (unitigs) and where each occurs in the strain genomes."""

    occ_start: np.ndarray  # genome start of each occurrence
    occ_end: np.ndarray  # genome end (exclusive)
    occ_contig: np.ndarray
    first_occ: np.ndarray  # one occurrence per contig (its sequence)
    depth: np.ndarray


def _unitigs(com: _Community, reads: _Reads, k: int) -> _Unitigs:
    """Unitigs of the graph of solid k-mers (count >= 2) over all strain genomes."""
    n = len(com.genome)
    m = n - k + 1
    pos = np.arange(m, dtype=np.int64)
    owner = np.searchsorted(com.starts, pos, side="right") - 1
    valid = pos + k <= com.starts[owner] + com.lengths[owner]
    # Reads containing each k-mer position (every read lies in one strain).
    diff = np.zeros(n + 1, dtype=np.int64)
    ok = reads.end - reads.start >= k
    np.add.at(diff, reads.start[ok], 1)
    np.add.at(diff, reads.end[ok] - k + 1, -1)
    per_pos = np.cumsum(diff[:m])
    h = _kmer_ids(com.genome, k)
    uniq, uid, _ = _unique(h[valid])
    full_uid = np.full(m, -1, dtype=np.int64)
    full_uid[valid] = uid
    count = np.bincount(uid, weights=per_pos[valid], minlength=len(uniq))
    solid = valid.copy()
    solid[valid] = count[uid] >= MIN_KMER_COUNT
    pair = solid[:-1] & solid[1:]
    src, dst = full_uid[:-1][pair], full_uid[1:][pair]
    nu = np.int64(len(uniq))
    edges = _unique(src * nu + dst)[0]
    outdeg = np.bincount(edges // nu, minlength=len(uniq))
    indeg = np.bincount(edges % nu, minlength=len(uniq))
    link = np.zeros(m, dtype=bool)
    link[:-1][pair] = (outdeg[src] == 1) & (indeg[dst] == 1)
    prev_link = np.zeros(m, dtype=bool)
    prev_link[1:] = link[:-1]
    run_start = np.flatnonzero(solid & ~prev_link)
    run_end = np.flatnonzero(solid & ~link)
    key = full_uid[run_start] * nu + full_uid[run_end]
    _, occ_contig, first_occ = _unique(key)
    # Depth: mean k-mer count along the contig.
    kc = np.where(solid, count[np.maximum(full_uid, 0)], 0.0)
    csum = np.concatenate([[0.0], np.cumsum(kc)])
    fs, fe = run_start[first_occ], run_end[first_occ]
    depth = (csum[fe + 1] - csum[fs]) / (fe - fs + 1)
    return _Unitigs(run_start, run_end + k, occ_contig.ravel(), first_occ, depth)


# --------------------------------------------------------------------------- alignment and ends


def _seed_index(com: _Community, reads: _Reads, rb: "_ReadBases", k: int) -> np.ndarray:
    """Prefix counts of read positions that end an error-free k-window (flat over all reads).

    MetaHipMer's aligner seeds with k-mers of the contigs, so a read aligns only where it holds
    an error-free k-mer of the contig; at k = 77 a read with the sample's ~2 % errors often has
    none. ``counts[i]``: windows ending before flat position ``i``.
    """
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
    counts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(clean, out=counts[1:])
    return counts


def _align(reads: _Reads, rb: "_ReadBases", seeds: np.ndarray, p: np.ndarray, e: np.ndarray, k: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """(occurrence, read) pairs where the read holds an error-free k-mer of ``[p, e)``.

    The simulated reads carry no indels, so the overlap is the alignment.
    """
    max_len = int((reads.end - reads.start).max(initial=READ_LEN))
    lo = np.searchsorted(reads.start, p + k - max_len, side="left")
    hi = np.searchsorted(reads.start, e - k, side="right")
    occ, r = _ranges(lo, np.maximum(hi - lo, 0))
    a = reads.start[r]
    x0 = np.maximum(a, p[occ]) - a
    x1 = np.minimum(reads.end[r], e[occ]) - a
    keep = x1 - x0 >= k
    occ, r, x0, x1 = occ[keep], r[keep], x0[keep], x1[keep]
    base = rb.offsets[r]
    keep = seeds[base + x1] > seeds[base + x0 + k - 1]
    return occ[keep], r[keep]


def _choose(nv: np.ndarray, hq: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The kernel's extension choice per row of vote counts (``nv``, ``hq``: rows x 4 bases).

    Returns the chosen base 0..3, or -1 for a dead end or fork (MetaHipMer's rating rules,
    ``shared/spec/local-assembly.md``, step 1).
    """
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


def _walk_ext(reads: _Reads, rb: _ReadBases, so: np.ndarray, ss: np.ndarray, sr: np.ndarray,
              p: np.ndarray, e: np.ndarray, contig: np.ndarray, depth: np.ndarray, tails: np.ndarray,
              k: int) -> tuple[np.ndarray, np.ndarray]:
    """One earlier round of local assembly on every contig end: how far it got, and its bases.

    MetaHipMer feeds every round's extended contigs into the next round, so an input contig
    already reaches the point where its end reads stop agreeing. This walks all ends at once,
    column by column past the end (``so, ss, sr``: the occurrence, side and read of each selected
    end read; ``tails``: the last k bases of every end, nearest first). As in the kernel, a read
    votes for column ``j`` when it matches the walk over the k bases before ``j`` (it holds the
    current k-mer) and its base there has quality >= 10; :func:`_choose` applies the kernel's
    rating rules. The hash-table details (loops, k iteration) are left out.

    Returns (walk length per end ``2 * contig + side``, flat bases in the contigs' forward
    frame, end by end, each ordered away from its contig).
    """
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
    owner, col = _ranges(np.maximum(lo, -k), np.maximum(np.minimum(hi, 0) - np.maximum(lo, -k), 0))
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
        ends_v, inv, _ = _unique(end[vote])
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


def _new_tails(tails: np.ndarray, length: np.ndarray, bases: np.ndarray) -> np.ndarray:
    """Every end's last k bases (nearest first) after appending its walk."""
    k = tails.shape[1]
    off = np.cumsum(length) - length
    i = np.arange(k)[None, :]
    from_walk = i < length[:, None]
    idx = np.where(from_walk, off[:, None] + length[:, None] - 1 - i, 0)
    old = np.take_along_axis(tails, np.clip(i - length[:, None], 0, k - 1), axis=1)
    return np.where(from_walk, bases[idx] if len(bases) else 0, old).astype(np.uint8)


def _select(reads: _Reads, occ: np.ndarray, r: np.ndarray, p: np.ndarray, e: np.ndarray, pair_span: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(occurrence, side, read) triples, side 0 = left, 1 = right, by MetaHipMer's rules.

    As in MetaHipMer's ``process_alns``: every read keeps only its best alignment (here the
    longest overlap). The read goes to the end it runs off, its own 5' side first when it runs
    off both. Unless the pair cannot reach past the contig end (``pair_span`` = insert mean +
    3 sd, MetaHipMer's ``min_pair_len``), its mate is projected to the end the read points at,
    wherever the mate really lies; merged reads have no mate.
    """
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
    key = _unique((oo * 2 + ss) * nr + rr)[0]
    return key // nr // 2, (key // nr) % 2, key % nr


# --------------------------------------------------------------------------- read bases


@dataclass
class _ReadBases:
    """Bases (codes 0..3) and Phred values of reads, genome-forward, with int64 offsets."""

    seqs: np.ndarray
    quals: np.ndarray
    offsets: np.ndarray


_CYCLE = np.arange(READ_LEN) / (READ_LEN - 1)
#: Chance of a Q3 base and of a mid-range quality by sequencing cycle, before the per-read factor.
_P_LOW = (0.025 + 0.22 * _CYCLE ** 6).astype(np.float32)
_P_MID = (0.10 + 0.09 * _CYCLE ** 3).astype(np.float32)
#: Substitution probability by Phred value (fitted on the sample, see the module docstring).
_P_ERR = np.minimum(0.5, 0.66 * 10.0 ** (np.arange(64) / -10.0)).astype(np.float32)


def _phred(rng: np.random.Generator, cycle: np.ndarray, read_of: np.ndarray, n_raw: int) -> np.ndarray:
    """Qualities by sequencing cycle: Q31 mostly, mid values as in the sample, Q3 towards 3'.

    Both the Q3 share and the mid-quality share rise towards the 3' end, with a per-read
    multiplier (some reads are much worse than others, as in the sample: 3 to 20 ``$`` per read).
    """
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


def _read_bases(rng: np.random.Generator, com: _Community, reads: _Reads) -> _ReadBases:
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
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    seq = np.empty(off[-1], dtype=np.uint8)
    q = np.empty(off[-1], dtype=np.uint8)
    # Unmerged reads are their raw mate.
    u = np.flatnonzero(~is_m)
    _, dst = _ranges(off[u], lens[u])
    _, src = _ranges(u * READ_LEN, lens[u])
    seq[dst], q[dst] = base[src], qual[src]
    if len(idx_m):
        # Merged: forward mate on [0, 150), reverse mate on [F - 150, F); in the overlap the
        # better base wins and a disagreement gets Q2 ('#').
        F = lens[idx_m]
        owner, pos = _ranges(np.zeros(len(idx_m), dtype=np.int64), F)
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
    return _ReadBases(seq, q, off)


# --------------------------------------------------------------------------- one community


@dataclass
class _Batch:
    """One simulated community, reduced to what the extraction needs."""

    contig_seq: np.ndarray  # ASCII bases, flat
    contig_off: np.ndarray
    depth: np.ndarray
    has_reads: np.ndarray
    sel_contig: np.ndarray
    sel_side: np.ndarray
    sel_read: np.ndarray  # index into frag / first / bases
    frag: np.ndarray  # fragment number of each kept read
    first: np.ndarray  # whether it is ``/1``
    n_frags: int
    bases: _ReadBases  # the kept reads only


def _batch_steps(k: int) -> int:
    """Progress steps of one :func:`_batch` at ``k``."""
    return 5 + sum(x < k for x in MHM_KS)


def _batch(rng: np.random.Generator, ref_bases: int, prof: Profile, k: int, steps: _Steps) -> _Batch:
    """Community, reads, graph, earlier rounds' extension and read selection."""
    steps.stage(f"community ({ref_bases / 1e3:,.0f} kb of genomes)")
    com = _community(rng, ref_bases, prof)
    steps.advance()
    steps.stage(f"reads ({len(com.genome) / 1e6:.1f} Mb of strains)")
    reads = _sequence(rng, com, prof)
    steps.advance()
    steps.stage(f"de Bruijn graph at k={k}")
    utg = _unitigs(com, reads, k)
    steps.advance()
    steps.stage(f"bases and qualities ({len(reads.start):,} reads)")
    rb = _read_bases(rng, com, reads)
    steps.advance()
    n_c = len(utg.first_occ)
    p, e = utg.occ_start, utg.occ_end
    seeds = _seed_index(com, reads, rb, k)
    # Earlier rounds' local assembly: extend every end to where its reads stop agreeing.
    fs, fe = p[utg.first_occ], e[utg.first_occ]
    cols = np.arange(k)
    tails = np.empty((2 * n_c, k), dtype=np.uint8)
    tails[0::2] = com.genome[fs[:, None] + cols[None, :]]
    tails[1::2] = com.genome[fe[:, None] - 1 - cols[None, :]]
    llen = np.zeros(n_c, dtype=np.int64)
    rlen = np.zeros(n_c, dtype=np.int64)
    lparts: list[tuple[np.ndarray, np.ndarray]] = []
    rparts: list[tuple[np.ndarray, np.ndarray]] = []
    rounds = sum(x < k for x in MHM_KS)
    for i in range(rounds):
        steps.stage(f"earlier round {i + 1}/{rounds} ({n_c:,} contigs)")
        p2 = p - llen[utg.occ_contig]
        e2 = e + rlen[utg.occ_contig]
        occ, r = _align(reads, rb, seeds, p2, e2, k)
        so, ss, sr = _select(reads, occ, r, p2, e2, PAIR_SPAN)
        length, bases = _walk_ext(reads, rb, so, ss, sr, p2, e2, utg.occ_contig, utg.depth, tails, PRE_K)
        tails = _new_tails(tails, length, bases)
        is_right = np.repeat(np.arange(2 * n_c) % 2 == 1, length)
        rparts.append((length[1::2], bases[is_right]))
        lparts.append((length[0::2], bases[~is_right]))
        rlen += length[1::2]
        llen += length[0::2]
        steps.advance()
        if not length.any():
            steps.advance(rounds - 1 - i)
            break
    steps.stage("read selection")
    rext = _join_rounds(rparts, n_c)
    lext = _join_rounds(lparts, n_c)
    # MetaHipMer's graph traversal leaves out the k-mer where a walk stopped, so most contig
    # ends sit a base or two short of where their reads stop agreeing, and the kernel walks
    # those bases again: 0/1/2 bases in the sample's proportions (of its ends with reads, 29 %
    # walk no base, 51 % one, 11 % two).
    ulen = fe - fs
    t = rng.choice(3, size=2 * n_c, p=TRIM_P)
    trim_l = np.minimum(t[0::2], llen + ulen - k)
    used = np.maximum(trim_l - llen, 0)
    trim_r = np.minimum(t[1::2], rlen + ulen - k - used)
    lshift = llen - trim_l
    rshift = rlen - trim_r
    p2 = p - lshift[utg.occ_contig]
    e2 = e + rshift[utg.occ_contig]
    occ, r = _align(reads, rb, seeds, p2, e2, k)
    so, sel_s, sel_r = _select(reads, occ, r, p2, e2, PAIR_SPAN)
    sel_c = utg.occ_contig[so]
    nr = len(reads.start)
    key = _unique((sel_c * 2 + sel_s) * nr + sel_r)[0]
    sel_c, sel_s, sel_r = key // nr // 2, (key // nr) % 2, key % nr
    # Contig = left walk (reversed to forward order) + unitig (trimmed) + right walk.
    lkeep, rkeep = np.maximum(lshift, 0), np.maximum(rshift, 0)
    u0 = fs + np.maximum(-lshift, 0)
    u1 = fe - np.maximum(-rshift, 0)
    lens = lkeep + (u1 - u0) + rkeep
    off = np.zeros(n_c + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    seq = np.empty(off[-1], dtype=np.uint8)
    _, dst = _ranges(off[:-1] + lkeep, u1 - u0)
    _, src = _ranges(u0, u1 - u0)
    seq[dst] = com.genome[src]
    _, dst = _ranges(off[1:] - rkeep, rkeep)
    _, src = _ranges(np.cumsum(rlen) - rlen, rkeep)
    seq[dst] = rext[src]
    owner, src = _ranges(np.cumsum(llen) - llen, lkeep)
    first = np.cumsum(lkeep) - lkeep
    seq[off[:-1][owner] + lkeep[owner] - 1 - (np.arange(len(owner)) - first[owner])] = lext[src]
    has = np.zeros(n_c, dtype=bool)
    has[sel_c] = True
    # Keep only the reads some contig end uses.
    kept, sel_r, _ = _unique(sel_r)
    klen = np.diff(rb.offsets)[kept]
    koff = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(klen, out=koff[1:])
    _, src = _ranges(rb.offsets[kept], klen)
    bases = _ReadBases(rb.seqs[src], rb.quals[src], koff)
    steps.advance()
    return _Batch(_ASCII[seq], off, utg.depth, has, sel_c, sel_s, sel_r, reads.frag[kept],
                  reads.first[kept], int(reads.frag.max(initial=-1)) + 1, bases)


def _join_rounds(parts: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """Concatenates per-round extensions (lengths, flat bases) contig by contig, in round order."""
    total = np.zeros(n, dtype=np.int64)
    for ln, _ in parts:
        total += ln
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(total, out=off[1:])
    out = np.empty(off[-1], dtype=np.uint8)
    done = np.zeros(n, dtype=np.int64)
    for (ln, bases) in parts:
        _, dst = _ranges(off[:-1] + done, ln)
        out[dst] = bases
        done += ln
    return out


# --------------------------------------------------------------------------- entry point


def generate(k: int, scale: float = 1.0, seed: int = 0, progress: bool = False) -> Dataset:
    """A synthetic local-assembly dataset for start ``k``, sized ``scale`` x Table II's row.

    Parameters
    ----------
    k : start k (21..121); the profile is calibrated at 21, 33, 55 and 77.
    scale : 1 gives Table II's number of contigs with reads at ``k``.
    seed : seed of ``numpy.random.default_rng``; the output is a function of (k, scale, seed).
    progress : show a rich progress bar.

    Returns
    -------
    Dataset named ``gen-k{k}-s{scale}-seed{seed}`` (``gen-k21-s1.0-seed0``), a name
    :func:`lassm.workloads.local_assembly.datasets.load` reads back.
    """
    k = int(k)
    if not 21 <= k <= 121:
        raise ValueError(f"k = {k} is outside 21..121")
    if not scale > 0:
        raise ValueError(f"scale = {scale} must be positive")
    prof = profile_for(k)
    rng = np.random.default_rng(seed)
    target = max(1, int(round(prof.contigs * scale)))
    steps = _Steps(progress, _batch_steps(k) + 1, f"generate k={k} scale={scale:g}")
    with steps.running():
        batches: list[_Batch] = []
        have = 0
        need_kb = target / prof.yield_per_kb
        # Draw from a pool of at least POOL_KB (up to 3x the need): more species, steadier figures.
        need_kb = need_kb * max(1.1, min(3.0, POOL_KB / need_kb)) + 20
        while have < target:
            if batches:
                steps.add_total(_batch_steps(k))
            bt = _batch(rng, int(min(need_kb, MAX_BATCH_KB) * 1000), prof, k, steps)
            batches.append(bt)
            got = int(bt.has_reads.sum())
            have += got
            need_kb = (target - have) / max(got, 1) * min(need_kb, MAX_BATCH_KB) * 1.2 + 20
        steps.stage(f"extract {target:,} contigs with reads")
        ds = _extract(rng, batches, target, k, f"gen-k{k}-s{float(scale)}-seed{seed}")
        steps.stage(f"{ds.n_contigs:,} contigs, {ds.left.n_reads + ds.right.n_reads:,} reads")
        steps.advance()
    return ds


def _extract(rng: np.random.Generator, batches: list[_Batch], target: int, k: int, name: str) -> Dataset:
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
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    seqs = np.empty(offsets[-1], dtype=np.uint8)
    sides: dict[int, list] = {0: [], 1: []}
    frag_base = 0
    for i, bt in enumerate(batches):
        mine = np.flatnonzero(slot_b == i)
        c = slot_c[mine]
        _, dst = _ranges(offsets[mine], lens[mine])
        _, src = _ranges(bt.contig_off[c], lens[mine])
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
    offsets = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    seqs = np.empty(offsets[-1], dtype=np.uint8)
    quals = np.empty(offsets[-1], dtype=np.uint8)
    for i, part in enumerate(parts):
        sel = np.flatnonzero(bidx == i)
        if len(sel) == 0:
            continue
        bases = part[2].bases
        ln = lens[sel]
        owner, dst = _ranges(offsets[sel], ln)
        w = dst - offsets[sel][owner]
        src = bases.offsets[read[sel]][owner] + (ln[owner] - 1 - w if left else w)
        b = bases.seqs[src]
        seqs[dst] = _ASCII[3 - b] if left else _ASCII[b]
        quals[dst] = bases.quals[src] + QUAL_OFFSET
    coff = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(slot, minlength=n), out=coff[1:])
    ids = [f"@r{f}/{1 if fi else 2}" for f, fi in zip(frag.tolist(), first.tolist())]
    return Reads(seqs, quals, offsets, coff, ids)

# SPDX-License-Identifier: BSD-3-Clause
"""Long-read pairs from a real genome: PacBio-like reads simulated by ``pbsim``, paired where
they overlap on the genome, each pair seeded by an exact shared k-mer.

pbsim's MAF gives each read's genome interval and position map, so two reads of one record
overlapping by ``min_overlap`` bases or more are a true pair. H is the first read as sequenced;
V the second, reverse-complemented onto H's strand where needed. The seed is the shared k-mer
(:mod:`.seeds`) nearest the overlap's middle. pbsim and the draw share ``seed``, so genome,
options and seed fix the pairs.
"""
from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ...compressed import fasta_records, fastq_records
from ...errors import InputError, LassmError
from .scoring import DEFAULT_SEED_LENGTH
from .pairs import Pairs
from .pbsim import MODEL_QC, check_pbsim, parse_maf, pbsim_version, run_pbsim
from .seeds import MAX_K, nearest_seed

#: The longest read length (mean, spread, shortest, longest) pbsim accepts.
PBSIM_MAX_LENGTH = 1_000_000
_RC = bytes.maketrans(b"ACGTN", b"TGCAN")
_TO_N = bytes(c if c in b"ACGT" else ord("N") for c in range(256))


@dataclass(frozen=True)
class RealKnobs:
    """What :func:`real_pairs` asks of pbsim and of the pairing; recorded as provenance.

    Parameters
    ----------
    depth : pbsim's coverage (``--depth``); more reads give more overlapping pairs.
    length_mean, length_sd, min_length, max_length : pbsim's read lengths (LOGAN's 2.5-7.5 kb).
    accuracy_mean, accuracy_sd : pbsim's per-read accuracy; two reads at 0.925 differ by about
        LOGAN's 15%.
    min_overlap : the fewest genome bases two reads must share to be a pair.
    seed : pbsim's ``--seed`` and the pair draw's seed.
    """

    n_pairs: int = 100
    depth: float = 10.0
    length_mean: int = 5000
    length_sd: int = 1500
    min_length: int = 2500
    max_length: int = 7500
    accuracy_mean: float = 0.925
    accuracy_sd: float = 0.02
    min_overlap: int = 1000
    seed_length: int = DEFAULT_SEED_LENGTH
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_pairs < 1:
            raise ValueError(f"n_pairs = {self.n_pairs} must be at least 1")
        if not self.depth > 0:
            raise ValueError(f"depth = {self.depth} must be above 0")
        if not 1 <= self.min_length <= self.max_length:
            raise ValueError(f"need 1 <= min_length ({self.min_length}) <= max_length ({self.max_length})")
        for name in ("length_mean", "length_sd", "max_length"):  # pbsim's range, checked before it runs
            if getattr(self, name) > PBSIM_MAX_LENGTH:
                raise ValueError(f"{name} = {getattr(self, name)} is above {PBSIM_MAX_LENGTH:,}, pbsim's longest")
        if not 0 < self.accuracy_mean <= 1 or self.accuracy_sd < 0:
            raise ValueError(f"accuracy_mean = {self.accuracy_mean} must be in (0, 1], accuracy_sd >= 0")
        if not 1 <= self.seed_length <= min(MAX_K, self.min_overlap):
            raise ValueError(f"seed_length = {self.seed_length} must be in 1..{MAX_K} and at most "
                             f"min_overlap ({self.min_overlap})")
        if self.seed < 0:
            raise ValueError(f"seed = {self.seed} must be 0 or above")

    def pbsim_options(self) -> list[str]:
        """pbsim's options for these knobs (the genome and ``--prefix`` apart)."""
        return ["--data-type", "CLR", "--depth", f"{self.depth:g}", "--length-mean", str(self.length_mean),
                "--length-sd", str(self.length_sd), "--length-min", str(self.min_length),
                "--length-max", str(self.max_length), "--accuracy-mean", f"{self.accuracy_mean:g}",
                "--accuracy-sd", f"{self.accuracy_sd:g}", "--seed", str(self.seed),
                "--model_qc", str(MODEL_QC)]


@dataclass(frozen=True)
class SimRead:
    """One pbsim read: its record, genome interval, strand and sequence as sequenced; ``to_read[p]``
    counts read bases (forward) before genome position ``start + p``."""

    record: int
    start: int
    end: int
    strand: str
    seq: bytes
    to_read: np.ndarray

    def position(self, genome_pos: int, strand: str) -> int:
        """Where ``genome_pos`` lies in the read turned to ``strand`` (clipped to the read)."""
        fwd = int(self.to_read[genome_pos - self.start])
        fwd = min(fwd, len(self.seq) - 1)
        return fwd if strand == "+" else len(self.seq) - 1 - fwd


def revcomp(seq: bytes) -> bytes:
    """Reverse complement of a read (N stays N)."""
    return seq.translate(_RC)[::-1]


def read_genome(path: Path) -> list[tuple[str, bytes]]:
    """``(header, sequence)`` of every record of a FASTA file (plain, ``.gz``, ``.xz``, ``.bz2``),
    upper case, every byte but A, C, G, T turned to N (the bases a pair may hold)."""
    return list(fasta_records(path, _TO_N))


#: Peak memory per base of pbsim's reads while they are read back and paired (each read keeps its
#: genome-to-read map): 15 B measured on lambda between depth 200 and 600, doubled.
PEAK_BYTES_PER_READ_BASE = 32


def long_records(genome: str | Path, min_length: int, option: str = "min_length") -> list[tuple[str, bytes]]:
    """The records of ``genome`` pbsim simulates: those ``min_length`` or longer. None is a fault
    of the length asked (``option``), named with the longest record there is."""
    records = read_genome(Path(genome))
    long = [(name, seq) for name, seq in records if len(seq) >= min_length]
    if not long:
        longest = max((len(seq) for _name, seq in records), default=0)
        raise InputError(str(genome), None, "records", f"no FASTA record of {min_length:,} bases or more "
                         f"({option}); the longest holds {longest:,}")
    return long


def refuse_depth_beyond(genome: str | Path, depth: float, min_length: int,
                        options: tuple[str, str] = ("--depth", "--min-length")) -> None:
    """Refuses, before pbsim writes a read, a ``min_length`` no record reaches and a ``depth``
    whose reads (the long records' bases times ``depth``, all held to find overlaps) would not fit
    this machine's memory; ``options`` name the two in the message."""
    from ...fits import refuse_beyond

    bases = sum(len(seq) for _name, seq in long_records(genome, min_length, options[1]))
    refuse_beyond(options[0], depth, bases * PEAK_BYTES_PER_READ_BASE)


def simulate(genome: Path, knobs: RealKnobs, workdir: Path) -> tuple[list[SimRead], list[str]]:
    """Runs pbsim on every record of ``genome`` at least ``knobs.min_length`` long; returns the reads
    of every record and the records' headers."""
    check_pbsim()
    records = long_records(genome, knobs.min_length)
    plain = workdir / "genome.fa"
    with open(plain, "wb") as fh:
        for i, (_name, seq) in enumerate(records):
            fh.write(f">r{i}\n".encode() + seq + b"\n")
    prefix = workdir / "sd"
    run_pbsim(["--prefix", str(prefix), *knobs.pbsim_options(), str(plain)], workdir / "pbsim.log")
    reads: list[SimRead] = []
    for i in range(len(records)):
        if not Path(f"{prefix}_{i + 1:04d}.maf").is_file():  # a record too short for a read at this depth
            continue
        maf = parse_maf(Path(f"{prefix}_{i + 1:04d}.maf"))
        for name, seq, _qual in fastq_records(f"{prefix}_{i + 1:04d}.fastq"):
            if name not in maf:
                raise LassmError(f"{prefix}_{i + 1:04d}.maf: no alignment of read {name}")
            start, end, strand, to_read = maf[name]
            if to_read[-1] != len(seq):
                raise LassmError(f"{prefix}_{i + 1:04d}.maf: read {name} holds {to_read[-1]} bases there, "
                                 f"{len(seq)} in the FASTQ")
            reads.append(SimRead(i, start, end, strand, seq, to_read))
    return reads, [name for name, _ in records]


def overlapping(reads: list[SimRead], min_overlap: int) -> np.ndarray:
    """Every pair ``(a, b)``, ``a < b``, of reads of one record sharing ``min_overlap`` genome
    bases, in ``(a, b)`` order; reads sorted by start are swept so that no all-pairs table is built."""
    rec = np.array([r.record for r in reads], dtype=np.int64)
    start = np.array([r.start for r in reads], dtype=np.int64)
    end = np.array([r.end for r in reads], dtype=np.int64)
    order = np.lexsort((start, rec))
    key_rec, key_start = rec[order], start[order]
    found: list[np.ndarray] = []
    for i, a in enumerate(order):
        # partners start in a's record, at or after a (in the sorted order), early enough to share enough
        stop = np.searchsorted(key_rec, rec[a], side="right")
        last = i + 1 + np.searchsorted(key_start[i + 1:stop], end[a] - min_overlap, side="right")
        b = order[i + 1:last]
        b = b[np.minimum(end[a], end[b]) - start[b] >= min_overlap]
        if len(b):
            found.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1))
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(found).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def pair_with_seed(h_read: SimRead, v_read: SimRead, k: int) -> tuple[bytes, int, bytes, int, int] | None:
    """H, V on H's strand, and the shared k-mer nearest the overlap's middle; None without one."""
    h = h_read.seq
    v = v_read.seq if v_read.strand == h_read.strand else revcomp(v_read.seq)
    middle = (max(h_read.start, v_read.start) + min(h_read.end, v_read.end)) // 2
    seed = nearest_seed(h, v, k, h_read.position(middle, h_read.strand), v_read.position(middle, h_read.strand))
    if seed is None:
        return None
    return h, seed[0], v, seed[1], k


def real_pairs(genome: str | Path, knobs: RealKnobs | None = None, name: str | None = None) -> Pairs:
    """``knobs.n_pairs`` overlapping read pairs simulated from ``genome`` (FASTA, plain or ``.gz``,
    ``.xz``, ``.bz2``), each with an exact seed; the genome, pbsim's version and options, k and the
    seed are their provenance."""
    knobs = knobs or RealKnobs()
    genome = Path(genome)
    with tempfile.TemporaryDirectory(prefix="lassm-pbsim-") as tmp:
        reads, records = simulate(genome, knobs, Path(tmp))
    candidates = overlapping(reads, knobs.min_overlap)
    rng = np.random.default_rng(knobs.seed)
    rows = []
    for a, b in candidates[rng.permutation(len(candidates))]:
        row = pair_with_seed(reads[a], reads[b], knobs.seed_length)
        if row is not None:
            rows.append(row)
            if len(rows) == knobs.n_pairs:
                break
    if len(rows) < knobs.n_pairs:
        raise LassmError(f"{genome}: only {len(rows)} seeded pairs among {len(reads)} reads "
                         f"({len(candidates)} overlapping by {knobs.min_overlap}+ bases), {knobs.n_pairs} asked; "
                         f"raise the depth or lower min_overlap")
    stem = genome.name.split(".")[0]
    label = name or f"xdrop-real-{stem}-n{knobs.n_pairs}-s{knobs.seed}"
    provenance = {"generator": "lassm.workloads.xdrop.real_pairs", "genome": str(genome), "records": records,
                  "simulator": "pbsim", "pbsim_version": pbsim_version(), "pbsim_options": knobs.pbsim_options(),
                  "k": knobs.seed_length, **asdict(knobs)}
    return Pairs.from_lists(rows, name=label, provenance=provenance)

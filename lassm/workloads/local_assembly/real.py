# SPDX-License-Identifier: BSD-3-Clause
"""Local-assembly inputs from REAL genomes, made with real tools, the way MetaHipMer makes them.

The synthetic generator (:mod:`lassm.workloads.local_assembly.generate`) imitates MetaHipMer's pipeline in miniature;
this module runs the pipeline's stages with the tools a person would use, on complete genomes
that Debian ships, so the kernel sees contigs and reads that no model of ours shaped:

1. **Community.** Each genome gets a read coverage ``median x exp(N(0, sigma))`` (log-normal,
   numpy's generator seeded with ``seed``), as metagenome abundances are.
2. **Sequencing.** ART (``art_illumina -ss HS25``: HiSeq 2500's empirical error and quality
   profile) sequences 2 x 150 bp pairs, insert 300 +/- 30 (or the preset's), once per genome
   (its ``-f`` applies per FASTA record; a preset may take a window of the first record,
   :attr:`Genome.length`) with ``-rs`` fixed from ``seed`` and the preset's quality shift.
3. **Merging.** Mates whose ends overlap by >= :data:`MIN_MERGE_OVERLAP` bases exactly become
   one read (MetaHipMer's ``merge_reads`` stage; its sample holds merged reads up to 288 bp).
4. **Contigs.** One MEGAHIT run with ``--k-list`` and ``--keep-tmp-files`` gives the contigs of
   its iterative de Bruijn graph at every k (``intermediate_contigs/k<k>.contigs.fa``, plus the
   contigs it set aside as final at that k or before: :func:`contigs_at`).
5. **Alignment.** minimap2 ``-ax sr`` aligns every read (merged or mate) on its own to each k's
   contigs, as MetaHipMer aligns reads one by one; samtools keeps primary alignments only.
6. **Read selection** by MetaHipMer's ``localassm`` rules: a read whose alignment reaches the
   contig's first (last) base and whose read runs on past it goes to the left (right) end (a read
   running off both ends: its own 5' side); the mate of every unmerged read is projected to the
   end the read points at when the pair could reach past it (``min_pair_len`` = insert mean +
   3 sd, :data:`PAIR_SPAN`). Right reads are stored in the contig's forward direction, left
   reads reverse complemented, as MetaHipMer dumps them. Depth = mean read coverage of the
   contig (aligned reference bases / contig length), as MetaHipMer's ``compute_aln_depths``.

Presets (:data:`PRESETS`): ``tiny`` (phage lambda and a plasmid, MEGAHIT's default cleaning; for
CI) and ``mock5`` (five bacterial species, with coverage, insert, error rate and MEGAHIT's graph
cleaning calibrated to the paper's Table II; ``book/real-genomes.md``). :func:`publish` copies a
build into ``data/real/`` and records its Table II figures in ``provenance.json``.

Every step is deterministic for a seed: the abundances and ART's ``-rs`` come from ``seed``,
merging and selection are pure functions of their input, and minimap2's output follows its input
order. MEGAHIT with two threads makes the same contigs every run but numbers and orients them
differently (checked: two runs, identical sorted canonical sequences, different files), so the
contigs are put in canonical form (:func:`canonical_contigs`) before alignment and their rank is
their id. ``tests/test_real.py`` builds twice and compares the ``.dat`` files byte for byte.

This module is over 500 lines because it is one pipeline whose steps share its presets and
tool table; finding and running the external tools (ART, MEGAHIT, minimap2, samtools) is to move
to a module of its own (issue 14).
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from ...atomic import atomic_open
from .dataset import Dataset, Reads
from ...errors import LassmError
from ...paths import REPO

#: Read length, fragment size (mean, sd) and ART's HiSeq 2500 profile.
READ_LEN = 150
INSERT_MEAN = 300
INSERT_SD = 30
ART_PROFILE = "HS25"
#: MetaHipMer's ``min_pair_len``: a mate is projected past a contig end only if the pair could
#: reach past it.
PAIR_SPAN = INSERT_MEAN + 3 * INSERT_SD
#: Shortest exact overlap that merges two mates (the generator's, after the sample's 288 bp).
MIN_MERGE_OVERLAP = 12
#: MetaHipMer's k schedule, and the one MEGAHIT is run with.
DEFAULT_KS = (21, 33, 55, 77)
THREADS = 2
#: mock5's calibration (book/real-genomes.md): bases per chromosome window, coverage, insert.
MOCK5_WINDOW = 100_000
MOCK5_COV_MEDIAN = 3.5
MOCK5_COV_SIGMA = 0.6
MOCK5_INSERT_MEAN = 300
MOCK5_INSERT_SD = 40
MOCK5_QUALITY_SHIFT = -5
MOCK5_MEGAHIT = ("--min-count", "1", "--bubble-level", "0", "--prune-level", "0", "--disconnect-ratio", "0")
#: MEGAHIT's options besides inputs, k list and output: fixed so that a run is reproducible.
MEGAHIT_OPTIONS = ("--min-count", "2", "--keep-tmp-files", "-t", str(THREADS))

#: tool executable -> (Debian package, bioconda package).
TOOLS: dict[str, tuple[str, str]] = {
    "art_illumina": ("art-nextgen-simulation-tools", "art"),
    "megahit": ("megahit", "megahit"),
    "minimap2": ("minimap2", "minimap2"),
    "samtools": ("samtools", "samtools"),
}


@dataclass(frozen=True)
class Genome:
    """One genome of a preset community: a FASTA file shipped by a Debian package.

    ``length``: when set, only the first ``length`` bases of the file's first record (the
    chromosome) are sequenced, a window that keeps a community of whole bacterial chromosomes
    small enough to build in minutes and to commit; None takes every record whole.
    """

    name: str
    path: str
    package: str
    accession: str
    description: str
    length: int | None = None


@dataclass(frozen=True)
class Preset:
    """A named community: its genomes, their coverage distribution and the library's insert.

    ``insert_mean``/``insert_sd`` set ART's fragment size (and :data:`PAIR_SPAN`'s analogue,
    mean + 3 sd); they decide how many pairs overlap enough to merge, hence the average read
    length. ``megahit_options`` come after :data:`MEGAHIT_OPTIONS` (graph cleaning settings; a
    ``--min-count`` there replaces the fixed one).
    ``quality_shift`` shifts ART's quality scores of both mates (``-qs``/``-qs2``); a negative
    shift raises the error rate by about ``10**(-shift/10)``.
    """

    genomes: tuple[Genome, ...]
    cov_median: float
    cov_sigma: float
    insert_mean: int = INSERT_MEAN
    insert_sd: int = INSERT_SD
    megahit_options: tuple[str, ...] = ()
    quality_shift: int = 0

    @property
    def packages(self) -> tuple[str, ...]:
        """The Debian packages that ship this preset's genomes, sorted, once each."""
        return tuple(sorted({g.package for g in self.genomes}))


PRESETS: dict[str, Preset] = {
    # Low coverage, as MetaHipMer's sample (depths 2-12): contigs break where coverage runs out.
    "tiny": Preset(
        genomes=(
            Genome("lambda", "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz",
                   "bowtie2-examples", "NC_001416.1", "Enterobacteria phage lambda, complete genome"),
            Genome("mp1", "/usr/share/doc/shovill-examples/test.fna.gz", "shovill-examples",
                   "NC_000958.1", "Deinococcus radiodurans R1 plasmid MP1, complete sequence"),
        ),
        cov_median=8.0,
        cov_sigma=0.5,
    ),
}

_RAGOUT = "/usr/share/doc/ragout/examples"
# Five bacterial species, one chromosome window each (Genome.length), at MetaHipMer's sample's
# low coverage and a wide log-normal spread; the insert is longer than tiny's so that few pairs
# merge, as in the paper's reads (average length 155-175). book/real-genomes.md shows the
# calibration against Table II.
PRESETS["mock5"] = Preset(
    genomes=(
        Genome("ecoli", "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz", "bowtie-examples",
               "NC_008253.1", "Escherichia coli 536, complete genome", length=MOCK5_WINDOW),
        Genome("kpneumoniae", "/usr/share/doc/kleborate/examples/data/NTUH-K2044.fna.xz", "kleborate-examples",
               "AP006725.1", "Klebsiella pneumoniae subsp. pneumoniae NTUH-K2044 DNA, complete genome",
               length=MOCK5_WINDOW),
        Genome("vcholerae", f"{_RAGOUT}/V.Cholerae/references/O1_biovar.fasta.gz", "ragout-examples",
               "AE003852.1", "Vibrio cholerae O1 biovar eltor str. N16961 chromosome I, complete sequence",
               length=MOCK5_WINDOW),
        Genome("saureus", f"{_RAGOUT}/S.Aureus/references/N315.fasta.gz", "ragout-examples",
               "NC_002745.2", "Staphylococcus aureus subsp. aureus N315 chromosome, complete genome",
               length=MOCK5_WINDOW),
        Genome("hpylori", f"{_RAGOUT}/H.Pylori/references/G27.fasta.gz", "ragout-examples",
               "NC_011333.1", "Helicobacter pylori G27 chromosome, complete genome", length=MOCK5_WINDOW),
    ),
    cov_median=MOCK5_COV_MEDIAN,
    cov_sigma=MOCK5_COV_SIGMA,
    insert_mean=MOCK5_INSERT_MEAN,
    insert_sd=MOCK5_INSERT_SD,
    megahit_options=MOCK5_MEGAHIT,
    quality_shift=MOCK5_QUALITY_SHIFT,
)


def apt_line(preset: str | None = None) -> str:
    """The apt line that installs the tools and the genome packages of ``preset`` (None: all)."""
    chosen = [PRESETS[preset]] if preset else list(PRESETS.values())
    genomes = sorted({p for pr in chosen for p in pr.packages})
    return "apt-get install " + " ".join([deb for deb, _ in TOOLS.values()] + genomes)


#: The apt line that installs everything every preset needs (tools first, then genome packages).
APT_LINE = apt_line()

_RC = bytes.maketrans(b"ACGTNacgtn", b"TGCANtgcan")
#: IUPAC ambiguity codes resolved to their first base in ACGT order (MP1's GenBank record holds
#: a few), so that reads hold only A, C, G, T (and N where the genome has one).
_IUPAC = bytes.maketrans(b"RYKMSWBDHVU", b"ACGACACAAAT")


def revcomp(seq: bytes) -> bytes:
    """Reverse complement of a base string (N stays N)."""
    return seq.translate(_RC)[::-1]


# --------------------------------------------------------------------------- tools


def missing_tools() -> list[str]:
    """Executables of :data:`TOOLS` that are not on ``PATH``."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def check_tools() -> None:
    """Raises a :class:`LassmError` naming the Debian and bioconda packages of missing tools."""
    missing = missing_tools()
    if missing:
        deb = " ".join(TOOLS[t][0] for t in missing)
        conda = " ".join(TOOLS[t][1] for t in missing)
        raise LassmError(f"{', '.join(missing)} not found; install with `apt-get install {deb}` "
                         f"(Debian) or `conda install -c bioconda {conda}`")


def tool_versions() -> dict[str, str]:
    """Version of every tool (and of the Debian packages where dpkg knows them), for provenance."""
    out: dict[str, str] = {}
    for tool, (deb, _) in TOOLS.items():
        out[tool] = _dpkg_version(deb) or _self_reported_version(tool)
    return out


def _dpkg_version(package: str) -> str:
    if shutil.which("dpkg-query") is None:
        return ""
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _self_reported_version(tool: str) -> str:
    flag = {"minimap2": "--version", "megahit": "--version", "samtools": "--version"}.get(tool)
    if flag is None:
        return "unknown"
    proc = subprocess.run([tool, flag], capture_output=True, text=True)
    return (proc.stdout or proc.stderr).strip().splitlines()[0] if proc.returncode == 0 else "unknown"


def _run(cmd: list[str], log: Path, stdout: Path | None = None) -> None:
    """Runs a tool; on failure raises a LassmError quoting the end of its log."""
    with open(log, "ab") as err:
        err.write((" ".join(cmd) + "\n").encode())
        err.flush()
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        try:
            proc = subprocess.run(cmd, stdout=out, stderr=err)
        finally:
            if stdout:
                out.close()
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise LassmError(f"{cmd[0]} failed (exit {proc.returncode}); end of {log}:\n" + "\n".join(tail))


# --------------------------------------------------------------------------- FASTA / FASTQ


def _open_text(path: Path):
    """A text handle on a plain, ``.gz``, ``.xz`` or ``.bz2`` file (Debian ships all three)."""
    name = str(path)
    for suffix, opener in ((".gz", gzip.open), (".xz", lzma.open), (".bz2", bz2.open)):
        if name.endswith(suffix):
            return opener(path, "rt")
    return open(path, "r")


def read_fasta(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(header, sequence)`` of every record, upper case, ambiguity codes resolved (_IUPAC)."""
    name, parts = None, []
    with _open_text(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(parts).upper().encode().translate(_IUPAC)
                name, parts = line[1:], []
            elif line:
                parts.append(line)
    if name is not None:
        yield name, "".join(parts).upper().encode().translate(_IUPAC)


def read_fastq(path: Path) -> Iterator[tuple[str, bytes, bytes]]:
    """``(name, sequence, qualities)`` of every record of a 4-line FASTQ file."""
    with open(path, "rb") as fh:
        while True:
            head = fh.readline()
            if not head:
                return
            seq, _, qual = fh.readline().strip(), fh.readline(), fh.readline().strip()
            yield head[1:].strip().decode(), seq, qual


def windowed(records: list[tuple[str, bytes]], length: int | None) -> list[tuple[str, bytes]]:
    """The records a genome is sequenced from: all of them (``length`` None), else the first
    ``length`` bases of the first record only (:attr:`Genome.length`)."""
    if length is None:
        return records
    if not records or length < 1:
        raise LassmError(f"a window of {length} bases needs a genome with a record and a positive length")
    return [(records[0][0], records[0][1][:length])]


def _write_fastq(path: Path, records: Iterable[tuple[str, bytes, bytes]]) -> None:
    with open(path, "wb") as fh:
        for name, seq, qual in records:
            fh.write(b"@" + name.encode() + b"\n" + seq + b"\n+\n" + qual + b"\n")


# --------------------------------------------------------------------------- reads


@dataclass
class ReadSet:
    """Every read after merging: index ``j`` is a merged pair or one mate of an unmerged pair.

    ``mate[j]`` is the index of the other mate (-1 for a merged read); ``ids`` are
    MetaHipMer-style names (``@r<pair>/1``, ``@r<pair>/2``; a merged pair keeps ``/1``).
    """

    ids: list[str]
    seqs: list[bytes]
    quals: list[bytes]
    mate: list[int]


def merge_pair(r1: bytes, q1: bytes, r2: bytes, q2: bytes, min_overlap: int = MIN_MERGE_OVERLAP
               ) -> tuple[bytes, bytes] | None:
    """Merges two mates whose 3' ends overlap exactly by >= ``min_overlap`` bases, else None.

    The longest exact overlap wins; in it the higher quality of the two bases is kept. Mates
    that disagree in the overlap (a sequencing error) stay unmerged: MetaHipMer's merger would
    resolve some of them by quality, so this merges a little less.
    """
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


# --------------------------------------------------------------------------- alignments


_CIGAR = re.compile(r"(\d+)([MIDNSHP=X])")


@dataclass(frozen=True)
class Alignment:
    """One primary alignment: read index, contig, strand, and where it lies on the contig.

    ``start``/``end``: aligned reference interval (0-based, half open); ``clip_left`` and
    ``clip_right``: read bases before and after it, in the contig's forward direction.
    """

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
    """MetaHipMer's candidate reads of every contig end, and each contig's depth.

    Returns ``(left, right, depth)``: ``left[contig]`` and ``right[contig]`` are sorted lists of
    ``(read index, on the contig's forward strand)``; ``depth[contig]`` is aligned bases / length.
    """
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


def canonical_contigs(contigs: Iterable[tuple[str, bytes]]) -> list[bytes]:
    """Contigs in a canonical form: each as the smaller of itself and its reverse complement,
    sorted. MEGAHIT with two threads makes the same contigs run after run, but numbers and
    orients them in an order that varies; this makes the contig ids (their rank) reproducible.
    """
    return sorted(min(seq, revcomp(seq)) for _, seq in contigs)


def contigs_at(folder: Path, k: int, ks: Iterable[int]) -> Iterator[tuple[str, bytes]]:
    """MEGAHIT's contigs at ``k``: ``k<k>.contigs.fa`` and the ``final`` contigs of this k and
    every smaller k of ``ks``. MEGAHIT sets a contig aside as final (``k<k>.final.contigs.fa``)
    when the next k cannot change it and leaves it out of later graphs; MetaHipMer keeps every
    contig in every round, so they are put back. (With MEGAHIT's default cleaning none are set
    aside in our communities; with ``--no-local`` many are.)
    """
    for kk in sorted(int(x) for x in ks):
        if kk > k:
            break
        names = ([f"k{kk}.contigs.fa"] if kk == k else []) + [f"k{kk}.final.contigs.fa"]
        for name in names:
            if (folder / name).exists():
                yield from read_fasta(folder / name)


def make_dataset(contigs: list[bytes], sam: Path, reads: ReadSet, k: int, name: str,
                 pair_span: int = PAIR_SPAN) -> Dataset:
    """The local-assembly input of one k: contig ``i`` is ``contigs[i]`` (named ``str(i)`` in
    ``sam``), its depth, and the reads of each end (mates projected within ``pair_span``)."""
    names = [str(i) for i in range(len(contigs))]
    clen = {nm: len(s) for nm, s in zip(names, contigs)}
    left, right, depth = select_reads(parse_sam(sam), clen, reads, pair_span)
    offsets = np.zeros(len(contigs) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in contigs], out=offsets[1:])
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


# --------------------------------------------------------------------------- the pipeline


def _genomes_of(genomes: list[Path] | list[str] | str) -> tuple[str, list[tuple[str, Path]], Preset | None]:
    """(label, [(name, fasta)], preset) of a preset name or a list of FASTA files."""
    if isinstance(genomes, str) and not os.path.exists(genomes):
        if genomes not in PRESETS:
            raise LassmError(f"unknown preset {genomes!r}; choose one of {', '.join(PRESETS)} or pass FASTA files")
        preset = PRESETS[genomes]
        missing = [g for g in preset.genomes if not os.path.exists(g.path)]
        if missing:
            pkgs = " ".join(sorted({g.package for g in missing}))
            raise LassmError(f"preset {genomes!r} needs {', '.join(g.path for g in missing)}; "
                             f"install with `apt-get install {pkgs}` (Debian)")
        return genomes, [(g.name, Path(g.path)) for g in preset.genomes], preset
    files = [Path(genomes)] if isinstance(genomes, (str, os.PathLike)) else [Path(g) for g in genomes]
    if not files:
        raise LassmError("no genomes given")
    for f in files:
        if not f.is_file():
            raise LassmError(f"{f}: genome FASTA does not exist")
    names = [re.sub(r"\.(fa|fna|fasta)(\.gz|\.xz|\.bz2)?$", "", f.name) for f in files]
    if len(set(names)) != len(names):
        raise LassmError(f"genome file names must differ: {names}")
    return "custom", list(zip(names, files)), None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build(genomes: list[Path] | str, k_list: Iterable[int] = DEFAULT_KS, seed: int = 0,
          out_dir: str | os.PathLike = "real", progress: bool | Callable[[str], None] = False,
          cov_median: float | None = None, cov_sigma: float | None = None,
          insert_mean: int | None = None, insert_sd: int | None = None,
          megahit_options: Iterable[str] | None = None, quality_shift: int | None = None) -> dict[int, Path]:
    """Runs the pipeline (module docstring) and writes ``<label>-k<k>.parquet`` and ``.dat``.

    Parameters
    ----------
    genomes : a preset name (``"tiny"``) or FASTA files (``.gz`` too), one genome each.
    k_list : contig k values, MEGAHIT's rules (odd, 15..255, steps <= 28).
    seed : seeds the abundances and ART.
    out_dir : output folder; ``work/`` inside it keeps every intermediate file and tool log.
    progress : True prints each stage to stderr; a callable receives the messages instead.
    cov_median, cov_sigma : the log-normal coverage (default: the preset's, else 8 and 0.5).
    insert_mean, insert_sd : the fragment size (default: the preset's, else
        :data:`INSERT_MEAN` and :data:`INSERT_SD`); mates project within mean + 3 sd.
    megahit_options : MEGAHIT options after :data:`MEGAHIT_OPTIONS` (default: the preset's).
    quality_shift : ART's ``-qs``/``-qs2`` (default: the preset's, else 0: none).

    Returns
    -------
    ``{k: parquet path}``; ``provenance.json`` beside them records inputs, tools and coverages.
    """
    ks = sorted({int(k) for k in k_list})
    if not ks or any(k % 2 == 0 or not 21 <= k <= 121 for k in ks):
        raise LassmError(f"k list {ks}: every k must be odd and in 21..121 (the kernel's range)")
    # The arguments are checked before the machine: a wrong argument is named the same way
    # whether or not the tools and genome packages are installed here.
    preset = PRESETS.get(genomes) if isinstance(genomes, str) and not os.path.exists(genomes) else None
    if isinstance(genomes, str) and not os.path.exists(genomes) and preset is None:
        raise LassmError(f"unknown preset {genomes!r}; choose one of {', '.join(PRESETS)} or pass FASTA files")
    ins_mean = int(insert_mean if insert_mean is not None else (preset.insert_mean if preset else INSERT_MEAN))
    ins_sd = int(insert_sd if insert_sd is not None else (preset.insert_sd if preset else INSERT_SD))
    if not READ_LEN // 2 <= ins_mean <= 2000 or not 0 <= ins_sd <= ins_mean // 4:
        raise LassmError(f"insert {ins_mean} +/- {ins_sd}: want a mean in {READ_LEN // 2}..2000 "
                         "and a sd of at most a quarter of it")
    check_tools()
    label, sources, preset = _genomes_of(genomes)
    median = cov_median if cov_median is not None else (preset.cov_median if preset else 8.0)
    sigma = cov_sigma if cov_sigma is not None else (preset.cov_sigma if preset else 0.5)
    pair_span = ins_mean + 3 * ins_sd
    extra = list(megahit_options if megahit_options is not None else (preset.megahit_options if preset else ()))
    base = list(MEGAHIT_OPTIONS)
    if "--min-count" in extra:  # the preset's own threshold replaces the fixed one
        i = base.index("--min-count")
        del base[i : i + 2]
    mh_options = base + extra
    qshift = int(quality_shift if quality_shift is not None else (preset.quality_shift if preset else 0))
    shift_args = ["-qs", str(qshift), "-qs2", str(qshift)] if qshift else []
    windows = {g.name: g.length for g in preset.genomes} if preset else {}
    # Where a preset's genome comes from: accession, Debian package and its installed version.
    origin = {g.name: dict(accession=g.accession, package=g.package, package_version=_dpkg_version(g.package))
              for g in preset.genomes} if preset else {}
    say = progress if callable(progress) else ((lambda m: print(m, file=sys.stderr)) if progress else (lambda m: None))
    out = Path(out_dir)
    work = out / "work"
    if work.exists():
        if not (work / "tools.log").exists():
            raise LassmError(f"{work} exists and is not a work folder of an earlier build; "
                             "choose another --out or remove it")
        shutil.rmtree(work)
    work.mkdir(parents=True)
    log = work / "tools.log"
    log.touch()  # marks the folder as this pipeline's at once, so a build killed early can be redone
    t0 = time.perf_counter()
    stamp = lambda: f"[{time.perf_counter() - t0:6.1f} s]"  # noqa: E731

    # 1-2: abundance and ART, one genome at a time.
    rng = np.random.default_rng(seed)
    coverage = [round(float(median * np.exp(rng.normal(0.0, sigma))), 3) for _ in sources]
    pairs: list[tuple[bytes, bytes, bytes, bytes]] = []
    genome_records = []
    for i, ((gname, path), cov) in enumerate(zip(sources, coverage)):
        fasta = work / f"{gname}.fa"
        records = list(read_fasta(path))
        with _open_text(path) as fh:
            ambiguous = sum(len(re.sub(r"[ACGTN]", "", ln.strip().upper())) for ln in fh if not ln.startswith(">"))
        window = windows.get(gname)
        records = windowed(records, window)
        with open(fasta, "wb") as fh:
            for head, seq in records:
                fh.write(b">" + head.encode() + b"\n" + seq + b"\n")
        art_seed = seed * 1000 + i + 1
        prefix = work / f"art_{gname}_"
        _run(["art_illumina", "-q", "-ss", ART_PROFILE, "-i", str(fasta), "-p", "-l", str(READ_LEN),
              "-f", str(cov), "-m", str(ins_mean), "-s", str(ins_sd), "-rs", str(art_seed), *shift_args, "-na",
              "-o", str(prefix)], log)
        r1 = list(read_fastq(Path(f"{prefix}1.fq")))
        r2 = list(read_fastq(Path(f"{prefix}2.fq")))
        if len(r1) != len(r2):
            raise LassmError(f"ART wrote {len(r1)} and {len(r2)} mates for {gname}")
        pairs += [(a[1], a[2], b[1], b[2]) for a, b in zip(r1, r2)]
        genome_records.append(dict(name=gname, source=str(path), sha256=_sha256(path),
                                   records=[h for h, _ in records], length=sum(len(s) for _, s in records),
                                   **({"window": window} if window is not None else {}),
                                   **origin.get(gname, {}),
                                   ambiguity_codes_resolved=ambiguous,
                                   coverage=cov, art_seed=art_seed, pairs=len(r1)))
        say(f"{stamp()} ART: {gname} ({genome_records[-1]['length']:,} bp) at {cov}x: {len(r1):,} pairs")

    # 3: merging.
    reads = merge_reads(pairs)
    n_merged = sum(1 for m in reads.mate if m < 0)
    say(f"{stamp()} merged {n_merged:,} of {len(pairs):,} pairs")
    p1 = [(str(j), reads.seqs[j], reads.quals[j]) for j, m in enumerate(reads.mate) if m > j]
    p2 = [(str(reads.mate[j]), reads.seqs[reads.mate[j]], reads.quals[reads.mate[j]])
          for j, m in enumerate(reads.mate) if m > j]
    _write_fastq(work / "pairs_1.fq", p1)
    _write_fastq(work / "pairs_2.fq", p2)
    _write_fastq(work / "merged.fq", ((str(j), reads.seqs[j], reads.quals[j]) for j, m in enumerate(reads.mate) if m < 0))
    # Every read on its own, named by its index (minimap2 would drop a /1 or /2 suffix).
    _write_fastq(work / "all.fq", ((str(j), s, q) for j, (s, q) in enumerate(zip(reads.seqs, reads.quals))))

    # 4: MEGAHIT, once, keeping the contigs of every k.
    mh = work / "megahit"
    _run(["megahit", "-1", str(work / "pairs_1.fq"), "-2", str(work / "pairs_2.fq"), "-r", str(work / "merged.fq"),
          "--k-list", ",".join(map(str, ks)), *mh_options, "-o", str(mh)], log)
    say(f"{stamp()} MEGAHIT done (k = {', '.join(map(str, ks))})")

    # 5-6: alignment and selection per k.
    written: dict[int, Path] = {}
    per_k = {}
    from .formats import write_dat, write_parquet

    for k in ks:
        contigs = canonical_contigs(contigs_at(mh / "intermediate_contigs", k, ks))
        if not contigs:
            raise LassmError(f"MEGAHIT made no contigs at k = {k} ({mh / 'intermediate_contigs'}); "
                             "raise the coverage or lower k")
        ref = work / f"k{k}.contigs.fa"
        ref.write_bytes(b"".join(b">%d\n%s\n" % (i, c) for i, c in enumerate(contigs)))
        sam = work / f"k{k}.sam"
        primary = work / f"k{k}.primary.sam"
        _run(["minimap2", "-ax", "sr", "-t", str(THREADS), str(ref), str(work / "all.fq")], log, stdout=sam)
        _run(["samtools", "view", "-F", "0x904", "-o", str(primary), str(sam)], log)
        ds = make_dataset(contigs, primary, reads, k, f"real-{label}-k{k}", pair_span)
        base = out / f"real-{label}-k{k}"
        write_parquet(ds, f"{base}.parquet")
        write_dat(ds, f"{base}.dat")
        written[k] = Path(f"{base}.parquet")
        both = int(((ds.left.counts > 0) & (ds.right.counts > 0)).sum())
        per_k[k] = dict(contigs=ds.n_contigs, with_reads=int(ds.with_reads_mask().sum()), both_sides=both,
                        left_reads=ds.left.n_reads, right_reads=ds.right.n_reads)
        say(f"{stamp()} k = {k}: {ds.n_contigs} contigs, {per_k[k]['with_reads']} with reads "
            f"({both} on both sides), {ds.left.n_reads + ds.right.n_reads:,} reads -> {base}.parquet")

    provenance = dict(
        preset=label, seed=seed, k_list=ks, cov_median=median, cov_sigma=sigma, genomes=genome_records,
        **({"quality_shift": qshift} if qshift else {}),
        read_len=READ_LEN, insert_mean=ins_mean, insert_sd=ins_sd, art_profile=ART_PROFILE,
        pair_span=pair_span, min_merge_overlap=MIN_MERGE_OVERLAP, merged_pairs=n_merged, pairs=len(pairs),
        megahit_options=mh_options, tools=tool_versions(), datasets=per_k,
    )
    with atomic_open(out / "provenance.json") as fh:
        fh.write(json.dumps(provenance, indent=2) + "\n")
    return written


# --------------------------------------------------------------------------- committed data


#: The repository's folder of committed real-genome datasets.
DATA_DIR = REPO / "data" / "real"
def committed(label: str, data_dir: str | os.PathLike = DATA_DIR) -> dict:
    """The provenance record of preset ``label`` in ``data_dir/provenance.json``: what
    :func:`build` recorded, plus ``table2`` (k -> :func:`table2_figures`) and ``files``."""
    records = json.loads((Path(data_dir) / "provenance.json").read_text())
    if label not in records:
        raise LassmError(f"{data_dir}/provenance.json has no record of {label!r} (has {', '.join(records)})")
    return records[label]

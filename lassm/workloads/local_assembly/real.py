# SPDX-License-Identifier: BSD-3-Clause
"""Local-assembly inputs from REAL genomes, made with real tools, the way MetaHipMer makes them.

Debian-shipped genomes go through the pipeline's stages, each a module of
:mod:`lassm.workloads.local_assembly.real_genomes`: log-normal coverage per genome; ART
(``art_illumina -ss HS25``) 2 x 150 bp pairs; exact-overlap merging (``merging``); one MEGAHIT
run giving the contigs at every k (``contigs``); minimap2 ``-ax sr`` with primary alignments
only; ``localassm``'s read selection and depth (``selection``). Right reads are stored forward,
left reads reverse complemented.

Presets (``real_genomes.presets.PRESETS``): ``tiny`` (for CI) and ``mock5`` (five bacteria,
calibrated to Table II; ``book/real-genomes.md``); :func:`lassm.runs.table2.publish` commits a
build. Deterministic for a seed: MEGAHIT's contigs, whose numbering and orientation vary, are put
in canonical form before alignment, and a test builds twice and compares.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ... import stderr
from ...atomic import atomic_open
from ...compressed import fastq_records, open_text
from ...errors import InputError, LassmError
from ...paths import REPO
from .real_genomes.contigs import canonical_contigs, contigs_at
from .real_genomes.external_tools import check_tools, dpkg_version, run_tool, tool_versions
from .real_genomes.merging import MIN_MERGE_OVERLAP, merge_reads
from .real_genomes.presets import DEFAULT_KS, INSERT_MEAN, INSERT_SD, PRESETS, READ_LEN, Overrides, Preset
from .real_genomes.selection import make_dataset
from .real_genomes.sequence_files import read_fasta, windowed, write_fastq

#: ART's HiSeq 2500 profile.
ART_PROFILE = "HS25"
#: Threads of MEGAHIT and minimap2.
THREADS = 2
#: MEGAHIT's options besides inputs, k list and output: fixed so that a run is reproducible.
MEGAHIT_OPTIONS = ("--min-count", "2", "--keep-tmp-files", "-t", str(THREADS))


def _genomes_of(genomes: list[Path] | list[str] | str) -> tuple[str, list[tuple[str, Path]], Preset | None]:
    """(label, [(name, fasta)], preset) of a preset name or a list of FASTA files; a string is always
    a preset's name, never a path in the working folder."""
    if isinstance(genomes, str):
        if genomes not in PRESETS:
            raise LassmError(f"unknown preset {genomes!r}; choose one of {', '.join(PRESETS)} or pass FASTA files")
        preset = PRESETS[genomes]
        missing = [g for g in preset.genomes if not os.path.exists(g.path)]
        if missing:
            pkgs = " ".join(sorted({g.package for g in missing}))
            raise LassmError(f"preset {genomes!r} needs {', '.join(g.path for g in missing)}; "
                             f"install with `apt-get install {pkgs}` (Debian)")
        return genomes, [(g.name, Path(g.path)) for g in preset.genomes], preset
    files = [Path(genomes)] if isinstance(genomes, os.PathLike) else [Path(g) for g in genomes]
    if not files:
        raise LassmError("no genomes given")
    for f in files:
        if not f.is_file():
            raise LassmError(f"{f}: genome FASTA does not exist")
        next(read_fasta(f), None)  # its first record: a file that is no FASTA text is refused before any tool runs
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
          over: Overrides = Overrides()) -> dict[int, Path]:
    """Runs the pipeline (module docstring) and writes ``<label>-k<k>.parquet`` and ``.dat``; returns
    ``{k: parquet path}``, with ``provenance.json`` beside them.

    Parameters
    ----------
    genomes : a preset name (``"tiny"``) or FASTA files (``.gz`` too), one genome each.
    k_list : contig k values, MEGAHIT's rules (odd, 15..255, steps <= 28).
    out_dir : output folder; ``work/`` inside keeps every intermediate file and tool log.
    progress : True prints each stage to stderr; a callable receives the messages instead.
    over : settings over the preset (None: the preset's, else the default): ``cov_median``,
        ``cov_sigma`` (8 and 0.5); ``insert_mean``, ``insert_sd`` (:data:`INSERT_MEAN`,
        :data:`INSERT_SD`); ``megahit_options`` (after :data:`MEGAHIT_OPTIONS`); ``quality_shift``
        (ART's ``-qs``/``-qs2``, 0).
    """
    ks = sorted({int(k) for k in k_list})
    if not ks or any(k % 2 == 0 or not 21 <= k <= 121 for k in ks):
        raise LassmError(f"k list {ks}: every k must be odd and in 21..121 (the kernel's range)")
    # The arguments are checked before the machine: a wrong argument is named the same way
    # whether or not the tools and genome packages are installed here.
    preset = PRESETS.get(genomes) if isinstance(genomes, str) else None
    if isinstance(genomes, str) and preset is None:
        raise LassmError(f"unknown preset {genomes!r}; choose one of {', '.join(PRESETS)} or pass FASTA files")
    ins_mean = int(over.insert_mean if over.insert_mean is not None else (preset.insert_mean if preset else INSERT_MEAN))
    ins_sd = int(over.insert_sd if over.insert_sd is not None else (preset.insert_sd if preset else INSERT_SD))
    if not READ_LEN // 2 <= ins_mean <= 2000 or not 0 <= ins_sd <= ins_mean // 4:
        raise LassmError(f"insert {ins_mean} +/- {ins_sd}: want a mean in {READ_LEN // 2}..2000 "
                         "and a sd of at most a quarter of it")
    check_tools()
    label, sources, preset = _genomes_of(genomes)
    median = over.cov_median if over.cov_median is not None else (preset.cov_median if preset else 8.0)
    sigma = over.cov_sigma if over.cov_sigma is not None else (preset.cov_sigma if preset else 0.5)
    pair_span = ins_mean + 3 * ins_sd
    extra = list(over.megahit_options if over.megahit_options is not None else (preset.megahit_options if preset else ()))
    options = list(MEGAHIT_OPTIONS)
    if "--min-count" in extra:  # the preset's own threshold replaces the fixed one
        i = options.index("--min-count")
        del options[i : i + 2]
    mh_options = options + extra
    qshift = int(over.quality_shift if over.quality_shift is not None else (preset.quality_shift if preset else 0))
    shift_args = ["-qs", str(qshift), "-qs2", str(qshift)] if qshift else []
    windows = {g.name: g.length for g in preset.genomes} if preset else {}
    # Where a preset's genome comes from: accession, Debian package and its installed version.
    origin = {g.name: dict(accession=g.accession, package=g.package, package_version=dpkg_version(g.package))
              for g in preset.genomes} if preset else {}
    say = stderr.sayer(progress)
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
        if not records:
            raise InputError(str(path), None, "file", "not a FASTA file: no record header ('>name')")
        with open_text(path) as fh:
            ambiguous = sum(len(re.sub(r"[ACGTN]", "", ln.strip().upper())) for ln in fh if not ln.startswith(">"))
        window = windows.get(gname)
        records = windowed(records, window)
        with open(fasta, "wb") as fh:
            for head, seq in records:
                fh.write(b">" + head.encode() + b"\n" + seq + b"\n")
        art_seed = seed * 1000 + i + 1
        prefix = work / f"art_{gname}_"
        run_tool(["art_illumina", "-q", "-ss", ART_PROFILE, "-i", str(fasta), "-p", "-l", str(READ_LEN),
              "-f", str(cov), "-m", str(ins_mean), "-s", str(ins_sd), "-rs", str(art_seed), *shift_args, "-na",
              "-o", str(prefix)], log)
        r1 = list(fastq_records(f"{prefix}1.fq"))
        r2 = list(fastq_records(f"{prefix}2.fq"))
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
    write_fastq(work / "pairs_1.fq", p1)
    write_fastq(work / "pairs_2.fq", p2)
    write_fastq(work / "merged.fq", ((str(j), reads.seqs[j], reads.quals[j]) for j, m in enumerate(reads.mate) if m < 0))
    # Every read on its own, named by its index (minimap2 would drop a /1 or /2 suffix).
    write_fastq(work / "all.fq", ((str(j), s, q) for j, (s, q) in enumerate(zip(reads.seqs, reads.quals))))

    # 4: MEGAHIT, once, keeping the contigs of every k.
    mh = work / "megahit"
    run_tool(["megahit", "-1", str(work / "pairs_1.fq"), "-2", str(work / "pairs_2.fq"), "-r", str(work / "merged.fq"),
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
        run_tool(["minimap2", "-ax", "sr", "-t", str(THREADS), str(ref), str(work / "all.fq")], log, stdout=sam)
        run_tool(["samtools", "view", "-F", "0x904", "-o", str(primary), str(sam)], log)
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


#: The repository's folder of committed real-genome datasets.
DATA_DIR = REPO / "data" / "real"


def committed(label: str, data_dir: str | os.PathLike = DATA_DIR) -> dict:
    """The provenance record of preset ``label`` in ``data_dir/provenance.json``: what
    :func:`build` recorded, plus ``table2`` (k -> :func:`lassm.runs.table2.table2_figures`) and
    ``files``."""
    records = json.loads((Path(data_dir) / "provenance.json").read_text())
    if label not in records:
        raise LassmError(f"{data_dir}/provenance.json has no record of {label!r} (has {', '.join(records)})")
    return records[label]

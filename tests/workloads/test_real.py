# SPDX-License-Identifier: BSD-3-Clause
"""Datasets from real genomes (:mod:`lassm.workloads.local_assembly.real`): the whole pipeline on the tiny community.

Where ART, MEGAHIT, minimap2, samtools and the genomes' Debian packages are installed, the
tiny community (phage lambda + plasmid MP1, about 8x) goes through ART -> merging -> MEGAHIT ->
minimap2 -> MetaHipMer's read selection twice (about 4 s each on 2 cores), and the datasets at
k = 21/33/55/77 are checked: valid in both formats, reads on both sides of many contigs, reads
oriented for their side, walks of several bases, byte-identical across the two builds, the same
on the CPU and SYCL backends. Elsewhere those tests skip naming the apt line. The committed
datasets under ``data/real/`` (tiny's and mock5's: they load, and their Table II figures are
the ones ``provenance.json`` records), the presets' definitions and the pure-Python stages
(merging, selection, windows, contig sets, errors) are checked everywhere. Where mock5's genome
packages are installed too, a fresh mock5 build is compared with the committed one.
"""
from __future__ import annotations


import argparse
import bz2
import dataclasses
import gzip
import json
import lzma
import re
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, extend
from lassm.cli import data_real
from lassm.runs import table2
from lassm.workloads.local_assembly import formats, real
from lassm.workloads.local_assembly.real_genomes import (contigs, external_tools, merging, presets, selection,
                                                         sequence_files)
from lassm.errors import LassmError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "real"
KS = (21, 33, 55, 77)
SEED = 0


def _missing() -> list[str]:
    missing = external_tools.missing_tools()
    missing += [g.path for g in presets.PRESETS["tiny"].genomes if not Path(g.path).exists()]
    return missing


needs_tools = pytest.mark.skipif(bool(_missing()), reason=f"needs the tools and genomes ({', '.join(_missing())} "
                                 f"missing): {external_tools.APT_LINE}")


def _sycl_or_skip():
    from lassm import backends
    from lassm.errors import BackendUnavailable

    try:
        backends.get("sycl")
    except BackendUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[int, Path]:
    if _missing():
        pytest.skip(f"needs {', '.join(_missing())}: {external_tools.APT_LINE}")
    return real.build("tiny", KS, seed=SEED, out_dir=tmp_path_factory.mktemp("real-a"))


def _same_dataset(a, b) -> None:
    assert np.array_equal(a.cids, b.cids) and np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.seqs, b.seqs) and np.allclose(a.depths, b.depths)
    for x, y in ((a.left, b.left), (a.right, b.right)):
        assert np.array_equal(x.contig_offsets, y.contig_offsets) and np.array_equal(x.offsets, y.offsets)
        assert np.array_equal(x.seqs, y.seqs) and np.array_equal(x.quals, y.quals) and x.ids == y.ids


def _kmers(seq: bytes, k: int = 21) -> set[bytes]:
    return {seq[i : i + k] for i in range(len(seq) - k + 1)}


# --------------------------------------------------------------------------- the pipeline


@needs_tools
@pytest.mark.parametrize("k", KS)
def test_datasets_are_valid_and_nontrivial(built, k):
    ds = formats.read_parquet(built[k])
    _same_dataset(ds, formats.read_dat(built[k].with_suffix(".dat"), k=k))
    assert ds.k == k and ds.n_contigs >= 20
    both = (ds.left.counts > 0) & (ds.right.counts > 0)
    assert both.sum() >= 10, f"only {both.sum()} contigs with reads on both sides"
    assert np.all(ds.lengths > k) and np.all(ds.depths >= 0)
    for reads in (ds.left, ds.right):
        assert set(np.unique(reads.seqs)) <= set(b"ACGTN") and reads.quals.min() >= 33
    ext = extend(ds, Params(k=k), backend="cpu")
    walks = np.concatenate([ext.right.walk_len, ext.left.walk_len])
    assert (walks >= 5).sum() >= 5, f"walk lengths {np.bincount(walks)[:10]}"


@needs_tools
@pytest.mark.parametrize("k", KS)
def test_reads_are_oriented_for_their_side(built, k):
    """A read sharing 21-mers with its contig shares them in the stored orientation: forward
    contig for the right end, reverse-complemented contig for the left end."""
    ds = formats.read_parquet(built[k])
    for left, reads in ((True, ds.left), (False, ds.right)):
        agree = disagree = 0
        for i in range(ds.n_contigs):
            contig = ds.contig(i)
            fwd = _kmers(sequence_files.revcomp(contig) if left else contig)
            rev = _kmers(contig if left else sequence_files.revcomp(contig))
            for j in range(reads.contig_offsets[i], reads.contig_offsets[i + 1]):
                mers = _kmers(reads.read(j)[0])
                agree += len(mers & fwd) > len(mers & rev)
                disagree += len(mers & rev) > len(mers & fwd)
        assert agree > 20 and disagree <= max(1, agree // 100), (left, agree, disagree)


@needs_tools
def test_build_is_deterministic(built, tmp_path):
    again = real.build("tiny", KS, seed=SEED, out_dir=tmp_path)
    for k in KS:
        assert again[k].with_suffix(".dat").read_bytes() == built[k].with_suffix(".dat").read_bytes(), k


@needs_tools
@pytest.mark.parametrize("k", KS)
def test_cpu_and_sycl_agree_on_fresh_build(built, k):
    _sycl_or_skip()
    ds = formats.read_parquet(built[k])
    cpu, sycl = extend(ds, Params(k=k), backend="cpu"), extend(ds, Params(k=k), backend="sycl")
    assert sycl.compare(cpu) == [] and sycl.lines() == cpu.lines()


@needs_tools
def test_committed_data_is_what_the_pipeline_makes(built):
    """data/real/ is this pipeline's output, where the tools are the versions it was made with."""
    recorded = real.committed("tiny")["tools"]
    here = external_tools.tool_versions()
    if here != recorded:
        pytest.skip(f"tool versions {here} differ from those data/real was made with {recorded}")
    for k in KS:
        _same_dataset(formats.read_parquet(built[k]), formats.read_parquet(DATA / f"real-tiny-k{k}.parquet"))


# --------------------------------------------------------------------------- committed data


@pytest.mark.parametrize("k", KS)
def test_committed_datasets_load_in_both_formats(k, tmp_path):
    ds = formats.read_parquet(DATA / f"real-tiny-k{k}.parquet")
    dat = tmp_path / f"real-tiny-k{k}.dat"
    dat.write_bytes(gzip.decompress((DATA / f"real-tiny-k{k}.dat.gz").read_bytes()))
    _same_dataset(ds, formats.read_dat(dat, k=k))
    assert ds.k == k and ((ds.left.counts > 0) & (ds.right.counts > 0)).sum() >= 10


@pytest.mark.parametrize("k", KS)
def test_cpu_and_sycl_agree_on_committed_data(k):
    _sycl_or_skip()
    ds = formats.read_parquet(DATA / f"real-tiny-k{k}.parquet")
    cpu, sycl = extend(ds, Params(k=k), backend="cpu"), extend(ds, Params(k=k), backend="sycl")
    assert sycl.compare(cpu) == [] and sycl.lines() == cpu.lines()


def test_committed_data_is_small_and_documented():
    size = sum(p.stat().st_size for p in DATA.iterdir())
    assert size < 8_000_000, f"data/real holds {size:,} bytes"
    text = (DATA / "PROVENANCE.md").read_text()
    for word in ("NC_001416.1", "NC_000958.1", "bowtie2-examples", "shovill-examples", "art_illumina", "megahit"):
        assert word in text
    for g in presets.PRESETS["mock5"].genomes:
        assert g.accession in text and g.package in text and g.path in text, g.name


# --------------------------------------------------------------------------- mock5 and the records


MOCK5 = presets.PRESETS["mock5"]
COMMITTED = [(label, k) for label in ("tiny", "mock5") for k in KS]


def test_provenance_has_one_record_per_committed_preset():
    records = json.loads((DATA / "provenance.json").read_text())
    assert set(records) == {"tiny", "mock5"}
    for label, rec in records.items():
        assert rec["preset"] == label and rec["k_list"] == list(KS) and rec["seed"] == SEED
        on_disk = {p.name: p.stat().st_size for p in DATA.glob(f"real-{label}-k*")}
        assert rec["files"] == on_disk, label
        assert {f"real-{label}-k{k}.parquet" for k in KS} <= set(on_disk)
        assert sorted(rec["table2"]) == sorted(str(k) for k in KS)


def test_mock5_preset_is_complete():
    """Five bacterial chromosomes of five species, each named by an accession of its package's
    file, and every calibration setting in the provenance of the committed build."""
    genomes = MOCK5.genomes
    assert len(genomes) == 5 and len({g.name for g in genomes}) == 5
    species = {" ".join(g.description.split()[:2]) for g in genomes}
    assert len(species) == 5, species
    for g in genomes:
        assert re.fullmatch(r"[A-Z]{1,2}_?\d{5,6}\.\d", g.accession), g.accession
        assert g.path.startswith("/usr/share/") and g.package.endswith("-examples")
        assert g.length is not None and g.length >= 50_000
    rec = real.committed("mock5")
    assert [r["name"] for r in rec["genomes"]] == [g.name for g in genomes]
    for g, r in zip(genomes, rec["genomes"]):
        assert g.accession in r["records"][0] and g.description in r["records"][0]
        assert (r["accession"], r["package"], r["length"], r["window"]) == (g.accession, g.package, g.length, g.length)
        assert r["source"] == g.path and len(r["sha256"]) == 64 and r["package_version"]
    assert (rec["cov_median"], rec["cov_sigma"]) == (MOCK5.cov_median, MOCK5.cov_sigma)
    assert (rec["insert_mean"], rec["insert_sd"]) == (MOCK5.insert_mean, MOCK5.insert_sd)
    assert rec["pair_span"] == MOCK5.insert_mean + 3 * MOCK5.insert_sd
    assert rec["quality_shift"] == MOCK5.quality_shift != 0
    assert rec["megahit_options"][-len(MOCK5.megahit_options):] == list(MOCK5.megahit_options)
    assert rec["megahit_options"].count("--min-count") == 1
    # Coverages are the seeded log-normal draws.
    rng = np.random.default_rng(rec["seed"])
    draws = [round(float(MOCK5.cov_median * np.exp(rng.normal(0.0, MOCK5.cov_sigma))), 3) for _ in genomes]
    assert [r["coverage"] for r in rec["genomes"]] == draws


def test_apt_lines_name_every_preset_package():
    for name, preset in presets.PRESETS.items():
        line = external_tools.apt_line(name)
        for pkg in preset.packages + tuple(deb for deb, _ in external_tools.TOOLS.values()):
            assert f" {pkg}" in line and f" {pkg}" in external_tools.APT_LINE, (name, pkg)
    assert "ragout-examples" not in external_tools.apt_line("tiny")
    assert set(presets.PRESETS["mock5"].packages) == {"bowtie-examples", "kleborate-examples", "ragout-examples"}


def test_missing_mock5_genomes_name_their_packages(monkeypatch, tmp_path):
    monkeypatch.setattr(external_tools, "missing_tools", lambda: [])
    monkeypatch.setattr(real.os.path, "exists", lambda path: False)
    with pytest.raises(LassmError) as exc:
        real.build("mock5", out_dir=tmp_path)
    msg = str(exc.value)
    assert "apt-get install bowtie-examples kleborate-examples ragout-examples" in msg
    assert all(g.path in msg for g in MOCK5.genomes)


@pytest.mark.parametrize("label,k", COMMITTED)
def test_committed_table2_figures_are_the_recorded_ones(label, k):
    """``lassm data stats`` on each committed file gives what provenance.json records (and the
    book shows); every figure is checked, the floats exactly."""
    path = DATA / f"real-{label}-k{k}.parquet"
    ds = formats.read_parquet(path)
    assert ds.k == k and ds.name == f"real-{label}-k{k}"
    recorded = real.committed(label)["table2"][str(k)]
    fresh = table2.table2_figures(path, k)
    assert fresh == recorded
    counts = real.committed(label)["datasets"][str(k)]
    assert (fresh["all_contigs"], fresh["contigs"]) == (counts["contigs"], counts["with_reads"])
    assert fresh["reads"] == counts["left_reads"] + counts["right_reads"]


@pytest.mark.parametrize("k", KS)
def test_mock5_is_calibrated_to_table2(k):
    """The calibration's claims (book/real-genomes.md): the per-contig figures of the committed
    mock5 come near the paper's, which the synthetic-free tiny community does not."""
    from lassm.workloads.local_assembly.stats import PAPER_TABLE2

    row, paper = real.committed("mock5")["table2"][str(k)], PAPER_TABLE2[k]
    assert 150 < row["avg_read_length"] and abs(row["avg_read_length"] - paper["avg_read_length"]) < 15
    per_contig, paper_per_contig = row["reads"] / row["contigs"], paper["reads"] / paper["contigs"]
    assert abs(per_contig / paper_per_contig - 1) < 0.3, (per_contig, paper_per_contig)
    assert row["avg_extension_length"] / paper["avg_extension_length"] < 2.5
    tiny = real.committed("tiny")["table2"][str(k)]
    assert tiny["avg_extension_length"] / paper["avg_extension_length"] > 10
    assert row["contigs"] > 20 * tiny["contigs"]


def _mock5_missing() -> list[str]:
    return external_tools.missing_tools() + [g.path for g in MOCK5.genomes if not Path(g.path).exists()]


@pytest.mark.skipif(bool(_mock5_missing()), reason=f"needs {external_tools.apt_line('mock5')}")
def test_committed_mock5_is_what_the_pipeline_makes(tmp_path):
    """A fresh mock5 build (about 10 s) equals the committed files, where the tools and genome
    packages are the versions it was made with."""
    rec = real.committed("mock5")
    versions = {g["package"]: g["package_version"] for g in rec["genomes"]}
    here = {p: external_tools.dpkg_version(p) for p in versions}
    if external_tools.tool_versions() != rec["tools"] or here != versions:
        pytest.skip(f"versions differ from those of the committed build ({rec['tools']}, {versions})")
    out = real.build("mock5", KS, seed=rec["seed"], out_dir=tmp_path)
    prov = json.loads((tmp_path / "provenance.json").read_text())
    assert prov == {key: val for key, val in rec.items() if key not in ("table2", "files")}
    for k in KS:
        _same_dataset(formats.read_parquet(out[k]), formats.read_parquet(DATA / f"real-mock5-k{k}.parquet"))


# --------------------------------------------------------------------------- stages, no tools


def test_merge_pair_joins_exact_overlaps_only():
    genome = b"ACGTTGCATGCCATTAGGCATCGATCGGATCCTAGGCTTAACGGTA"
    r1, r2 = genome[:30], sequence_files.revcomp(genome[20:])
    q1, q2 = b"I" * 29 + b"#", b"5" * len(r2)
    seq, qual = merging.merge_pair(r1, q1, r2, q2, min_overlap=8)
    assert seq == genome and len(qual) == len(genome)
    assert qual[29:30] == b"5" and qual[:20] == b"I" * 20  # the better base of the overlap wins
    bad = r1[:-1] + (b"A" if r1[-1:] != b"A" else b"C")
    assert merging.merge_pair(bad, q1, r2, q2, min_overlap=11) is None
    r2 = sequence_files.revcomp(genome[16:])  # 14 bases of overlap: enough for the default 12
    rs = merging.merge_reads([(r1, q1, r2, b"5" * len(r2)), (b"AAAAAAAAAA", b"I" * 10, b"CCCCCCCCCC", b"I" * 10)])
    assert rs.ids == ["@r0/1", "@r1/1", "@r1/2"] and rs.mate == [-1, 2, 1]


def _aln(read, plus, start, end, cl, cr, contig="0"):
    return selection.Alignment(read, contig, plus, start, end, cl, cr)


def test_select_reads_follows_metahipmer_rules():
    rs = merging.ReadSet(ids=[f"@r{i}" for i in range(8)], seqs=[b"A" * 150] * 8, quals=[b"I" * 150] * 8,
                      mate=[1, 0, 3, 2, -1, -1, 7, 6])
    clen = {"0": 1000}
    alns = [
        _aln(0, True, 900, 1000, 0, 50),     # runs off the right end; its mate projects right
        _aln(2, False, 0, 120, 30, 0),       # runs off the left end; its mate projects left
        _aln(4, True, 0, 1000, 10, 20),      # runs off both ends, forward: its 5' side (left)
        _aln(5, False, 0, 1000, 10, 20),     # both, reverse: its 5' side is the right
        _aln(6, True, 100, 250, 0, 0),       # inside, far from the right end: nothing
        _aln(7, True, 980, 999, 0, 131),     # a base short of the end: no overhang, mate projects
    ]
    left, right, depth = selection.select_reads(alns, clen, rs)
    assert left["0"] == [(2, False), (3, True), (4, True)]
    assert right["0"] == [(0, True), (1, False), (5, False), (6, False)]  # 7 only projects its mate
    assert depth["0"] == pytest.approx((100 + 120 + 1000 + 1000 + 150 + 19) / 1000)


def test_oriented_reads_match_the_dat_convention():
    rs = merging.ReadSet(ids=["@r0/1"], seqs=[b"AACG"], quals=[b"ABCD"], mate=[-1])
    assert selection._oriented(rs, 0, True, False) == ("@r0/1", b"AACG", b"ABCD")
    assert selection._oriented(rs, 0, True, True) == ("@r0/1", b"CGTT", b"DCBA")
    assert selection._oriented(rs, 0, False, False) == ("@r0/1", b"CGTT", b"DCBA")
    assert selection._oriented(rs, 0, False, True) == ("@r0/1", b"AACG", b"ABCD")


def test_fasta_reads_xz_and_bz2(tmp_path):
    text = b">a first\nACGT\nTT\n>b second\nGGG\n"
    (tmp_path / "g.fna.xz").write_bytes(lzma.compress(text))
    (tmp_path / "g.fa.bz2").write_bytes(bz2.compress(text))
    want = [("a first", b"ACGTTT"), ("b second", b"GGG")]
    read = lambda name: list(sequence_files.read_fasta(tmp_path / name))  # noqa: E731
    assert read("g.fna.xz") == want == read("g.fa.bz2")


def test_window_takes_the_start_of_the_first_record():
    records = [("chrom", b"ACGTACGTAC"), ("plasmid", b"GGGG")]
    assert sequence_files.windowed(records, None) == records
    assert sequence_files.windowed(records, 4) == [("chrom", b"ACGT")]
    assert sequence_files.windowed(records, 100) == [("chrom", b"ACGTACGTAC")]
    with pytest.raises(LassmError):
        sequence_files.windowed(records, 0)


def test_contig_set_puts_back_megahit_final_contigs(tmp_path):
    for name, seq in (("k21.contigs", "AAAA"), ("k21.final.contigs", "CCCC"), ("k33.contigs", "GGGG"),
                      ("k33.final.contigs", "TTTA"), ("k55.final.contigs", "ACAC")):
        (tmp_path / f"{name}.fa").write_text(f">{name}\n{seq}\n")
    got = lambda k: [s for _, s in contigs.contigs_at(tmp_path, k, KS)]  # noqa: E731
    assert got(21) == [b"AAAA", b"CCCC"]
    assert got(33) == [b"CCCC", b"GGGG", b"TTTA"]
    assert got(55) == [b"CCCC", b"TTTA", b"ACAC"]  # no k55.contigs.fa: only finals


def test_publish_records_figures_and_keeps_other_presets(tmp_path):
    out, data = tmp_path / "build", tmp_path / "data"
    out.mkdir()
    data.mkdir()
    (data / "provenance.json").write_text(json.dumps({"other": {"preset": "other"}}))
    (out / "real-tiny-k77.parquet").write_bytes((DATA / "real-tiny-k77.parquet").read_bytes())
    (out / "real-tiny-k77.dat").write_bytes(gzip.decompress((DATA / "real-tiny-k77.dat.gz").read_bytes()))
    (out / "provenance.json").write_text(json.dumps({"preset": "tiny", "k_list": [77], "seed": 0}))
    entry = table2.publish(out, data)
    records = json.loads((data / "provenance.json").read_text())
    assert records["other"] == {"preset": "other"} and records["tiny"] == entry
    assert entry["table2"]["77"] == real.committed("tiny")["table2"]["77"]
    assert set(entry["files"]) == {"real-tiny-k77.parquet", "real-tiny-k77.dat.gz"}
    assert gzip.decompress((data / "real-tiny-k77.dat.gz").read_bytes()) == (out / "real-tiny-k77.dat").read_bytes()
    assert real.committed("tiny", data) == entry
    with pytest.raises(LassmError, match="no record"):
        real.committed("mock5", data)


def test_fasta_ambiguity_codes_are_resolved(tmp_path):
    fa = tmp_path / "g.fa"
    fa.write_text(">g one\nacgR\nNYK\n")
    assert list(sequence_files.read_fasta(fa)) == [("g one", b"ACGANCG")]


def test_canonical_contigs_ignore_megahit_order_and_strand():
    a = contigs.canonical_contigs([("k21_0", b"TTTG"), ("k21_1", b"ACGA")])
    b = contigs.canonical_contigs([("k21_0", b"TCGT"), ("k21_1", b"CAAA")])
    assert a == b == [b"ACGA", b"CAAA"]


def test_missing_tools_name_the_packages(monkeypatch):
    monkeypatch.setattr(external_tools.shutil, "which", lambda name: None)
    with pytest.raises(LassmError) as exc:
        real.build("tiny", out_dir="unused")
    msg = str(exc.value)
    assert "apt-get install art-nextgen-simulation-tools megahit minimap2 samtools" in msg
    assert "bioconda" in msg and "art megahit minimap2 samtools" in msg


@pytest.mark.parametrize("tools", ["installed", "absent"])
def test_bad_arguments_are_lassm_errors(tools, tmp_path, monkeypatch):
    """The same argument errors whatever this machine has: tools and genome packages are made
    present or absent here, so the test cannot depend on what happens to be installed."""
    monkeypatch.setattr(external_tools, "missing_tools", (lambda: []) if tools == "installed" else (lambda: ["megahit"]))
    absent = tmp_path / "no-such-genome.fa"
    tiny = presets.PRESETS["tiny"]
    fake_genomes = tuple(dataclasses.replace(g, path=str(absent)) for g in tiny.genomes)
    monkeypatch.setitem(presets.PRESETS, "tiny", dataclasses.replace(tiny, genomes=fake_genomes))
    with pytest.raises(LassmError, match="odd"):
        real.build("tiny", (22,), out_dir=tmp_path)
    with pytest.raises(LassmError, match="unknown preset"):
        real.build("nope", out_dir=tmp_path)
    with pytest.raises(LassmError, match="insert"):
        real.build("tiny", out_dir=tmp_path, over=presets.Overrides(insert_mean=40))
    if tools == "absent":
        return
    with pytest.raises(LassmError, match="does not exist"):
        real.build([tmp_path / "absent.fa"], out_dir=tmp_path)
    with pytest.raises(LassmError, match="needs .*no-such-genome.fa"):
        real.build("tiny", out_dir=tmp_path)
    genome = tmp_path / "g.fa"
    genome.write_text(">g\nACGT\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mine.txt").write_text("not the pipeline's")
    with pytest.raises(LassmError, match="not a work folder"):
        real.build([genome], out_dir=tmp_path)
    assert (tmp_path / "work" / "mine.txt").exists()


def test_cli_parser(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the genome files named below must exist
    for name in ("a.fa", "b.fa.gz", "b.fa"):
        (tmp_path / name).write_text(">g\nACGT\n")
    parser = argparse.ArgumentParser()
    data_real.add_real_parser(parser.add_subparsers(dest="data_command"))
    args = parser.parse_args(["real", "--preset", "tiny", "--k-list", "21,33", "--out", "x"])
    assert args.func is data_real.cmd_real and args.preset == "tiny" and args.k_list == "21,33"
    assert args.insert_mean is None and args.quality_shift is None and args.megahit_options is None
    args = parser.parse_args(["real", "--preset", "mock5", "--insert-mean", "320", "--quality-shift", "-3",
                              "--megahit-options", "--min-count 1 --no-local", "--out", "x"])
    assert (args.preset, args.insert_mean, args.quality_shift) == ("mock5", 320, -3)
    assert args.megahit_options == "--min-count 1 --no-local"
    with pytest.raises(SystemExit):
        parser.parse_args(["real", "--out", "x"])  # a preset or genomes are required
    # Both spellings: --genomes with several files, --k with the list; --genome repeats too.
    args = parser.parse_args(["real", "--genomes", "a.fa", "b.fa.gz", "--k", "21,77", "--out", "x"])
    assert args.genome == ["a.fa", "b.fa.gz"] and args.k_list == "21,77" and args.preset is None
    args = parser.parse_args(["real", "--genome", "a.fa", "--genome", "b.fa", "--out", "x"])
    assert args.genome == ["a.fa", "b.fa"]
    with pytest.raises(SystemExit):
        parser.parse_args(["real", "--preset", "tiny", "--genomes", "a.fa", "--out", "x"])  # one or the other

# SPDX-License-Identifier: BSD-3-Clause
"""Datasets from real genomes (:mod:`lassm.real`): the whole pipeline on the tiny community.

Where ART, MEGAHIT, minimap2, samtools and the genomes' Debian packages are installed, the
tiny community (phage lambda + plasmid MP1, about 8x) goes through ART -> merging -> MEGAHIT ->
minimap2 -> MetaHipMer's read selection twice (about 4 s each on 2 cores), and the datasets at
k = 21/33/55/77 are checked: valid in both formats, reads on both sides of many contigs, reads
oriented for their side, walks of several bases, byte-identical across the two builds, the same
on the CPU and SYCL backends. Elsewhere those tests skip naming the apt line. The committed
datasets under ``data/real/`` and the pure-Python stages (merging, selection, errors) are
checked everywhere.
"""
from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, extend, formats, real
from lassm.errors import LassmError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "real"
KS = (21, 33, 55, 77)
SEED = 0


def _missing() -> list[str]:
    missing = real.missing_tools()
    missing += [g.path for g in real.PRESETS["tiny"].genomes if not Path(g.path).exists()]
    return missing


needs_tools = pytest.mark.skipif(bool(_missing()), reason=f"needs the tools and genomes ({', '.join(_missing())} "
                                 f"missing): {real.APT_LINE}")


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
        pytest.skip(f"needs {', '.join(_missing())}: {real.APT_LINE}")
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
            fwd = _kmers(real.revcomp(contig) if left else contig)
            rev = _kmers(contig if left else real.revcomp(contig))
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
    recorded = json.loads((DATA / "provenance.json").read_text())["tools"]
    here = real.tool_versions()
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
    assert size < 2_000_000, f"data/real holds {size:,} bytes"
    text = (DATA / "PROVENANCE.md").read_text()
    for word in ("NC_001416.1", "NC_000958.1", "bowtie2-examples", "shovill-examples", "art_illumina", "megahit"):
        assert word in text


# --------------------------------------------------------------------------- stages, no tools


def test_merge_pair_joins_exact_overlaps_only():
    genome = b"ACGTTGCATGCCATTAGGCATCGATCGGATCCTAGGCTTAACGGTA"
    r1, r2 = genome[:30], real.revcomp(genome[20:])
    q1, q2 = b"I" * 29 + b"#", b"5" * len(r2)
    seq, qual = real.merge_pair(r1, q1, r2, q2, min_overlap=8)
    assert seq == genome and len(qual) == len(genome)
    assert qual[29:30] == b"5" and qual[:20] == b"I" * 20  # the better base of the overlap wins
    bad = r1[:-1] + (b"A" if r1[-1:] != b"A" else b"C")
    assert real.merge_pair(bad, q1, r2, q2, min_overlap=11) is None
    r2 = real.revcomp(genome[16:])  # 14 bases of overlap: enough for the default 12
    rs = real.merge_reads([(r1, q1, r2, b"5" * len(r2)), (b"AAAAAAAAAA", b"I" * 10, b"CCCCCCCCCC", b"I" * 10)])
    assert rs.ids == ["@r0/1", "@r1/1", "@r1/2"] and rs.mate == [-1, 2, 1]


def _aln(read, plus, start, end, cl, cr, contig="0"):
    return real.Alignment(read, contig, plus, start, end, cl, cr)


def test_select_reads_follows_metahipmer_rules():
    rs = real.ReadSet(ids=[f"@r{i}" for i in range(8)], seqs=[b"A" * 150] * 8, quals=[b"I" * 150] * 8,
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
    left, right, depth = real.select_reads(alns, clen, rs)
    assert left["0"] == [(2, False), (3, True), (4, True)]
    assert right["0"] == [(0, True), (1, False), (5, False), (6, False)]  # 7 only projects its mate
    assert depth["0"] == pytest.approx((100 + 120 + 1000 + 1000 + 150 + 19) / 1000)


def test_oriented_reads_match_the_dat_convention():
    rs = real.ReadSet(ids=["@r0/1"], seqs=[b"AACG"], quals=[b"ABCD"], mate=[-1])
    assert real._oriented(rs, 0, True, False) == ("@r0/1", b"AACG", b"ABCD")
    assert real._oriented(rs, 0, True, True) == ("@r0/1", b"CGTT", b"DCBA")
    assert real._oriented(rs, 0, False, False) == ("@r0/1", b"CGTT", b"DCBA")
    assert real._oriented(rs, 0, False, True) == ("@r0/1", b"AACG", b"ABCD")


def test_fasta_ambiguity_codes_are_resolved(tmp_path):
    fa = tmp_path / "g.fa"
    fa.write_text(">g one\nacgR\nNYK\n")
    assert list(real.read_fasta(fa)) == [("g one", b"ACGANCG")]


def test_canonical_contigs_ignore_megahit_order_and_strand():
    a = real.canonical_contigs([("k21_0", b"TTTG"), ("k21_1", b"ACGA")])
    b = real.canonical_contigs([("k21_0", b"TCGT"), ("k21_1", b"CAAA")])
    assert a == b == [b"ACGA", b"CAAA"]


def test_missing_tools_name_the_packages(monkeypatch):
    monkeypatch.setattr(real.shutil, "which", lambda name: None)
    with pytest.raises(LassmError) as exc:
        real.build("tiny", out_dir="unused")
    msg = str(exc.value)
    assert "apt-get install art-nextgen-simulation-tools megahit minimap2 samtools" in msg
    assert "bioconda" in msg and "art megahit minimap2 samtools" in msg


def test_bad_arguments_are_lassm_errors(tmp_path, monkeypatch):
    with pytest.raises(LassmError, match="odd"):
        real.build("tiny", (22,), out_dir=tmp_path)
    monkeypatch.setattr(real, "missing_tools", lambda: [])
    with pytest.raises(LassmError, match="unknown preset"):
        real.build("nope", out_dir=tmp_path)
    with pytest.raises(LassmError, match="does not exist"):
        real.build([tmp_path / "absent.fa"], out_dir=tmp_path)
    genome = tmp_path / "g.fa"
    genome.write_text(">g\nACGT\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mine.txt").write_text("not the pipeline's")
    with pytest.raises(LassmError, match="not a work folder"):
        real.build([genome], out_dir=tmp_path)
    assert (tmp_path / "work" / "mine.txt").exists()


def test_cli_parser():
    parser = argparse.ArgumentParser()
    real.add_real_parser(parser.add_subparsers(dest="data_command"))
    args = parser.parse_args(["real", "--preset", "tiny", "--k-list", "21,33", "--out", "x"])
    assert args.func is real.cmd_real and args.preset == "tiny" and args.k_list == "21,33"
    with pytest.raises(SystemExit):
        parser.parse_args(["real", "--out", "x"])  # a preset or genomes are required

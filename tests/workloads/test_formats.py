# SPDX-License-Identifier: BSD-3-Clause
"""Datasets survive every format round trip; the multi-line MetaHipMer record parses."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lassm.workloads.local_assembly import formats
from lassm import paths
from lassm.workloads.local_assembly.dataset import Dataset, revcomp


def _same(a: Dataset, b: Dataset) -> None:
    assert np.array_equal(a.cids, b.cids)
    assert np.array_equal(a.seqs, b.seqs) and np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.depths, b.depths)
    for x, y in ((a.left, b.left), (a.right, b.right)):
        assert np.array_equal(x.seqs, y.seqs) and np.array_equal(x.quals, y.quals)
        assert np.array_equal(x.offsets, y.offsets) and np.array_equal(x.contig_offsets, y.contig_offsets)
        assert x.ids == y.ids


@pytest.fixture(scope="module")
def sample() -> Dataset:
    return formats.read_dat(paths.sample("k77"), k=77)


def test_sample_shape(sample: Dataset) -> None:
    assert sample.n_contigs == 3296
    assert sample.left.n_reads == 4339 and sample.right.n_reads == 3499
    assert int((~sample.with_reads_mask()).sum()) == 752
    assert int(np.maximum(sample.left.counts, sample.right.counts).max()) == 20


def test_multiline_record() -> None:
    ds = formats.read_dat(paths.sample("k21"))
    assert ds.n_contigs == 1 and int(ds.cids[0]) == 562299
    assert ds.depths[0] == pytest.approx(2.14286)
    assert ds.left.n_reads == 3 and ds.right.n_reads == 1
    assert all(len(s) == len(q) == 150 for s, q in (ds.left.read(j) for j in range(3)))


@pytest.mark.parametrize("suffix", [".dat", ".parquet"])
def test_round_trip(sample: Dataset, tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"x{suffix}"
    formats.write_dataset(sample, path)
    back = formats.read_dataset(path, k=77)
    _same(sample, back)
    if suffix == ".parquet":
        assert back.k == 77


def test_fasta_fastq_export(sample: Dataset, tmp_path: Path) -> None:
    formats.write_fasta(sample, tmp_path / "c.fasta")
    formats.write_fastq(sample, tmp_path / "r.fastq")
    fasta = (tmp_path / "c.fasta").read_text().splitlines()
    assert len(fasta) == 2 * sample.n_contigs and fasta[1] == sample.contig(0).decode()
    fastq = (tmp_path / "r.fastq").read_text().splitlines()
    assert len(fastq) == 4 * (sample.left.n_reads + sample.right.n_reads)
    assert all(len(fastq[i + 1]) == len(fastq[i + 3]) for i in range(0, len(fastq), 4))


def test_subset_and_replicate(sample: Dataset) -> None:
    idx = np.array([5, 0, 3000], dtype=np.int64)
    sub = sample.subset(idx)
    for n, i in enumerate(idx):
        assert sub.contig(n) == sample.contig(int(i))
        a, b = sample.left.contig_offsets[i], sample.left.contig_offsets[i + 1]
        assert [sub.left.read(j) for j in range(sub.left.contig_offsets[n], sub.left.contig_offsets[n + 1])] == \
            [sample.left.read(j) for j in range(a, b)]
    rep = sample.replicate(3)
    assert rep.n_contigs == 3 * sample.n_contigs and len(set(rep.cids.tolist())) == rep.n_contigs
    assert rep.contig(sample.n_contigs + 7) == sample.contig(7)


def test_revcomp() -> None:
    seq = np.frombuffer(b"AACGTN", dtype=np.uint8)
    assert revcomp(seq).tobytes() == b"NACGTT"

# SPDX-License-Identifier: BSD-3-Clause
"""The synthetic dataset generator: determinism, validity, and calibration to Table II.

The calibration test runs the real pipeline (generator, numba CPU kernel, the paper's Table II
definitions) at scale 1 for every k of the paper and holds each figure to 10 % of the published
row, so a change to the generator or the kernel that moves the data away from the paper fails.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from lassm.workloads.local_assembly.dataset import Dataset, revcomp
from lassm.workloads.local_assembly.generate import generate
from lassm.workloads.local_assembly.synthetic.profiles import PROFILES, profile_for
from lassm.workloads.local_assembly.stats import PAPER_TABLE2
from lassm.runs.table2 import dataset_stats

KS = (21, 33, 55, 77)
TOLERANCE = 0.10


def _arrays(ds: Dataset) -> list[np.ndarray]:
    out = [ds.cids, ds.seqs, ds.offsets, ds.depths]
    for side in (ds.left, ds.right):
        out += [side.seqs, side.quals, side.offsets, side.contig_offsets]
    return out


def _same(a: Dataset, b: Dataset) -> bool:
    return (all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(_arrays(a), _arrays(b)))
            and a.left.ids == b.left.ids and a.right.ids == b.right.ids)


@pytest.fixture(scope="module")
def small() -> Dataset:
    return generate(k=55, scale=0.1, seed=7)


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes(small: Dataset) -> None:
    again = generate(k=55, scale=0.1, seed=7)
    assert _same(small, again)


def test_other_seed_other_data(small: Dataset) -> None:
    other = generate(k=55, scale=0.1, seed=8)
    assert not _same(small, other)
    assert small.seqs.tobytes() != other.seqs.tobytes()


def test_progress_does_not_change_output() -> None:
    quiet = generate(k=41, scale=0.02, seed=3, progress=False)
    loud = generate(k=41, scale=0.02, seed=3, progress=True)
    assert _same(quiet, loud)


# --------------------------------------------------------------------------- validity


def test_name_and_k(small: Dataset) -> None:
    assert small.name == "gen-k55-s0.1-seed7"
    assert small.k == 55
    assert generate(k=21, scale=1 / 64, seed=0).name == "gen-k21-s0.015625-seed0"


def test_table2_datasets_are_named_for_the_cli(table2_datasets: dict[int, Dataset]) -> None:
    assert [ds.name for ds in table2_datasets.values()] == [f"gen-k{k}-s1.0-seed0" for k in KS]
    assert all(ds.k == k for k, ds in table2_datasets.items())


def test_bases_qualities_and_shapes(small: Dataset) -> None:
    allowed = np.frombuffer(b"ACGTN", dtype=np.uint8)
    assert np.isin(small.seqs, allowed).all()
    assert (small.lengths >= small.k).all()
    assert (small.depths >= 2.0).all() and np.isfinite(small.depths).all()
    assert len(np.unique(small.cids)) == small.n_contigs
    for side in (small.left, small.right):
        assert np.isin(side.seqs, allowed).all()
        assert len(side.seqs) == len(side.quals)
        q = side.quals.astype(int) - 33
        assert q.min() >= 2 and q.max() <= 41
        assert len(side.ids) == side.n_reads
        assert all(i.startswith("@r") and i[-2:] in ("/1", "/2") for i in side.ids)
        lens = side.lengths
        assert lens.min() >= 150 and lens.max() <= 288


def test_every_end_with_reads_has_a_read_longer_than_k(small: Dataset) -> None:
    k = small.k
    for side in (small.left, small.right):
        longest = np.zeros(small.n_contigs, dtype=np.int64)
        owner = np.repeat(np.arange(small.n_contigs), side.counts)
        np.maximum.at(longest, owner, side.lengths)
        has = side.counts > 0
        assert has.sum() > 0.2 * small.n_contigs
        assert (longest[has] > k).all()


def test_some_contigs_have_no_reads(small: Dataset) -> None:
    share = 1 - small.with_reads_mask().mean()
    assert 0.05 < share < 0.9


def test_reads_are_oriented_for_their_side(small: Dataset) -> None:
    """Right reads share 21-mers with the contig's end as stored; left ones with its reverse
    complement. The opposite orientation must not match."""
    w = 21

    def kmers(seq: bytes) -> set[bytes]:
        return {seq[i:i + w] for i in range(len(seq) - w + 1)}

    hits = {"right": [0, 0], "left": [0, 0]}
    for i in range(small.n_contigs):
        fwd = small.contig(i)
        rc = revcomp(np.frombuffer(fwd, dtype=np.uint8)).tobytes()
        for name, side, own, other in (("right", small.right, fwd, rc), ("left", small.left, rc, fwd)):
            own_k, other_k = kmers(own[-150:]), kmers(other[-150:])
            for j in range(side.contig_offsets[i], side.contig_offsets[i + 1]):
                read = side.read(j)[0]
                rk = kmers(read)
                hits[name][0] += bool(rk & own_k)
                hits[name][1] += bool(rk & other_k)
    for name, (own, other) in hits.items():
        assert own > 10 * max(other, 1), (name, own, other)


def test_qualities_look_like_the_sample(small: Dataset) -> None:
    q = np.concatenate([small.left.quals, small.right.quals]).astype(int) - 33
    assert 0.75 < np.mean(q == 31) < 0.9  # sample: 82 % '@'
    assert 0.03 < np.mean(q == 3) < 0.08  # sample: 4.9 % '$'
    assert np.mean(q < 10) < 0.1


def test_merged_pairs_are_present(small: Dataset) -> None:
    lens = np.concatenate([small.left.lengths, small.right.lengths])
    merged = lens > 150
    assert 0.05 < merged.mean() < 0.5
    assert lens[merged].mean() > 200


def test_other_k_values_interpolate() -> None:
    prof = profile_for(44)
    lo, hi = PROFILES[33], PROFILES[55]
    assert min(lo.contigs, hi.contigs) <= prof.contigs <= max(lo.contigs, hi.contigs)
    assert profile_for(121) == PROFILES[77]
    ds = generate(k=99, scale=0.02, seed=1)
    assert ds.k == 99 and (ds.lengths >= 99).all()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        generate(k=13)
    with pytest.raises(ValueError):
        generate(k=33, scale=0)


def test_needs_only_numpy() -> None:
    """The generator runs where numba and pyarrow are missing (GPU nodes)."""
    code = (
        "import sys\n"
        "sys.modules['numba'] = None\n"
        "sys.modules['pyarrow'] = None\n"
        "from lassm.workloads.local_assembly.generate import generate\n"
        "ds = generate(k=33, scale=0.01, seed=2)\n"
        "assert ds.n_contigs > 0\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------- calibration


@pytest.fixture(scope="module")
def table2_datasets() -> dict[int, Dataset]:
    """The generator's sets at scale 1, through its cache (:func:`.datasets.generated`: the file
    holds generate()'s output bit for bit, keyed by the generator's source), so that the suite
    makes them once, here or in the chapters that read them, and a second run not at all."""
    from lassm.workloads.local_assembly import datasets

    return {k: datasets.generated(k, 1.0, 0) for k in KS}


@pytest.fixture(scope="module")
def table2(table2_datasets: dict[int, Dataset]) -> dict[int, dict]:
    return {k: dataset_stats(ds, k) for k, ds in table2_datasets.items()}


def _close(name: str, k: int, mine: float, paper: float) -> None:
    assert abs(mine / paper - 1) <= TOLERANCE, f"k={k} {name}: {mine:.2f} vs paper {paper:.2f}"


@pytest.mark.parametrize("k", KS)
def test_per_contig_figures_match_table2(table2: dict[int, dict], k: int) -> None:
    row, paper = table2[k], PAPER_TABLE2[k]
    _close("reads per contig", k, row["reads"] / row["contigs"], paper["reads"] / paper["contigs"])
    _close("average read length", k, row["avg_read_length"], paper["avg_read_length"])
    _close("insertions per read", k, row["hash_insertions"] / row["reads"],
           paper["hash_insertions"] / paper["reads"])
    _close("average extension length", k, row["avg_extension_length"], paper["avg_extension_length"])


@pytest.mark.parametrize("k", KS)
def test_totals_match_table2_at_scale_1(table2: dict[int, dict], k: int) -> None:
    row, paper = table2[k], PAPER_TABLE2[k]
    for key in ("contigs", "reads", "hash_insertions", "total_extensions"):
        _close(key, k, row[key], paper[key])


def test_walks_are_short_but_not_empty(table2: dict[int, dict]) -> None:
    """As in the sample: contig ends already reach where their reads disagree, so most walks
    append 0-2 bases, but the kernel does extend (k = 77 sample: 10,494 bases on 3,296 contigs)."""
    for k in KS:
        row = table2[k]
        assert row["extended_bases"] > 0.1 * row["contigs"], k
        assert row["walk_steps"] >= row["extended_bases"]

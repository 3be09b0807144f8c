# SPDX-License-Identifier: BSD-3-Clause
"""The oracle: the CPU backend reproduces MetaHipMer's own outputs exactly."""
from __future__ import annotations

import numpy as np
import pytest

from lassm import Params, extend, paths
from lassm.workloads.local_assembly import formats

from ..helpers import random_dataset
from ..naive import extend_contig, walk_side, rc


@pytest.mark.parametrize("sample, k, n_contigs", [("k77", 77, 3296), ("k21", 21, 1)])
def test_cpu_matches_metahipmer_reference(sample: str, k: int, n_contigs: int) -> None:
    ds = formats.read_dat(paths.sample(sample))
    ref = formats.read_extended(paths.sample_reference(sample))
    ext = extend(ds, Params(k=k, max_walk=613, qual_offset=33), backend="cpu")
    mine = sorted(ext.lines())
    expected = sorted(f"{cid} {seq}" for cid, seq in ref.items())
    assert len(expected) == n_contigs
    assert mine == expected


def test_single_thread_equals_all_threads() -> None:
    ds = formats.read_dat(paths.sample("k77"))
    one = extend(ds, Params(k=77), backend="cpu", threads=1)
    many = extend(ds, Params(k=77), backend="cpu")
    assert one.compare(many) == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cpu_matches_plain_reading_of_the_spec(seed: int) -> None:
    ds = random_dataset(seed, n=30, k=21)
    ext = extend(ds, Params(k=21, max_walk=100), backend="cpu")
    walked = 0
    for i in range(ds.n_contigs):
        contig = ds.contig(i)
        left = [ds.left.read(j) for j in range(ds.left.contig_offsets[i], ds.left.contig_offsets[i + 1])]
        right = [ds.right.read(j) for j in range(ds.right.contig_offsets[i], ds.right.contig_offsets[i + 1])]
        depth = float(ds.depths[i])
        assert ext.extended(i) == extend_contig(contig, left, right, depth, 21, max_walk=100)
        if left or right:
            rwalk, rinfo = walk_side(contig, right, depth, 21, max_walk=100)
            assert ext.right.walk(i) == rwalk
            for key in ("final_k", "n_k", "steps", "insertions", "start_insertions"):
                assert int(getattr(ext.right, key)[i]) == rinfo[key], key
            assert (chr(ext.right.term[i]) if ext.right.term[i] else "") == rinfo["term"]
            lwalk, _ = walk_side(rc(contig), left, depth, 21, max_walk=100)
            assert ext.left.walk(i) == lwalk
            walked += len(rwalk) + len(lwalk)
    assert walked > 0, "the random datasets must make some walks"


def test_sample_subset_matches_plain_reading() -> None:
    ds = formats.read_dat(paths.sample("k77")).subset(np.arange(0, 3296, 97))
    ext = extend(ds, Params(k=77), backend="cpu")
    for i in range(ds.n_contigs):
        left = [ds.left.read(j) for j in range(ds.left.contig_offsets[i], ds.left.contig_offsets[i + 1])]
        right = [ds.right.read(j) for j in range(ds.right.contig_offsets[i], ds.right.contig_offsets[i + 1])]
        assert ext.extended(i) == extend_contig(ds.contig(i), left, right, float(ds.depths[i]), 77)


def test_termination_codes_are_all_seen() -> None:
    ds = formats.read_dat(paths.sample("k77"))
    ext = extend(ds, Params(k=77), backend="cpu")
    codes = {chr(t) for t in np.concatenate([ext.right.term, ext.left.term]) if t}
    # Dead ends and loops both end kept walks here; no kept walk ends in a fork at depth 2-12.
    assert codes == {"X", "R"}
    ran = ds.with_reads_mask()
    assert np.all(ext.right.n_k[~ran] == 0) and np.all(ext.right.n_k[ran] >= 1)


def test_vote_matches_plain_reading_on_random_counts() -> None:
    from lassm.backends.cpu import _BASE_CHARS, set_ext

    from ..naive import choose_ext

    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(20000):
        lo = rng.integers(0, 9, 4) * (rng.random(4) < 0.6)
        hi = np.minimum(lo, rng.integers(0, 9, 4))
        depth = float(rng.integers(0, 40))
        v = np.concatenate([lo, hi]).astype(np.int32)
        got = chr(set_ext(v, np.int64(depth), _BASE_CHARS))
        want = choose_ext(dict(zip("ACGT", lo.tolist())), dict(zip("ACGT", hi.tolist())), depth)
        assert got == want, (lo, hi, depth)
        seen.add(got)
    assert seen == set("ACGTXF")

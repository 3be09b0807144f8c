# SPDX-License-Identifier: BSD-3-Clause
"""SideResult's two layouts: dense (what backends write) and ragged (what shards ship and merge).

The parts here are real cpu-backend extensions of subsets of a generated set, so a merge that
placed a part's walks by the order parts arrive, or by position inside the part instead of by
contig, writes different bytes than the single run.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lassm.workloads.local_assembly import datasets, formats
from lassm.workloads.local_assembly.config import Params
from lassm.workloads.local_assembly.figures import SideFigures
from lassm.workloads.local_assembly.result import Extension, SideResult
from lassm.runs.extend import extend


@pytest.fixture(scope="module")
def single():
    ds, k = datasets.load("gen-k21-s0.05")
    return extend(ds, Params(k=k), backend="cpu")


def _plans(n: int) -> dict[str, list[np.ndarray]]:
    """Shard plans whose merge must restore contig order: interleaved, each shard's contigs
    descending and the shards out of order; contiguous ranges given last range first."""
    idx = np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(7)
    cut = n // 3
    return {"interleaved": [idx[2::3][::-1], idx[0::3], idx[1::3][::-1]],
            "shuffled": np.array_split(rng.permutation(n), 4),
            "ranges": [idx[2 * cut:], idx[cut : 2 * cut], idx[:cut]]}


def test_compact_keeps_every_walk(single):
    for side in (single.right, single.left):
        ragged = side.compact()
        assert ragged.offsets is not None and len(ragged.walks) == int(side.walk_len.sum()) > 0
        assert len(ragged.walks) < len(side.walks) // 50  # mostly zeros in the dense layout
        assert ragged.compare(side) == [] and side.compare(ragged) == []
        walked = np.flatnonzero(side.walk_len)[:20]
        assert [ragged.walk(int(i)) for i in walked] == [side.walk(int(i)) for i in walked]


@pytest.mark.parametrize("plan", ["interleaved", "shuffled", "ranges"])
def test_gathered_parts_write_the_single_runs_bytes(single, plan, tmp_path: Path):
    ds = single.dataset
    params = Params(**single.params)
    parts = [(index, extend(ds.subset(index), params, backend="cpu")) for index in _plans(ds.n_contigs)[plan]]
    sides = {key: SideResult.gathered(ds.n_contigs, params.max_walk, [(i, getattr(e, key)) for i, e in parts])
             for key in ("right", "left")}
    merged = Extension(ds, sides["right"], sides["left"], "cpu", params.as_dict())
    assert merged.compare(single) == []
    formats.write_extended(single, tmp_path / "one.txt")
    formats.write_extended(merged, tmp_path / "merged.txt")
    formats.write_ends(single, tmp_path / "one.tsv")
    formats.write_ends(merged, tmp_path / "merged.tsv")
    assert (tmp_path / "merged.txt").read_bytes() == (tmp_path / "one.txt").read_bytes()
    assert (tmp_path / "merged.tsv").read_bytes() == (tmp_path / "one.tsv").read_bytes()
    # A dense result filled part by part from ragged parts is the single run's, too.
    dense = SideResult.empty(ds.n_contigs, params.max_walk)
    for index, ext in parts:
        dense.scatter(index, ext.right.compact())
    assert dense.compare(single.right) == [] and np.array_equal(dense.walks, single.right.walks)


def test_compare_names_a_changed_base(single):
    ragged = single.right.compact()
    i = int(np.flatnonzero(single.right.walk_len)[3])
    broken = SideResult(**{**ragged.__dict__, "walks": ragged.walks.copy()})
    broken.walks[broken.offsets[i]] ^= 1
    assert broken.compare(single.right) == [f"walks (1 contigs, first at [{i}])"]
    with pytest.raises(ValueError, match="dense"):
        ragged.scatter(np.arange(2), single.right)


def test_split_sides_keeps_the_transfers_once(single):
    """A stacked run's copies between host and device stay with its right half, as its launches
    do, so the two halves sum to the run's; a backend that records none gives ``None`` (unknown)."""
    from lassm.backends.launch import split_sides, transfer_seconds

    n = len(single.right.walk_len)
    stacked = SideResult.gathered(2 * n, single.right.max_walk,
                                  [(np.arange(n), single.right.compact()), (np.arange(n, 2 * n), single.left.compact())])
    stacked.extra = SideFigures(resident_upload_seconds=0.5,
                                launches=[{"upload_seconds": 0.0, "download_seconds": 0.25},
                                          {"upload_seconds": 0.125, "download_seconds": 0.125}])
    right, left = split_sides(stacked, n)
    assert transfer_seconds(right.extra) == 1.0 and transfer_seconds(left.extra) == 0.0
    assert transfer_seconds(right.extra, left.extra) == 1.0
    assert transfer_seconds(single.right.extra, single.left.extra) is None  # the CPU oracle records no copies
    assert np.array_equal(left.walk_len, single.left.walk_len)

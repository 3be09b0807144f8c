# SPDX-License-Identifier: BSD-3-Clause
"""Dask sweeps and sharded extensions on a CPU LocalCluster (2 worker processes, cpu backend).

Sharding must not change a single base of the output; a sweep on the cluster must write the
records a local sweep writes; a worker killed mid-run must cost neither a record nor a shard.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed", reason="needs Dask: pip install 'lassm[dask]'")

from lassm.workloads.local_assembly import datasets  # noqa: E402
from lassm.runs import distributed  # noqa: E402
from lassm.workloads.local_assembly.config import Params  # noqa: E402
from lassm.runs.extend import extend  # noqa: E402
from lassm.runs.sweep import main_job  # noqa: E402

#: Summary keys that legitimately differ between two runs of the same point (``versions`` lists
#: the modules a process happens to have imported; its core entries are compared below).
VOLATILE = {"kernel_seconds", "kernel_seconds_runs", "wall_seconds", "cpu_seconds", "created", "command", "git_sha", "versions"}


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        c.wait_for_workers(2, timeout=60)
        yield c


@pytest.fixture(scope="module")
def small():
    """A sample-k77 subset with every bin present, and the k = 21 generator at 5 %."""
    ds, k = datasets.load("sample-k77")
    return {"sample": (ds.subset(np.arange(0, ds.n_contigs, 3)), k), "gen": datasets.load("gen-k21-s0.05")}


def _same(a, b) -> None:
    assert a.compare(b) == []
    assert a.lines() == b.lines()


@pytest.mark.parametrize("name", ["sample", "gen"])
def test_sharded_equals_single(client, small, name):
    ds, k = small[name]
    single = extend(ds, Params(k=k), backend="cpu")
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, shards=3)
    _same(ext, single)
    extra = ext.right.extra
    assert extra["shards"] == 3 and len(extra["shard_kernel_seconds"]) == 3
    assert extra["kernel_seconds_max_shard"] == pytest.approx(ext.kernel_seconds)
    assert extra["kernel_seconds_sum"] >= extra["kernel_seconds_max_shard"]
    assert extra["gpus"] == 0 and extra["workers"] >= 1


def test_sharded_from_source_on_workers(client, small):
    """Workers load the named dataset themselves and cut their shard: only indices travel."""
    ds, k = small["gen"]
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, source=("gen-k21-s0.05", k))
    _same(ext, extend(ds, Params(k=k), backend="cpu"))
    assert ext.right.extra["shards"] == 2


def test_out_of_order_plan_writes_the_single_runs_bytes(client, small, tmp_path):
    """Shards interleaved, each descending, given out of order: the merge must put every walk
    back at its contig, so the written output is the single run's byte for byte."""
    from lassm.workloads.local_assembly import formats

    ds, k = small["gen"]
    idx = np.arange(ds.n_contigs, dtype=np.int64)
    plan = [idx[1::3][::-1], idx[2::3], idx[0::3][::-1]]
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, plan)
    single = extend(ds, Params(k=k), backend="cpu")
    for name, write in (("out.txt", formats.write_extended), ("ends.tsv", formats.write_ends)):
        write(single, tmp_path / f"single-{name}")
        write(ext, tmp_path / f"sharded-{name}")
        assert (tmp_path / f"sharded-{name}").read_bytes() == (tmp_path / f"single-{name}").read_bytes()
    assert ext.right.offsets is not None  # merged ragged: no max_walk row per contig
    assert len(ext.right.extra["shard_pack_seconds"]) == len(ext.right.extra["shard_prep_seconds"]) == 3


@pytest.mark.parametrize("shards", [2, 4])
def test_plan_is_balanced_by_work(small, shards):
    """LPT per bin: max/mean within 1 + shards * (sum of the bins' heaviest contig) / total work.

    On these inputs that bound is a few per cent; a split by contig count does worse on the
    generator (its heavy contigs are not spread evenly), which is why the plan weighs work.
    """
    ds, _ = small["gen"]
    plan = distributed.plan_shards(ds, shards)
    assert np.array_equal(np.sort(np.concatenate(plan)), np.arange(ds.n_contigs))
    assert all(np.all(np.diff(idx) > 0) for idx in plan)
    bal = distributed.plan_balance(ds, plan)
    assert bal["max_over_mean"] <= bal["bound"] + 1e-9
    assert bal["max_over_mean"] < 1.07
    w = distributed.work_estimate(ds)
    by_count = np.array([w[c].sum() for c in np.array_split(np.arange(ds.n_contigs), shards)])
    assert bal["max_over_mean"] <= by_count.max() / by_count.mean()
    bins = distributed.contig_bins(ds)
    heavy = [(bins[idx] == 2).sum() for idx in plan]
    assert max(heavy) - min(heavy) <= max(2, 0.5 * np.mean(heavy))  # the heavy bin is spread


def _records(root: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(root.rglob("summary.json"))
            if not p.parent.name.startswith(".")}


POINTS = [("sample-k77", None, "cpu", "none"), ("gen-k21-s0.05", None, "cpu", "none"),
          ("gen-k21-s0.05", 33, "cpu", "none")]


def test_sweep_on_cluster_writes_the_same_records(client, tmp_path):
    names = ["sample-k77", "gen-k21-s0.05"]
    local = main_job(machine="t", backend_names=["cpu"], dataset_names=names, progress=False, root=tmp_path / "a")
    remote = main_job(machine="t", backend_names=["cpu"], dataset_names=names, progress=False, root=tmp_path / "b",
                      client=client)
    assert [r["status"] for r in local] == [r["status"] for r in remote] == ["ok", "ok"]
    a, b = _records(tmp_path / "a"), _records(tmp_path / "b")
    assert sorted(a) == sorted(b) and len(a) == 2
    for run_id in a:
        assert {key: v for key, v in a[run_id].items() if key not in VOLATILE} == \
               {key: v for key, v in b[run_id].items() if key not in VOLATILE}
        for mod in ("lassm", "numba", "numpy"):
            assert a[run_id]["versions"][mod] == b[run_id]["versions"][mod]
    again = main_job(machine="t", backend_names=["cpu"], dataset_names=names, progress=False, client=client,
                     root=tmp_path / "b")
    assert [r["status"] for r in again] == ["skipped (recorded)"] * 2  # resumable


def test_lost_worker_loses_no_point(client, tmp_path):
    """The first point to write its record kills its worker; Dask re-runs it elsewhere."""
    marker = tmp_path / "killed"
    rows = distributed.run_points(client, POINTS, machine="t", root=tmp_path / "rec", fail_marker=str(marker))
    assert marker.exists()
    # The killed attempt had written its record (atomically) before dying, so the re-run finds it.
    assert sorted(r["status"] for r in rows) in (["ok"] * 3, ["ok", "ok", "skipped (recorded)"])
    folders = sorted(p.name for p in (tmp_path / "rec").iterdir() if not p.name.startswith("."))
    assert folders == sorted({"sample-k77__k77__cpu__none", "gen-k21-s0-05__k21__cpu__none",
                              "gen-k21-s0-05__k33__cpu__none"})
    assert all(rec["matches_cpu"] for rec in _records(tmp_path / "rec").values())


def test_lost_worker_loses_no_shard(client, small, tmp_path):
    ds, k = small["gen"]
    marker = tmp_path / "killed"
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, shards=4, fail_marker=str(marker))
    assert marker.exists()
    _same(ext, extend(ds, Params(k=k), backend="cpu"))
    assert len(ext.right.extra["shard_kernel_seconds"]) == 4


def test_cli_cluster_paths(client, tmp_path, monkeypatch):
    from lassm.workloads.local_assembly import formats
    from lassm import paths
    from lassm.cli import main

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    one, many = tmp_path / "one.txt", tmp_path / "many.txt"
    sample = str(paths.sample("k77"))
    assert main(["extend", sample, "--k", "77", "--out", str(one)]) == 0
    assert main(["extend", sample, "--k", "77", "--out", str(many), "--cluster", client.scheduler.address]) == 0
    assert formats.read_extended(one) == formats.read_extended(many)
    assert main(["run", "--cluster", "local:2", "--backends", "cpu", "--datasets", "gen-k21-s0.05",
                 "--machine", "t", "--quiet"]) == 0
    assert list(_records(tmp_path / "results" / "t")) == ["gen-k21-s0-05__k21__cpu__none"]
    assert main(["run", "--cluster", "nowhere", "--backends", "cpu", "--quiet"]) == 2

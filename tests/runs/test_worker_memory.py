# SPDX-License-Identifier: BSD-3-Clause
"""A worker's memory in the records, and a shard too large for it cut further.

CPU workers of a real LocalCluster whose budget is capped (``LASSM_WORKER_MEMORY_BYTES`` in their
environment) below what a shard needs: each shard must run in pieces, and the files must still be
the single process's byte for byte, from a dataset in the task, named, or read from a shard folder.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed", reason="needs Dask: pip install 'lassm[dask]'")

from lassm.errors import LassmError  # noqa: E402
from lassm.runs import distributed, memory, shard_files  # noqa: E402
from lassm.runs.distributed import Sharding  # noqa: E402
from lassm.runs.extend import extend  # noqa: E402
from lassm.workloads.local_assembly import datasets, formats, stream  # noqa: E402
from lassm.workloads.local_assembly.config import Params  # noqa: E402

NAME = "gen-k21-s0.05x2"


@pytest.fixture(scope="module")
def data():
    return datasets.load(NAME)


@pytest.fixture(scope="module")
def single(data, tmp_path_factory) -> dict[str, bytes]:
    """The files of one plain run."""
    ds, k = data
    folder = tmp_path_factory.mktemp("single")
    ext = extend(ds, Params(k=k), backend="cpu")
    for name, write in (("out.txt", formats.write_extended), ("ends.tsv", formats.write_ends),
                        ("ends.parquet", formats.write_ends)):
        write(ext, folder / name)
    return {name: (folder / name).read_bytes() for name in ("out.txt", "ends.tsv", "ends.parquet")}


@pytest.fixture(scope="module")
def capped(data):
    """Two CPU workers that may give a shard's extension an eighth of what the whole set needs."""
    from distributed import Client, LocalCluster

    ds, _ = data
    cap = memory.need_bytes(ds.nbytes, "cpu") // 8
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env={memory.ENV: str(cap)}) as cluster, Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        yield client, cap


@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_a_shard_over_the_budget_runs_in_pieces_with_the_same_bytes(capped, data, single, tmp_path, suffix):
    client, cap = capped
    ds, k = data
    stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt", tmp_path / f"ends{suffix}",
                                        sharding=Sharding(shards=2))
    assert (tmp_path / "out.txt").read_bytes() == single["out.txt"]
    assert (tmp_path / f"ends{suffix}").read_bytes() == single[f"ends{suffix}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.txt", f"ends{suffix}"])  # no piece left
    assert all(n >= 3 for n in stats["shard_pieces"]), stats["shard_pieces"]
    assert stats["shard_budget_bytes"] == [cap, cap] and stats["budget_source"] == [memory.ENV]
    _memory_recorded(stats)


def test_named_and_shard_folder_sources_run_in_pieces_too(capped, data, single, tmp_path):
    """A worker that loads the set by name, or reads its range from a shard folder (only the row
    groups of each piece), cuts it the same way; the folder's bytes per shard guide the estimate."""
    client, _ = capped
    ds, k = data
    doc = stream.write_shards(NAME, tmp_path / "shards", 2, rows=500)
    for source in ((NAME, k), (str(tmp_path / "shards"), k)):
        stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt", None,
                                            sharding=Sharding(shards=2, source=source))
        assert (tmp_path / "out.txt").read_bytes() == single["out.txt"], source
        assert all(n >= 3 for n in stats["shard_pieces"]), (source, stats["shard_pieces"])
    assert stats["shard_input_bytes"] == pytest.approx([p["data_bytes"] for p in doc["shards"]], rel=1e-6)


def test_lassm_extend_reads_a_shard_folder(capped, data, single, tmp_path):
    """``lassm extend SHARDS``, alone and on the capped cluster (whose workers read their pieces
    from the folder): the single process's bytes; a plain folder is refused as an input."""
    from lassm.cli import main

    client, _ = capped
    assert main(["data", "shard", NAME, "--shards", "2", "--out", str(tmp_path / "shards")]) == 0
    for cluster in ([], ["--cluster", client.scheduler.address]):
        out = tmp_path / f"out{len(cluster)}.txt"
        assert main(["extend", str(tmp_path / "shards"), "--out", str(out), *cluster]) == 0
        assert out.read_bytes() == single["out.txt"], cluster
    (tmp_path / "plain").mkdir()
    assert main(["extend", str(tmp_path / "plain"), "--out", str(tmp_path / "x.txt")]) == 2


def test_the_in_memory_merge_runs_in_pieces(capped, data):
    """Interleaved shards (the plan of ``extend_sharded``), each over the budget: the merged walks
    equal one process's, bit for bit."""
    client, _ = capped
    ds, k = data
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, sharding=Sharding(shards=3))
    assert ext.compare(extend(ds, Params(k=k), backend="cpu")) == []
    run = ext.right.extra.sharded
    assert run is not None and all(n >= 2 for n in run.shard_pieces) and len(run.shard_pieces) == 3
    _memory_recorded(dataclasses.asdict(run))


def _memory_recorded(stats: dict) -> None:
    """Every shard's host peak (the shard's own, from VmHWM) and its worker's; no device on CPU workers."""
    assert stats["host_peak_source"] == ["VmHWM"]
    assert all(50e6 < b < 4e9 for b in stats["shard_peak_rss_bytes"]), stats["shard_peak_rss_bytes"]
    assert 1 <= len(stats["worker_peak_rss_bytes"]) <= 2
    assert stats["peak_rss_bytes"] == max(stats["worker_peak_rss_bytes"].values())
    assert stats["worker_device_high_water_bytes"] == {} and stats["device_high_water_bytes"] is None


def test_without_a_cap_a_shard_runs_whole(data, tmp_path, single):
    """``--cluster local`` (no cap; the workers' own memory limits are far above these shards)."""
    ds, k = data
    with distributed.connect("local:2") as client:
        stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                            sharding=Sharding(shards=2))
    assert stats["shard_pieces"] == [1, 1] and stats["budget_source"] == ["Dask worker memory limit"]
    assert (tmp_path / "out.txt").read_bytes() == single["out.txt"]


def test_the_budget_and_its_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(memory.ENV, "1e6")
    assert memory.budget("cpu") == (10**6, memory.ENV)
    assert memory.pieces(3 * 10**6 + 1, 10**6) == 4 and memory.pieces(10, None) == 1
    assert memory.cut(0, 10, 3) == [(0, 3), (3, 7), (7, 10)] and memory.cut(5, 7, 9) == [(5, 6), (6, 7)]
    for bad in ("lots", "0"):
        monkeypatch.setenv(memory.ENV, bad)
        with pytest.raises(LassmError, match=memory.ENV):
            memory.budget("cpu")
    assert np.all(memory.peak_bytes(memory.start_peak()) > 0)

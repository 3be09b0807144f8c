# SPDX-License-Identifier: BSD-3-Clause
"""Dask sweeps and sharded extensions on a CPU LocalCluster (2 worker processes, cpu backend).

Sharding must not change a single base of the output; a sweep on the cluster must write the
records a local sweep writes; a worker killed mid-run must cost neither a record nor a shard.
"""
from __future__ import annotations

import json
import os
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed", reason="needs Dask: pip install 'lassm[dask]'")

from lassm.workloads.local_assembly import datasets  # noqa: E402
from lassm.errors import LassmError  # noqa: E402
from lassm.runs import distributed, shard_files, shard_plan  # noqa: E402
from lassm.runs.distributed import Sharding  # noqa: E402
from lassm.workloads.local_assembly.config import Params  # noqa: E402
from lassm.runs.extend import extend  # noqa: E402
from lassm.runs.sweep import Choice, SweepOptions, Via, main_job  # noqa: E402

#: Summary keys that legitimately differ between two runs of the same point (``versions`` lists
#: the modules a process happens to have imported; its core entries are compared below).
#: What differs between two runs of one point: times (the wait for the device lock included, which
#: another process on the box may hold), provenance.
VOLATILE = {"kernel_seconds", "kernel_seconds_runs", "wall_seconds", "cpu_seconds", "device_wait_seconds", "created",
            "command", "git_sha", "versions"}


#: The longest a test waits for a cluster's workers to register: a check more than a wait, since
#: ``LocalCluster`` returns once its workers have started; on a loaded box a process start takes a
#: few seconds, so a cluster missing a worker after this is broken, not slow.
WORKERS_BOUND = 30


@contextmanager
def _cluster(workers: int = 2):
    """A client of a fresh CPU LocalCluster of ``workers`` processes, closed on exit."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        c.wait_for_workers(workers, timeout=WORKERS_BOUND)
        yield c


def _workers(c) -> set[str]:
    """The addresses of the workers the scheduler knows now (a restarted worker has a new one)."""
    return set(c.scheduler_info()["workers"])


class SharedCluster:
    """The module's cluster, for the tests that leave its workers alone. One that lost a worker
    (a test killed it, or it died) serves no later test: the next test gets a fresh cluster rather
    than waiting for a nanny to start the lost worker again."""

    def __init__(self) -> None:
        self._stack: ExitStack | None = None
        self._client = None
        self._found: set[str] = set()

    def client(self):
        """The cluster's client, with the workers it started with (else a fresh cluster's)."""
        if self._stack is None or self.lost():
            self.close()
            self._stack = ExitStack()
            self._client = self._stack.enter_context(_cluster())
            self._found = _workers(self._client)
        return self._client

    def lost(self) -> bool:
        """Whether a worker the cluster started with is gone (or replaced)."""
        return self._stack is not None and _workers(self._client) != self._found

    def close(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack = None


@pytest.fixture(scope="module")
def shared_cluster():
    shared = SharedCluster()
    yield shared
    shared.close()


@pytest.fixture
def client(shared_cluster):
    """The module's cluster, all its workers there."""
    return shared_cluster.client()


@pytest.fixture
def own_client():
    """A cluster of this test's own, for a test that kills a worker on purpose (``fail_marker``):
    the killed worker's nanny starts a new one in its own time, and no other test may wait on
    it. Closed with the test, whatever its workers are doing."""
    with _cluster() as c:
        yield c


@pytest.fixture(autouse=True)
def workers_left_alone(request):
    """A test that took the module's cluster and lost a worker of it fails here, by name (a test
    that kills one takes ``own_client``); the tests after it get a fresh cluster."""
    yield
    if "client" in request.fixturenames:
        assert not request.getfixturevalue("shared_cluster").lost(), \
            "a worker of the module's cluster was lost; a test that kills one takes own_client"


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
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, sharding=Sharding(shards=3))
    _same(ext, single)
    run = ext.right.extra.sharded
    assert run is not None and run.shards == 3 and len(run.shard_kernel_seconds) == 3
    assert run.kernel_seconds_max_shard == pytest.approx(ext.kernel_seconds)
    assert run.kernel_seconds_sum >= run.kernel_seconds_max_shard
    assert run.gpus == 0 and run.workers >= 1


def test_sharded_from_source_on_workers(client, small):
    """Workers load the named dataset themselves and cut their shard: only indices travel."""
    ds, k = small["gen"]
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, sharding=Sharding(source=("gen-k21-s0.05", k)))
    _same(ext, extend(ds, Params(k=k), backend="cpu"))
    assert ext.right.extra.sharded is not None and ext.right.extra.sharded.shards == 2


def test_out_of_order_plan_writes_the_single_runs_bytes(client, small, tmp_path):
    """Shards interleaved, each descending, given out of order: the merge must put every walk
    back at its contig, so the written output is the single run's byte for byte."""
    from lassm.workloads.local_assembly import formats

    ds, k = small["gen"]
    idx = np.arange(ds.n_contigs, dtype=np.int64)
    plan = [idx[1::3][::-1], idx[2::3], idx[0::3][::-1]]
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", client, sharding=Sharding(shards=plan))
    single = extend(ds, Params(k=k), backend="cpu")
    for name, write in (("out.txt", formats.write_extended), ("ends.tsv", formats.write_ends)):
        write(single, tmp_path / f"single-{name}")
        write(ext, tmp_path / f"sharded-{name}")
        assert (tmp_path / f"sharded-{name}").read_bytes() == (tmp_path / f"single-{name}").read_bytes()
    assert ext.right.offsets is not None  # merged ragged: no max_walk row per contig
    run = ext.right.extra.sharded
    assert run is not None and len(run.shard_pack_seconds) == len(run.shard_prep_seconds) == 3


@pytest.mark.parametrize("shards", [2, 4])
def test_plan_is_balanced_by_work(small, shards):
    """LPT per bin: max/mean within 1 + shards * (sum of the bins' heaviest contig) / total work.

    On these inputs that bound is a few per cent; a split by contig count does worse on the
    generator (its heavy contigs are not spread evenly), which is why the plan weighs work.
    """
    ds, _ = small["gen"]
    plan = shard_plan.plan_shards(ds, shards)
    assert np.array_equal(np.sort(np.concatenate(plan)), np.arange(ds.n_contigs))
    assert all(np.all(np.diff(idx) > 0) for idx in plan)
    bal = shard_plan.plan_balance(ds, plan)
    assert bal["max_over_mean"] <= bal["bound"] + 1e-9
    assert bal["max_over_mean"] < 1.07
    w = shard_plan.work_estimate(ds)
    by_count = np.array([w[c].sum() for c in np.array_split(np.arange(ds.n_contigs), shards)])
    assert bal["max_over_mean"] <= by_count.max() / by_count.mean()
    bins = shard_plan.contig_bins(ds)
    heavy = [(bins[idx] == 2).sum() for idx in plan]
    assert max(heavy) - min(heavy) <= max(2, 0.5 * np.mean(heavy))  # the heavy bin is spread


def _records(root: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(root.rglob("summary.json"))
            if not p.parent.name.startswith(".")}


POINTS = [("sample-k77", None, "cpu", "none"), ("gen-k21-s0.05", None, "cpu", "none"),
          ("gen-k21-s0.05", 33, "cpu", "none")]


def test_sweep_on_cluster_writes_the_same_records(client, tmp_path):
    names = ["sample-k77", "gen-k21-s0.05"]
    points = Choice(backends=["cpu"], datasets=names)
    local = main_job(machine="t", points=points, progress=False, options=SweepOptions(root=tmp_path / "a"))
    remote = main_job(machine="t", points=points, progress=False, options=SweepOptions(root=tmp_path / "b"),
                      via=Via(client=client))
    assert [r["status"] for r in local] == [r["status"] for r in remote] == ["ok", "ok"]
    a, b = _records(tmp_path / "a"), _records(tmp_path / "b")
    assert sorted(a) == sorted(b) and len(a) == 2
    for run_id in a:
        assert {key: v for key, v in a[run_id].items() if key not in VOLATILE} == \
               {key: v for key, v in b[run_id].items() if key not in VOLATILE}
        for mod in ("lassm", "numba", "numpy"):
            assert a[run_id]["versions"][mod] == b[run_id]["versions"][mod]
    again = main_job(machine="t", points=points, progress=False, via=Via(client=client),
                     options=SweepOptions(root=tmp_path / "b"))
    assert [r["status"] for r in again] == ["skipped (recorded)"] * 2  # resumable


def test_lost_worker_loses_no_point(own_client, tmp_path):
    """The first point to write its record kills its worker; Dask re-runs it elsewhere."""
    marker = tmp_path / "killed"
    rows = distributed.run_points(own_client, POINTS, machine="t", root=tmp_path / "rec", fail_marker=str(marker))
    assert marker.exists()
    # The killed attempt had written its record (atomically) before dying, so the re-run finds it.
    assert sorted(r["status"] for r in rows) in (["ok"] * 3, ["ok", "ok", "skipped (recorded)"])
    folders = sorted(p.name for p in (tmp_path / "rec").iterdir() if not p.name.startswith("."))
    assert folders == sorted({"sample-k77__k77__cpu__none", "gen-k21-s0-05__k21__cpu__none",
                              "gen-k21-s0-05__k33__cpu__none"})
    assert all(rec["matches_cpu"] for rec in _records(tmp_path / "rec").values())


def test_lost_worker_loses_no_shard(own_client, small, tmp_path):
    ds, k = small["gen"]
    marker = tmp_path / "killed"
    ext = distributed.extend_sharded(ds, Params(k=k), "cpu", own_client,
                                     sharding=Sharding(shards=4, fail_marker=str(marker)))
    assert marker.exists()
    _same(ext, extend(ds, Params(k=k), backend="cpu"))
    assert ext.right.extra.sharded is not None and len(ext.right.extra.sharded.shard_kernel_seconds) == 4


def test_the_only_worker_lost_loses_no_shard(small, tmp_path):
    """A cluster of one worker that dies mid-shard: its restarted self runs every shard. Shards
    placed on the lost worker waited as "no-worker" for good (the run never ended); placed nowhere,
    they run on the restart."""
    from concurrent.futures import ThreadPoolExecutor

    ds, k = small["gen"]
    marker = tmp_path / "killed"
    pool = ThreadPoolExecutor(1)
    try:
        with _cluster(1) as one:
            run = pool.submit(distributed.extend_sharded, ds, Params(k=k), "cpu", one,
                              sharding=Sharding(shards=2, fail_marker=str(marker)))
            ext = run.result(timeout=60)  # a hang fails here (closing the client ends the wait)
    finally:
        pool.shutdown(wait=False)
    assert marker.exists()
    _same(ext, extend(ds, Params(k=k), backend="cpu"))


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


# ---------------------------------------------------------------- shards that write their own parts

def _single_files(ds, k, folder: Path, ends_suffix: str) -> tuple[bytes, bytes]:
    """The files of one plain run: what every sharded write must equal byte for byte."""
    from lassm.workloads.local_assembly import formats

    folder.mkdir(exist_ok=True)
    single = extend(ds, Params(k=k), backend="cpu")
    formats.write_extended(single, folder / "out.txt")
    formats.write_ends(single, folder / f"ends{ends_suffix}")
    return (folder / "out.txt").read_bytes(), (folder / f"ends{ends_suffix}").read_bytes()


@pytest.fixture(scope="module")
def single_files(small, tmp_path_factory):
    ds, k = small["gen"]
    base = tmp_path_factory.mktemp("single")
    return {suffix: _single_files(ds, k, base / suffix.strip("."), suffix) for suffix in (".tsv", ".parquet")}


def _only(folder: Path, names: set[str]) -> None:
    """Nothing but ``names`` in ``folder``: no part, parts folder or temporary left behind."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


@pytest.mark.parametrize("shards", [1, 2, 3, 5])
@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_workers_write_the_single_runs_bytes(client, small, single_files, tmp_path, shards, suffix):
    """Each worker writes its range's lines and ends; joined, they are the plain run's files."""
    ds, k = small["gen"]
    stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                        tmp_path / f"ends{suffix}", sharding=Sharding(shards=shards))
    out, ends = single_files[suffix]
    assert (tmp_path / "out.txt").read_bytes() == out
    assert (tmp_path / f"ends{suffix}").read_bytes() == ends
    _only(tmp_path, {"out.txt", f"ends{suffix}"})
    assert stats["written_by"] == "workers" and stats["shards"] == shards == len(stats["shard_bounds"])
    assert stats["out_bytes"] == len(out) and sum(s["out"] for s in stats["shard_bytes"]) == len(out)
    assert stats["shard_bounds"][0][0] == 0 and stats["shard_bounds"][-1][1] == ds.n_contigs
    assert stats["kernel_seconds_sum"] >= stats["kernel_seconds"] > 0


def test_a_pipe_or_a_device_is_written_in_place_not_replaced(client, small, single_files, tmp_path, monkeypatch):
    """A FIFO destination stays a FIFO and its reader gets the plain run's bytes, TSV ends too; the
    parts folders lie in the working folder, not beside the pipes (never in /dev), and go away;
    /dev/null takes the output and stays the device it was."""
    import stat
    import threading

    ds, k = small["gen"]
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    pipes = {name: tmp_path / name for name in ("out.txt", "ends.tsv")}
    got: dict[str, bytes] = {}
    for path in pipes.values():
        os.mkfifo(path)
    readers = [threading.Thread(target=lambda n=n, p=p: got.__setitem__(n, p.read_bytes()), daemon=True)
               for n, p in pipes.items()]
    for r in readers:
        r.start()
    shard_files.extend_to_files(ds, Params(k=k), "cpu", client, pipes["out.txt"], pipes["ends.tsv"],
                                sharding=Sharding(shards=3))
    for r in readers:
        r.join(timeout=60)
    assert all(stat.S_ISFIFO(os.stat(p).st_mode) for p in pipes.values())
    assert got == {"out.txt": single_files[".tsv"][0], "ends.tsv": single_files[".tsv"][1]}
    assert list(work.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["ends.tsv", "out.txt", "work"]
    before = os.stat("/dev/null")
    shard_files.extend_to_files(ds, Params(k=k), "cpu", client, "/dev/null", sharding=Sharding(shards=2))
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_out_of_order_ranges_and_an_empty_shard(client, small, single_files, tmp_path):
    """Ranges given out of order, an empty shard among them (it comes first in the file's order,
    so it writes the TSV header alone): the files are still the plain run's."""
    ds, k = small["gen"]
    n = ds.n_contigs
    plan = [np.arange(n // 3, n), np.arange(0), np.arange(0, n // 3)]
    for suffix in (".tsv", ".parquet"):
        stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                            tmp_path / f"ends{suffix}",
                                            sharding=Sharding(shards=plan, source=("gen-k21-s0.05", k)))
        assert (tmp_path / "out.txt").read_bytes() == single_files[suffix][0]
        assert (tmp_path / f"ends{suffix}").read_bytes() == single_files[suffix][1]
        assert stats["shard_bytes"][1]["out"] == 0 and stats["written_by"] == "workers"
    _only(tmp_path, {"out.txt", "ends.tsv", "ends.parquet"})


def test_interleaved_plan_is_written_by_the_parent(client, small, single_files, tmp_path):
    """A plan of interleaved shards has no block per shard: merged in memory, written here, same bytes."""
    ds, k = small["gen"]
    idx = np.arange(ds.n_contigs, dtype=np.int64)
    stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", client, tmp_path / "out.txt", tmp_path / "ends.tsv",
                                        sharding=Sharding(shards=[idx[1::2], idx[0::2]]))
    assert stats["written_by"] == "parent"
    assert (tmp_path / "out.txt").read_bytes() == single_files[".tsv"][0]
    assert (tmp_path / "ends.tsv").read_bytes() == single_files[".tsv"][1]
    _only(tmp_path, {"out.txt", "ends.tsv"})


@pytest.mark.parametrize("shards", [2, 3, 7])
def test_ranges_are_contiguous_and_balanced(small, shards):
    """Each range exceeds the mean weight by at most the heaviest contig (the cut rule's bound)."""
    ds, _ = small["gen"]
    plan = shard_files.plan_ranges(ds, shards)
    ranges = shard_files.as_ranges(plan)
    assert ranges is not None and len(ranges) == shards
    assert ranges[0][0] == 0 and ranges[-1][1] == ds.n_contigs
    assert all(r[1] == s[0] for r, s in zip(ranges, ranges[1:]))
    w = shard_plan.work_estimate(ds) + np.diff(ds.offsets)
    loads = np.array([w[idx].sum() for idx in plan])
    assert loads.max() / loads.mean() <= 1 + shards * w.max() / w.sum() + 1e-9
    assert shard_plan.plan_balance(ds, plan)["max_over_mean"] < 1.1
    assert shard_files.as_ranges([np.array([0, 2]), np.array([1])]) is None


def test_a_retried_shard_replaces_its_parts(own_client, small, single_files, tmp_path):
    """The first shard to have written its parts kills its worker; Dask runs it again elsewhere,
    and that run's parts replace the first's: nothing doubled, nothing left."""
    ds, k = small["gen"]
    marker = tmp_path / "killed"
    dest = tmp_path / "files"
    stats = shard_files.extend_to_files(ds, Params(k=k), "cpu", own_client, dest / "out.txt", dest / "ends.tsv",
                                        sharding=Sharding(shards=4, fail_marker=str(marker)))
    assert marker.exists()
    assert (dest / "out.txt").read_bytes() == single_files[".tsv"][0]
    assert (dest / "ends.tsv").read_bytes() == single_files[".tsv"][1]
    _only(dest, {"out.txt", "ends.tsv"})
    assert stats["shards"] == 4


def test_a_failed_shard_leaves_the_destination_alone(small, tmp_path):
    """With no second chance for a lost worker, the killed shard fails the run: the old output
    stays as it was, no ends file appears, and the parts the other shards (and the killed one)
    wrote are gone."""
    import dask

    ds, k = small["gen"]
    dest = tmp_path / "files"
    dest.mkdir()
    (dest / "out.txt").write_bytes(b"the previous output\n")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), _cluster() as c:
        with pytest.raises(Exception, match="KilledWorker|died|lost"):
            shard_files.extend_to_files(ds, Params(k=k), "cpu", c, dest / "out.txt", dest / "ends.tsv",
                                        sharding=Sharding(shards=3, retries=0, fail_marker=str(tmp_path / "killed")))
    assert (tmp_path / "killed").exists()
    assert (dest / "out.txt").read_bytes() == b"the previous output\n"
    _only(dest, {"out.txt"})


def test_a_killed_parents_parts_go_with_the_next_write(small, tmp_path):
    """A parts folder is named as a temporary of its destination: once its process is dead, the
    next atomic write of the destination removes it."""
    import subprocess
    import sys

    from lassm.workloads.local_assembly import formats

    code = ("import os, sys; from pathlib import Path; from lassm.runs import part_join; "
            "d = part_join.parts_folder(Path(sys.argv[1])); (d / '00000.out').write_text('x'); os._exit(9)")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "out.txt")], check=False)
    assert len([p for p in tmp_path.iterdir() if p.name.endswith(".parts")]) == 1
    ds, k = small["sample"]
    formats.write_extended(extend(ds.subset(np.arange(4)), Params(k=k), backend="cpu"), tmp_path / "out.txt")
    _only(tmp_path, {"out.txt"})


def test_cli_cluster_writes_the_ends_too(client, tmp_path):
    from lassm import paths
    from lassm.cli import main

    sample = str(paths.sample("k77"))
    assert main(["extend", sample, "--k", "77", "--out", str(tmp_path / "one.txt"), "--ends", str(tmp_path / "one.tsv")]) == 0
    assert main(["extend", sample, "--k", "77", "--out", str(tmp_path / "many.txt"), "--ends", str(tmp_path / "many.tsv"),
                 "--cluster", client.scheduler.address]) == 0
    assert (tmp_path / "many.txt").read_bytes() == (tmp_path / "one.txt").read_bytes()
    assert (tmp_path / "many.tsv").read_bytes() == (tmp_path / "one.tsv").read_bytes()
    _only(tmp_path, {"one.txt", "one.tsv", "many.txt", "many.tsv"})


def test_a_slice_is_the_subset_of_its_range(small):
    """``Dataset.slice`` (views, what a range shard travels as) equals ``subset`` of the range."""
    ds, _ = small["sample"]
    for a, b in ((0, ds.n_contigs), (3, 17), (5, 5), (ds.n_contigs - 1, ds.n_contigs)):
        one, two = ds.slice(a, b), ds.subset(np.arange(a, b))
        for name in ("cids", "seqs", "offsets", "depths"):
            assert np.array_equal(getattr(one, name), getattr(two, name)), name
        for side in ("left", "right"):
            for name in ("seqs", "quals", "offsets", "contig_offsets"):
                assert np.array_equal(getattr(getattr(one, side), name), getattr(getattr(two, side), name)), (side, name)
            assert getattr(one, side).ids == getattr(two, side).ids


def test_lassms_own_workers_run_without_the_sampling_profiler() -> None:
    """``--cluster local`` starts workers whose statistical profiler is off (QUIET_WORKERS), and
    leaves this process's Dask configuration as it was."""
    import dask

    before = dask.config.get("distributed.worker.profile.enabled")
    with distributed.connect("local:1") as c:
        c.wait_for_workers(1, timeout=WORKERS_BOUND)
        seen = c.run(lambda dask_worker: (dask.config.get("distributed.worker.profile.enabled"),
                                          "profile" in dask_worker.periodic_callbacks))
        threads = list(c.run(_threads).values())
    assert before is True and dask.config.get("distributed.worker.profile.enabled") is True
    assert list(seen.values()) == [(False, False)]
    # its one worker may use every core, not the one core Dask's nannies give (OMP_NUM_THREADS=1)
    cores = str(distributed.host_cores())
    assert threads == [(cores, int(cores))], threads


def _threads() -> tuple[str, int]:
    """On a worker: its ``OMP_NUM_THREADS`` and the threads Arrow's pool (a shard folder's reads) uses."""
    import pyarrow

    return os.environ.get("OMP_NUM_THREADS", ""), pyarrow.cpu_count()


def test_local_cuda_past_the_gpus_shares_them_in_turn(monkeypatch) -> None:
    """``local-cuda:N`` with N past the node's GPUs starts N workers, each seeing one GPU, the GPUs
    taken in turn (a shard's host work then overlaps another's kernels on one GPU); with N at most
    the GPUs, one each. Real workers: no task of theirs needs a GPU."""
    import dask
    from distributed import system

    monkeypatch.setattr(distributed, "gpu_devices", lambda: ["0", "1"])
    monkeypatch.setattr(distributed, "host_cores", lambda: 7)  # a 7-core node: two threads each
    # Dask's NVML diagnostics would look for the made-up GPU "1" on a node with one GPU
    monkeypatch.setitem(dask.config.config["distributed"]["diagnostics"], "nvml", False)
    with distributed.connect("local-cuda:3", quiet=True) as c:
        c.wait_for_workers(3, timeout=WORKERS_BOUND)
        seen = sorted(c.run(lambda: (os.environ["CUDA_VISIBLE_DEVICES"], os.environ["LASSM_GPU_INDEX"])).values())
        limits = list(c.run(lambda dask_worker: dask_worker.memory_manager.memory_limit).values())
        threads = list(c.run(_threads).values())
    assert seen == [("0", "0"), ("0", "0"), ("1", "1")]
    assert threads == [("2", 2)] * 3, threads
    # the host's memory split between the three, not a core's share each (Dask's "auto" for one thread)
    assert all(abs(limit - system.MEMORY_LIMIT / 3) <= 1 for limit in limits), (limits, system.MEMORY_LIMIT)
    with distributed.connect("local-cuda:1", quiet=True) as c:
        c.wait_for_workers(1, timeout=WORKERS_BOUND)
        assert list(c.run(lambda: os.environ["CUDA_VISIBLE_DEVICES"]).values()) == ["0"]


# ---------------------------------------------------------------- a shard folder, read by its workers alone

@pytest.fixture
def parent_reads(monkeypatch) -> list[tuple[str, str]]:
    """Every read of contigs in this process (what a run's parent reads; its workers are other
    processes, spawned, which these spies do not reach): ``read_range`` of a shard folder, and any
    parquet file pyarrow opens through ``pyarrow.parquet`` (a whole-file read included)."""
    import pyarrow.parquet as pq

    from lassm.workloads.local_assembly import stream

    seen: list[tuple[str, str]] = []

    def spy(module, name: str) -> None:
        real = getattr(module, name)

        def called(*args, **kwargs):
            seen.append((name, " ".join(map(str, args[:3]))))
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, called)

    spy(stream, "read_range")
    spy(pq, "ParquetFile")
    spy(pq, "read_table")
    return seen


def test_cli_cluster_reads_a_shard_folder_on_its_workers_only(tmp_path, parent_reads):
    """``lassm extend DIR --cluster local:2``: the bytes of ``lassm extend FILE`` of the same set,
    while this process (the parent) reads no contig: it plans from the folder's manifest and
    weights, and each worker reads its own range."""
    from lassm.cli import main

    name = "gen-k21-s0.05"
    assert main(["data", "write", name, "--out", str(tmp_path / "whole.parquet")]) == 0
    assert main(["data", "shard", name, "--shards", "3", "--out", str(tmp_path / "shards")]) == 0
    assert main(["extend", str(tmp_path / "whole.parquet"), "--out", str(tmp_path / "one.txt"),
                 "--ends", str(tmp_path / "one.tsv")]) == 0
    parent_reads.clear()
    assert main(["extend", str(tmp_path / "shards"), "--cluster", "local:2", "--out", str(tmp_path / "many.txt"),
                 "--ends", str(tmp_path / "many.tsv")]) == 0
    assert parent_reads == []
    assert (tmp_path / "many.txt").read_bytes() == (tmp_path / "one.txt").read_bytes()
    assert (tmp_path / "many.tsv").read_bytes() == (tmp_path / "one.tsv").read_bytes()


@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_a_shard_folder_is_extended_from_its_manifest(client, small, single_files, tmp_path, parent_reads, suffix):
    """``extend_to_files`` given the folder, not its data: the plain run's files, the plan's balance
    from the saved weights; the parent reads the set only to write a parquet ends table."""
    from lassm.workloads.local_assembly import stream

    ds, k = small["gen"]
    stream.write_shards("gen-k21-s0.05", tmp_path / "shards", 2)
    folder = stream.ShardFolder.open(tmp_path / "shards")
    parent_reads.clear()
    stats = shard_files.extend_to_files(folder, Params(k=k), "cpu", client, tmp_path / "files" / "out.txt",
                                        tmp_path / "files" / f"ends{suffix}", sharding=Sharding(shards=3))
    assert (tmp_path / "files" / "out.txt").read_bytes() == single_files[suffix][0]
    assert (tmp_path / "files" / f"ends{suffix}").read_bytes() == single_files[suffix][1]
    assert parent_reads == ([] if suffix == ".tsv" else [("read_range", f"{folder.path} 0 {ds.n_contigs}")] +
                            [("ParquetFile", str(tmp_path / "shards" / stream.part_file(i))) for i in range(2)])
    plan = shard_files.plan_ranges(ds, 3)
    assert stats["shard_bounds"] == [list(r) for r in shard_files.as_ranges(plan)]
    assert stats["shard_contigs"] == [len(idx) for idx in plan] and stats["contigs"] == ds.n_contigs
    weights = shard_plan.work_estimate(ds) + np.diff(ds.offsets)
    assert stats["shard_work"] == [float(weights[idx].sum()) for idx in plan]
    assert 1.0 <= stats["max_over_mean"] <= stats["bound"] + 1e-12


@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_a_range_read_piece_by_piece_writes_the_same_bytes(client, small, single_files, tmp_path, suffix) -> None:
    """A folder of small row groups: each worker reads its range in pieces, the next while it
    extends and writes this one, and the files are still the plain run's, byte for byte."""
    from lassm.workloads.local_assembly import stream

    ds, k = small["gen"]
    stream.write_shards("gen-k21-s0.05", tmp_path / "shards", 2, rows=max(1, ds.n_contigs // 16))
    folder = stream.ShardFolder.open(tmp_path / "shards")
    # this box's workers have too few threads to read ahead: one piece a range
    stats = shard_files.extend_to_files(folder, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                        sharding=Sharding(shards=2))
    assert stats["shard_read_pieces"] == [1, 1] or distributed.host_cores() >= 2 * shard_files.READ_AHEAD_MIN_THREADS
    client.run(lambda: setattr(shard_files, "READ_AHEAD_MIN_THREADS", 1))  # as a worker with threads to spare
    try:
        stats = shard_files.extend_to_files(folder, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                            tmp_path / f"ends{suffix}", sharding=Sharding(shards=2))
    finally:
        original = shard_files.READ_AHEAD_MIN_THREADS
        client.run(lambda: setattr(shard_files, "READ_AHEAD_MIN_THREADS", original))
    assert stats["shard_read_pieces"] == [shard_files.PIPELINE_PIECES] * 2, stats["shard_read_pieces"]
    assert (tmp_path / "out.txt").read_bytes() == single_files[suffix][0]
    assert (tmp_path / f"ends{suffix}").read_bytes() == single_files[suffix][1]


def test_a_runs_workers_split_their_hosts_cpus(client, small, single_files, tmp_path) -> None:
    """Each worker reads its range with its share of its host's CPUs (Arrow's pool; Dask's nannies
    leave it one thread): all of them for the one worker of a run, half each for two on one host,
    whatever the cluster was started for."""
    from lassm.runs.dask_settings import host_cores
    from lassm.workloads.local_assembly import stream

    cores = host_cores()
    if cores < 2:
        pytest.skip("one CPU: every share is one thread, the nannies' own setting")
    ds, k = small["gen"]
    stream.write_shards("gen-k21-s0.05", tmp_path / "shards", 2)
    folder = stream.ShardFolder.open(tmp_path / "shards")
    workers = distributed.workers_of(client)
    for used, threads in ((workers[:1], cores), (workers, cores // 2)):
        stats = shard_files.extend_to_files(folder, Params(k=k), "cpu", client, tmp_path / "out.txt",
                                            sharding=Sharding(shards=2, workers=used))
        assert stats["shard_threads"] == [threads, threads], (used, stats["shard_threads"])
        assert (tmp_path / "out.txt").read_bytes() == single_files[".tsv"][0]


def test_a_shard_folder_without_weights_is_planned_from_its_data(client, small, single_files, tmp_path,
                                                                parent_reads):
    """A folder written before the folders held their weights: ``lassm extend DIR --cluster`` reads
    it in the parent to plan (as it did), and writes the same bytes; an interleaved plan of a
    folder merges here, its shards' data sent with them (a worker cannot load a folder by name)."""
    from lassm.cli import main
    from lassm.workloads.local_assembly import stream

    from ..helpers import shard_folder_without_weights

    ds, k = small["gen"]
    old = shard_folder_without_weights(tmp_path / "old", "gen-k21-s0.05", 2)
    assert main(["extend", str(old), "--cluster", client.scheduler.address, "--out", str(tmp_path / "out.txt"),
                 "--ends", str(tmp_path / "ends.tsv")]) == 0
    assert (tmp_path / "out.txt").read_bytes() == single_files[".tsv"][0]
    assert (tmp_path / "ends.tsv").read_bytes() == single_files[".tsv"][1]
    assert [call[0] for call in parent_reads].count("read_range") == 1
    idx = np.arange(ds.n_contigs, dtype=np.int64)
    stream.write_shards("gen-k21-s0.05", tmp_path / "new", 2)
    for path in (old, tmp_path / "new"):
        stats = shard_files.extend_to_files(stream.ShardFolder.open(path), Params(k=k), "cpu", client,
                                            tmp_path / "i.txt", sharding=Sharding(shards=[idx[1::2], idx[0::2]]))
        assert stats["written_by"] == "parent" and (tmp_path / "i.txt").read_bytes() == single_files[".tsv"][0]


def test_a_plan_must_cover_every_contig_once() -> None:
    """Contiguous ranges are checked end to end, other plans by sorting: a gap, an overlap, a
    repeat, a contig past the end or one missing is refused either way; empty shards are allowed."""
    from types import SimpleNamespace

    ten = SimpleNamespace(n_contigs=10)
    good = ([np.arange(0, 4), np.arange(4, 10)], [np.arange(4, 10), np.arange(0, 4)],
            [np.arange(0, 4), np.zeros(0, np.int64), np.arange(4, 10)],
            [np.array([0, 2, 4, 6, 8]), np.array([1, 3, 5, 7, 9])])
    bad = ([np.arange(0, 4), np.arange(5, 10)], [np.arange(0, 5), np.arange(4, 10)], [np.arange(0, 9)],
           [np.arange(0, 11)], [np.arange(0, 4), np.array([3]), np.arange(4, 10)],
           [np.array([0, 2, 4, 6, 8]), np.array([1, 3, 5, 7, 7])], [np.array([1, 3, 5, 7, 9]), np.array([0, 2, 4, 6, 8, 8])])
    for plan in good:
        shard_plan.check_cover(ten, plan)
    for plan in bad:
        with pytest.raises(LassmError, match="exactly once"):
            shard_plan.check_cover(ten, plan)

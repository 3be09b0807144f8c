# SPDX-License-Identifier: BSD-3-Clause
"""Sweeps and sharded extensions on Dask: the GPUs of one node, or the nodes of a cluster.

Three idempotent units of work travel, so Dask may re-run one after losing a worker:

* a **sweep point** (:func:`run_points`): the worker runs :func:`lassm.runs.point.run_one` and
  writes the record itself, atomically under the run id;
* a **shard** (:func:`extend_sharded`): contigs balanced by estimated work, whose ragged walks
  the parent merges in contig order (:meth:`SideResult.gathered`), bit for bit a single run;
* a **range** (:func:`lassm.runs.shard_files.extend_to_files`): contiguous contigs whose worker
  writes its block of the outputs as part files, which the parent joins.

``--cluster`` (:func:`connect`): ``local[:N]`` (CPU workers), ``local-cuda[:N]`` (a worker per
GPU; N past the GPUs shares them), ``slurm[:PARTITION[:N]][,KEY=VALUE...]`` (:mod:`lassm.runs.slurm`),
``tcp://HOST:PORT`` or a scheduler file ``*.json`` (:mod:`lassm.runs.dask_address`).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import subprocess
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import stderr
from .. import settings
from .. import paths
from ..backends.launch import transfer_seconds
from . import dask_address
from .dask_settings import QUIET_WORKERS, host_cores, worker_threads
from .memory import summarize
from .shard_plan import check_cover as _check_cover, plan_balance, plan_shards
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..errors import LassmError
from ..workloads.local_assembly.figures import ShardedRun, SideFigures
from ..workloads.local_assembly.result import Extension, SideResult
from ..workloads.local_assembly.stream import ShardFolder

#: What ``--cluster`` accepts, for help texts and errors.
CLUSTER_HELP = ("where to run: local[:N] (CPU workers), local-cuda[:N] (one worker per GPU; more share them), "
                "slurm[:PARTITION[:N]][,gpus=G,...] (workers as Slurm jobs), "
                "tcp://HOST:PORT (a running Dask scheduler) or a scheduler file (*.json)")

def _client_class() -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise LassmError(dask_address.NEEDS_DASK) from None
    return Client


def gpu_devices() -> list[str]:
    """This node's GPUs as ``CUDA_VISIBLE_DEVICES`` entries, without creating a CUDA context here.

    The parent keeps no context, so that a worker per GPU owns its device alone.
    """
    if os.environ.get("CUDA_VISIBLE_DEVICES"):
        return [d.strip() for d in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if d.strip()]
    exe = shutil.which("nvidia-smi")
    if exe:
        try:
            out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=30).stdout
            n = sum(1 for line in out.splitlines() if line.startswith("GPU "))
            if n:
                return [str(i) for i in range(n)]
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        import cupy

        return [str(i) for i in range(cupy.cuda.runtime.getDeviceCount())]
    except Exception:
        return []


def _gpu_cluster(n: int | None) -> Any:
    """One single-threaded worker per GPU, each seeing only its own (``CUDA_VISIBLE_DEVICES`` set
    before it starts); ``n`` past the GPUs places workers on them in turn, so one shard's host work
    overlaps another's kernels."""
    devices = gpu_devices()
    if not n or n <= len(devices):
        try:
            from dask_cuda import LocalCUDACluster

            return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(devices[: n or None]) or None,
                                    threads_per_worker=1, dashboard_address=":0",
                                    env=worker_threads(host_cores(), n or len(devices)))
        except ImportError:
            pass
    from distributed import Nanny, Scheduler, SpecCluster

    if not devices:
        raise LassmError("--cluster local-cuda: no GPU answers on this node (nvidia-smi -L)")
    count = n or len(devices)
    # Host memory split between the workers: Dask's "auto" gives a one-thread worker a core's share
    # (8 GB of a 64-core, 512 GB node), and its nanny killed a worker holding a large shard.
    workers = {
        f"gpu{i}": {"cls": Nanny, "options": {
            "nthreads": 1, "resources": {"GPU": 1}, "memory_limit": 1.0 / count,
            "env": {"CUDA_VISIBLE_DEVICES": dev, "LASSM_GPU_INDEX": dev, **worker_threads(host_cores(), count)}}}
        for i, dev in enumerate(devices[i % len(devices)] for i in range(count))
    }
    return SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"dashboard_address": ":0"}},
                       name="lassm-local-cuda")


@contextlib.contextmanager
def connect(spec: str, quiet: bool = False) -> Iterator[Any]:
    """A Dask client for a ``--cluster`` value; a cluster it started is closed on exit (Slurm's
    jobs cancelled). ``quiet`` drops the lines saying how the Slurm workers come up."""
    Client = _client_class()
    if dask_address.names_a_scheduler(spec):  # a running one: asked first, under a short deadline
        dask_address.check(spec)
        address, timeout = dask_address.address_of(spec), dask_address.connect_timeout()
        try:
            client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as exc:  # it went away since it answered
            raise dask_address.failure(spec, address, timeout, exc) from None
        with client:
            yield client
        return
    from . import slurm

    if slurm.is_slurm(spec):
        with slurm.start(slurm.parse(spec), say=stderr.nothing if quiet else None) as client:
            yield client
        return
    kind, _, count = spec.partition(":")
    try:
        n = int(count) if count else None
    except ValueError:
        raise LassmError(f"--cluster {spec!r}: the worker count after ':' must be an integer") from None
    if kind not in ("local", "local-cuda"):
        raise LassmError(f"--cluster {spec!r}: {CLUSTER_HELP}")
    import dask

    with dask.config.set(QUIET_WORKERS):  # the workers' nannies take this configuration along
        if kind == "local":
            from distributed import LocalCluster

            workers = n or min(4, os.cpu_count() or 1)
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   env=worker_threads(host_cores(), workers))
        else:
            cluster = _gpu_cluster(n)
    with cluster, Client(cluster) as client:
        yield client


def workers_of(client: Any) -> list[str]:
    """The workers' addresses in a stable order (by worker name), so shard i goes to worker i."""
    info = client.scheduler_info(n_workers=-1)["workers"] if _takes_n_workers(client) else \
        client.scheduler_info()["workers"]
    def key(item: tuple) -> tuple:
        name = str(item[1].get("name", item[0]))
        return (len(name), name)

    return [addr for addr, _ in sorted(info.items(), key=key)]


def _takes_n_workers(client: Any) -> bool:
    return "n_workers" in __import__("inspect").signature(client.scheduler_info).parameters


# ---------------------------------------------------------------- worker side

#: Per worker process: datasets loaded by name, and shards cut from them (small LRU).
_CACHE: dict[tuple, Any] = {}
_CACHE_MAX = 6


def _cached(key: tuple, make: Any) -> Any:
    if key in _CACHE:
        _CACHE[key] = _CACHE.pop(key)
        return _CACHE[key]
    val = make()
    _CACHE[key] = val
    while len(_CACHE) > _CACHE_MAX:
        _CACHE.pop(next(iter(_CACHE)))
    return val


def _load(name: str, k: int | None) -> tuple[Dataset, int]:
    from ..workloads.local_assembly import datasets

    return _cached(("load", name, k), lambda: datasets.load(name, k))


def _fail_once(marker: str | None) -> None:
    """Fault injection for tests: the first task to get here kills its own worker process."""
    if not marker:
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{platform.node()} {os.getpid()}\n".encode())
    os.close(fd)
    os._exit(1)


def _where() -> dict:
    """Where a task ran: host, process, GPU, and the Slurm job of its worker (empty outside one)."""
    return {"host": platform.node(), "pid": os.getpid(),
            "gpu": settings.value("LASSM_GPU_INDEX") or os.environ.get("CUDA_VISIBLE_DEVICES", ""),
            "slurm_job": os.environ.get("SLURM_JOB_ID", "")}


def _shard_task(number: int, index: np.ndarray, data: Dataset | None, source: tuple[str, int] | None,
                params: dict, backend: str, options: dict, fail_marker: str | None = None) -> dict:
    """Extends one shard on this worker; returns both sides ragged (:meth:`SideResult.compact`: only
    the walked bases travel), with timings (cutting the shard, the extension with its compaction),
    place and memory; in pieces where the shard exceeds this worker's budget (:mod:`lassm.runs.memory`)."""
    from . import memory

    t0 = time.perf_counter()
    peak_source = memory.start_peak()
    if data is None:
        assert source is not None  # a shard comes as its data or as where to load it
        name, k = source
        full, _ = _load(name, k)
        if len(index) == full.n_contigs and np.array_equal(index, np.arange(full.n_contigs)):
            data = full
        else:
            digest = hashlib.sha1(np.ascontiguousarray(index).tobytes()).hexdigest()
            data = _cached(("shard", name, k, digest), lambda: full.subset(index))
    t1 = time.perf_counter()
    right, left, mem, pack = memory.extend_within(data, Params(**params), backend, options, peak_source)
    t2 = time.perf_counter()
    _fail_once(fail_marker)
    return {"number": number, "right": right, "left": left, "wall_seconds": t2 - t1 - pack, "prep_seconds": t1 - t0,
            "pack_seconds": pack, "kernel_seconds": right.kernel_seconds + left.kernel_seconds,
            "transfer_seconds": transfer_seconds(right.extra, left.extra), "memory": mem, **_where()}


def _warm_task(source: tuple[str, int] | None, params: dict, backend: str, options: dict) -> dict:
    """Loads the dataset (when named) and compiles the kernel on this worker, outside any timing."""
    from ..workloads.local_assembly import datasets
    from .extend import extend

    t0 = time.perf_counter()
    ds = _load(*source)[0] if source else datasets.load("sample-k77")[0]
    extend(ds.subset(np.arange(min(64, ds.n_contigs))), Params(**params), backend=backend, **options)
    return {"seconds": time.perf_counter() - t0, **_where()}


def warm(client: Any, params: Params, backend: str, source: tuple[str, int] | None = None,
         workers: Sequence[str] | None = None, **options) -> list[dict]:
    """Runs :func:`_warm_task` once on every worker (dataset load, CUDA compile)."""
    futures = [client.submit(_warm_task, source, params.as_dict(), backend, options, workers=[addr],
                             allow_other_workers=False, pure=False) for addr in (workers or workers_of(client))]
    return client.gather(futures)


# ---------------------------------------------------------------- sharded extension

def workers_and_plan(ds: Dataset | ShardFolder, client: Any, shards: int | Sequence[np.ndarray] | None,
                     workers: Sequence[str] | None, planner: Any) -> tuple[list[str], list[np.ndarray]]:
    """The workers to use (default: all) and the shards: ``planner(ds, count)`` for a count (default:
    one per worker), else the index arrays given; checked to cover every contig once (of ``ds``, or
    of a shard folder that ``planner`` plans without its data: only its contig count is read here)."""
    workers = list(workers or workers_of(client))
    if not workers:
        raise LassmError("the Dask cluster has no workers")
    plan = planner(ds, shards if isinstance(shards, int) else len(workers)) \
        if shards is None or isinstance(shards, int) else [np.asarray(s, dtype=np.int64) for s in shards]
    _check_cover(ds, plan)
    return workers, plan


@dataclass(frozen=True)
class Sharding:
    """How an extension is cut into shards and spread over workers, for :func:`extend_sharded` and
    :func:`lassm.runs.shard_files.extend_to_files`.

    Attributes
    ----------
    shards : a count (default: one per worker) or the index arrays themselves.
    workers : shard ``i`` runs on ``workers[i % len]`` (default: all); loosely, a lost worker's
        shard runs elsewhere.
    source : ``(dataset name, k)``: workers load the dataset themselves and only indices travel;
        None: each shard's data travels inside its task.
    retries : extra attempts for a shard that raises (a lost worker is retried by the scheduler).
    fail_marker : fault injection for tests (the first shard to finish kills its worker).
    """

    shards: int | Sequence[np.ndarray] | None = None
    workers: Sequence[str] | None = None
    source: tuple[str, int] | None = None
    retries: int = 1
    fail_marker: str | None = None


def extend_sharded(ds: Dataset, params: Params, backend: str, client: Any, sharding: Sharding = Sharding(),
                   **options) -> Extension:
    """Extends ``ds`` as shards on ``client``'s workers; bit for bit one :func:`lassm.runs.extend.extend`
    (``params``, ``backend``, ``options`` as there).

    Returns an Extension whose ``kernel_seconds`` is the critical path (the largest shard's kernel
    time); ``right.extra.sharded`` holds ``kernel_seconds_sum``, per-shard figures, ``gpus`` and
    the plan's balance (:class:`~lassm.workloads.local_assembly.figures.ShardedRun`)."""
    source, retries, fail_marker = sharding.source, sharding.retries, sharding.fail_marker
    t0 = time.perf_counter()
    workers, plan = workers_and_plan(ds, client, sharding.shards, sharding.workers, plan_shards)
    t_plan = time.perf_counter()
    futures = []
    for number, index in enumerate(plan):
        data = None if source else ds.subset(index)
        # Placed only among several workers: a task restricted to a lost worker that finds no other
        # running (the one restarting) waits as "no-worker", and Dask (2026.8) re-places such a task
        # only on a worker its restriction names, loose or not, so a restart never frees it.
        place = [workers[number % len(workers)]] if len(workers) > 1 else None
        futures.append(client.submit(_shard_task, number, index, data, source, params.as_dict(), backend, options,
                                     fail_marker, workers=place,
                                     allow_other_workers=place is not None, retries=retries, pure=False,
                                     key=f"lassm-shard-{number}-{os.urandom(6).hex()}"))
    parts = sorted(client.gather(futures), key=lambda p: p["number"])
    t_gather = time.perf_counter()
    ext = merge(ds, plan, parts, backend, params)
    ext.right.extra = replace(ext.right.extra, sharded=replace(
        ext.right.extra.sharded_figures(), **plan_balance(ds, plan), plan_seconds=t_plan - t0,
        compute_wall_seconds=t_gather - t_plan, merge_seconds=time.perf_counter() - t_gather))
    ext.wall_seconds = time.perf_counter() - t0
    return ext


def merge(ds: Dataset, plan: Sequence[np.ndarray], parts: Sequence[dict], backend: str, params: Params) -> Extension:
    """Gathers the shards' ragged walks into one :class:`Extension` in contig order (any plan order)."""
    max_walk = int(params.max_walk)
    right = SideResult.gathered(ds.n_contigs, max_walk, [(index, part["right"]) for index, part in zip(plan, parts)])
    left = SideResult.gathered(ds.n_contigs, max_walk, [(index, part["left"]) for index, part in zip(plan, parts)])
    sums = [(part["right"].kernel_seconds, part["left"].kernel_seconds) for part in parts]
    totals = [a + b for a, b in sums]
    crit = int(np.argmax(totals)) if totals else 0
    # kernel_seconds of the merged run: the critical path (shards run side by side).
    right.kernel_seconds, left.kernel_seconds = sums[crit] if sums else (0.0, 0.0)
    for side, key in ((right, "right"), (left, "left")):
        side.extra = replace(
            parts[0][key].extra if parts else SideFigures(),
            launches=[dict(launch, shard=int(p["number"])) for p in parts for launch in p[key].extra.launches],
            mem_high_water_bytes=max([int(p[key].extra.mem_high_water_bytes or 0) for p in parts] or [0]))
    places = sorted({(p["host"], p["gpu"]) for p in parts})
    right.extra = replace(right.extra, sharded=ShardedRun(
        shards=len(plan), kernel_seconds_max_shard=float(max(totals, default=0.0)),
        kernel_seconds_sum=float(sum(totals)), shard_kernel_seconds=totals,
        shard_wall_seconds=[float(p["wall_seconds"]) for p in parts],
        shard_prep_seconds=[float(p["prep_seconds"]) for p in parts],
        shard_pack_seconds=[float(p["pack_seconds"]) for p in parts],
        shard_transfer_seconds=[p.get("transfer_seconds") for p in parts],
        shard_places=[f"{p['host']}:{p['gpu'] or p['pid']}" for p in parts],
        gpus=len(places) if backend != "cpu" else 0, workers=len({(p["host"], p["pid"]) for p in parts}),
        **summarize(parts)))
    return Extension(ds, right=right, left=left, backend=backend, params=params.as_dict())


# ---------------------------------------------------------------- sweep points

@dataclass(frozen=True)
class PointJob:
    """What every sweep point's task shares, sent to the workers with each point.

    Attributes
    ----------
    machine : the records' folder name (default: each backend's device names its own).
    results_base : the parent's results root, the workers' default (shared across nodes).
    root : the records' folder instead of ``<results_base>/<machine>``.
    fail_marker : fault injection for tests (the first point to finish kills its worker).
    """

    machine: str | None
    force: bool
    command: str
    results_base: str
    root: str | None = None
    fail_marker: str | None = None


def _point_task(point: tuple, job: PointJob) -> dict:
    """Runs one sweep point on this worker and writes its record there (resumable, atomic)."""
    from .account import SKIPPED
    from .records import AlreadyRecorded, RunOptions, clear_leftovers, machine_for_backend, run_id_for
    from .point import run_one
    from .record_check import ABSENT, problem

    dname, k, bname, proto = point
    row: dict = {"dataset": dname, "k": k, "backend": bname, "protocol": proto, **_where()}
    try:
        ds, start_k = _load(dname, k)
        row["k"] = start_k
        mname = job.machine or machine_for_backend(bname)
        folder = Path(job.root) if job.root else Path(job.results_base) / mname
        found = ABSENT if job.force else problem(folder / run_id_for(dname, start_k, bname, proto))
        if found is None:
            row["status"] = SKIPPED
            clear_leftovers(folder, run_id_for(dname, start_k, bname, proto))
        else:
            if found != ABSENT:  # a damaged record: measured again, and said so
                row["note"] = f"{folder / run_id_for(dname, start_k, bname, proto)}: {found}; measured again"
            t0 = time.perf_counter()
            folder, summary = run_one(dname, start_k, bname, proto, mname, ds=ds,
                                      run=RunOptions(command=job.command, root=folder,
                                                     replace=job.force or found != ABSENT))
            row.update(status="ok" if summary["matches_cpu"] is not False else "MISMATCH", folder=str(folder),
                       kernel_seconds=summary["kernel_seconds"], seconds=time.perf_counter() - t0,
                       shared_device=bool(summary.get("shared_device", False)))
            _fail_once(job.fail_marker)
    except AlreadyRecorded:  # another run (or a lost worker's first attempt) recorded it meanwhile
        row["status"] = SKIPPED
    except Exception as exc:  # a failing point is reported, the sweep goes on (as in lassm run)
        row["status"] = f"failed: {type(exc).__name__}: {exc}"
        row["traceback"] = traceback.format_exc()
    return row


def run_points(client: Any, points: Sequence[tuple], machine: str | None = None, force: bool = False,
               command: str = "", root: Path | None = None, on_row: Callable[[dict], None] | None = None,
               fail_marker: str | None = None) -> list[dict]:
    """Runs sweep points as Dask tasks (one worker, one GPU each); returns rows in point order.

    Records go to ``root`` if given, else under this process's results root ``/<machine>/`` (across
    nodes, a shared file system). ``on_row`` receives each row as it lands."""
    import distributed

    machine = machine or paths.env_machine()
    base = str(paths.results_dir("x").parent.resolve())
    direct = str(Path(root).resolve()) if root is not None else None
    job = PointJob(machine, force, command, base, direct, fail_marker)
    futures = [client.submit(_point_task, tuple(p), job, pure=False, key=f"lassm-point-{i}-{os.urandom(6).hex()}")
               for i, p in enumerate(points)]
    order = {f.key: i for i, f in enumerate(futures)}
    rows: list[dict | None] = [None] * len(futures)
    for fut in distributed.as_completed(futures):
        row = fut.result()
        rows[order[fut.key]] = row
        if on_row is not None:
            on_row(row)
        if row.get("traceback"):
            stderr.line(row.pop("traceback"))
        if row.get("note"):
            stderr.line(row.pop("note"))
    return [r for r in rows if r is not None]

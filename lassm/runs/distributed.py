# SPDX-License-Identifier: BSD-3-Clause
"""Sweeps and sharded extensions on Dask: the GPUs of one node, or the nodes of a cluster.

Two units of work travel to the workers, and both are idempotent, so that Dask may run one
again after a worker is lost (the scheduler re-assigns what a dead worker held, up to
``distributed.scheduler.allowed-failures`` times) without losing or duplicating anything:

* a **sweep point** (:func:`run_points`): the worker loads the dataset, runs
  :func:`lassm.runs.point.run_one` and writes the run record itself (atomically, under the run id, so a
  re-run replaces its folder and never adds a second one);
* a **shard** (:func:`extend_sharded`): a subset of the contigs, balanced by estimated work; the
  parent merges the shards' walks back in contig order with :meth:`SideResult.gathered`. The
  walks travel and merge ragged (only the walked bases, not a ``max_walk`` row per contig). Every
  contig end is walked independently of the others, so the merge equals a single run bit for bit.

``--cluster`` names where the work runs (:func:`connect`): ``local[:N]`` (CPU workers, for CI and
laptops), ``local-cuda[:N]`` (one worker per GPU of this node), ``slurm[:PARTITION[:N]][,KEY=VALUE...]``
(workers started as Slurm jobs, one per GPU: :mod:`lassm.runs.slurm`), ``tcp://HOST:PORT`` (a
running scheduler) or a scheduler file ``*.json`` (one a job script of your own started).
"""
from __future__ import annotations

import contextlib
import hashlib
import heapq
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import paths
from ..atomic import atomic_path, temp_prefix
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..errors import LassmError
from ..workloads.local_assembly.result import FIELDS, SIDES, Extension, SideResult

#: What ``--cluster`` accepts, for help texts and errors.
CLUSTER_HELP = ("where to run: local[:N] (CPU workers), local-cuda[:N] (one worker per GPU), "
                "slurm[:PARTITION[:N]][,gpus=G,...] (workers as Slurm jobs), "
                "tcp://HOST:PORT (a running Dask scheduler) or a scheduler file (*.json)")

#: Read-count bins of the CUDA backend (larger side's reads): launched one after another on
#: each GPU, so a shard plan balances each bin on its own, heavy bin first.
BIN_EDGES = (1, 10)


def _client_class() -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise LassmError("--cluster needs Dask: pip install 'lassm[dask]' (and dask-cuda for GPUs)") from None
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
    """One single-threaded worker per GPU; each sees only its own device (as device 0).

    ``CUDA_VISIBLE_DEVICES`` is set in the worker's environment before it starts, so CuPy's
    current device, which is per thread, is that GPU in every thread of the worker.
    """
    try:
        from dask_cuda import LocalCUDACluster

        devices = gpu_devices()[: n or None]
        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(devices) or None, threads_per_worker=1,
                                dashboard_address=":0")
    except ImportError:
        pass
    from distributed import Nanny, Scheduler, SpecCluster

    devices = gpu_devices()
    if not devices:
        raise LassmError("--cluster local-cuda: no GPU answers on this node (nvidia-smi -L)")
    devices = devices[: n or None]
    workers = {
        f"gpu{i}": {"cls": Nanny, "options": {
            "nthreads": 1, "resources": {"GPU": 1},
            "env": {"CUDA_VISIBLE_DEVICES": dev, "LASSM_GPU_INDEX": dev}}}
        for i, dev in enumerate(devices)
    }
    return SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"dashboard_address": ":0"}},
                       name="lassm-local-cuda")


@contextlib.contextmanager
def connect(spec: str, quiet: bool = False) -> Iterator[Any]:
    """A Dask client for a ``--cluster`` value; a cluster it started is closed on exit (Slurm's
    jobs cancelled). ``quiet`` drops the lines saying how the Slurm workers come up."""
    Client = _client_class()
    if "://" in spec:
        with Client(spec) as client:
            yield client
        return
    if spec.endswith(".json"):
        with Client(scheduler_file=spec) as client:
            yield client
        return
    from . import slurm

    if slurm.is_slurm(spec):
        with slurm.start(slurm.parse(spec), say=(lambda text: None) if quiet else None) as client:
            yield client
        return
    kind, _, count = spec.partition(":")
    try:
        n = int(count) if count else None
    except ValueError:
        raise LassmError(f"--cluster {spec!r}: the worker count after ':' must be an integer") from None
    if kind == "local":
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=n or min(4, os.cpu_count() or 1), threads_per_worker=1,
                               processes=True, dashboard_address=":0")
    elif kind == "local-cuda":
        cluster = _gpu_cluster(n)
    else:
        raise LassmError(f"--cluster {spec!r}: {CLUSTER_HELP}")
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
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


# ---------------------------------------------------------------- shard plans

def work_estimate(ds: Dataset) -> np.ndarray:
    """Estimated work per contig: the read bases of both ends (0 without reads: not launched).

    Table insertions scale with read bases at every k, and so does most of a walk's cost; it is
    k-independent, which is enough to balance shards of one dataset against each other.
    """
    est = np.zeros(ds.n_contigs, dtype=np.float64)
    for reads in (ds.left, ds.right):
        co = reads.contig_offsets
        est += (reads.offsets[co[1:]] - reads.offsets[co[:-1]]).astype(np.float64)
    return est


def contig_bins(ds: Dataset) -> np.ndarray:
    """The CUDA backend's bin per contig: 0 (no reads), 1 (1-9 reads), 2 (10 or more)."""
    counts = np.maximum(ds.left.counts, ds.right.counts)
    return np.searchsorted(np.asarray(BIN_EDGES), counts, side="right").astype(np.int8)


def plan_shards(ds: Dataset, shards: int, weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Splits the contigs into ``shards`` index arrays (each ascending) of near-equal work.

    Per bin, heavy bin first, longest-processing-time greedy: contigs by falling weight, each to
    the shard with the least work in that bin (ties: least work overall). A GPU runs its bins one
    launch after another, so each bin is balanced on its own. Per bin the heaviest shard exceeds
    the mean by at most that bin's heaviest contig; over the bins,
    ``max / mean <= 1 + shards * sum(bin's max weight) / total weight``. Contigs without reads
    cost nothing and are dealt round-robin.
    """
    if shards < 1:
        raise LassmError(f"shards must be at least 1, got {shards}")
    n = ds.n_contigs
    if shards == 1:
        return [np.arange(n, dtype=np.int64)]
    w = work_estimate(ds) if weights is None else np.asarray(weights, dtype=np.float64)
    bins = contig_bins(ds)
    owner = np.empty(n, dtype=np.int64)
    total = [0.0] * shards
    for b in sorted(set(bins.tolist()), reverse=True):
        idx = np.flatnonzero(bins == b)
        if b == 0:
            owner[idx] = np.arange(len(idx)) % shards
            continue
        idx = idx[np.argsort(-w[idx], kind="stable")]
        heap = [(0.0, total[s], s) for s in range(shards)]
        heapq.heapify(heap)
        for i, wi in zip(idx.tolist(), w[idx].tolist()):
            load, _, s = heapq.heappop(heap)
            owner[i] = s
            total[s] += wi
            heapq.heappush(heap, (load + wi, total[s], s))
    order = np.argsort(owner, kind="stable")
    cuts = np.searchsorted(owner[order], np.arange(1, shards))
    return [np.sort(part) for part in np.split(order, cuts)]


def plan_ranges(ds: Dataset, shards: int, weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Splits the contigs into ``shards`` contiguous ranges (index arrays) of near-equal work.

    What :func:`extend_to_files` runs: a range's output lines, and its right and left ends, are
    each one block of the single run's files, which its worker writes itself. A contig weighs
    its read bases (:func:`work_estimate`, the extension) plus its own bases (its output line, written
    by the worker too). The cuts fall where the running sum crosses each ``total * i / shards``,
    so a range exceeds the mean by at most the heaviest contig:
    ``max / mean <= 1 + shards * max(weight) / total``. The bins are not balanced one by one as in
    :func:`plan_shards`; in a set whose contigs' order is unrelated to their reads (the generator,
    its replications) every range holds each bin in proportion.
    """
    if shards < 1:
        raise LassmError(f"shards must be at least 1, got {shards}")
    n = ds.n_contigs
    w = work_estimate(ds) + np.diff(ds.offsets).astype(np.float64) if weights is None else \
        np.asarray(weights, dtype=np.float64)
    ends = np.cumsum(w)
    total = float(ends[-1]) if n else 0.0
    cuts = np.searchsorted(ends, total * np.arange(1, shards) / shards, side="left") if total else \
        (np.arange(1, shards) * n) // shards
    bounds = [0, *np.minimum(cuts, n).tolist(), n]
    return [np.arange(a, max(a, b), dtype=np.int64) for a, b in zip(bounds[:-1], bounds[1:])]


def as_ranges(plan: Sequence[np.ndarray]) -> list[tuple[int, int]] | None:
    """The plan as ``(start, stop)`` ranges when every shard is a contiguous ascending run of
    contigs (an empty shard is ``(0, 0)``); else None."""
    out = []
    for index in plan:
        index = np.asarray(index, dtype=np.int64)
        if not len(index):
            out.append((0, 0))
            continue
        a, b = int(index[0]), int(index[-1]) + 1
        if b - a != len(index) or not np.array_equal(index, np.arange(a, b)):
            return None
        out.append((a, b))
    return out


def plan_balance(ds: Dataset, plan: Sequence[np.ndarray]) -> dict:
    """Estimated work per shard, its max/mean and the LPT bound (see :func:`plan_shards`)."""
    w = work_estimate(ds)
    loads = np.array([w[idx].sum() for idx in plan])
    bins = contig_bins(ds)
    wmax = sum(float(w[bins == b].max(initial=0.0)) for b in (1, 2))
    mean = float(loads.mean()) if len(loads) else 0.0
    return {"shard_work": loads.tolist(), "max_over_mean": float(loads.max() / mean) if mean else 1.0,
            "bound": 1.0 + len(plan) * wmax / float(w.sum()) if w.sum() else 1.0,
            "shard_contigs": [int(len(idx)) for idx in plan]}


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
            "gpu": os.environ.get("LASSM_GPU_INDEX") or os.environ.get("CUDA_VISIBLE_DEVICES", ""),
            "slurm_job": os.environ.get("SLURM_JOB_ID", "")}


def _shard_task(number: int, index: np.ndarray, data: Dataset | None, source: tuple[str, int] | None,
                params: dict, backend: str, options: dict, fail_marker: str | None = None) -> dict:
    """Extends one shard on this worker; returns both sides ragged (:meth:`SideResult.compact`: only
    the walked bases travel), with timings (cutting the shard, the extension, the compaction) and place."""
    from .extend import extend

    t0 = time.perf_counter()
    if data is None:
        name, k = source
        full, _ = _load(name, k)
        if len(index) == full.n_contigs and np.array_equal(index, np.arange(full.n_contigs)):
            data = full
        else:
            digest = hashlib.sha1(np.ascontiguousarray(index).tobytes()).hexdigest()
            data = _cached(("shard", name, k, digest), lambda: full.subset(index))
    t1 = time.perf_counter()
    ext = extend(data, Params(**params), backend=backend, **options)
    t2 = time.perf_counter()
    right, left = ext.right.compact(), ext.left.compact()
    t3 = time.perf_counter()
    _fail_once(fail_marker)
    return {"number": number, "right": right, "left": left, "wall_seconds": t2 - t1, "prep_seconds": t1 - t0,
            "pack_seconds": t3 - t2, "kernel_seconds": float(ext.kernel_seconds), **_where()}


def _write_part(folder: str, name: str, write: Callable[[Path], Any]) -> int:
    """Writes one part file under a temporary name in the parts folder, then renames it; returns its size.

    A shard run again (its worker lost) replaces its parts instead of adding to them. The folder
    is never created here: once the parent has removed it (the run failed or was interrupted), a
    late shard fails instead of leaving a stray part.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, os.path.join(folder, name))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return os.path.getsize(os.path.join(folder, name))


def part_name(kind: str, number: int) -> str:
    """A shard's part in a parts folder: ``out``, ``ends-right``, ``ends-left`` (TSV) or ``ends.npz``."""
    return f"{number:05d}.{kind}"


def _part_task(number: int, bounds: tuple[int, int], data: Dataset | None, source: tuple[str, int] | None,
               params: dict, backend: str, options: dict, out_dir: str, ends_dir: str | None, ends_tsv: bool,
               header: bool, fail_marker: str | None = None) -> dict:
    """Extends the contigs ``bounds`` on this worker and writes its block of the output files.

    The output lines go to ``out_dir``; the ends as two TSV blocks (right, left; ``header``: the
    first block of the file) or, for a parquet destination, as their per-contig figures
    (``.npz``: a parquet file cannot be put together from byte blocks, so the parent writes it).
    Returns small figures only: timings, kernel seconds, work counts, launches, place.
    """
    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.stats import work_counts
    from .extend import extend

    t0 = time.perf_counter()
    a, b = bounds
    if data is None:
        name, k = source
        full, _ = _load(name, k)
        data = full.slice(a, b)
    t1 = time.perf_counter()
    ext = extend(data, Params(**params), backend=backend, **options)
    t2 = time.perf_counter()
    sizes = {"out": _write_part(out_dir, part_name("out", number), lambda p: _write_with(p, formats.extended_into, ext))}
    if ends_dir is not None and ends_tsv:
        for side in SIDES:
            first = header and side == SIDES[0]
            sizes[f"ends-{side}"] = _write_part(ends_dir, part_name(f"ends-{side}", number),
                                                lambda p, side=side, first=first: formats.ends_tsv_into(ext, p, (side,), first))
    elif ends_dir is not None:
        sizes["ends"] = _write_part(ends_dir, part_name("ends.npz", number), lambda p: _save_fields(ext, p))
    t3 = time.perf_counter()
    _fail_once(fail_marker)
    return {"number": number, "bounds": (a, b), "sizes": sizes, "work": work_counts(ext),
            "kernel": (float(ext.right.kernel_seconds), float(ext.left.kernel_seconds)),
            "right_extra": ext.right.extra, "left_extra": ext.left.extra,
            "wall_seconds": t2 - t1, "prep_seconds": t1 - t0, "write_seconds": t3 - t2, **_where()}


def _write_with(path: Path, write: Callable[[Extension, Any], Any], ext: Extension) -> None:
    with open(path, "wb") as fh:
        write(ext, fh)


def _save_fields(ext: Extension, path: Path) -> None:
    """The per-contig figures of both sides (what the ends table holds besides the dataset's own columns)."""
    with open(path, "wb") as fh:
        np.savez(fh, **{f"{side}.{name}": getattr(getattr(ext, side), name) for side in SIDES for name in FIELDS})


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

def extend_sharded(ds: Dataset, params: Params, backend: str, client: Any,
                   shards: int | Sequence[np.ndarray] | None = None, *, workers: Sequence[str] | None = None,
                   source: tuple[str, int] | None = None, retries: int = 1, fail_marker: str | None = None,
                   **options) -> Extension:
    """Extends ``ds`` as shards on the cluster's workers; equal, bit for bit, to one :func:`extend`.

    Parameters
    ----------
    ds : the dataset (the parent plans the shards from it and merges the walks into it).
    params, backend, options : as for :func:`lassm.runs.extend.extend`.
    client : a ``distributed.Client``.
    shards : a count (default: one per worker) or the index arrays themselves.
    workers : the workers to use, shard ``i`` on ``workers[i % len]`` (default: all). The placement
        is loose: a shard whose worker is lost runs on another.
    source : ``(dataset name, k)`` that ``ds`` was loaded from: workers then load it themselves
        (once per process) and cut their shard, and only indices travel; otherwise each shard's
        data travels inside its task, which keeps it retryable.
    retries : extra attempts for a shard that raises (a lost worker is retried by the scheduler).
    fail_marker : fault injection for tests (the first shard to finish kills its worker).

    Returns
    -------
    Extension whose ``kernel_seconds`` is the critical path (the largest shard's kernel time);
    ``right.extra`` records the sum (``kernel_seconds_sum``, the work), per-shard figures, ``gpus``
    and the plan's balance.
    """
    t0 = time.perf_counter()
    workers = list(workers or workers_of(client))
    if not workers:
        raise LassmError("the Dask cluster has no workers")
    plan = plan_shards(ds, shards if isinstance(shards, int) else len(workers)) \
        if shards is None or isinstance(shards, int) else [np.asarray(s, dtype=np.int64) for s in shards]
    _check_cover(ds, plan)
    t_plan = time.perf_counter()
    futures = []
    for number, index in enumerate(plan):
        data = None if source else ds.subset(index)
        futures.append(client.submit(_shard_task, number, index, data, source, params.as_dict(), backend, options,
                                     fail_marker, workers=[workers[number % len(workers)]],
                                     allow_other_workers=True, retries=retries, pure=False,
                                     key=f"lassm-shard-{number}-{os.urandom(6).hex()}"))
    parts = sorted(client.gather(futures), key=lambda p: p["number"])
    t_gather = time.perf_counter()
    ext = merge(ds, plan, parts, backend, params)
    ext.right.extra.update(plan_balance(ds, plan), plan_seconds=t_plan - t0, compute_wall_seconds=t_gather - t_plan,
                           merge_seconds=time.perf_counter() - t_gather)
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
        extra = {key2: val for key2, val in (parts[0][key].extra if parts else {}).items() if key2 != "launches"}
        extra["launches"] = [dict(launch, shard=int(p["number"])) for p in parts
                             for launch in p[key].extra.get("launches", [])]
        extra["mem_high_water_bytes"] = max([int(p[key].extra.get("mem_high_water_bytes", 0)) for p in parts] or [0])
        side.extra = extra
    places = sorted({(p["host"], p["gpu"]) for p in parts})
    right.extra.update(
        shards=len(plan), kernel_seconds_max_shard=float(max(totals, default=0.0)),
        kernel_seconds_sum=float(sum(totals)), shard_kernel_seconds=totals,
        shard_wall_seconds=[float(p["wall_seconds"]) for p in parts],
        shard_prep_seconds=[float(p["prep_seconds"]) for p in parts],
        shard_pack_seconds=[float(p["pack_seconds"]) for p in parts],
        shard_places=[f"{p['host']}:{p['gpu'] or p['pid']}" for p in parts],
        gpus=len(places) if backend != "cpu" else 0, workers=len({(p["host"], p["pid"]) for p in parts}),
    )
    return Extension(ds, right=right, left=left, backend=backend, params=params.as_dict())


# ---------------------------------------------------------------- sharded extension, written by the workers

def extend_to_files(ds: Dataset, params: Params, backend: str, client: Any, out: str | os.PathLike,
                    ends: str | os.PathLike | None = None, shards: int | Sequence[np.ndarray] | None = None, *,
                    workers: Sequence[str] | None = None, source: tuple[str, int] | None = None, retries: int = 1,
                    fail_marker: str | None = None, **options) -> dict:
    """Extends ``ds`` as shards whose workers write their own blocks of ``out`` (and ``ends``).

    What ``lassm extend --cluster`` runs: the files are byte for byte those of one
    :func:`extend` written by :func:`formats.write_extended` and :func:`formats.write_ends`, but
    the formatting, the largest serial cost of :func:`extend_sharded` plus a write, runs on the
    workers side by side, and only small figures travel back. Each shard is a contiguous range
    (:func:`plan_ranges`), so its output lines are one block of the file and its right and left
    ends two blocks of a TSV ends table; each block goes to a part file in a hidden folder beside
    the destination (the same file system, shared by a cluster's nodes as the records' folder is),
    and the parent puts the parts end to end into a temporary that replaces the destination
    (:func:`concat_parts`). A parquet ends table cannot be joined from bytes: the workers leave
    their per-contig figures (``.npz``) and the parent writes the table from them.

    On success no part is left; on failure (a shard failing after its retries, an interrupt)
    the destinations are untouched, the parent waits for the shards still running and removes
    the parts folders. A parent killed outright leaves a folder named like an atomic write's
    temporary, which the next write of the same destination on this host removes
    (:func:`lassm.atomic.remove_stale`).

    Parameters
    ----------
    ds, params, backend, client, workers, source, retries, fail_marker, options : as for :func:`extend_sharded`.
    out : the output file (MetaHipMer's ``cid extended_sequence``).
    ends : the ends table (``.tsv``: TSV, else parquet), or None.
    shards : a count (default: one per worker; the plan is :func:`plan_ranges`) or the index
        arrays themselves. A plan whose shards are not contiguous ranges is run by
        :func:`extend_sharded` and written here.

    Returns
    -------
    dict of figures: ``wall_seconds`` (all of it, files included) and its phases (``plan_seconds``,
    ``compute_wall_seconds``: submitting to every part written, ``concat_seconds``, ``ends_seconds``),
    the kernel's critical path and sum, per-shard timings and places, work counts, bytes.
    """
    from ..workloads.local_assembly import formats

    t0 = time.perf_counter()
    workers = list(workers or workers_of(client))
    if not workers:
        raise LassmError("the Dask cluster has no workers")
    plan = plan_ranges(ds, shards if isinstance(shards, int) else len(workers)) \
        if shards is None or isinstance(shards, int) else [np.asarray(s, dtype=np.int64) for s in shards]
    _check_cover(ds, plan)
    ranges = as_ranges(plan)
    if ranges is None:  # interleaved shards: no shard's lines are one block of the file
        return _written_by_parent(ds, params, backend, client, plan, out, ends, t0, workers=workers, source=source,
                                  retries=retries, fail_marker=fail_marker, **options)
    out = Path(out)
    tsv = ends is not None and formats.is_tsv(ends)
    order = sorted(range(len(ranges)), key=lambda i: ranges[i])
    folders: list[Path] = []
    futures: list[Any] = []
    done = False
    try:
        out_dir = _parts_folder(out)
        folders.append(out_dir)
        ends_dir = _parts_folder(Path(ends)) if ends is not None else None
        if ends_dir is not None:
            folders.append(ends_dir)
        t_plan = time.perf_counter()
        for number, (a, b) in enumerate(ranges):
            data = None if source else ds.slice(a, b)  # views: only the range's bytes are pickled
            futures.append(client.submit(
                _part_task, number, (a, b), data, source, params.as_dict(), backend, options, str(out_dir),
                None if ends_dir is None else str(ends_dir), tsv, number == order[0], fail_marker,
                workers=[workers[number % len(workers)]], allow_other_workers=True, retries=retries, pure=False,
                key=f"lassm-part-{number}-{os.urandom(6).hex()}"))
        parts = sorted(client.gather(futures), key=lambda p: p["number"])
        t_gather = time.perf_counter()
        concat_parts([out_dir / part_name("out", i) for i in order], out)
        t_out = time.perf_counter()
        if ends_dir is not None and tsv:
            concat_parts([ends_dir / part_name(f"ends-{side}", i) for side in SIDES for i in order], Path(ends))
        elif ends_dir is not None:
            formats.write_ends(_fields_extension(ds, params, backend, [ends_dir / part_name("ends.npz", i) for i in order],
                                                 [ranges[i] for i in order]), ends)
        t_ends = time.perf_counter()
        done = True
    finally:
        if not done:
            _settle(client, futures)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    stats = _part_stats(ds, plan, parts, backend)
    stats.update(out=str(out), ends=None if ends is None else str(ends), plan_seconds=t_plan - t0,
                 compute_wall_seconds=t_gather - t_plan, concat_seconds=t_out - t_gather, ends_seconds=t_ends - t_out,
                 out_bytes=out.stat().st_size, wall_seconds=time.perf_counter() - t0, written_by="workers")
    return stats


def _check_cover(ds: Dataset, plan: Sequence[np.ndarray]) -> None:
    covered = np.concatenate(plan) if plan else np.zeros(0, dtype=np.int64)
    if len(covered) != ds.n_contigs or not np.array_equal(np.sort(covered), np.arange(ds.n_contigs)):
        raise LassmError("shards must cover every contig exactly once")


def _parts_folder(dest: Path) -> Path:
    """A hidden folder beside ``dest`` for its parts, named as :mod:`lassm.atomic` names a
    temporary of ``dest`` (so :func:`lassm.atomic.remove_stale` clears it once its writer is dead)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=temp_prefix(dest.name), suffix=".parts", dir=dest.parent))


def concat_parts(parts: Sequence[Path], dest: Path) -> int:
    """Puts ``parts`` end to end as ``dest``, atomically; returns its size.

    The first part becomes the temporary (a rename: one shard's file is never copied), the
    others are appended in the kernel (``copy_file_range``, where the file system has it).
    """
    with atomic_path(dest) as tmp:
        if parts:
            os.replace(parts[0], tmp)
        with open(tmp, "r+b") as fh:  # not "ab": copy_file_range refuses a file opened to append
            fh.seek(0, os.SEEK_END)
            for part in parts[1:]:
                with open(part, "rb") as src:
                    _append(src, fh)
            return fh.tell()


def _append(src: Any, dst: Any) -> None:
    """Appends the open file ``src`` to ``dst`` (at its end)."""
    left = os.fstat(src.fileno()).st_size
    try:
        while left > 0:
            step = os.copy_file_range(src.fileno(), dst.fileno(), left)
            if step == 0:
                break
            left -= step
    except (AttributeError, OSError):  # no copy_file_range here (or not between these files)
        pass
    if left:
        src.seek(os.fstat(src.fileno()).st_size - left)
        dst.seek(0, os.SEEK_END)
        shutil.copyfileobj(src, dst, 1 << 22)
    else:
        dst.seek(0, os.SEEK_END)


def _settle(client: Any, futures: Sequence[Any], timeout: float = 600.0) -> None:
    """After a failure: lets the shards still running end (or gives up after ``timeout``), so
    that none writes a part after the parts folder is removed, then drops them."""
    import distributed

    with contextlib.suppress(Exception):
        distributed.wait(futures, timeout=timeout)
    with contextlib.suppress(Exception):
        client.cancel(futures)


def _fields_extension(ds: Dataset, params: Params, backend: str, parts: Sequence[Path],
                      ranges: Sequence[tuple[int, int]]) -> Extension:
    """An :class:`Extension` holding only the per-contig figures the shards saved (no walks): what
    :func:`formats.write_ends` reads. ``parts`` are in contig order, one per range."""
    loaded = []
    for path in parts:
        with np.load(path) as npz:
            loaded.append({key: npz[key] for key in npz.files})
    sides = {}
    for side in SIDES:
        cols = {name: np.concatenate([p[f"{side}.{name}"] for p in loaded]) for name in FIELDS}
        sides[side] = SideResult(max_walk=int(params.max_walk), walks=np.zeros(0, dtype=np.uint8), **cols)
    if sum(b - a for a, b in ranges) != ds.n_contigs:
        raise LassmError("the shards' ends figures do not cover the contigs")
    return Extension(ds, right=sides["right"], left=sides["left"], backend=backend, params=params.as_dict())


def _part_stats(ds: Dataset, plan: Sequence[np.ndarray], parts: Sequence[dict], backend: str) -> dict:
    """The figures of a run written by its workers: what :func:`merge` puts in ``right.extra``, from small results."""
    totals = [float(sum(p["kernel"])) for p in parts]
    crit = int(np.argmax(totals)) if totals else 0
    work: dict[str, int] = {}
    for p in parts:
        for key, val in p["work"].items():
            work[key] = work.get(key, 0) + int(val)
    launches = sum(len(p[f"{side}_extra"].get("launches", [])) for p in parts for side in SIDES)
    places = sorted({(p["host"], p["gpu"]) for p in parts})
    return {
        "contigs": int(ds.n_contigs), "backend": backend, "shards": len(plan), **plan_balance(ds, plan),
        "kernel_seconds": totals[crit] if totals else 0.0, "kernel_seconds_max_shard": float(max(totals, default=0.0)),
        "kernel_seconds_sum": float(sum(totals)), "shard_kernel_seconds": totals,
        "shard_wall_seconds": [float(p["wall_seconds"]) for p in parts],
        "shard_prep_seconds": [float(p["prep_seconds"]) for p in parts],
        "shard_write_seconds": [float(p["write_seconds"]) for p in parts],
        "shard_bounds": [list(p["bounds"]) for p in parts], "shard_bytes": [p["sizes"] for p in parts],
        "shard_places": [f"{p['host']}:{p['gpu'] or p['pid']}" for p in parts],
        "gpus": len(places) if backend != "cpu" else 0, "workers": len({(p["host"], p["pid"]) for p in parts}),
        "launches": launches, **work,
        "mem_high_water_bytes": max([int(p[f"{side}_extra"].get("mem_high_water_bytes", 0))
                                     for p in parts for side in SIDES] or [0]),
    }


def _written_by_parent(ds: Dataset, params: Params, backend: str, client: Any, plan: Sequence[np.ndarray],
                       out: str | os.PathLike, ends: str | os.PathLike | None, t0: float, **kw) -> dict:
    """An interleaved plan: the in-memory merge (:func:`extend_sharded`), written by this process."""
    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.stats import work_counts

    ext = extend_sharded(ds, params, backend, client, plan, **kw)
    t_merged = time.perf_counter()
    formats.write_extended(ext, out)
    t_out = time.perf_counter()
    if ends is not None:
        formats.write_ends(ext, ends)
    t_ends = time.perf_counter()
    info = ext.right.extra
    keep = ("shards", "kernel_seconds_max_shard", "kernel_seconds_sum", "shard_kernel_seconds", "shard_wall_seconds",
            "shard_prep_seconds", "shard_places", "gpus", "workers", "mem_high_water_bytes", "plan_seconds",
            "shard_work", "max_over_mean", "bound", "shard_contigs")
    return {"contigs": int(ds.n_contigs), "backend": backend, **{key: info[key] for key in keep if key in info},
            "kernel_seconds": float(ext.kernel_seconds), **work_counts(ext),
            "launches": len(info.get("launches", [])) + len(ext.left.extra.get("launches", [])),
            "compute_wall_seconds": t_merged - t0 - info.get("plan_seconds", 0.0), "concat_seconds": t_out - t_merged,
            "ends_seconds": t_ends - t_out, "out": str(out), "ends": None if ends is None else str(ends),
            "out_bytes": Path(out).stat().st_size, "wall_seconds": time.perf_counter() - t0, "written_by": "parent"}


# ---------------------------------------------------------------- sweep points

def _point_task(point: tuple, machine: str | None, force: bool, command: str, results_base: str,
                root: str | None = None, fail_marker: str | None = None) -> dict:
    """Runs one sweep point on this worker and writes its record there (resumable, atomic)."""
    from .account import SKIPPED
    from .records import AlreadyRecorded, clear_leftovers, machine_for_backend, run_id_for
    from .point import run_one

    dname, k, bname, proto = point
    row: dict = {"dataset": dname, "k": k, "backend": bname, "protocol": proto, **_where()}
    try:
        ds, start_k = _load(dname, k)
        row["k"] = start_k
        mname = machine or machine_for_backend(bname)
        folder = Path(root) if root else Path(results_base) / mname
        if not force and (folder / run_id_for(dname, start_k, bname, proto) / "summary.json").exists():
            row["status"] = SKIPPED
            clear_leftovers(folder, run_id_for(dname, start_k, bname, proto))
        else:
            t0 = time.perf_counter()
            folder, summary = run_one(dname, start_k, bname, proto, mname, ds=ds, command=command,
                                      root=folder, replace=force)
            row.update(status="ok" if summary["matches_cpu"] is not False else "MISMATCH", folder=str(folder),
                       kernel_seconds=summary["kernel_seconds"], seconds=time.perf_counter() - t0)
            _fail_once(fail_marker)
    except AlreadyRecorded:  # another run (or a lost worker's first attempt) recorded it meanwhile
        row["status"] = SKIPPED
    except Exception as exc:  # a failing point is reported, the sweep goes on (as in lassm run)
        row["status"] = f"failed: {type(exc).__name__}: {exc}"
        row["traceback"] = traceback.format_exc()
    return row


def run_points(client: Any, points: Sequence[tuple], machine: str | None = None, force: bool = False,
               command: str = "", root: Path | None = None, bar: Any = None, task: Any = None,
               fail_marker: str | None = None) -> list[dict]:
    """Runs sweep points as Dask tasks (one worker, one GPU each); returns rows in point order.

    Records land in ``root`` if given (as :func:`lassm.runs.sweep.main_job`), else under this process's
    results root (``data/results`` or ``LASSM_RESULTS``) ``/<machine>/``; across nodes that must be a
    shared file system.
    """
    import distributed

    machine = machine or os.environ.get("LASSM_MACHINE") or None
    base = str(paths.results_dir("x").parent.resolve())
    direct = str(Path(root).resolve()) if root is not None else None
    futures = [client.submit(_point_task, tuple(p), machine, force, command, base, direct, fail_marker, pure=False,
                             key=f"lassm-point-{i}-{os.urandom(6).hex()}") for i, p in enumerate(points)]
    order = {f.key: i for i, f in enumerate(futures)}
    rows: list[dict | None] = [None] * len(futures)
    for fut in distributed.as_completed(futures):
        row = fut.result()
        rows[order[fut.key]] = row
        if bar is not None:
            bar.update(task, description=f"{row['dataset']} k={row['k'] or '-'} {row['backend']}/{row['protocol']}")
            bar.advance(task)
        if row.get("traceback"):
            print(row.pop("traceback"), file=sys.stderr, flush=True)
    return [r for r in rows if r is not None]

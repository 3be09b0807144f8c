# SPDX-License-Identifier: BSD-3-Clause
"""Sharded extends whose workers write the output files: what ``lassm extend --cluster`` runs.

Rather than bring every shard's walks back and format the file serially
(:func:`lassm.runs.distributed.extend_sharded`), each shard is a contiguous range of contigs
(:func:`plan_ranges`) whose worker formats its block with the single run's writers into a part
file beside the destination; only figures travel back, and the parts are joined in place
(:mod:`.part_join`). The files equal the single run's byte for byte.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .. import arrowio
from ..atomic import written
from ..errors import LassmError
from ..backends.launch import transfer_seconds
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.result import FIELDS, SIDES, Extension, SideFigures, SideResult
from ..workloads.local_assembly.stream import ShardFolder, in_row_groups, is_shard_folder, range_bounds, within_files
from .dask_settings import sharing, take_share
from .memory import MEMORY_KEYS
from .part_join import concat_parts, join, parts_folder
from .distributed import Sharding, _fail_once, _load, _where, extend_sharded, workers_and_plan
from .shard_plan import balance, plan_balance, work_estimate


# ---------------------------------------------------------------- range plans

def plan_ranges(ds: Dataset | ShardFolder, shards: int, weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Splits the contigs into ``shards`` contiguous ranges (index arrays) of near-equal work.

    A contig weighs its read bases (:func:`work_estimate`) plus its own bases (its output line).
    Cuts fall where the running sum crosses ``total * i / shards``, so
    ``max / mean <= 1 + shards * max(weight) / total``. A shard folder is planned from the weights it
    saved (:meth:`ShardFolder.weights`, the same weights, so the same ranges as its files'
    :func:`range_bounds`)."""
    if weights is None:
        weights = ds.planning_weights() if isinstance(ds, ShardFolder) else \
            work_estimate(ds) + np.diff(ds.offsets).astype(np.float64)
    return [np.arange(a, b, dtype=np.int64) for a, b in range_bounds(np.asarray(weights, dtype=np.float64), shards)]


def range_balance(weights: np.ndarray, plan: Sequence[np.ndarray]) -> dict:
    """:func:`plan_balance`'s figures from the planning weights alone: ``shard_work`` and
    ``max_over_mean`` of :func:`plan_ranges`' weights, ``bound`` the range cuts' own
    (``1 + shards * max(weight) / total``), ``shard_contigs`` as there."""
    w = np.asarray(weights, dtype=np.float64)
    return balance(w, plan, float(w.max(initial=0.0)))


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




# ---------------------------------------------------------------- worker side

def _write_part(folder: str, name: str, write: Callable[[Path], Any]) -> int:
    """Writes one part file through a temporary in the parts folder and returns its size; a re-run
    shard replaces its parts. The folder is never created here, so a late shard of a removed run
    fails rather than leave a stray part."""
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


#: Pieces a worker cuts its range of a shard folder into, at row-group edges, when the range fits
#: its memory whole: it reads the next while it extends and writes this one.
PIPELINE_PIECES = 4
#: Threads a worker needs for that read-ahead: on the 16-core H200 node, one worker with all 16
#: wrote gen-k21x80 faster reading ahead, four with 4 each (the GPU shared) slower, the reads
#: then taking the cores the extensions used.
READ_AHEAD_MIN_THREADS = 8


@dataclass(frozen=True)
class PartJob:
    """What every range's task of one run shares, sent to the workers with each range.

    Attributes
    ----------
    source : ``(dataset name or shard folder, k)`` the workers read, or None (each range's data travels).
    params : as :meth:`Params.as_dict`.
    out_dir : the output's parts folder.
    ends_dir : the ends table's parts folder, or None for no ends table.
    ends_tsv : the ends table is TSV (else parquet).
    fail_marker : fault injection for tests (the first range to finish kills its worker).
    """

    source: tuple[str, int] | None
    params: dict
    backend: str
    options: dict
    out_dir: str
    ends_dir: str | None
    ends_tsv: bool
    fail_marker: str | None = None


def _part_task(job: PartJob, number: int, bounds: tuple[int, int], data: Dataset | None, header: bool,
               share: int = 0) -> dict:
    """Extends the contigs ``bounds`` on this worker and writes its block of the output files;
    returns small figures only (timings, kernel seconds, work, launches, place, memory).

    Output lines go to ``job.out_dir``; ends as two TSV blocks (right, left; ``header`` on the
    file's first) or, for parquet, as per-contig figures (``.npz``) the parent writes. A range over
    this worker's memory (:mod:`lassm.runs.memory`) runs in pieces joined here (same bytes). A
    fitting range of a shard folder on a worker with :data:`READ_AHEAD_MIN_THREADS` is read in
    pieces each while the one before is extended; ``prep_seconds`` is then the wait for reads.
    ``share``: workers sharing this host (its CPUs split, :func:`lassm.runs.dask_settings.take_share`);
    0 leaves threads as they are."""
    from concurrent.futures import ThreadPoolExecutor

    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.stats import work_counts
    from . import memory
    from .extend import extend

    with contextlib.suppress(ImportError):  # numba's writer: a worker pays its import once, not per part
        from ..workloads.local_assembly import extended_jit  # noqa: F401  (formats writes with it once loaded)
    source, backend, options, out_dir, ends_dir = job.source, job.backend, job.options, job.out_dir, job.ends_dir
    t0 = time.perf_counter()
    threads = take_share(share) if share else None
    peak_source = memory.start_peak()
    a, b = bounds
    piece_of, data_bytes = _range_reader(data, source, a, b)
    cap, why = memory.budget(backend)
    need = memory.need_bytes(data_bytes, backend)
    count = memory.pieces(need, cap)
    ranges = memory.cut(a, b, count)
    ahead_too = False  # whether two pieces may be held at once: only where the whole range fits
    if source is not None and is_shard_folder(source[0]):
        ranges = within_files(source[0], ranges)  # each piece read as views of one file, none copied together
        if count == 1 and arrowio.threads() >= READ_AHEAD_MIN_THREADS:
            ranges, ahead_too = in_row_groups(source[0], ranges, PIPELINE_PIECES), True
    kinds = [f"ends-{side}" for side in SIDES] if ends_dir is not None and job.ends_tsv else \
        ["ends.npz"] if ends_dir is not None else []
    files: dict[str, list[Path]] = {kind: [] for kind in kinds}
    fields: list[dict] = []
    work: dict[str, int] = {}
    kernel, timing, extras = [0.0, 0.0], {"prep": time.perf_counter() - t0, "wall": 0.0}, {s: list[SideFigures]() for s in SIDES}
    out_tmp = Path(tempfile.mkstemp(prefix=f".{part_name('out', number)}.", suffix=".tmp", dir=out_dir)[1])
    try:
        with open(out_tmp, "wb") as out_fh, ThreadPoolExecutor(1) as reader:
            ahead = reader.submit(piece_of, *ranges[0])
            for j, (lo, hi) in enumerate(ranges):
                tp = time.perf_counter()
                piece = ahead.result()
                t1 = time.perf_counter()
                if ahead_too and j + 1 < len(ranges):
                    ahead = reader.submit(piece_of, *ranges[j + 1])
                ext = extend(piece, Params(**job.params), backend=backend, **options)
                t2 = time.perf_counter()
                timing["prep"] += t1 - tp
                timing["wall"] += t2 - t1
                formats.extended_into(ext, out_fh)  # the pieces' lines end to end: the range's block
                for side in SIDES if "ends-right" in files else ():
                    first = header and side == SIDES[0] and j == 0
                    files[f"ends-{side}"].append(_written(str(ends_dir), f"{number:05d}.{j:04d}.ends-{side}",
                                                 lambda p: formats.ends_tsv_into(ext, p, (side,), first)))
                if "ends.npz" in files:
                    fields.append(_fields_of(ext))
                for key, val in work_counts(ext).items():
                    work[key] = work.get(key, 0) + int(val)
                kernel = [kernel[0] + float(ext.right.kernel_seconds), kernel[1] + float(ext.left.kernel_seconds)]
                for side in SIDES:
                    extras[side].append(getattr(ext, side).extra)
                del ext, piece  # the next piece is made with this one's memory given back
                if not ahead_too and j + 1 < len(ranges):
                    del ahead  # its future held the piece too
                    ahead = reader.submit(piece_of, *ranges[j + 1])
        os.replace(out_tmp, Path(out_dir) / part_name("out", number))  # a shard run again replaces its part
    finally:
        with contextlib.suppress(FileNotFoundError):
            out_tmp.unlink()
    sizes = {"out": (Path(out_dir) / part_name("out", number)).stat().st_size}
    for kind, paths in files.items():
        assert ends_dir is not None  # files are listed only with an ends table
        folder = Path(ends_dir)
        if kind == "ends.npz":
            paths = [_written(str(folder), part_name(kind, number), lambda p: _save_fields(_joined(fields), p))]
        else:
            concat_parts(paths, folder / part_name(kind, number))
            for path in paths[1:]:
                path.unlink()
        sizes[kind.replace(".npz", "")] = (folder / part_name(kind, number)).stat().st_size
    _fail_once(job.fail_marker)
    device = memory.device_peak(*extras["right"], *extras["left"])
    return {"number": number, "bounds": (a, b), "sizes": sizes, "work": work, "kernel": tuple(kernel),
            "right_extra": memory.joined_extra(extras["right"]), "left_extra": memory.joined_extra(extras["left"]),
            "wall_seconds": timing["wall"], "prep_seconds": timing["prep"],
            "transfer_seconds": transfer_seconds(*extras["right"], *extras["left"]), "threads": threads,
            "read_pieces": len(ranges),
            "write_seconds": time.perf_counter() - t0 - timing["wall"] - timing["prep"],
            "memory": memory.figures(peak_source, data_bytes, need, cap, why, count, device), **_where()}


def _range_reader(data: Dataset | None, source: tuple[str, int] | None, a: int,
                  b: int) -> tuple[Callable[[int, int], Dataset], int]:
    """How a worker gets contigs ``lo .. hi-1`` of its range ``a .. b``, and the range's input bytes:
    from the task's data (views), from a shard folder (only the row groups holding the piece), or
    from the named dataset, loaded once per worker process."""
    from ..workloads.local_assembly import stream
    from . import memory

    if data is not None:
        return (lambda lo, hi: data.slice(lo - a, hi - a)), memory.input_bytes(data)
    assert source is not None  # a range comes as its data or as where to read it
    name, k = source
    if stream.is_shard_folder(name):
        doc = stream.manifest(name)
        share = sum(p["data_bytes"] * (min(b, p["stop"]) - max(a, p["start"])) / max(1, p["stop"] - p["start"])
                    for p in doc["shards"] if min(b, p["stop"]) > max(a, p["start"]))
        return (lambda lo, hi: stream.read_range(name, lo, hi)), int(share)
    full, _ = _load(name, k)
    return (lambda lo, hi: full.slice(lo, hi)), memory.input_bytes(full.slice(a, b))


def _written(folder: str, name: str, write: Callable[[Path], Any]) -> Path:
    """:func:`_write_part`, returning the part's path."""
    _write_part(folder, name, write)
    return Path(folder) / name


def _fields_of(ext: Extension) -> dict[str, np.ndarray]:
    """The per-contig figures of both sides that a parquet ends table takes from a shard."""
    return {f"{side}.{name}": getattr(getattr(ext, side), name) for side in SIDES for name in FIELDS}


def _joined(pieces: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The pieces' per-contig figures end to end."""
    return {key: np.concatenate([p[key] for p in pieces]) for key in pieces[0]}


def _save_fields(fields: dict[str, Any], path: Path) -> None:
    """The per-contig figures of both sides (what the ends table holds besides the dataset's own columns)."""
    with open(path, "wb") as fh:
        np.savez(fh, **fields)


# ---------------------------------------------------------------- sharded extension, written by the workers

def extend_to_files(ds: Dataset | ShardFolder, params: Params, backend: str, client: Any, out: str | os.PathLike,
                    ends: str | os.PathLike | None = None, sharding: Sharding = Sharding(), **options) -> dict:
    """Extends ``ds`` as shards whose workers write their own blocks of ``out`` (and ``ends``).

    The files equal one :func:`extend` written by :func:`formats.write_extended` and
    :func:`formats.write_ends` byte for byte. Each shard is a range (:func:`plan_ranges`) whose
    blocks go to part files in a hidden folder beside the destination; workers copy them into a
    temporary that then replaces it (:func:`lassm.runs.part_join.join`; a device or pipe is written
    in place). A parquet ends table is written by the parent from the workers' ``.npz`` figures.

    On success no part is left; on failure the destinations are untouched and the parts removed (a
    killed parent's folder is removed by the next write, :func:`lassm.atomic.remove_stale`).

    ``ds`` may be a :class:`ShardFolder`: the parent then plans from its saved weights and reads no
    contig, except for a folder without weights, an interleaved plan or a parquet ends table.

    Parameters
    ----------
    ds, params, backend, client, options : as for :func:`extend_sharded`.
    out : the output file (MetaHipMer's ``cid extended_sequence``).
    ends : the ends table (``.tsv``: TSV, else parquet), or None.
    sharding : as for :func:`extend_sharded`; a count plans :func:`plan_ranges`, a plan of
        non-contiguous shards runs :func:`extend_sharded` and is written here.

    Returns
    -------
    dict of figures: ``wall_seconds`` and its phases (``plan_seconds``, ``compute_wall_seconds``,
    ``concat_seconds``, ``ends_seconds``), the kernel's critical path and sum, per-shard timings and
    places, work counts, bytes.
    """
    from ..workloads.local_assembly import formats

    t0 = time.perf_counter()
    source, retries = sharding.source, sharding.retries
    if isinstance(ds, ShardFolder):
        source = source or (ds.path, params.k)
        if ds.weights_file is None:  # written before the folders held their weights: planned from the data
            ds = ds.load()
    workers, plan = workers_and_plan(ds, client, sharding.shards, sharding.workers, plan_ranges)
    ranges = as_ranges(plan)
    if ranges is None:  # interleaved shards: no shard's lines are one block of the file
        if source and is_shard_folder(source[0]):  # extend_sharded's workers load a source by name, not a folder
            source = None
        return _written_by_parent(_loaded(ds), params, backend, client, out, ends, t0,
                                  replace(sharding, shards=plan, workers=workers, source=source), **options)
    out = Path(out)
    tsv = ends is not None and formats.is_tsv(ends)
    order = sorted(range(len(ranges)), key=lambda i: ranges[i])
    folders: list[Path] = []
    futures: list[Any] = []
    done = False
    try:
        out_dir = parts_folder(out)
        folders.append(out_dir)
        ends_dir = parts_folder(Path(ends)) if ends is not None else None
        if ends_dir is not None:
            folders.append(ends_dir)
        t_plan = time.perf_counter()
        shares = sharing(list({workers[i % len(workers)] for i in range(len(ranges))}))
        job = PartJob(source, params.as_dict(), backend, options, str(out_dir),
                      None if ends_dir is None else str(ends_dir), tsv, sharding.fail_marker)
        for number, (a, b) in enumerate(ranges):
            data = None if source else _loaded(ds).slice(a, b)  # views: only the range's bytes are pickled
            futures.append(client.submit(
                _part_task, job, number, (a, b), data, number == order[0],
                shares[workers[number % len(workers)]], workers=[workers[number % len(workers)]],
                allow_other_workers=True, retries=retries, pure=False, key=f"lassm-part-{number}-{os.urandom(6).hex()}"))
        parts = sorted(client.gather(futures), key=lambda p: p["number"])
        t_gather = time.perf_counter()
        blocks = {out: [(i, "out", out_dir) for i in order]}  # each file's blocks, in its order
        if ends_dir is not None and ends is not None and tsv:
            blocks[Path(ends)] = [(i, f"ends-{side}", ends_dir) for side in SIDES for i in order]
        jobs, sizes = [list[tuple[Path, Path, int]]() for _ in parts], dict[Path, int]()
        for dest, items in blocks.items():
            for i, kind, folder in items:
                jobs[i].append((folder / part_name(kind, i), dest, sizes.get(dest, 0)))
                sizes[dest] = sizes.get(dest, 0) + int(parts[i]["sizes"][kind])
        join(client, jobs, sizes, workers, futures, retries)  # each worker copies its parts into place
        t_out = time.perf_counter()
        if ends_dir is not None and ends is not None and not tsv:
            formats.write_ends(_fields_extension(_loaded(ds), params, backend,
                                                 [ends_dir / part_name("ends.npz", i) for i in order],
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
                 out_bytes=written(out).stat().st_size, wall_seconds=time.perf_counter() - t0, written_by="workers")
    return stats


def _loaded(ds: Dataset | ShardFolder) -> Dataset:
    """The dataset itself, a shard folder read whole in this process (for what needs its columns)."""
    return ds.load() if isinstance(ds, ShardFolder) else ds


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
        cols: dict[str, Any] = {name: np.concatenate([p[f"{side}.{name}"] for p in loaded]) for name in FIELDS}
        sides[side] = SideResult(max_walk=int(params.max_walk), walks=np.zeros(0, dtype=np.uint8), **cols)
    if sum(b - a for a, b in ranges) != ds.n_contigs:
        raise LassmError("the shards' ends figures do not cover the contigs")
    return Extension(ds, right=sides["right"], left=sides["left"], backend=backend, params=params.as_dict())


def _part_stats(ds: Dataset | ShardFolder, plan: Sequence[np.ndarray], parts: Sequence[dict], backend: str) -> dict:
    """The figures of a run written by its workers, from small results: what :func:`merge` puts in ``right.extra``.

    The plan's balance is :func:`plan_balance`'s for a dataset, :func:`range_balance`'s (from the
    saved weights: read and contig bases) for a shard folder, which holds no reads here."""
    from . import memory

    totals = [float(sum(p["kernel"])) for p in parts]
    crit = int(np.argmax(totals)) if totals else 0
    work: dict[str, int] = {}
    for p in parts:
        for key, val in p["work"].items():
            work[key] = work.get(key, 0) + int(val)
    launches = sum(len(p[f"{side}_extra"].launches) for p in parts for side in SIDES)
    places = sorted({(p["host"], p["gpu"]) for p in parts})
    return {
        "contigs": int(ds.n_contigs), "backend": backend, "shards": len(plan),
        **(range_balance(ds.planning_weights(), plan) if isinstance(ds, ShardFolder) else plan_balance(ds, plan)),
        "kernel_seconds": totals[crit] if totals else 0.0, "kernel_seconds_max_shard": float(max(totals, default=0.0)),
        "kernel_seconds_sum": float(sum(totals)), "shard_kernel_seconds": totals,
        "shard_wall_seconds": [float(p["wall_seconds"]) for p in parts],
        "shard_prep_seconds": [float(p["prep_seconds"]) for p in parts],
        "shard_transfer_seconds": [p.get("transfer_seconds") for p in parts],
        "shard_threads": [p.get("threads") for p in parts], "shard_read_pieces": [p.get("read_pieces") for p in parts],
        "shard_write_seconds": [float(p["write_seconds"]) for p in parts],
        "shard_bounds": [list(p["bounds"]) for p in parts], "shard_bytes": [p["sizes"] for p in parts],
        "shard_places": [f"{p['host']}:{p['gpu'] or p['pid']}" for p in parts],
        "gpus": len(places) if backend != "cpu" else 0, "workers": len({(p["host"], p["pid"]) for p in parts}),
        "launches": launches, **work,
        "mem_high_water_bytes": max([int(p[f"{side}_extra"].mem_high_water_bytes or 0)
                                     for p in parts for side in SIDES] or [0]),
        **memory.summarize(parts),
    }


def _written_by_parent(ds: Dataset, params: Params, backend: str, client: Any, out: str | os.PathLike,
                       ends: str | os.PathLike | None, t0: float, sharding: Sharding, **options) -> dict:
    """An interleaved plan (``sharding.shards``): the in-memory merge (:func:`extend_sharded`), written by this process."""
    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.stats import work_counts

    ext = extend_sharded(ds, params, backend, client, sharding, **options)
    t_merged = time.perf_counter()
    formats.write_extended(ext, out)
    t_out = time.perf_counter()
    if ends is not None:
        formats.write_ends(ext, ends)
    t_ends = time.perf_counter()
    run = asdict(ext.right.extra.sharded_figures()) | {"mem_high_water_bytes": ext.right.extra.mem_high_water_bytes}
    keep = ("shards", "kernel_seconds_max_shard", "kernel_seconds_sum", "shard_kernel_seconds", "shard_wall_seconds",
            "shard_prep_seconds", "shard_places", "gpus", "workers", "mem_high_water_bytes", "plan_seconds", *MEMORY_KEYS,
            "shard_work", "max_over_mean", "bound", "shard_contigs")
    return {"contigs": int(ds.n_contigs), "backend": backend, **{key: run[key] for key in keep},
            "kernel_seconds": float(ext.kernel_seconds), **work_counts(ext),
            "launches": len(ext.right.extra.launches) + len(ext.left.extra.launches),
            "compute_wall_seconds": t_merged - t0 - (run["plan_seconds"] or 0.0), "concat_seconds": t_out - t_merged,
            "ends_seconds": t_ends - t_out, "out": str(out), "ends": None if ends is None else str(ends),
            "out_bytes": written(out).stat().st_size, "wall_seconds": time.perf_counter() - t0, "written_by": "parent"}

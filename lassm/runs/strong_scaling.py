# SPDX-License-Identifier: BSD-3-Clause
"""Strong scaling of the sharded extension on one node's GPUs, and the sweep with and without Dask.

:func:`measure` extends one dataset on 1..N GPUs (``local-cuda:N``, ``cuda``), checks each
output against the one-GPU output and the oracle, and writes one record per GPU count
(``scaling: strong``) holding both sharded paths (in-memory merge and workers-write), a plain
``lassm extend`` of the same input (compared byte for byte), the phases and each worker's
peaks. :func:`sweep` times ``lassm run`` in one process against ``--cluster local-cuda:G``
(``scaling__sweep__gpus<G>.json``). ``lassm measure scaling`` runs both.
"""
from __future__ import annotations

import cProfile
import hashlib
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .. import stderr
from .. import paths
from ..atomic import atomic_open
from ..workloads.local_assembly import datasets, formats, stream
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.result import Extension, SideResult
from . import distributed as D
from . import records
from . import shard_files as F
from . import shard_plan as P
from .extend import extend
from .memory import MEMORY_KEYS


def tiled(side: SideResult, times: int) -> SideResult:
    out = SideResult.empty(len(side.walk_len) * times, side.max_walk)
    for f in ("walks", "walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions"):
        setattr(out, f, np.tile(getattr(side, f), times))
    return out

def digest(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

def fresh(path: str) -> str:
    """`path` with no file there: every timed run writes a new output, none pays for freeing the
    previous run's (a rename over the last run's output frees its pages inside the timed run)."""
    if os.path.exists(path):
        os.remove(path)
    return path

def whole_runs(cmd: list, repeat: int) -> list:
    """Wall seconds of the whole command, `repeat` runs after one untimed one (kernel cache warm);
    its output (the last argument) removed before each."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    runs = []
    for _ in range(repeat):
        fresh(cmd[-1])
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t0)
    return runs

def profile_shard(source: tuple, index: np.ndarray, params: dict, top: int, protocol: str) -> str:
    """On a worker: cProfile of one shard's extension (its cached cut), heaviest own time first."""
    data = D._load(*source)[0].subset(index)
    prof = cProfile.Profile()
    prof.enable()
    extend(data, Params(**params), backend="cuda", protocol=protocol)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()

def measure(name: str, n_gpu: int, gpu_counts: list[int], repeat: int, protocol: str, machine: str, command: str) -> None:
    """Strong scaling of dataset ``name`` on each of ``gpu_counts`` GPUs of ``local-cuda:n_gpu``:
    one run record per count, every output checked (module docstring)."""
    with tempfile.TemporaryDirectory(prefix="lassm-scaling-") as tmp:
        _measure(name, n_gpu, gpu_counts, repeat, protocol, machine, command, Path(tmp))


def _measure(name: str, n_gpu: int, gpu_counts: list[int], repeat: int, protocol: str, machine: str, command: str,
             work: Path) -> None:
    t0 = time.perf_counter()
    ds, k = datasets.load(name)
    params = Params(k=k)
    stderr.line(f"{name}: {ds.n_contigs} contigs, loaded in {time.perf_counter() - t0:.1f} s")

    # The CPU oracle: on the base dataset when the name is a replication (every replica walks alike).
    base_name, times = (name.rsplit("x", 1)[0], int(name.rsplit("x", 1)[1])) if "x" in name.split("-")[-1] else (name, 1)
    t0 = time.perf_counter()
    base, _ = datasets.load(base_name, k)
    cpu = extend(base, params, backend="cpu")
    oracle = Extension(ds, tiled(cpu.right, times), tiled(cpu.left, times), "cpu", params.as_dict())
    stderr.line(f"cpu oracle on {base_name} x{times}: {time.perf_counter() - t0:.1f} s")

    # The plain single-process command on the same input, before any worker holds a GPU.
    inp, single_out, sharded_out = str(work / "input.parquet"), str(work / "single.txt"), str(work / "sharded.txt")
    files_out = str(work / "files.txt")
    stream.write(name, inp)  # a block at a time: the same bytes as writing ds whole
    t0 = time.perf_counter()
    folder = str(work / "input.shards")
    stream.write_shards(name, folder, n_gpu)  # what `lassm data shard NAME --shards NGPU` writes
    shard_folder = stream.ShardFolder.open(folder)
    stderr.line(f"shard folder of {n_gpu} files in {time.perf_counter() - t0:.1f} s")
    cmd = [sys.executable, "-m", "lassm.cli", "extend", inp, "--k", str(k), "--backend", "cuda", "--protocol", protocol,
           "--out", single_out]
    single = whole_runs(cmd, repeat)
    single_digest = digest(single_out)
    stderr.line(f"single-process lassm extend (whole command): {statistics.median(single):.3f} s "
          f"(runs {[round(w, 3) for w in single]})")

    with D.connect(f"local-cuda:{n_gpu}") as client:
        workers = D.workers_of(client)
        t0 = time.perf_counter()
        for w in D.warm(client, params, "cuda", source=(name, k), protocol=protocol):
            stderr.line(f"warm {w}")
        stderr.line(f"warmed {len(workers)} workers in {time.perf_counter() - t0:.1f} s")
        ref = None
        for g in gpu_counts:
            plan = P.plan_shards(ds, g)
            # Untimed pass: each worker cuts its shard once (cached) and the output is checked.
            ext = D.extend_sharded(ds, params, "cuda", client, D.Sharding(plan, workers=workers[:g], source=(name, k)), protocol=protocol)
            walls, kernels, crit, writes = [], [], [], []
            phases: dict[str, list[float]] = {key: [] for key in ("plan_seconds", "compute_wall_seconds", "merge_seconds")}
            for _ in range(repeat):
                ext = D.extend_sharded(ds, params, "cuda", client, D.Sharding(plan, workers=workers[:g], source=(name, k)),
                                       protocol=protocol)
                fresh(sharded_out)
                t0 = time.perf_counter()
                formats.write_extended(ext, sharded_out)
                writes.append(time.perf_counter() - t0)
                walls.append(ext.wall_seconds)
                run = ext.right.extra.sharded_figures()
                crit.append(run.kernel_seconds_max_shard)
                kernels.append(run.kernel_seconds_sum)
                for key, runs in phases.items():
                    runs.append(getattr(run, key))
            # The path of `lassm extend DIR --cluster`: the parent plans from the shard folder's weights,
            # each worker reads its range, extends it and writes its block of the output, this process
            # joins the parts; timed whole, the file included.
            F.extend_to_files(shard_folder, params, "cuda", client, files_out, sharding=D.Sharding(workers=workers[:g]),
                              protocol=protocol)  # untimed: the workers' first read of the folder
            files = [F.extend_to_files(shard_folder, params, "cuda", client, fresh(files_out),
                                       sharding=D.Sharding(workers=workers[:g]), protocol=protocol) for _ in range(repeat)]
            files_walls = [f["wall_seconds"] for f in files]
            diffs = ext.compare(oracle)
            out_digest = records.output_digest(ext)
            if g == 1:
                ref = {"digest": out_digest, "wall": statistics.median(walls), "files": statistics.median(files_walls)}
            ref = ref or {"digest": None, "wall": float("nan"), "files": float("nan")}  # no 1-GPU run: no speedup
            same_as_1 = (ref["digest"] is None or out_digest == ref["digest"]) and not diffs
            sharded = [w + x for w, x in zip(walls, writes)]
            extra = {
                "gpus": g, "scaling": "strong", "shards": g, "wall_seconds": statistics.median(walls),
                "wall_seconds_runs": walls, "kernel_seconds": statistics.median(crit), "kernel_seconds_runs": crit,
                "kernel_seconds_sum_runs": kernels, "speedup_vs_1gpu": ref["wall"] / statistics.median(walls),
                "matches_1gpu": same_as_1, "cpu_oracle": f"{base_name} tiled x{times}",
                **{key: statistics.median(runs) for key, runs in phases.items()},
                "write_seconds": statistics.median(writes), "write_seconds_runs": writes,
                "sharded_seconds": statistics.median(sharded), "single_process_seconds": statistics.median(single),
                "single_process_seconds_runs": single,
                "speedup_vs_single_process": statistics.median(single) / statistics.median(sharded),
                "matches_single_process": digest(sharded_out) == single_digest,
                "files_seconds": statistics.median(files_walls), "files_seconds_runs": files_walls,
                "files_speedup_vs_1gpu": ref["files"] / statistics.median(files_walls),
                "files_speedup_vs_single_process": statistics.median(single) / statistics.median(files_walls),
                "files_matches_single_process": digest(files_out) == single_digest,
                **{f"files_{key}": statistics.median(f[key] for f in files)
                   for key in ("plan_seconds", "compute_wall_seconds", "concat_seconds")},
                **{f"files_{key}": files[-1][key] for key in ("shard_bounds", "shard_wall_seconds", "shard_write_seconds",
                                                             "shard_prep_seconds", "max_over_mean", "shard_places",
                                                             "shard_kernel_seconds", "shard_transfer_seconds",
                                                             "shard_threads", "shard_read_pieces")},
                "files_input": "shard folder",
                **{key: getattr(ext.right.extra.sharded_figures(), key) for key in MEMORY_KEYS},
                **{f"files_{key}": files[-1].get(key) for key in MEMORY_KEYS},
                **{key: getattr(ext.right.extra.sharded_figures(), key)
                   for key in ("shard_work", "max_over_mean", "bound", "shard_contigs", "shard_kernel_seconds",
                               "shard_wall_seconds", "shard_prep_seconds", "shard_pack_seconds",
                               "shard_transfer_seconds", "shard_places")},
            }
            if diffs:
                extra["cpu_differences"] = diffs
            summary = records.summarize(ext, name, not diffs, command, machine=machine, extra=extra,
                                        digest=out_digest)  # sorting 5.5 M lines once, not twice
            run_id = f"scaling__{records.run_id_for(name, k, 'cuda', protocol)}__gpus{g}"
            records.write_record(summary, ext, run_id=run_id)
            stderr.line(f"[{time.strftime('%H:%M:%S')}] gpus={g}: wall {statistics.median(walls):.3f} s (runs {[round(w, 3) for w in walls]}) = plan "
                  f"{extra['plan_seconds']:.3f} + compute {extra['compute_wall_seconds']:.3f} + merge "
                  f"{extra['merge_seconds']:.3f}; write {extra['write_seconds']:.3f} s; kernel critical path "
                  f"{statistics.median(crit):.3f} s, sum {statistics.median(kernels):.3f} s, shard walls "
                  f"{[round(w, 3) for w in extra['shard_wall_seconds']]}, balance {extra['max_over_mean']:.3f}; "
                  f"vs 1 GPU {extra['speedup_vs_1gpu']:.2f}x, vs single process (wall + write) "
                  f"{extra['speedup_vs_single_process']:.2f}x; equal to 1 GPU: {same_as_1}, to cpu: {not diffs}, "
                  f"to the single-process file: {extra['matches_single_process']} -> {run_id}")
            stderr.line(f"[{time.strftime('%H:%M:%S')}] gpus={g} written by the workers: {extra['files_seconds']:.3f} s (runs "
                  f"{[round(w, 3) for w in files_walls]}) = plan {extra['files_plan_seconds']:.3f} + compute and "
                  f"write {extra['files_compute_wall_seconds']:.3f} + join {extra['files_concat_seconds']:.3f}; shard "
                  f"walls {[round(w, 3) for w in extra['files_shard_wall_seconds']]}, writes "
                  f"{[round(w, 3) for w in extra['files_shard_write_seconds']]}, balance {extra['files_max_over_mean']:.3f}; "
                  f"vs 1 GPU {extra['files_speedup_vs_1gpu']:.2f}x, vs single process "
                  f"{extra['files_speedup_vs_single_process']:.2f}x; equal to the single-process file: "
                  f"{extra['files_matches_single_process']}")
        # Where a worker's time goes besides its kernels: one shard of the widest plan, profiled there.
        shard = P.plan_shards(ds, n_gpu)[0]
        stderr.line(client.submit(profile_shard, (name, k), shard, params.as_dict(), 25, protocol, workers=[workers[0]],
                           pure=False).result())


def sweep(machine: str, gpus: int, names: list[str], protocol: str, timeout: float = 200.0) -> Path:
    """The wall time of a whole ``lassm run`` of ``names`` (cuda, ``protocol``) in one process and
    with ``--cluster local-cuda:gpus``, each into a results root of its own, their outputs
    compared; kept as the machine's ``scaling__sweep__gpus<gpus>.json``."""
    argv = [sys.executable, "-m", "lassm", "run", "--datasets", ",".join(names), "--backends", "cuda",
            "--protocols", protocol, "--force", "--quiet"]
    with tempfile.TemporaryDirectory(prefix="lassm-sweep-") as tmp:
        roots = {how: Path(tmp) / how for how in ("direct", "cluster")}
        walls, codes = {}, {}
        for how, extra in (("direct", []), ("cluster", ["--cluster", f"local-cuda:{gpus}"])):
            t0 = time.perf_counter()
            done = subprocess.run([*argv, "--machine", machine, *extra], env={**os.environ, "LASSM_RESULTS": str(roots[how])},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
            walls[how], codes[how] = time.perf_counter() - t0, done.returncode
            stderr.line(f"lassm run ({how}): {walls[how]:.1f} s, exit {done.returncode}")
        same = {}
        for rec in sorted((roots["direct"] / machine).glob("*/summary.json")):
            other = roots["cluster"] / machine / rec.parent.name / "summary.json"
            same[rec.parent.name] = other.is_file() and \
                json.loads(rec.read_text())["output_sha256"] == json.loads(other.read_text())["output_sha256"]
    out = {"machine": machine, "gpus": gpus, "datasets": names, "backend": "cuda", "protocol": protocol,
           "direct_wall_seconds": walls["direct"], "cluster_wall_seconds": walls["cluster"],
           "direct_rc": codes["direct"], "cluster_rc": codes["cluster"],
           "note": "wall clock of the whole `lassm run` (dataset generation, CPU oracle, CUDA compile, records)",
           "git_sha": records.git_sha(), "versions": records.versions(), "same_output": same}
    dest = paths.results_dir(machine) / f"scaling__sweep__gpus{gpus}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(dest, "w") as fh:
        fh.write(json.dumps(out, indent=2) + "\n")
    return dest


__all__ = ["measure", "profile_shard", "sweep"]

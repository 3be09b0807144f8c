# SPDX-License-Identifier: BSD-3-Clause
"""Whether the shards of a sharded extend slow each other down without Dask.

Each shard of a shard folder is extended and written by its own process on its own GPU: the
whole input as one shard, each shard alone, then all at once, ``repeat`` timed runs after one
untimed. Alone near 1/N of the whole but slower together means the node's shared resources, not
Dask, hold a sharded run back. :func:`measure` returns the figures, :func:`write` keeps them as
``shard-contention__<dataset>.json`` (read by :func:`lassm.runs.results.shard_contention`).
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .. import stderr
from .. import paths
from ..atomic import atomic_open
from ..errors import LassmError


def child(path: str, k: int, a: int, b: int, backend: str, protocol: str, repeat: int, go: str) -> None:
    """One shard's process: load, warm up, wait for ``go``, time; prints one JSON line."""
    from ..workloads.local_assembly import formats, stream
    from ..workloads.local_assembly.config import Params
    from .extend import extend

    part, params = stream.read_range(path, a, b), Params(k=k)  # its range of the shard folder, no more
    out = f"{path}.{a}.out"

    def once() -> tuple[float, float]:
        t0 = time.perf_counter()
        ext = extend(part, params, backend=backend, **({"protocol": protocol} if backend == "cuda" else {}))
        t1 = time.perf_counter()
        with open(out, "wb") as fh:
            formats.extended_into(ext, fh)
        return t1 - t0, time.perf_counter() - t1

    once()
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    runs = [once() for _ in range(repeat)]
    os.unlink(out)
    print(json.dumps({"contigs": b - a, "extend": statistics.median(r[0] for r in runs),
                      "write": statistics.median(r[1] for r in runs)}), flush=True)


def run(path: str, k: int, shards: list[tuple[int, int, str]], backend: str, protocol: str, repeat: int) -> list[dict]:
    """One process per (a, b, gpu), their timed runs started together once every one has warmed
    up; their figures in that order."""
    with tempfile.TemporaryDirectory(prefix="lassm-contention-") as folder:
        go = os.path.join(folder, "go")
        procs = [subprocess.Popen([sys.executable, "-m", __name__, path, str(k), str(a), str(b), backend, protocol,
                                   str(repeat), go],
                                  stdout=subprocess.PIPE, text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": gpu})
                 for a, b, gpu in shards]
        try:
            for p in procs:  # each says "ready" after its untimed run
                if p.stdout is None or p.stdout.readline().strip() != "ready":
                    raise LassmError(f"a shard's process ended before its timed runs (exit {p.wait()})")
            Path(go).touch()
            return [json.loads((p.stdout.read() if p.stdout else "").strip().splitlines()[-1]) for p in procs]
        finally:
            for p in procs:  # one that failed leaves the others waiting for the signal: end them
                if not os.path.exists(go):
                    p.kill()
                p.wait()


def measure(dataset: str, gpus: int, backend: str, protocol: str, repeat: int, devices: list[str]) -> dict:
    """The whole, each shard alone and all together: the figures :func:`write` keeps."""
    from ..workloads.local_assembly import stream

    path = str(Path(tempfile.gettempdir()) / f"lassm-contention-{Path(dataset).name}.shards")
    try:
        doc = stream.write_shards(dataset, path, gpus)
        k, n_contigs = int(doc["k"]), int(doc["contigs"])
        ranges = [(int(p["start"]), int(p["stop"])) for p in doc["shards"]]
        stderr.line(f"{dataset}: {n_contigs} contigs, {protocol}, shards {ranges}")
        whole = run(path, k, [(0, n_contigs, devices[0])], backend, protocol, repeat)[0]
        gpu = [devices[i % len(devices)] for i in range(len(ranges))]
        alone = [run(path, k, [(a, b, gpu[i])], backend, protocol, repeat)[0] for i, (a, b) in enumerate(ranges)]
        together = run(path, k, [(a, b, gpu[i]) for i, (a, b) in enumerate(ranges)], backend, protocol, repeat)
    finally:
        shutil.rmtree(path, ignore_errors=True)
    for i, (one, all_) in enumerate(zip(alone, together)):
        stderr.line(f"shard {i} ({one['contigs']} contigs): alone extend {one['extend']:.3f} write {one['write']:.3f}; "
                    f"together extend {all_['extend']:.3f} write {all_['write']:.3f}")
    return {"dataset": dataset, "contigs": n_contigs, "backend": backend, "protocol": protocol, "gpus": gpus,
            "repeat": repeat, "shards": ranges, "whole": whole, "alone": alone, "together": together}


def write(doc: dict, machine: str, command: str) -> Path:
    """``doc`` with where and how it was measured, as the machine's ``shard-contention__<dataset>.json``."""
    from . import records

    device = driver = ""
    if doc["backend"] == "cuda":
        from ..backends import cuda

        info = cuda.device_info()  # after the shards' processes: this one's context costs them nothing
        device, driver = str(info["device"]), str(info["driver"])
    full = {**doc, "device": device, "driver": driver, "machine": machine, "git_sha": records.git_sha(),
            "versions": records.versions(), "command": command, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    dest = paths.results_dir(machine) / f"shard-contention__{doc['dataset']}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(dest, "w") as fh:
        json.dump(full, fh, indent=1)
    return dest


if __name__ == "__main__":
    _path, _k, _a, _b, _backend, _protocol, _repeat, _go = sys.argv[1:9]
    child(_path, int(_k), int(_a), int(_b), _backend, _protocol, int(_repeat), _go)


__all__ = ["child", "measure", "run", "write"]

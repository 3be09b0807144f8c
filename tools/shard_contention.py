# SPDX-License-Identifier: BSD-3-Clause
"""Whether the shards of a sharded extend slow each other down without Dask.

``shard_files.plan_ranges``' N shards of a dataset, each extended and written (its block of the
output) by a process of its own on a GPU of its own: first the whole input as one shard, then each
shard alone, then all N at once. Each process loads its range, runs it once untimed (kernels
built, memory pools warm), waits for the parent's signal, and times ``--repeat`` extensions and
writes. If a shard alone takes about 1/N of the whole and the N together take longer, what the
processes share on the node (CPU, memory, PCIe) holds the sharded run back, not Dask; if together
they are as fast as alone, the difference lies in the Dask workers. Printed only (a log to commit).

Usage (GPU node with N GPUs, repository root):
    PYTHONPATH=$PWD python3 tools/shard_contention.py gen-k21x20 --gpus 4 --protocol casptr
On a node with fewer GPUs than shards, ``--devices 0,0,0,0`` puts the shards' processes on the GPUs
named (in turn): what the processes share on the host is measured the same, their kernels then
share a GPU (a bound on the host's part, not a scaling figure; never written with ``--machine``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def child(path: str, k: int, a: int, b: int, backend: str, protocol: str, repeat: int, go: str) -> None:
    """One shard's process: load, warm up, wait for ``go``, time; prints one JSON line."""
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly import formats, stream
    from lassm.workloads.local_assembly.config import Params

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
    """Runs one process per (a, b, gpu), starting their timed runs together once every one has
    warmed up; returns their figures in that order."""
    with tempfile.TemporaryDirectory(prefix="lassm-contention-") as folder:
        go = os.path.join(folder, "go")
        procs = [subprocess.Popen([sys.executable, __file__, "--child", path, str(k), str(a), str(b), backend, protocol,
                                   str(repeat), go],
                                  stdout=subprocess.PIPE, text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": gpu})
                 for a, b, gpu in shards]
        try:
            for p in procs:  # each says "ready" after its untimed run
                if p.stdout.readline().strip() != "ready":
                    raise SystemExit(f"a shard's process ended before its timed runs (exit {p.wait()})")
            Path(go).touch()
            return [json.loads(p.stdout.read().strip().splitlines()[-1]) for p in procs]
        finally:
            for p in procs:  # one that failed leaves the others waiting for the signal: end them
                if not os.path.exists(go):
                    p.kill()
                p.wait()


def write_json(args: argparse.Namespace, contigs: int, ranges: list, whole: dict, alone: list, together: list) -> None:
    """The figures, with where and how they were measured, as ``shard-contention__<dataset>.json``
    under the machine's results folder (atomically), for :func:`lassm.runs.results.shard_contention`."""
    from lassm.atomic import atomic_open
    from lassm.paths import results_dir
    from lassm.runs import records

    device = driver = ""
    if args.backend == "cuda":
        from lassm.backends import cuda

        info = cuda.device_info()  # after the shards' processes: this one's context costs them nothing
        device, driver = str(info["device"]), str(info["driver"])
    doc = {"dataset": args.dataset, "contigs": contigs, "backend": args.backend, "protocol": args.protocol,
           "gpus": args.gpus, "repeat": args.repeat, "shards": ranges, "whole": whole, "alone": alone,
           "together": together, "device": device, "driver": driver, "machine": args.machine,
           "git_sha": records.git_sha(), "versions": records.versions(),
           "command": " ".join(["python3 tools/shard_contention.py", *sys.argv[1:]]),
           "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    dest = results_dir(args.machine) / f"shard-contention__{args.dataset}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(dest, "w") as fh:
        json.dump(doc, fh, indent=1)
    print(f"-> {dest}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?")
    ap.add_argument("--gpus", type=int, default=4)
    ap.add_argument("--protocol", default="casptr")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend", default="cuda", help="cuda, or cpu to try the tool without a GPU")
    ap.add_argument("--machine", default="", help="also write data/results/MACHINE/shard-contention__DATASET.json")
    ap.add_argument("--devices", default="", help="GPUs the shards' processes take in turn (default: shard i on GPU i)")
    ap.add_argument("--child", nargs=8, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.devices and args.machine:
        ap.error("--devices shares GPUs between shards: its figures are not the machine's scaling; drop --machine")
    devices = args.devices.split(",") if args.devices else [str(i) for i in range(args.gpus)]
    if args.child:
        path, k, a, b, backend, protocol, repeat, go = args.child
        child(path, int(k), int(a), int(b), backend, protocol, int(repeat), go)
        return
    import shutil

    from lassm.runs import results
    from lassm.workloads.local_assembly import stream

    # A shard folder of the sharded run's ranges (lassm data shard): each process reads its own.
    path = str(Path(tempfile.gettempdir()) / f"lassm-contention-{args.dataset}.shards")
    doc = stream.write_shards(args.dataset, path, args.gpus)
    k, n_contigs = int(doc["k"]), int(doc["contigs"])
    ranges = [(int(p["start"]), int(p["stop"])) for p in doc["shards"]]
    print(f"{args.dataset}: {n_contigs} contigs, {args.protocol}, shards {ranges}", flush=True)
    whole = run(path, k, [(0, n_contigs, "0")], args.backend, args.protocol, args.repeat)[0]
    print(f"whole on GPU 0: extend {whole['extend']:.3f} s, write {whole['write']:.3f} s", flush=True)
    gpu = [devices[i % len(devices)] for i in range(len(ranges))]
    alone = [run(path, k, [(a, b, gpu[i])], args.backend, args.protocol, args.repeat)[0] for i, (a, b) in enumerate(ranges)]
    together = run(path, k, [(a, b, gpu[i]) for i, (a, b) in enumerate(ranges)], args.backend, args.protocol,
                   args.repeat)
    for i, (one, all_) in enumerate(zip(alone, together)):
        print(f"shard {i} ({one['contigs']} contigs): alone extend {one['extend']:.3f} write {one['write']:.3f}; "
              f"together extend {all_['extend']:.3f} write {all_['write']:.3f}", flush=True)
    if args.machine:
        write_json(args, n_contigs, ranges, whole, alone, together)
    bound = results.contention_bound({"whole": whole, "alone": alone, "together": together})
    print(f"whole / slowest shard together: {bound['bare_speedup']:.2f}x; "
          f"whole / slowest shard alone: {bound['alone_speedup']:.2f}x", flush=True)
    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    main()

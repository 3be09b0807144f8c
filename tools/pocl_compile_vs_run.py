#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compile time against run time of each local-assembly build on PoCL (book/backends.md, "PoCL").

PoCL compiles in two steps. ``clBuildProgram`` runs Clang, to LLVM IR only. The first launch of
a kernel at a work-group size it has not seen makes the work-group function -- one loop over the
work-items for each region between two barriers, the values that cross a barrier kept per
work-item -- and compiles that to machine code, which PoCL keeps in its kernel cache
(``POCL_CACHE_DIR``). So the compile hides in the first launch's wall time, not in the build.

Each build runs in a fresh process with an empty PoCL cache (and no pyopencl binary cache), twice
on the sample (``lassm extend``'s defaults: teams of 32, ``fast``'s wide teams of 128): the first
call pays both compiles, the second runs warm. Per build it prints the seconds of the first and
the warm call, their difference (the compile), the Clang build within it, the kernels' event
time in the warm call, the work-group functions PoCL made, the parallel regions in them (PoCL's
``pregion_for_entry`` blocks, counted in the ``parallel.bc`` it leaves with
``POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1``) and whether the output is MetaHipMer's. PoCL's own
settings pass through (``POCL_WORK_GROUP_METHOD=loops``: no vectorizer on the work-item loops).

Usage (repository root, PoCL installed: ``make deps``):
    python3 tools/pocl_compile_vs_run.py [--protocols casptr,fast] [--sample k77]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("protocol", "first_s", "warm_s", "compile_s", "clang_s", "kernel_s", "wg_functions", "regions",
           "reference")


def _child(protocol: str, sample: str) -> dict:
    """One build, cold then warm, in this process (the parent set an empty cache)."""
    from lassm import Params, extend, paths
    from lassm.backends import opencl
    from lassm.workloads.local_assembly import formats

    ds = formats.read_dat(paths.sample(sample))
    params = Params(k=paths.SAMPLE_K[sample])
    opencl._device()  # the platforms and the context, outside the timings
    t0 = time.perf_counter()
    first = extend(ds, params, backend="opencl", protocol=protocol)
    t1 = time.perf_counter()
    warm = extend(ds, params, backend="opencl", protocol=protocol)
    t2 = time.perf_counter()
    sides = (first.right, first.left) if first.left.extra else (first.right,)
    reference = formats.read_extended(paths.sample_reference(sample))
    got = {int(line.split(" ", 1)[0]): line.split(" ", 1)[1] for line in warm.lines()}
    return {"protocol": protocol, "device": opencl.available()[1], "first_s": t1 - t0, "warm_s": t2 - t1,
            "compile_s": (t1 - t0) - (t2 - t1),
            "clang_s": sum(s.extra.get("build_seconds", 0.0) for s in sides),
            "kernel_s": warm.right.kernel_seconds + (warm.left.kernel_seconds if warm.left.extra else 0.0),
            "reference": got == reference and first.compare(warm) == []}


def _cache_counts(cache: Path) -> tuple[int, int]:
    """Work-group functions in a PoCL cache, and the parallel regions in their ``parallel.bc``."""
    funcs = [d for d in cache.glob("*/*/iterative_walks_kernel/*") if d.is_dir()]
    regions = 0
    llvm_dis = next((p for p in ("llvm-dis-15", "/usr/lib/llvm-15/bin/llvm-dis", "llvm-dis")
                     if subprocess.run(["sh", "-c", f"command -v {p}"], capture_output=True).returncode == 0), None)
    for d in funcs:
        bc = d / "parallel.bc"
        if llvm_dis and bc.is_file():
            text = subprocess.run([llvm_dis, str(bc), "-o", "-"], capture_output=True, text=True).stdout
            regions += sum(1 for line in text.splitlines() if line.startswith("pregion_for_entry"))
    return len(funcs), regions


def measure(protocol: str, sample: str) -> dict:
    """One build in a fresh process with an empty PoCL cache; the row of :data:`COLUMNS`."""
    with tempfile.TemporaryDirectory(prefix="lassm-pocl-") as tmp:
        cache = Path(tmp) / "pocl"
        env = {**os.environ, "LASSM_OPENCL_DEVICE": "pocl", "POCL_CACHE_DIR": str(cache), "PYOPENCL_NO_CACHE": "1",
               "POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES": "1", "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, __file__, "--child", protocol, "--sample", sample], env=env,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{protocol}: {done.stderr.strip()[-2000:]}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        row["wg_functions"], row["regions"] = _cache_counts(cache)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocols", default="casptr,matchany,doneflag,barrier,fast")
    ap.add_argument("--sample", default="k77", choices=("k77", "k21"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.sample)))
        return 0
    rows = [measure(p, args.sample) for p in args.protocols.split(",")]
    print(f"# {rows[0]['device']}; sample {args.sample}; {os.cpu_count()} cores")
    print("\t".join(COLUMNS))
    for row in rows:
        print("\t".join(f"{row[c]:.2f}" if isinstance(row[c], float) else str(row[c]) for c in COLUMNS))
    return 0 if all(row["reference"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

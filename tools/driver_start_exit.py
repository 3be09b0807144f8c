#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a process pays for the CUDA driver at its start and at its end, in variants.

Each variant is a fresh process that stamps, on the clock it shares with this one, when its
interpreter (or ``main``) began, when the context was ready and when it called exit; this script
stamps the start and the moment the process was gone. ``gone - exit`` is the tear-down a whole
command pays after its work: the interpreter's clean-up, the driver's, and the kernel's release
of the device files. The C variant is what a CUDA runtime program such as ``ht_loc`` pays.
Printed as text for a log; nothing is kept.

Usage (GPU node, repository root): python3 tools/driver_start_exit.py --repeats 7
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_PY = """
import ctypes, os, sys, time
def stamp(what): print(time.monotonic_ns(), what, flush=True)
stamp("main")
mode = sys.argv[1]
if "numpyfirst" in mode:
    import numpy
    stamp("numpy")
lib = ctypes.CDLL("libcuda.so.1")
assert lib.cuInit(0) == 0
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
assert lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
stamp("context")
if "alloc" in mode:
    ptr = ctypes.c_uint64()
    for _ in range(20):
        assert lib.cuMemAlloc_v2(ctypes.byref(ptr), 64 << 20) == 0
        assert lib.cuMemFree_v2(ptr) == 0
if "release" in mode:
    assert lib.cuDevicePrimaryCtxRelease_v2(dev) == 0
    stamp("released")
if "numpyafter" in mode:
    import numpy
    stamp("numpy")
stamp("exit")
if "_exit" in mode:
    os._exit(0)
sys.exit(0)
"""

_C = r"""
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
static void stamp(const char *what) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  printf("%lld %s\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec, what); fflush(stdout);
}
int main(int argc, char **argv) {
  stamp("main");
  cudaFree(0);
  stamp("context");
  if (argc > 1) { cudaDeviceReset(); stamp("released"); }
  stamp("exit");
  return 0;
}
"""


def run(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    """Milliseconds from the start to each step the process printed (``<ns> <step>`` lines, the
    format of :mod:`lassm.timeline`) and to ``gone``."""
    from lassm import timeline

    started = time.monotonic_ns()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    ended = time.monotonic_ns()
    stamps = [(int(ns), step) for ns, _, step in (line.partition(" ") for line in res.stdout.splitlines() if line)]
    return timeline.offsets(started, stamps, ended)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    base = dict(os.environ)
    variants: dict[str, tuple[list[str], dict[str, str]]] = {}
    py = sys.executable
    for mode in ("exit", "_exit", "release_exit", "alloc_exit", "numpyfirst_exit", "numpyafter_exit"):
        variants[f"python {mode}"] = ([py, "-c", _PY, mode], base)
    variants["python numpyafter_exit, 1 BLAS thread"] = ([py, "-c", _PY, "numpyafter_exit"], {**base, "OPENBLAS_NUM_THREADS": "1"})
    variants["python numpy alone"] = ([py, "-c", "import time; print(time.monotonic_ns(), 'main'); import numpy; print(time.monotonic_ns(), 'numpy')"], base)
    variants["python _exit, 1 connection"] = ([py, "-c", _PY, "_exit"], {**base, "CUDA_DEVICE_MAX_CONNECTIONS": "1"})
    from lassm.timeline import median_offsets

    with tempfile.TemporaryDirectory(prefix="lassm-driver-") as folder:
        tmp = Path(folder)
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if Path(nvcc).exists():
            (tmp / "start.cu").write_text(_C)
            subprocess.run([nvcc, "-O2", "-o", str(tmp / "start"), str(tmp / "start.cu")], check=True)
            variants["C runtime, exit"] = ([str(tmp / "start")], base)
            variants["C runtime, cudaDeviceReset"] = ([str(tmp / "start"), "reset"], base)
        print(f"median ms from the start over {args.repeats} runs, each step's name first")
        for name, (cmd, env) in variants.items():
            run(cmd, env)  # untimed
            med = median_offsets([run(cmd, env) for _ in range(args.repeats)])
            print(f"{name:40s} " + "  ".join(f"{k} {v:.1f}" for k, v in med), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

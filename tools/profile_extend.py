#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a whole ``lassm extend`` command spends its time outside the kernel.

For each dataset, in one run: the interpreter alone, ``import numpy``, CuPy's import and context,
the whole command (median of ``--repeats`` after one untimed run, so the kernel cache is warm),
``-X importtime``'s heaviest imports, and cProfile's heaviest calls of one more run. Everything is
printed as text (a log to commit under ``data/results/<machine>/logs/``); nothing is computed
from it here.

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/profile_extend.py --datasets gen-k77,sample-k77x20 > profile.log
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _env() -> dict[str, str]:
    """The environment an installed package runs in (bytecode cached: the timing module's)."""
    from lassm.campaign.originals.timing import installed_env

    return installed_env()


def seconds(cmd: list[str], repeats: int) -> list[float]:
    """Wall seconds of ``repeats`` runs of ``cmd`` after one untimed run."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        out.append(time.perf_counter() - t0)
    return out


#: One fresh process doing the command's start-up steps one after another, each stamped: what
#: each costs alone (the command overlaps some of them in a thread).
_TIMELINE = """
import sys, time
t0 = time.perf_counter()
def mark(what):
    print(f"{(time.perf_counter() - t0) * 1e3:8.1f} ms  {what}", flush=True)
import numpy; mark("import numpy")
from lassm.workloads.local_assembly import formats; mark("import lassm formats")
ds = formats.read_dataset(sys.argv[1]); mark("read_dataset")
from lassm.backends import cuda as cu, cudadrv, device_segments; mark("import lassm.backends.cuda, cudadrv")
cudadrv.context(); mark("cuInit and the primary context (ctypes)")
info = cu.driver_info(); mark("driver facts")
cu.kernel("fast", int(info["warp_size"]), rt=cudadrv); mark("fast kernel: cubin from the cache, module loaded")
device_segments.warm_up(cudadrv); mark("segment kernels")
from lassm.runs.extend import extend
from lassm.workloads.local_assembly.config import Params
ext = extend(ds, Params(k=int(sys.argv[2])), backend="cuda", protocol="fast"); mark("extend (first)")
ext = extend(ds, Params(k=int(sys.argv[2])), backend="cuda", protocol="fast"); mark("extend (again)")
formats.write_extended(ext, sys.argv[3]); mark("write_extended")
print("cupy imported:", "cupy" in sys.modules)
"""

#: The CUDA driver alone through ctypes: what a process pays for the GPU with no runtime library.
_DRIVER = """
import ctypes, time
t0 = time.perf_counter()
lib = ctypes.CDLL("libcuda.so.1"); t1 = time.perf_counter()
assert lib.cuInit(0) == 0; t2 = time.perf_counter()
dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
assert lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert lib.cuCtxSetCurrent(ctx) == 0; t3 = time.perf_counter()
assert lib.cuMemAlloc_v2(ctypes.byref(ptr), 1 << 20) == 0; t4 = time.perf_counter()
print(f"load libcuda {(t1 - t0) * 1e3:.1f} ms, cuInit {(t2 - t1) * 1e3:.1f} ms, "
      f"primary context {(t3 - t2) * 1e3:.1f} ms, first cuMemAlloc {(t4 - t3) * 1e3:.1f} ms")
"""


def timeline(cmd: list[str], repeats: int) -> str:
    """The command's own steps (:mod:`lassm.timeline`) on the clock this process shares with it:
    the median milliseconds from the start to each step, over ``repeats`` runs after one untimed."""
    from lassm import timeline as tl

    runs = []
    with tempfile.TemporaryDirectory(prefix="lassm-timeline-") as tmp:
        for i in range(repeats + 1):
            path = Path(tmp) / f"{i}.txt"
            env = {**_env(), tl.ENV: str(path)}
            started = time.monotonic_ns()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            ended = time.monotonic_ns()
            if i:
                runs.append(tl.offsets(started, tl.read(str(path)), ended))
    rows = tl.median_offsets(runs)
    width = max((len(s) for s, _ in rows), default=4)
    lines, before = [], 0.0
    for step, ms in rows:
        lines.append(f"  {step:{width}s} {ms:8.1f} ms  (+{ms - before:6.1f})")
        before = ms
    return "\n".join(lines)


def heaviest_imports(cmd: list[str], top: int) -> str:
    """The ``top`` imports with the largest cumulative time under ``-X importtime``."""
    res = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, check=True,
                         env=_env())
    rows = []
    for line in res.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cum, name = line.split("|", 2)
        rows.append((int(cum), int(own.split(":")[1]), name.rstrip()))
    rows.sort(reverse=True)
    return "\n".join(f"{cum / 1e3:9.1f} ms cumulative {own / 1e3:8.1f} ms self  {name}" for cum, own, name in rows[:top])


def profile_in_process(argv: list[str], top: int) -> str:
    """cProfile of one in-process ``lassm`` command: the calls with the largest cumulative time."""
    from lassm.cli import main

    prof = cProfile.Profile()
    prof.enable()
    main(argv)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="gen-k77,sample-k77x20")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--protocol", default="fast")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--top", type=int, default=45)
    ap.add_argument("--timeline-only", action="store_true",
                    help="only the whole command and its steps' timeline (lassm.timeline), per dataset")
    args = ap.parse_args(argv)
    from lassm.workloads.local_assembly import datasets, formats

    py = sys.executable
    base = {"python -c pass": [py, "-c", "pass"], "import numpy": [py, "-c", "import numpy"],
            "import cupy + context": [py, "-c", "import cupy; cupy.zeros(1); cupy.cuda.Device(0).synchronize()"]}
    for what, cmd in base.items():
        if args.timeline_only and what != "python -c pass":
            continue
        if what.startswith("import cupy") and args.backend not in ("cuda", "opencl-ptx"):
            continue
        print(f"{what}: median {statistics.median(seconds(cmd, args.repeats)):.3f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="lassm-profile-") as tmp:
        for name in args.datasets.split(","):
            ds, k = datasets.load(name)
            dat = Path(tmp) / f"{name}.dat"
            formats.write_dat(ds, dat)
            out = Path(tmp) / "out.txt"
            cli = ["extend", str(dat), "--k", str(k), "--backend", args.backend, "--out", str(out)]
            if args.protocol:
                cli += ["--protocol", args.protocol]
            cmd = [py, "-m", "lassm", *cli]  # what the ``lassm`` script runs
            runs = seconds(cmd, args.repeats)
            print(f"\n== {name} (k = {k}, {dat.stat().st_size / 1e6:.1f} MB): whole command median "
                  f"{statistics.median(runs):.3f} s ({' '.join(f'{t:.3f}' for t in runs)})", flush=True)
            print(f"-- its steps, median ms from the start\n{timeline(cmd, args.repeats)}", flush=True)
            if args.timeline_only:
                continue
            print(f"-- heaviest imports\n{heaviest_imports(cmd, 20)}", flush=True)
            if args.backend == "cuda":
                for script, what, extra in ((_TIMELINE, "start-up steps one after another", [str(dat), str(k), str(out)]),
                                            (_DRIVER, "the driver alone (ctypes)", [])):
                    subprocess.run([py, "-c", script, *extra], check=True, env=_env())  # warm
                    print(f"-- {what}", flush=True)
                    subprocess.run([py, "-c", script, *extra], check=True, env=_env())
            print(f"-- cProfile, one run in process\n{profile_in_process(cli, args.top)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

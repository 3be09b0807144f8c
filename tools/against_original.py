#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MetaHipMer's original local-assembly program and ``lassm extend``, side by side, in one run.

Issue 20's benchmark: on the same ``.dat`` input and the same GPU, the original CUDA program
``ht_loc`` (public: leannmlindsey/gpu_local_ht, ``src/``; built here with nvcc for this GPU, never
committed) and ``lassm extend --backend cuda --protocol fast``:

- whole-command wall time, median of ``--repeats`` runs after one untimed run each (both
  programs read the ``.dat`` and write their output; lassm's kernel cache and bytecode are warm
  after the first run, as an installed package's are);
- kernel time: Nsight Compute's ``gpu__time_duration.sum`` summed over every kernel launch of
  one run of each command (``--no-ncu`` skips it), and over the local-assembly kernel's launches
  alone (lassm also launches its device gather and reverse complement);
- whether the two outputs are the same lines (sorted), the original's being the reference.

Rows go to ``data/results/<machine>/against-original.csv`` (atomically), with device, driver,
git SHA and each command. Exit 0 when every output agreed, 1 when one did not, 2 on bad usage.

Usage (GPU node, repository root, the original's sources carried in):
    PYTHONPATH=$PWD python3 tools/against_original.py --source .baselines/gpu_local_ht/src \
        --machine nvidia-h100-80gb-hbm3 --datasets sample-k77x20,gen-k21,gen-k77,gen-k21x20
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lassm import paths
from lassm.atomic import atomic_open
from lassm.runs.records import git_sha
from lassm.workloads.local_assembly import datasets, formats

COLUMNS = ("machine", "device", "driver", "dataset", "k", "program", "whole_seconds", "whole_runs", "kernel_seconds",
           "kernel_launches", "walk_kernel_seconds", "outputs_equal", "git_sha", "command")
#: The original program's build (its Makefile's, for this GPU's architecture). Its kernel.hpp
#: uses uint32_t without <cstdint>, which some toolchains' headers bring in and others do not:
#: the header is included on the command line, the sources stay as published.
NVCC_FLAGS = ("--std=c++11", "-O3", "-x", "cu", "-I.", "-include", "cstdint")


def build_original(source: Path, out_dir: Path, arch: str) -> Path:
    """``ht_loc`` from the original sources, compiled as its Makefile does, for ``arch``."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    exe = out_dir / "ht_loc"
    objs = []
    for name in ("main", "kernel", "helper"):
        obj = out_dir / f"{name}.o"
        subprocess.run([nvcc, *NVCC_FLAGS, f"--gpu-architecture={arch}", "-c", f"{name}.cpp", "-o", str(obj)],
                       cwd=source, check=True)
        objs.append(str(obj))
    subprocess.run([nvcc, "--std=c++11", "-O3", f"--gpu-architecture={arch}", *objs, "-o", str(exe)], check=True)
    return exe


def installed_env() -> dict[str, str]:
    """This environment, with Python allowed to cache bytecode as an installed package's is
    (some GPU nodes set ``PYTHONDONTWRITEBYTECODE``, which recompiles lassm on every start)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], repeats: int) -> list[float]:
    """Seconds of ``repeats`` runs of ``cmd`` after one untimed run (output discarded)."""
    env = installed_env()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - t0)
    return times


#: The local-assembly kernel's name in both programs (lassm's keeps the original's); other
#: kernels (lassm's device gather and reverse complement) count in the total only.
WALK_KERNEL = "iterative_walks_kernel"


def parse_kernel_times(text: str) -> tuple[float, int, float]:
    """From ncu's ``--csv --page raw --print-units base`` output: seconds summed over every kernel,
    the number of launches, and seconds of the :data:`WALK_KERNEL` launches alone."""
    rows = list(csv.reader(ln for ln in text.splitlines() if ln.startswith('"')))
    if len(rows) < 2:
        raise RuntimeError("ncu printed no kernel table")
    col, name = rows[0].index("gpu__time_duration.sum"), rows[0].index("Kernel Name")
    total = walk = 0.0
    launches = 0
    for r in rows[1:]:
        value = r[col].replace(",", "") if len(r) > col else ""
        if not value.replace(".", "").isdigit():  # the units row
            continue
        launches += 1
        total += float(value) * 1e-9
        if r[name].startswith(WALK_KERNEL):
            walk += float(value) * 1e-9
    return total, launches, walk


def kernel_seconds(cmd: list[str], ncu: str) -> tuple[float, int, float]:
    """:func:`parse_kernel_times` of one run of ``cmd`` under ncu."""
    res = subprocess.run([ncu, "--target-processes", "all", "--metrics", "gpu__time_duration.sum", "--csv",
                          "--page", "raw", "--print-units", "base", *cmd], capture_output=True, text=True, check=True)
    return parse_kernel_times(res.stdout)


def sorted_lines(path: Path) -> list[str]:
    return sorted(ln.rstrip("\n") for ln in path.read_text().splitlines() if ln.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="the original's src/ folder (built with nvcc)")
    ap.add_argument("--program", type=Path, help="an ht_loc already built (instead of --source)")
    ap.add_argument("--machine", required=True, help="results folder name")
    ap.add_argument("--datasets", default="sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--no-ncu", action="store_true")
    args = ap.parse_args(argv)
    if not args.source and not args.program:
        ap.error("give --source (the original's src/) or --program")
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    device = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    driver = str(cupy.cuda.runtime.driverGetVersion())
    ncu = None if args.no_ncu else (shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    rows, agreed = [], True
    with tempfile.TemporaryDirectory(prefix="lassm-vs-original-") as tmp:
        tmp = Path(tmp)
        exe = args.program or build_original(args.source, tmp, args.arch)
        for name in args.datasets.split(","):
            ds, k = datasets.load(name)
            dat = tmp / f"{name}.dat"
            formats.write_dat(ds, dat)
            ours, theirs = tmp / "lassm.txt", tmp / "original.txt"
            cmds = {"original ht_loc": [str(exe), str(dat), str(k), str(theirs)],
                    "lassm extend fast": [sys.executable, "-m", "lassm.cli", "extend", str(dat), "--k", str(k),
                                          "--backend", "cuda", "--protocol", "fast", "--out", str(ours)]}
            found = {prog: wall(cmd, args.repeats) for prog, cmd in cmds.items()}
            equal = sorted_lines(ours) == sorted_lines(theirs)
            agreed &= equal
            for prog, cmd in cmds.items():
                ks, n, walk = kernel_seconds(cmd, ncu) if ncu else (float("nan"), 0, float("nan"))
                rows.append({"machine": args.machine, "device": device, "driver": driver, "dataset": name, "k": k,
                             "program": prog, "whole_seconds": statistics.median(found[prog]),
                             "whole_runs": " ".join(f"{t:.4f}" for t in found[prog]), "kernel_seconds": ks,
                             "kernel_launches": n, "walk_kernel_seconds": walk, "outputs_equal": equal,
                             "git_sha": git_sha(),
                             "command": " ".join(Path(c).name if c.startswith(str(tmp)) else c for c in cmd)})
                print(f"{name} k={k} {prog}: whole {rows[-1]['whole_seconds']:.3f} s, kernels {ks * 1e3:.3f} ms "
                      f"({n} launches; walk kernel {walk * 1e3:.3f} ms), outputs equal: {equal}", flush=True)
    out = paths.results_dir(args.machine) / "against-original.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    with atomic_open(out) as fh:
        fh.write(buf.getvalue())
    print(f"-> {out}")
    return 0 if agreed else 1


if __name__ == "__main__":
    sys.exit(main())

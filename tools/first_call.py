#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A GPU command's first call on a machine against its warm calls (the goal: at most 1.5 times).

For each command (``lassm extend`` with ``fast`` on a local-assembly dataset, ``lassm xdrop align``
on an X-drop set) and each way a machine may start: ``empty`` (no kernel cache at all: the first
call compiles with NVRTC) and ``built ahead`` (``lassm build-kernels`` ran first, as ``make venv``
runs it: its seconds are recorded apart). Each starts from a new, empty ``LASSM_CACHE``; the first
call is timed alone, then ``--repeats`` warm calls. One untimed run of each command with a cache of
its own comes first, so that Python's bytecode and the OS's file cache are warm (a fresh node's
very first command also compiles lassm's bytecode: not what this measures). Rows go to
``data/results/<machine>/first-call.csv`` (upserted by command, dataset and start).

Usage (GPU node, repository root):
    python3 tools/first_call.py --machine nvidia-h100-80gb-hbm3 --dataset gen-k77 --pairs xdrop-sim-20k --xdrop 100
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

COLUMNS = ("machine", "device", "driver", "command", "dataset", "start", "build_seconds", "first_seconds",
           "warm_seconds", "warm_runs", "first_over_warm", "git_sha", "command_line")
KEY = ("command", "dataset", "start")


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run (``env`` beside the installed package's; a failure raises)."""
    from lassm.campaign.originals.timing import run

    return run(cmd, env=env)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", required=True)
    ap.add_argument("--dataset", default="gen-k77")
    ap.add_argument("--pairs", default="xdrop-sim-20k")
    ap.add_argument("--xdrop", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    from lassm import paths
    from lassm.campaign.originals.timing import gpu_device
    from lassm.runs import tables
    from lassm.runs.records import git_sha
    from lassm.workloads.local_assembly import datasets, formats
    from lassm.workloads.xdrop import datasets as xdatasets
    from lassm.workloads.xdrop.formats import write_pairs_parquet

    device, driver = gpu_device()
    py = [sys.executable, "-m", "lassm"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="lassm-first-call-") as tmp:
        work = Path(tmp)
        ds, k = datasets.load(args.dataset)
        dat = work / f"{args.dataset}.dat"
        formats.write_dat(ds, dat)
        pairs = work / f"{args.pairs}.parquet"
        write_pairs_parquet(xdatasets.load(args.pairs), pairs)
        commands = {
            "lassm extend": (args.dataset, [*py, "extend", str(dat), "--k", str(k), "--backend", "cuda",
                                            "--protocol", "fast", "--out", str(work / "out.txt")]),
            "lassm xdrop align": (args.pairs, [*py, "xdrop", "align", str(pairs), "--backend", "cuda",
                                               "--xdrop", str(args.xdrop), "--out", str(work / "aligned.parquet")]),
        }
        for label, (_dataset, cmd) in commands.items():  # bytecode and the OS's file cache warmed, untimed,
            _timed(cmd, {"LASSM_CACHE": str(work / "cache-untimed")})  # kernel caches apart
        for start in ("empty", "built ahead"):
            for label, (dataset, cmd) in commands.items():
                cache = work / f"cache-{label.split()[-1]}-{start.split()[0]}"
                env = {"LASSM_CACHE": str(cache)}
                build = _timed([*py, "build-kernels"], env) if start == "built ahead" else None
                first = _timed(cmd, env)
                warm = [_timed(cmd, env) for _ in range(args.repeats)]
                med = statistics.median(warm)
                shown = " ".join(c if not c.startswith(str(work)) else Path(c).name for c in cmd[2:])
                rows.append({"machine": args.machine, "device": device, "driver": driver, "command": label,
                             "dataset": dataset, "start": start, "build_seconds": build, "first_seconds": first,
                             "warm_seconds": med, "warm_runs": " ".join(f"{t:.4f}" for t in warm),
                             "first_over_warm": first / med, "git_sha": git_sha(), "command_line": shown})
                print(f"{label} on {dataset}, cache {start}: first {first:.3f} s, warm {med:.3f} s "
                      f"({first / med:.2f}x)" + (f", build-kernels {build:.1f} s" if build is not None else ""),
                      flush=True)
    out = paths.results_dir(args.machine) / "first-call.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    tables.upsert(out, COLUMNS, KEY, rows)
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

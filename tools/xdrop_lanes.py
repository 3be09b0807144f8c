#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop kernel's layouts side by side on this GPU: ``xdrop/lanes.csv`` (the plan's ablation).

For each X, LOGAN's block per direction (lanes 0) and the lanes kernel at 8, 16 and 32 lanes run
on the same pairs (:func:`lassm.campaign.xdrop_lanes.rows`); every layout's result is compared
with the block layout's, pair for pair. Rows are added after each X (atomically), and rows
recorded at this commit are skipped unless ``--force``. Exit 0 when every layout agreed, 1 if
one differed, 2 on bad usage.

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/xdrop_lanes.py --machine nvidia-h100-80gb-hbm3 --dataset xdrop-sim-20k \\
        --xdrops 10,20,50,100,500,1000,5000
"""
from __future__ import annotations

import argparse
import shlex
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--machine", required=True, help="results folder name")
    ap.add_argument("--dataset", default="xdrop-sim-20k", help="an X-drop set name (default %(default)s)")
    ap.add_argument("--xdrops", default="10,20,50,100,500,1000,5000", help="comma list of X")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per layout (default 3)")
    ap.add_argument("--force", action="store_true", help="measure again rows recorded at this commit")
    ap.add_argument("--counters-xdrops", default="",
                    help="comma list of X at which every layout also runs under Nsight Compute (xdrop/counters.csv, "
                         "programs 'lassm cuda lanes=N')")
    args = ap.parse_args(argv)
    try:
        xdrops = [int(x) for x in args.xdrops.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--xdrops {args.xdrops!r}: want a comma list of integers")
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")

    from lassm.backends.xdrop import cuda
    from lassm.campaign import xdrop_lanes
    from lassm.runs import xdrop as rec
    from lassm.runs.records import git_sha
    from lassm.workloads.xdrop import datasets
    from lassm.workloads.xdrop.config import Scoring

    ok, why = cuda.available()
    if not ok:
        print(f"xdrop_lanes: the CUDA backend cannot run here: {why}", file=sys.stderr)
        return 2
    sha = git_sha()
    table = rec.folder(args.machine) / rec.LANES_FILE
    pairs = datasets.load(args.dataset)
    facts = cuda.cu.device_info()
    context = {"machine": args.machine, "device": facts.get("device", ""), "driver": facts.get("driver", ""),
               "git_sha": sha, "command": "tools/xdrop_lanes.py " + shlex.join(sys.argv[1:] if argv is None else argv)}
    differed = False
    for x in xdrops:
        done = rec.read_rows(table, rec.LANES_COLUMNS)
        if not args.force and rec.recorded(done, sha, dataset=args.dataset, xdrop=x, lanes=0):
            print(f"{args.dataset} X={x}: recorded at this commit, skipped")
            continue
        got = xdrop_lanes.rows(cuda.align, pairs, args.dataset, Scoring(xdrop=x), repeats=args.repeats,
                               context=context)
        rec.upsert(table, rec.LANES_COLUMNS, rec.LANES_KEY, got)
        for r in got:
            differed |= not r["equal_to_block"]
            print(f"{args.dataset} X={x} lanes={r['lanes']:>2}: {r['kernel_seconds'] * 1e3:9.3f} ms "
                  f"{r['gcups']:8.2f} GCUPS equal={r['equal_to_block']}{'  (planned)' if r['planned'] else ''}",
                  flush=True)
    print(f"-> {table}")
    counted = [int(x) for x in args.counters_xdrops.split(",") if x.strip()]
    if counted:
        counters(args.machine, args.dataset, pairs, counted, sha, args.force)
    return 1 if differed else 0


def counters(machine: str, name: str, pairs, xdrops: list[int], sha: str, force: bool) -> None:
    """Every layout under the study's metric list at each X: ``counters.csv`` rows whose program
    is ``lassm cuda lanes=N`` (N = 0: LOGAN's block), raw files beside them."""
    import tempfile
    from pathlib import Path

    from lassm.campaign import xdrop_counters as xc
    from lassm.campaign import xdrop_lanes
    from lassm.campaign.steps import find_ncu
    from lassm.runs import xdrop as rec
    from lassm.workloads.xdrop.config import Scoring
    from lassm.workloads.xdrop.formats import write_pairs_parquet

    exe = find_ncu()
    if exe is None:
        print("xdrop_lanes: no ncu here, no counters", file=sys.stderr)
        return
    table = rec.folder(machine) / rec.COUNTERS_FILE
    scheme = Scoring()
    with tempfile.TemporaryDirectory(prefix="lassm-lanes-ncu-") as tmp:
        source = Path(tmp) / "pairs.parquet"
        write_pairs_parquet(pairs, source)
        for x in xdrops:
            for lanes in xdrop_lanes.LAYOUTS:
                program = f"lassm cuda lanes={lanes}"
                if not force and rec.recorded(rec.read_rows(table, rec.COUNTER_COLUMNS), sha, dataset=name, xdrop=x,
                                              program=program):
                    continue
                row = xc.count(source, name, x, (scheme.match, scheme.mismatch, scheme.gap), Path(tmp),
                               machine=machine, sha=sha, ncu_exe=exe, program=program, extra=("--lanes", str(lanes)),
                               layout=rec.layout_name(lanes))
                print(f"counters {name} X={x} lanes={lanes}: {row['duration_s'] * 1e3:.2f} ms, "
                      f"{row['warp_inst']:.3g} warp instructions", flush=True)

if __name__ == "__main__":
    sys.exit(main())

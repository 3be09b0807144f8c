# SPDX-License-Identifier: BSD-3-Clause
"""Picks fast's register cap on one GPU: for each cap, the compiled kernel's registers and local
memory, and its median kernel time (checked against the CPU oracle) on a few datasets.

Not a committed result: it is how ``lassm.backends.nvrtc.SCALE_REGISTERS`` and the scan steps were chosen; the choice is
then measured properly by ``lassm bench`` and the ablation (tools/fast_ablation.sh).

Usage (GPU node, repository root): python3 tools/fast_explore.py sample-k77x20 gen-k21 --caps 0,64,48,40,32
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics

from lassm.workloads.local_assembly import datasets
from lassm.backends import nvrtc
from lassm.backends import cuda
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--caps", default="0,64,48,40,32", help="register caps to try (0: the compiler's choice)")
    ap.add_argument("--protocols", default="casptr,fast", help="builds timed at every cap (fast*) or once")
    ap.add_argument("--steps", default="", help="LASSM_FAST_SCAN_STEPS values to try on fast builds (default: the source's)")
    ap.add_argument("--team-bases", default="", help="TEAM_MIN_BASES values to try (default: the module's)")
    ap.add_argument("--team-lanes", default="", help="warp-team widths to try, 0 for a whole warp (default: the build's)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    caps = [int(c) for c in args.caps.split(",")]
    steps = [int(n) for n in args.steps.split(",")] if args.steps else [None]
    teams = [int(n) for n in args.team_bases.split(",")] if args.team_bases else [cuda.TEAM_MIN_BASES]
    widths = [int(n) for n in args.team_lanes.split(",")] if args.team_lanes else [-1]
    base = dict(nvrtc.VARIANTS)
    loaded = {name: datasets.load(name) for name in args.datasets}
    oracle = {name: extend(ds, Params(k=k), backend="cpu") for name, (ds, k) in loaded.items()}
    for proto in args.protocols.split(","):
        grid = [(c, n, t, w) for c in caps for n in steps for t in teams for w in widths]
        for cap, n, tb, lanes in grid if proto in base else [(None, None, None, None)]:
            cuda.TEAM_MIN_BASES = tb if tb is not None else teams[0]
            if proto in base:
                extra = () if n is None else (f"-DLASSM_FAST_SCAN_STEPS={n}",)
                width = base[proto].team_lanes if lanes == -1 else (lanes or None)
                # One build at every launch size (no scale build), so that a row's cap is the one timed.
                nvrtc.VARIANTS[proto] = dataclasses.replace(base[proto], max_registers=cap or None, scale_registers=None,
                                                            defines=base[proto].defines + extra, team_lanes=width)
            kern = cuda.kernel(proto, 32)
            shown = nvrtc.VARIANTS[proto].team_lanes if proto in base else None
            cells = [f"{proto:16s} cap={cap!s:5s} steps={n!s:4s} team>={tb!s:6s} lanes={shown!s:4s} "
                     f"regs={kern.num_regs:3d} local={kern.local_size_bytes:4d}B"]
            for name, (ds, k) in loaded.items():
                ext = extend(ds, Params(k=k), backend="cuda", protocol=proto)
                equal = not ext.compare(oracle[name])
                times = [extend(ds, Params(k=k), backend="cuda", protocol=proto).kernel_seconds
                         for _ in range(args.repeat)]
                cells.append(f"{name} {statistics.median(times) * 1e3:7.2f} ms{'' if equal else ' DIFFERS'}")
            print("  ".join(cells), flush=True)
        if proto in base:
            nvrtc.VARIANTS[proto] = base[proto]


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""Explores fast's builds on one GPU: for each build and knob setting, the compiled kernel's
registers and local memory, and its median kernel time (checked against the CPU oracle) on a few
datasets, then a table of every row against fast's.

Not a committed result: it is how ``lassm.backends.nvrtc.SCALE_REGISTERS`` and the scan steps were
chosen, and how a build that adds a change (``nvrtc.ADDED``: fast-spec, ...) is first timed beside
fast; the choice is then measured properly by ``lassm bench`` and the ablation
(tools/fast_ablation.sh).

``--caps`` takes register caps (0: the compiler's choice), each timed as one build at every launch
size, or ``built``: the build as the backend makes it (fast's 72-register build for launches of many
ends per SM: the register cap at scale), which is what ``lassm extend`` runs.

Usage (GPU node, repository root):
  python3 tools/fast_explore.py sample-k77x20 gen-k21 --caps 0,64,48,40,32
  python3 tools/fast_explore.py gen-k21x20 gen-k21 gen-k33 gen-k77 sample-k77x20 --caps built \\
      --protocols fast,fast-spec,fast-spec2 --repeat 5 \\
      --ht-loc data/results/nvidia-h100-80gb-hbm3/against-original.csv
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import statistics
from pathlib import Path

from lassm.workloads.local_assembly import datasets
from lassm.backends import nvrtc
from lassm.backends import cuda
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend

#: ``--caps`` value for the build as the backend makes it (no cap override).
BUILT = "built"


def ht_loc_seconds(path: str | None) -> dict[str, float]:
    """MetaHipMer's ``ht_loc`` kernel seconds per dataset from an ``against-original.csv`` (the
    ``original ht_loc`` rows; measured on that file's machine only), or {} without one."""
    if not path:
        return {}
    with Path(path).open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["program"] == "original ht_loc"]
    return {r["dataset"]: float(r["kernel_seconds"]) for r in rows}


def table(rows: list[dict], names: list[str], ht_loc: dict[str, float]) -> str:
    """Median kernel ms per row and dataset, the ratio to fast's row of the same knobs, whether it
    equals the oracle ('=' or 'DIFF'), and with ``ht_loc``, the ratio to MetaHipMer's kernel."""
    def knobs(r: dict) -> tuple:
        return r["knobs"]

    fast = {knobs(r): r for r in rows if r["protocol"] == "fast"}
    head = f"{'build':16s} {'knobs':34s} " + " ".join(f"{n:>28s}" for n in names)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for n in names:
            ms, eq = r["ms"][n], "=" if r["equal"][n] else "DIFF"
            ref = fast.get(knobs(r))
            ratio = f"x{ms / ref['ms'][n]:.3f}" if ref is not None and ref["ms"][n] > 0 else "-"
            loc = f" {ms / 1e3 / ht_loc[n]:.3f}hl" if n in ht_loc else ""
            cells.append(f"{ms:8.2f} {ratio:>7s} {eq:>4s}{loc:>8s}")
        lines.append(f"{r['protocol']:16s} {r['label']:34s} " + " ".join(f"{c:>28s}" for c in cells))
    note = "; Nhl: kernel time / ht_loc's, measured on that file's GPU" if ht_loc else ""
    lines.append(f"(ms: median kernel ms; xN: against fast with the same knobs; '=': equal to the CPU oracle{note})")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--caps", default="0,64,48,40,32",
                    help=f"register caps to try (0: the compiler's choice; '{BUILT}': as the backend builds it)")
    ap.add_argument("--protocols", default="casptr,fast", help="builds timed at every cap (fast*) or once")
    ap.add_argument("--steps", default="", help="LASSM_FAST_SCAN_STEPS values to try on fast builds (default: the source's)")
    ap.add_argument("--team-bases", default="", help="TEAM_MIN_BASES values to try (default: the module's)")
    ap.add_argument("--scale-team-bases", default="",
                    help="TEAM_MIN_BASES_SCALE values to try: block teams' threshold in a launch of many ends")
    ap.add_argument("--team-lanes", default="", help="warp-team widths to try, 0 for a whole warp (default: the build's)")
    ap.add_argument("--lane-walks", default="",
                    help="ends to a warp to try on the lane-walk builds (lane walks; default: the build's)")
    ap.add_argument("--sort-bytes", default="",
                    help="shared bytes per warp team for the sorted records to try on sorted-table builds")
    ap.add_argument("--sort-max-k", default="",
                    help="largest k the sorted-table builds sort (LASSM_SORT_MAX_K), values to try: 30 keeps "
                         "one-word records, the hash table beyond")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ht-loc", default="", help="an against-original.csv: adds each time's ratio to ht_loc's kernel")
    args = ap.parse_args()
    caps = [None if c == BUILT else int(c) for c in args.caps.split(",")]
    steps = [int(n) for n in args.steps.split(",")] if args.steps else [None]
    teams = [int(n) for n in args.team_bases.split(",")] if args.team_bases else [cuda.TEAM_MIN_BASES]
    if args.scale_team_bases:  # the scale threshold swept in place of the other (negative here: told apart)
        teams = [-int(n) for n in args.scale_team_bases.split(",")]
    widths = [int(n) for n in args.team_lanes.split(",")] if args.team_lanes else [-1]
    walks = [int(n) for n in args.lane_walks.split(",")] if args.lane_walks else [None]
    sorts = [int(n) for n in args.sort_bytes.split(",")] if args.sort_bytes else [None]
    sort_ks = [int(n) for n in args.sort_max_k.split(",")] if args.sort_max_k else [None]
    base = dict(nvrtc.VARIANTS)
    loaded = {name: datasets.load(name) for name in args.datasets}
    oracle = {name: extend(ds, Params(k=k), backend="cpu") for name, (ds, k) in loaded.items()}
    rows = []
    for proto in args.protocols.split(","):
        sorting = proto in base and base[proto].sort_bytes
        grid = [(c, n, t, w, lw, sb, sk) for c in caps for n in steps for t in teams for w in widths
                for lw in (walks if proto in base and base[proto].lane_walks else [None])
                for sb in (sorts if sorting else [None]) for sk in (sort_ks if sorting else [None])]
        for cap, n, tb, lanes, lw, sb, sk in grid if proto in base else [(BUILT,) + (None,) * 6]:
            if tb is not None and tb < 0:
                cuda.TEAM_MIN_BASES_SCALE = -tb
            else:
                cuda.TEAM_MIN_BASES = tb if tb is not None else teams[0]
            if proto in base:
                extra = () if n is None else (f"-DLASSM_FAST_SCAN_STEPS={n}",)
                width = base[proto].team_lanes if lanes == -1 else (lanes or None)
                variant = dataclasses.replace(base[proto], defines=base[proto].defines + extra, team_lanes=width)
                if lw is not None:  # lane walks' ends to a warp: the kernel's and the launch's
                    variant = dataclasses.replace(variant, lane_walks=lw, defines=tuple(
                        d for d in variant.defines if "LANE_WALKS" not in d) + (f"-DLASSM_FAST_LANE_WALKS={lw}",))
                if sb is not None:  # the sorted table's region per warp team
                    variant = dataclasses.replace(variant, sort_bytes=sb)
                if sk is not None:  # the largest k the sorted table takes
                    variant = dataclasses.replace(variant, defines=variant.defines + (f"-DLASSM_SORT_MAX_K={sk}",))
                if cap is not None:  # one build at every launch size (no scale build): a row's cap is the one timed
                    variant = dataclasses.replace(variant, max_registers=cap or None, scale_registers=None)
                nvrtc.VARIANTS[proto] = variant
            kern = cuda.kernel(proto, 32)
            shown = nvrtc.VARIANTS[proto].team_lanes if proto in base else None
            walked = nvrtc.VARIANTS[proto].lane_walks if proto in base else None
            label = (f"cap={cap if cap is not None else BUILT!s:5s} steps={n!s:4s} {'team' if tb is None or tb >= 0 else 'scale-team'}>={abs(tb) if tb is not None else tb!s:6s} lanes={shown!s:4s}"
                     + (f" walks={walked}" if walked else "")
                     + (f" sort={nvrtc.VARIANTS[proto].sort_bytes}" if proto in base and nvrtc.VARIANTS[proto].sort_bytes
                        else "")
                     + (f" sort_max_k={sk}" if sk is not None else ""))
            regs = f"regs={kern.num_regs:3d} local={kern.local_size_bytes:4d}B"
            scale = nvrtc.VARIANTS[proto].scale_registers if proto in base else None
            if cap is None and scale is not None:
                big = cuda.kernel(proto, 32, scaled=True)
                regs += f" (at scale {big.num_regs:3d} local={big.local_size_bytes:4d}B)"
            row = {"protocol": proto, "label": label, "knobs": (cap, n, tb, shown, sk), "ms": {}, "equal": {}}
            cells = [f"{proto:16s} {label} {regs}"]
            for name, (ds, k) in loaded.items():
                ext = extend(ds, Params(k=k), backend="cuda", protocol=proto)
                equal = not ext.compare(oracle[name])
                times = [extend(ds, Params(k=k), backend="cuda", protocol=proto).kernel_seconds
                         for _ in range(args.repeat)]
                row["ms"][name], row["equal"][name] = statistics.median(times) * 1e3, equal
                scaled = any(launch.get("max_registers") for launch in ext.right.extra.get("launches", []))
                cells.append(f"{name} {row['ms'][name]:7.2f} ms{' (capped)' if scaled else ''}"
                             f"{'' if equal else ' DIFFERS'}")
            rows.append(row)
            print("  ".join(cells), flush=True)
        if proto in base:
            nvrtc.VARIANTS[proto] = base[proto]
    print()
    print(table(rows, list(loaded), ht_loc_seconds(args.ht_loc)), flush=True)


if __name__ == "__main__":
    main()

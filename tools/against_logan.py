#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's own X-drop demo and ``lassm xdrop align``, side by side, on a set and X values you name.

``lassm run`` does this on the campaign's 20,000 pairs (its originals part); this script runs the
same code (:mod:`lassm.campaign.originals.logan`) on the set you name (e.g. ``xdrop-sim-100k``),
and with ``--counters-xdrops`` also runs LOGAN's kernels under the study's whole metric list, one
row per X into ``xdrop/counters.csv`` (program ``LOGAN``), beside the campaign's ``lassm cuda``
rows. LOGAN's source is the pinned commit, from ``--source`` (a copy of albertozeni/LOGAN), the
cache, or a download. Rows go to ``data/results/<machine>/xdrop/against-logan.csv`` after each X
(rows recorded at this commit are skipped unless ``--force``). Exit 0 when every X ran and every
score agreed, 1 otherwise, 2 on bad usage.

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \\
        --dataset xdrop-sim-20k --xdrops 10,20,50,100,500,1000,5000 --counters-xdrops 100,1000
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from lassm.campaign.originals import build, logan, sources
from lassm.campaign.originals.timing import Measuring, gpu_device
from lassm.campaign.steps import find_ncu
from lassm.errors import InputError
from lassm.runs import tables
from lassm.runs import xdrop as rec
from lassm.runs.records import cpu_model, git_sha


def logan_counters(demo_cmd: list[str], raw: Path, *, dataset: str, xdrop: int, machine: str, sha: str, ncu: str,
                   command: str) -> dict:
    """LOGAN's kernels under the study's whole metric list: one ``counters.csv`` row (program ``LOGAN``)."""
    from lassm.analysis.counters import ncu as nsight
    from lassm.campaign.xdrop_counters import row_from_raw

    nsight.collect(demo_cmd, raw, dataset=dataset, k=xdrop, protocol="LOGAN", kernel_name=f"regex:{logan.LOGAN_KERNEL}",
                   ncu=ncu, timeout=600)
    return row_from_raw(raw, dataset=dataset, xdrop=xdrop, program="LOGAN", machine=machine, git_sha=sha,
                        command=command, layout=rec.LOGAN)


def _int_list(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want a comma list of integers") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: X values are 0 or more")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="LOGAN's tree at the pinned commit (default: the cache, or a download)")
    ap.add_argument("--program", type=Path, help="a folder holding LOGAN's demo and logan_scores already built")
    ap.add_argument("--machine", required=True, help="results folder name")
    ap.add_argument("--dataset", default="xdrop-sim-20k", help="an X-drop set name (default %(default)s)")
    ap.add_argument("--xdrops", type=_int_list, default=[10, 20, 50, 100, 500, 1000, 5000])
    ap.add_argument("--repeats", type=int, default=1, help="timed whole runs per program and X (default 1)")
    ap.add_argument("--arch", default=None, help="nvcc's sm_XY (default: the GPU's)")
    ap.add_argument("--no-ncu", action="store_true", help="no kernel times from Nsight Compute")
    ap.add_argument("--counters-xdrops", type=_int_list, default=[],
                    help="X values at which LOGAN also runs under the study's whole metric list (counters.csv)")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl", "cpu"),
                    help="our backend (default cuda; cpu for a dry run of this script without a GPU)")
    ap.add_argument("--force", action="store_true", help="measure again rows recorded at this commit")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    from lassm.workloads.xdrop import datasets

    sha = git_sha()
    ncu = None if args.no_ncu else find_ncu()
    table = rec.folder(args.machine) / rec.AGAINST_LOGAN_FILE
    counters = rec.folder(args.machine) / rec.COUNTERS_FILE
    name = args.dataset
    todo = logan.todo(name, args.xdrops, table, sha, args.force, args.backend)
    counted = [x for x in args.counters_xdrops if ncu and (args.force or not rec.recorded(
        rec.read_rows(counters, rec.COUNTER_COLUMNS), sha, dataset=name, xdrop=x, program="LOGAN"))]
    print(f"{name}: X to run: {todo or 'none (recorded at this commit)'}"
          + (f"; LOGAN's counters at X = {counted}" if counted else ""), flush=True)
    if not todo and not counted:
        print(f"-> {table}")
        return 0
    device = gpu_device() if args.backend != "cpu" else (cpu_model(), "")
    try:
        tables.same_device(table, rec.AGAINST_LOGAN_COLUMNS, device[0])
    except InputError as exc:
        print(f"against_logan: {exc}", file=sys.stderr)
        return 2
    if args.program:
        built = build.Built({"demo": args.program / "demo", "logan_scores": args.program / "logan_scores"},
                            sources.LOGAN, args.arch or "", "")
    else:
        built = build.build_logan(sources.locate(sources.LOGAN, args.source), args.arch or build.gpu_arch())
    context = {"machine": args.machine, "device": device[0], "driver": device[1],
               "original_source": sources.LOGAN.label, "nvcc": built.nvcc, "git_sha": sha}
    pairs = datasets.load(name)
    failed: list[str] = []
    status: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="lassm-vs-logan-") as tmp:
        if todo:
            how = Measuring(context, repeats=args.repeats, ncu=ncu, backend=args.backend,
                            say=lambda text: print(text, flush=True))
            status, failed = logan.run_all(built, pairs, name, todo, table, Path(tmp), how)
        k = logan.write_logan_input(pairs, Path(tmp) / "pairs.txt")
        for x in counted:
            raw = rec.folder(args.machine) / "counters" / f"ncu__{name}__x{x}__logan.csv"
            try:
                row = logan_counters([str(built["demo"]), str(Path(tmp) / "pairs.txt"), str(k), str(x), "1"], raw,
                                     dataset=name, xdrop=x, machine=args.machine, sha=sha, ncu=ncu,
                                     command=f"ncu --metrics <data/metric-names.csv> -- demo {name}.txt {k} {x} 1")
            except Exception as exc:  # LOGAN's counters are extra: named, not fatal
                failed.append(f"counters X={x}: {' '.join(str(exc).split())[:500]}")
                print(f"counters LOGAN X={x}: failed: {failed[-1]}", flush=True)
                continue
            rec.upsert(counters, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
            print(f"counters LOGAN X={x}: {row['duration_s'] * 1e3:.2f} ms, {row['launches']} launches", flush=True)
    print(f"-> {table}")
    return 1 if failed or any(r["status"] != "ok" for r in status) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where fast's kernel (or one of its builds) spends its instructions and stalls, per SASS instruction, on one dataset.

Builds ``fast`` with line information (``--generate-line-info``, in this process only: the cached
and recorded builds are untouched), runs ``lassm extend`` on the dataset under Nsight Compute
(the local-assembly kernel's one launch, SourceCounters), then summarizes the report's SASS page:
the instructions with the most stall samples, the shares of instructions executed by how many
lanes were active, and stall samples and instructions per block of ``--block`` consecutive
instructions. ``--pages`` keeps the SASS page and the CUDA-with-SASS page (which maps them to
source lines). A log to commit.

Usage (GPU node, repository root): python3 tools/fast_source_profile.py gen-k21x20 --top 40 --pages pages/
``--summary pages/source-sass.csv`` (anywhere, no GPU) summarizes a kept SASS page instead.
"""
from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

_RUN = """
import sys
from lassm.backends import cuda, nvrtc
plain = nvrtc.kernel_options
def with_lines(*a, **k):
    return plain(*a, **k) + ("--generate-line-info",)
nvrtc.kernel_options = cuda.kernel_options = with_lines
from lassm.cli import main
sys.exit(main(sys.argv[1:]))
"""


def summary(path: Path, top: int, block: int) -> str:
    """The SASS page's stalls and instructions, summarized (see the module's docstring)."""
    rows = list(csv.reader(path.open(newline="")))
    at = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    head, body = rows[at], [r for r in rows[at + 1:] if r and r[0].startswith("0x")]
    col = {h: i for i, h in enumerate(head)}

    def val(r: list[str], name: str) -> float:
        try:
            return float(r[col[name]])
        except (ValueError, IndexError):
            return 0.0

    stall, inst, lanes = "Warp Stall Sampling (All Samples)", "Instructions Executed", "Avg. Threads Executed"
    total_s = sum(val(r, stall) for r in body) or 1.0
    total_i = sum(val(r, inst) for r in body) or 1.0
    out = [f"{len(body)} SASS instructions, {total_s:.0f} stall samples, {total_i:.0f} warp instructions executed"]
    buckets: dict[str, list[float]] = {}
    for r in body:
        n = val(r, lanes)
        key = "1 lane" if n < 1.5 else "2-16 lanes" if n < 16.5 else "17-31 lanes" if n < 31.5 else "32 lanes"
        acc = buckets.setdefault(key, [0.0, 0.0])
        acc[0] += val(r, stall)
        acc[1] += val(r, inst)
    out.append("\nby active lanes: share of stall samples, share of instructions executed")
    out += [f"  {k:12s} {s / total_s:6.1%} {i / total_i:6.1%}" for k, (s, i) in sorted(buckets.items())]
    out.append(f"\nthe {top} instructions with the most stall samples (index, share, lanes, executions, SASS; the one before)")
    for j in sorted(sorted(range(len(body)), key=lambda j: -val(body[j], stall))[:top]):
        r = body[j]
        before = body[j - 1][1].strip()[:48] if j else ""
        out.append(f"  {j:5d} {val(r, stall) / total_s:6.2%} {val(r, lanes):5.1f} {val(r, inst):12.0f}  "
                   f"{r[1].strip()[:56]:56s} | {before}")
    out.append(f"\nper block of {block} instructions (at least 1 % of the stall samples)")
    for a in range(0, len(body), block):
        seg = body[a:a + block]
        s_, i_ = sum(val(r, stall) for r in seg) / total_s, sum(val(r, inst) for r in seg) / total_i
        if s_ >= 0.01:
            out.append(f"  {a:5d}-{a + len(seg) - 1:5d} stalls {s_:6.1%} instructions {i_:6.1%}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?")
    ap.add_argument("--summary", default="", help="a kept SASS page (source-sass.csv) to summarize, no GPU needed")
    ap.add_argument("--block", type=int, default=250)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--protocol", default="fast", help="fast or one of its builds (fast-sorted, ...)")
    ap.add_argument("--pages", default="", help="a folder to keep the report's source pages in (sass; cuda,sass)")
    args = ap.parse_args()
    if args.summary:
        print(summary(Path(args.summary), args.top, args.block))
        return 0
    if not args.dataset:
        ap.error("name a dataset, or --summary a kept page")
    from lassm import paths
    from lassm.workloads.local_assembly import datasets, formats

    ds, k = datasets.load(args.dataset)
    with tempfile.TemporaryDirectory(prefix="lassm-srcprof-") as tmp:
        dat, rep = Path(tmp) / "in.dat", Path(tmp) / "fast"
        formats.write_dat(ds, dat)
        env = {"LASSM_CACHE": str(Path(tmp) / "cache")}
        cmd = [args.ncu, "--kernel-name", "iterative_walks_kernel", "--launch-count", "1", "--section", "SourceCounters",
               "--section", "WarpStateStats", "--import-source", "yes", "-f", "-o", str(rep),
               sys.executable, "-c", _RUN, "extend", str(dat), "--k", str(k), "--backend", "cuda", "--protocol", args.protocol,
               "--out", str(Path(tmp) / "o.txt")]
        # NVRTC names the program fast.cu: run where that name is the source, so ncu imports it.
        where = paths.kernel_source("local_assembly/cuda/fast.cu").parent
        res = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, cwd=where)
        print(res.stdout[-3000:], res.stderr[-3000:], flush=True)
        if args.pages:
            keep = Path(args.pages)
            keep.mkdir(parents=True, exist_ok=True)
            for mode in ("sass", "cuda,sass"):
                got = subprocess.run([args.ncu, "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", mode],
                                     capture_output=True, text=True)
                (keep / f"source-{mode.replace(',', '-')}.csv").write_text(got.stdout + got.stderr)
        sass = subprocess.run([args.ncu, "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", "sass"],
                              capture_output=True, text=True)
        if sass.returncode != 0:
            print(sass.stderr[-3000:])
            return 1
        page = Path(tmp) / "source-sass.csv"
        page.write_text(sass.stdout)
        print(summary(page, args.top, args.block))
    return 0


if __name__ == "__main__":
    sys.exit(main())

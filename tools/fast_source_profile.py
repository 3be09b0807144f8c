#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where fast's kernel spends its instructions and stalls, per source line, on one dataset (issue 29).

Builds ``fast`` with line information (``--generate-line-info``, in this process only: the cached
and recorded builds are untouched), runs ``lassm extend`` on the dataset under Nsight Compute
(the local-assembly kernel's one launch, SourceCounters), then prints the source lines of
``kernels/local_assembly/cuda/`` with the most warp stall samples and instructions executed.
A log to commit; nothing is kept.

Usage (GPU node, repository root): python3 tools/fast_source_profile.py gen-k21x20 --top 40
"""
from __future__ import annotations

import argparse
import csv
import io
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--pages", default="", help="a folder to keep the report's source pages in (sass; cuda,sass)")
    args = ap.parse_args()
    from lassm.workloads.local_assembly import datasets, formats

    ds, k = datasets.load(args.dataset)
    with tempfile.TemporaryDirectory(prefix="lassm-srcprof-") as tmp:
        dat, rep = Path(tmp) / "in.dat", Path(tmp) / "fast"
        formats.write_dat(ds, dat)
        env = {"LASSM_CACHE": str(Path(tmp) / "cache")}
        import os

        cmd = [args.ncu, "--kernel-name", "iterative_walks_kernel", "--launch-count", "1", "--section", "SourceCounters",
               "--section", "WarpStateStats", "--import-source", "yes", "-f", "-o", str(rep),
               sys.executable, "-c", _RUN, "extend", str(dat), "--k", str(k), "--backend", "cuda", "--protocol", "fast",
               "--out", str(Path(tmp) / "o.txt")]
        from lassm import paths

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
                (keep / f"source-{mode.replace(',', '+')}.csv").write_text(got.stdout + got.stderr)
        page = subprocess.run([args.ncu, "-i", f"{rep}.ncu-rep", "--page", "source", "--csv", "--print-source", "cuda"],
                              capture_output=True, text=True)
        if page.returncode != 0:
            print(page.stderr[-3000:])
            page = subprocess.run([args.ncu, "-i", f"{rep}.ncu-rep", "--page", "details", "--print-details", "all"],
                                  capture_output=True, text=True)
            print(page.stdout[-12000:])
            return 1
        text = page.stdout
        print(f"source page: {len(text)} characters", flush=True)
        rows = list(csv.reader(io.StringIO(text)))
        head_at = next((i for i, r in enumerate(rows) if r and any("Source" in c for c in r)), None)
        if head_at is None:
            print(text[:6000])
            return 1
        head = rows[head_at]
        print("columns:", head)
        body = [r for r in rows[head_at + 1:] if len(r) == len(head)]

        def num(r: list[str], name: str) -> float:
            i = next((j for j, c in enumerate(head) if c.startswith(name)), None)
            try:
                return float(r[i].replace(",", "")) if i is not None and r[i] else 0.0
            except ValueError:
                return 0.0

        for key in ("Warp Stall Sampling (All Samples)", "Instructions Executed"):
            total = sum(num(r, key) for r in body) or 1.0
            print(f"\n== top lines by {key} (share of the kernel's)")
            for r in sorted(body, key=lambda r: -num(r, key))[:args.top]:
                print(f"{num(r, key) / total:6.1%}  " + " | ".join(c.strip()[:110] for c in r[:2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

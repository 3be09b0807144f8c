#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Jin and Vetter's CUDA programs from HeCBench beside the suite, alone (``lassm run`` runs them in its
originals part, after the suite): the same code, :mod:`lassm.campaign.originals.hecbench`.

The programs are built from the pinned commit (``--source``: a copy of zjin-lcf/HeCBench holding at
least the five programs' folders; else the cache or a download) for this GPU and run at Jin and Vetter's
sizes; rows go to ``data/results/<machine>/suite/originals.csv`` and the part's account to
``originals.json``. Exit 0 when every program ran and passed its own check, 1 otherwise.

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/against_hecbench.py --source .baselines
"""
from __future__ import annotations

import argparse
import sys

from lassm.backends import suite
from lassm.campaign import originals


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default=None, help="a folder holding HeCBench/ (or HeCBench itself)")
    ap.add_argument("--machine", default=None, help="results folder (default: the GPU's)")
    ap.add_argument("--kernels", default=",".join(suite.KERNELS), help="comma list of the suite's kernels")
    ap.add_argument("--force", action="store_true", help="run again what is recorded at this commit")
    args = ap.parse_args(argv)
    kernels = tuple(k for k in args.kernels.split(",") if k)
    plan = originals.OriginalsPlan(ht_loc_datasets=(), logan_dataset=None, xdrops=(), profile=False,
                                   folder=args.source, suite_kernels=kernels)
    out = originals.run_originals(plan, machine=args.machine, force=args.force,
                                  say=lambda text: print(text, flush=True))
    originals.report(out)
    for line in out.lacks:
        print(f"lacks: {line}")
    return 1 if out.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MetaHipMer's original local-assembly program and ``lassm extend``, side by side, on chosen datasets.

``lassm run`` does this on the campaign's datasets (its originals part); this script runs the same
code (:mod:`lassm.campaign.originals.ht_loc`) on the datasets you name, e.g. the scale point
``gen-k21x20`` that the campaign leaves out. The original's source is the pinned commit, from
``--source`` (a copy of leannmlindsey/gpu_local_ht, or its ``src/``), the cache, or a download; or
give an ``ht_loc`` already built with ``--program``. Rows go to
``data/results/<machine>/against-original.csv``. Exit 0 when every output agreed, 1 when one did
not or a dataset failed, 2 on bad usage.

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/against_original.py --source .baselines/gpu_local_ht \
        --machine nvidia-h100-80gb-hbm3 --datasets sample-k77x20,gen-k21,gen-k77,gen-k21x20
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from lassm import paths
from lassm.campaign.originals import build, sources
from lassm.campaign.originals.ht_loc import run_all, todo
from lassm.campaign.originals.timing import Measuring, gpu_device
from lassm.campaign.steps import find_ncu
from lassm.runs.records import git_sha
from lassm.errors import InputError
from lassm.runs import tables
from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_FILE


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="the original's tree (or its src/): the pinned commit")
    ap.add_argument("--program", type=Path, help="an ht_loc already built (instead of building it)")
    ap.add_argument("--machine", required=True, help="results folder name")
    ap.add_argument("--datasets", default="sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--arch", default=None, help="nvcc's sm_XY (default: the GPU's)")
    ap.add_argument("--no-ncu", action="store_true")
    ap.add_argument("--force", action="store_true", help="measure again datasets recorded at this commit")
    args = ap.parse_args(argv)
    sha = git_sha()
    table = paths.results_dir(args.machine) / AGAINST_ORIGINAL_FILE
    names = todo(args.datasets.split(","), table, sha, args.force)
    device = gpu_device()
    try:
        tables.same_device(table, AGAINST_ORIGINAL_COLUMNS, device[0])
    except InputError as exc:
        print(f"against_original: {exc}", file=sys.stderr)
        return 2
    if args.program:
        built = build.Built({"ht_loc": args.program}, sources.HT_LOC, args.arch or "", "")
    else:
        tree = args.source.parent if args.source and (args.source / "main.cpp").is_file() else args.source
        built = build.build_ht_loc(sources.locate(sources.HT_LOC, tree), args.arch or build.gpu_arch())
    context = {"machine": args.machine, "device": device[0], "driver": device[1],
               "original_source": sources.HT_LOC.label, "nvcc": built.nvcc, "git_sha": sha}
    with tempfile.TemporaryDirectory(prefix="lassm-vs-original-") as tmp:
        how = Measuring(context, repeats=args.repeats, ncu=None if args.no_ncu else find_ncu(),
                        say=lambda text: print(text, flush=True))
        status, failed = run_all(names, table, built, Path(tmp), how)
    print(f"-> {table}")
    return 1 if failed or any(r["status"] != "ok" for r in status) else 0


if __name__ == "__main__":
    sys.exit(main())

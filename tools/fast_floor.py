# SPDX-License-Identifier: BSD-3-Clause
"""Measures fast's critical path: each dataset's heaviest contig end, launched alone.

For each dataset, the contig end with the most read bases on its side
(``lassm.analysis.floor.heaviest_ends``) becomes a one-contig dataset whose other end has no
reads (``floor.one_end``); ``fast`` runs on it with the CUDA backend, one warm-up and
``--repeats`` timed runs (CUDA events), each run's output compared with the CPU oracle's. The
median kernel time, with the device, driver, git SHA and this command, goes to
``data/results/<machine>/floor-critical-path.csv`` (written atomically, one row per end), which
``lassm.analysis.floor.machine_floor`` reads.

Usage (GPU node, repository root):
    LASSM_GIT_SHA=<sha> PYTHONPATH=$PWD python3 tools/fast_floor.py --machine nvidia-h100-80gb-hbm3 --repeats 5
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import sys

from lassm import paths
from lassm.analysis import floor
from lassm.errors import LassmError

#: The campaign's datasets (campaign.json's plan on the H100).
DEFAULT_DATASETS = ("sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77", "sample-k77x20",
                    "real-mock5-k21", "real-mock5-k33", "real-mock5-k55", "real-mock5-k77")


def measure(name: str, top: int, repeats: int, provenance: dict) -> list[dict]:
    """The ``top`` heaviest ends of dataset ``name``, each timed alone; one row per end."""
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly import datasets
    from lassm.workloads.local_assembly.config import Params

    ds, k = datasets.load(name)
    params = Params(k=k)
    rows = []
    for end in floor.heaviest_ends(ds, top).itertuples():
        one = floor.one_end(ds, int(end.index), end.side)
        oracle = extend(one, params, backend="cpu")
        diffs = extend(one, params, backend="cuda", protocol="fast").compare(oracle)  # compile + warm-up
        times = []
        for _ in range(repeats):
            ext = extend(one, params, backend="cuda", protocol="fast")
            times.append(ext.kernel_seconds)
            diffs += ext.compare(oracle)
        med = statistics.median(times)
        rows.append({"dataset": name, "k": k, "contig": int(end.contig), "side": end.side, "reads": int(end.reads),
                     "read_bases": int(end.read_bases), "kernel_seconds": med, "repeats": repeats,
                     "matches_oracle": not diffs, **provenance})
        print(f"{name} k={k}: contig {end.contig} {end.side} ({end.read_bases} read bases) "
              f"{med * 1e3:.3f} ms median of {repeats}, equal={not diffs}", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=list(DEFAULT_DATASETS))
    ap.add_argument("--machine", required=True, help="folder under data/results/ to write into")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per end (after one warm-up)")
    ap.add_argument("--top", type=int, default=1, help="the heaviest ends to time per dataset (default 1)")
    args = ap.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    if args.repeats < 1 or args.top < 1:
        print("fast_floor: --repeats and --top must be at least 1", file=sys.stderr)
        return 2
    from lassm.backends import cuda
    from lassm.runs.records import git_sha

    try:
        info = cuda.device_info()
        provenance = {"device": info["device"], "driver": str(info["driver"]), "git_sha": git_sha(),
                      "command": shlex.join(["python3", "tools/fast_floor.py", *given])}
        rows = [row for name in args.datasets for row in measure(name, args.top, args.repeats, provenance)]
    except LassmError as err:
        print(f"fast_floor: {err}", file=sys.stderr)
        return 2
    path = floor.write_critical_path(rows, paths.results_dir(args.machine) / floor.CRITICAL_FILE)
    print(f"wrote {path}")
    return 0 if all(r["matches_oracle"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How often the published (racy) insert protocols give wrong contig ends, against the fixed ones.

book/kernel-protocols describes the races of the published `doneflag` and `matchany`; this
measures them. Each dataset is extended by the CPU oracle once, then by every protocol's
published build (``as_published=True``, ``-DLASSM_PUBLISHED=1``) and its fixed build, ``--runs``
times each; every run's contig ends are compared with the oracle's, walk bytes included. The
rows go to ``data/results/<machine>/published-race.csv`` (written atomically; a second call
replaces the file), which the introduction's findings read (lassm.book.findings.doneflag_race).

Usage (NVIDIA GPU node, repository root):
    python3 tools/published_race.py --machine nvidia-h100-80gb-hbm3 --datasets sample-k77x20,gen-k21
"""
from __future__ import annotations

import argparse
import csv
import io

import numpy as np

from lassm import paths
from lassm.atomic import atomic_open
from lassm.runs.extend import extend
from lassm.runs.records import git_sha
from lassm.workloads.local_assembly import datasets
from lassm.workloads.local_assembly.config import Params

#: Per-end fields compared with the oracle's (the walk's bytes are compared too).
FIELDS = ("walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions")
#: Columns of published-race.csv (book/data-contract.md).
COLUMNS = ("machine", "device", "dataset", "k", "protocol", "build", "run", "contig_ends", "wrong_ends",
           "kernel_seconds", "git_sha")


def wrong_ends(ours, oracle) -> int:
    """Contig ends (both sides) whose fields or walk bytes differ from the oracle's."""
    bad = 0
    for a, b in ((ours.right, oracle.right), (ours.left, oracle.left)):
        diff = np.zeros(len(b.walk_len), dtype=bool)
        for name in FIELDS:
            diff |= np.asarray(getattr(a, name)) != np.asarray(getattr(b, name))
        width = min(a.max_walk, b.max_walk)
        wa, wb = a.walks.reshape(-1, a.max_walk)[:, :width], b.walks.reshape(-1, b.max_walk)[:, :width]
        shown = np.arange(width)[None, :] < np.minimum(a.walk_len, b.walk_len)[:, None]
        diff |= ((wa != wb) & shown).any(axis=1)
        bad += int(diff.sum())
    return bad


def measure(names: list[str], protocols: list[str], runs: int, machine: str, backend: str = "cuda") -> list[dict]:
    """Every (dataset, protocol, build, run) as a row of :data:`COLUMNS`."""
    rows = []
    sha = git_sha()
    for name in names:
        ds, k = datasets.load(name)
        params = Params(k=k)
        oracle = extend(ds, params, backend="cpu")
        ends = 2 * int(ds.with_reads_mask().sum())
        for protocol in protocols:
            for build, published in (("published", True), ("fixed", False)):
                for run in range(runs):
                    ext = extend(ds, params, backend=backend, protocol=protocol, as_published=published)
                    device = ext.right.extra.get("device", "")
                    rows.append({"machine": machine, "device": device, "dataset": name, "k": k, "protocol": protocol,
                                 "build": build, "run": run, "contig_ends": ends, "wrong_ends": wrong_ends(ext, oracle),
                                 "kernel_seconds": ext.kernel_seconds, "git_sha": sha})
                    print(f"{name} {protocol} {build} run {run}: {rows[-1]['wrong_ends']} wrong ends of {ends}, "
                          f"{ext.kernel_seconds * 1e3:.2f} ms", flush=True)
    return rows


def write(rows: list[dict], machine: str) -> str:
    """``data/results/<machine>/published-race.csv``, atomically."""
    out = paths.results_dir(machine) / "published-race.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    with atomic_open(out, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return str(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", required=True, help="the folder under data/results/ for this GPU")
    ap.add_argument("--datasets", default="sample-k77x20,gen-k21")
    ap.add_argument("--protocols", default="doneflag,matchany")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rows = measure(args.datasets.split(","), args.protocols.split(","), args.runs, args.machine)
    print(f"-> {write(rows, args.machine)}")


if __name__ == "__main__":
    main()

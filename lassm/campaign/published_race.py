# SPDX-License-Identifier: BSD-3-Clause
"""How often the published (racy) insert protocols give wrong contig ends, against the fixed ones.

Per dataset, the CPU oracle once, then each protocol's published (``as_published=True``) and
fixed build ``runs`` times, every run's ends compared with the oracle's, walk bytes included.
:func:`write` replaces ``data/results/<machine>/published-race.csv`` whole
(``lassm measure published-race``)."""
from __future__ import annotations

import csv
import io

import numpy as np

from .. import stderr
from .. import paths
from ..atomic import atomic_open
from ..runs.extend import extend
from ..runs.records import git_sha
from ..workloads.local_assembly import datasets
from ..workloads.local_assembly.config import Params

#: The file, under a machine's results folder.
FILE = "published-race.csv"
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
    """Every (dataset, protocol, build, run) as a row of :data:`COLUMNS`; progress on stderr."""
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
                    device = ext.right.extra.device or ""
                    rows.append({"machine": machine, "device": device, "dataset": name, "k": k, "protocol": protocol,
                                 "build": build, "run": run, "contig_ends": ends, "wrong_ends": wrong_ends(ext, oracle),
                                 "kernel_seconds": ext.kernel_seconds, "git_sha": sha})
                    stderr.line(f"{name} {protocol} {build} run {run}: {rows[-1]['wrong_ends']} wrong ends of {ends}, "
                                f"{ext.kernel_seconds * 1e3:.2f} ms")
    return rows


def write(rows: list[dict], machine: str) -> str:
    """``data/results/<machine>/published-race.csv``, whole or not at all."""
    out = paths.results_dir(machine) / FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    with atomic_open(out, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return str(out)


__all__ = ["COLUMNS", "FIELDS", "FILE", "measure", "wrong_ends", "write"]

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The host steps every GPU run pays before its kernel, compiled against plain NumPy, in one run.

``lassm extend`` reverse-complements every contig (the left ends) and gathers each launch's
contigs and reads into one buffer. Both were NumPy index arithmetic (an int64 index per byte:
``np.repeat`` of the starts plus an ``arange``); both are now one compiled pass
(:mod:`lassm.workloads.local_assembly.segments_jit`). This times the two ways on one dataset, best
of ``--repeats`` and the first call (what one command pays: its allocations too), outputs compared,
numba's cache loaded first.

Usage: PYTHONPATH=$PWD python3 tools/bench_host_prep.py --dataset gen-k21x20
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from lassm.backends import launch
from lassm.runs.extend import revcomp_contigs
from lassm.runs.records import git_sha
from lassm.workloads.local_assembly import datasets
from lassm.workloads.local_assembly.dataset import _COMPLEMENT


def numpy_revcomp(ds) -> np.ndarray:
    """The former reverse complement: an index per base."""
    owner = np.repeat(np.arange(ds.n_contigs, dtype=np.int64), ds.lengths)
    idx = np.arange(len(ds.seqs), dtype=np.int64)
    return _COMPLEMENT[ds.seqs[ds.offsets[owner + 1] + ds.offsets[owner] - 1 - idx]]


def numpy_gather(buf, offsets, index, pad=0):
    """The former launch gather: an index per byte."""
    lens = offsets[index + 1] - offsets[index]
    new_off = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(lens, out=new_off[1:])
    out = np.zeros(int(new_off[-1]) + pad, dtype=buf.dtype)
    out[: new_off[-1]] = buf[np.repeat(offsets[index] - new_off[:-1], lens) + np.arange(new_off[-1], dtype=np.int64)]
    return out, new_off


def best(fn, repeats: int) -> tuple[float, float, object]:
    """(first call, best of the next ``repeats``, output): a command pays the first."""
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return first, min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="gen-k21x20")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    launch.gather(np.zeros(4, np.uint8), np.array([0, 4]), np.array([0]))  # numba's cache loaded
    revcomp_contigs(datasets.load("sample-k21")[0])
    ds, _ = datasets.load(args.dataset)
    reads = launch.stack_reads(ds.right, ds.left)
    # the ends in fast's launch order: most read bases first
    order = np.argsort(-np.diff(reads.offsets[reads.contig_offsets]), kind="stable")
    rids, _ = launch.read_index(reads.contig_offsets, order)
    print(f"{args.dataset}: {ds.n_contigs} contigs, {len(ds.seqs)} contig bases, {len(reads.seqs)} read bases; "
          f"git {git_sha()}, {platform.processor() or platform.machine()}, best of {args.repeats}")
    for step, plain, compiled in (
        ("reverse complement", lambda: numpy_revcomp(ds), lambda: revcomp_contigs(ds)),
        ("gather reads+quals", lambda: [numpy_gather(b, reads.offsets, rids, 16)[0] for b in (reads.seqs, reads.quals)],
         lambda: [launch.gather(b, reads.offsets, rids, 16)[0] for b in (reads.seqs, reads.quals)]),
    ):
        f_plain, t_plain, a = best(plain, args.repeats)
        f_comp, t_comp, b = best(compiled, args.repeats)
        same = all(np.array_equal(x, y) for x, y in zip(a, b)) if isinstance(a, list) else np.array_equal(a, b)
        print(f"{step:20s} first call: numpy {f_plain:7.3f} s, compiled {f_comp:7.3f} s ({f_plain / f_comp:5.1f}x); "
              f"best: numpy {t_plain:7.3f} s, compiled {t_comp:7.3f} s ({t_plain / t_comp:5.1f}x); equal: {same}")


if __name__ == "__main__":
    main()

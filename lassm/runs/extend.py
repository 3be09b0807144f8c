# SPDX-License-Identifier: BSD-3-Clause
"""Extends every contig of a dataset on one backend: the right end, then the left end.

The left end is walked as MetaHipMer does: reverse-complement the contig, walk forward with the
left reads as stored, prepend the walk's reverse complement. Only contigs with reads on a side
are launched.
"""
from __future__ import annotations

import time

import numpy as np

from .. import backends
from ..backends.sides import Side, Sides
from ..workloads.local_assembly.config import Params, check_walk_room
from ..workloads.local_assembly.dataset import Dataset, _COMPLEMENT
from ..workloads.local_assembly.result import Extension


def revcomp_contigs(ds: Dataset) -> np.ndarray:
    """Every contig reverse-complemented in place of itself (same offsets), in one compiled pass."""
    from ..workloads.local_assembly.segments_jit import revcomp_segments

    return revcomp_segments(ds.seqs, ds.offsets, _COMPLEMENT)


def extend(ds: Dataset, params: Params, backend: str = "cpu", **options) -> Extension:
    """Runs local assembly on ``ds`` with ``params`` on ``backend`` (a key of
    :data:`lassm.backends.BACKENDS`), ``options`` passed to its ``extend_side``."""
    check_walk_room(2 * ds.n_contigs, params.max_walk)  # before any buffer is made
    mod = backends.get(backend)
    run_mask = ds.with_reads_mask()
    bin_counts = options.pop("bin_counts", None)
    if bin_counts is None:  # MetaHipMer bins both launches and sizes both tables by the larger side's read count
        bin_counts = np.maximum(ds.left.counts, ds.right.counts)
    t0 = time.perf_counter()
    one_launch = getattr(mod, "one_launch", None)
    if one_launch is not None and one_launch(options.get("protocol", "")):  # fast: both sides at once
        # A backend that reverse-complements on its device takes None (no host pass over the bases).
        left_ctgs = None if getattr(mod, "revcomp_on_device", False) else revcomp_contigs(ds)
        right, left = mod.extend_sides(Sides(ds.seqs, left_ctgs, ds.offsets, ds.depths, ds.right, ds.left,
                                             run_mask, params, bin_counts), **options)
    else:
        right = mod.extend_side(Side(ds.seqs, ds.offsets, ds.depths, ds.right, run_mask, params, bin_counts),
                                **options)
        left = mod.extend_side(Side(revcomp_contigs(ds), ds.offsets, ds.depths, ds.left, run_mask, params,
                                    bin_counts), **options)
    wall = time.perf_counter() - t0
    return Extension(ds, right=right, left=left, backend=backend, params=params.as_dict(), wall_seconds=wall)

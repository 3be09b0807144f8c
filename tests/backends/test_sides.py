# SPDX-License-Identifier: BSD-3-Clause
"""Both sides stacked into one side of 2n ends (:meth:`lassm.backends.sides.Sides.stacked`), as
every one-launch backend walks them: the left ends' contigs follow the right ones' with their
offsets shifted, and every per-contig array is doubled in the same order."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lassm.backends import launch
from lassm.backends.sides import Sides
from lassm.runs.extend import revcomp_contigs
from lassm.workloads.local_assembly.config import Params
from lassm.workloads.local_assembly.dataset import Dataset

from .. import helpers


def _sides(bin_counts: np.ndarray | None) -> tuple[Sides, Dataset]:
    ds = helpers.random_dataset(3, n=5)
    return Sides(ds.seqs, revcomp_contigs(ds), ds.offsets, ds.depths, ds.right, ds.left, ds.with_reads_mask(),
                 Params(k=21), bin_counts), ds


def test_stacked_puts_the_left_ends_after_the_right_ones() -> None:
    counts = np.arange(5, dtype=np.int64)
    sides, ds = _sides(counts)
    side = sides.stacked()
    n, total = ds.n_contigs, int(ds.offsets[-1])
    assert sides.n_contigs == n and len(side.ctg_off) == 2 * n + 1
    assert side.ctg_off[n] == total and side.ctg_off[-1] == 2 * total
    assert side.ctg_seqs[:total].tobytes() == ds.seqs.tobytes()
    assert side.ctg_seqs[total:].tobytes() == revcomp_contigs(ds).tobytes()
    assert side.depths.tolist() == [*ds.depths.tolist(), *ds.depths.tolist()]
    assert side.run_mask.tolist() == [*ds.with_reads_mask().tolist(), *ds.with_reads_mask().tolist()]
    assert side.bin_counts is not None and side.bin_counts.tolist() == [*range(5), *range(5)]
    both = launch.stack_reads(ds.right, ds.left)
    assert side.reads.contig_offsets.tolist() == both.contig_offsets.tolist()
    assert side.params == sides.params


def test_stacked_takes_contigs_made_elsewhere_and_keeps_no_counts() -> None:
    sides, ds = _sides(None)
    made = np.zeros(2 * int(ds.offsets[-1]), dtype=np.uint8)
    side = sides.stacked(made)
    assert side.ctg_seqs is made and side.bin_counts is None


def test_stacking_needs_the_left_contigs() -> None:
    sides, _ds = _sides(None)
    with pytest.raises(ValueError, match="left_ctgs is None"):
        replace(sides, left_ctgs=None).stacked()

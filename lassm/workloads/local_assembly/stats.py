# SPDX-License-Identifier: BSD-3-Clause
"""Dataset characteristics: the paper's Table II row, and the exact work counts behind it.

The paper's definitions, as recomputed from the k = 77 sample (the dataset chapter shows them):
``contigs`` counts contigs with a read; ``reads`` left and right reads; ``avg read length`` is
printed truncated; ``total hash insertions`` is ``reads x (ceil(avg read length) - k)``, not a
kernel count; ``average extn length`` is the mean extended-contig length over all contigs and
``total extns`` that times ``contigs``. :func:`table2_row` reports these; :func:`work_counts`
the exact counts.
"""
from __future__ import annotations

import math

import numpy as np

from .dataset import Dataset
from .result import Extension

#: The paper's Table II, for comparisons (k -> row).
PAPER_TABLE2 = {
    21: dict(contigs=14195, reads=74159, avg_read_length=155, hash_insertions=10011465, avg_extension_length=48.2, total_extensions=684100),
    33: dict(contigs=4394, reads=20421, avg_read_length=159, hash_insertions=2593467, avg_extension_length=88.2, total_extensions=387283),
    55: dict(contigs=3319, reads=13160, avg_read_length=166, hash_insertions=1473920, avg_extension_length=161.0, total_extensions=534206),
    77: dict(contigs=2544, reads=7838, avg_read_length=175, hash_insertions=775962, avg_extension_length=227.0, total_extensions=577496),
}


def read_figures(ds: Dataset, k: int) -> dict:
    """Figures that need no kernel run: contigs with reads, reads, read length, insertions at k."""
    mask = ds.with_reads_mask()
    lens = np.concatenate([ds.left.lengths, ds.right.lengths])
    n_reads = int(len(lens))
    avg = float(lens.mean()) if n_reads else 0.0
    return {
        "contigs": int(mask.sum()),
        "reads": n_reads,
        "avg_read_length": avg,
        "hash_insertions": int(np.maximum(lens - k, 0).sum()),
        "hash_insertions_table2": int(n_reads * max(math.ceil(avg) - k, 0)),
    }


def table2_row(ds: Dataset, ext: Extension) -> dict:
    """The paper's Table II row for ``ds`` at the start k of ``ext`` (any backend's), plus exact counts.

    Keys ``contigs``, ``reads``, ``avg_read_length``, ``hash_insertions``,
    ``avg_extension_length``, ``total_extensions`` (the paper's), and ``hash_insertions_table2``,
    ``extended_bases``, ``walk_steps``, ``insertions_all_k``, ``k``."""
    k = int(ext.params["k"])
    row = read_figures(ds, k)
    ext_len = ds.lengths + ext.right.walk_len + ext.left.walk_len
    avg_ext = float(ext_len.mean()) if ds.n_contigs else 0.0
    row.update(
        k=k,
        avg_extension_length=avg_ext,
        total_extensions=int(round(avg_ext * row["contigs"])),
        **work_counts(ext),
    )
    return row


def work_counts(ext: Extension) -> dict:
    """Exact work of a run: bases appended, walk steps and insertions over every k tried."""
    r, lft = ext.right, ext.left
    return {
        "extended_bases": int(r.walk_len.sum() + lft.walk_len.sum()),
        "walk_steps": int(r.steps.sum() + lft.steps.sum()),
        "insertions_all_k": int(r.insertions.sum() + lft.insertions.sum()),
        "start_insertions": int(r.start_insertions.sum() + lft.start_insertions.sum()),
        "k_iterations": int(r.n_k.sum() + lft.n_k.sum()),
    }

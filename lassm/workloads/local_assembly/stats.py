# SPDX-License-Identifier: BSD-3-Clause
"""Dataset characteristics: the paper's Table II row, and the exact work counts behind it.

What we found by recomputing Table II's k = 77 row from the public MetaHipMer sample (the
book's dataset chapter shows the numbers):

* ``contigs`` is the number of contigs with at least one read (2,544 of 3,296);
  ``reads`` counts left and right reads (7,838); ``avg read length`` is printed truncated.
* ``total hash insertions`` is not a count the kernel makes: at every k it equals
  ``reads x (ceil(avg read length) - k)`` exactly (7,838 x 99 = 775,962;
  74,159 x 135 = 10,011,465 at k = 21). The kernel's true count at the start k,
  ``sum(len - k)`` over reads, is 774,814 at k = 77.
* ``average extn length`` is the mean length of the *extended contigs* over all contigs of the
  output file (748,201 / 3,296 = 227.003), and ``total extns`` that mean times ``contigs``
  (577,495 against the published 577,496; we found no exact work count equal to 577,496).
  Neither counts walk work: the walks append only 10,494 bases in all at k = 77 (67,461 walk
  steps over every k tried). In three of the four rows ``avg = total / contigs`` to the printed
  digit; the k = 33 row prints 88.2 where 387,283 / 4,394 = 88.14.

:func:`table2_row` reports the paper's definitions; :func:`work_counts` the exact ones.
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
    """The paper's Table II row for ``ds`` at the start k of ``ext``, plus exact work counts.

    Parameters
    ----------
    ds : the dataset.
    ext : its extension (any backend; all give the same walks).

    Returns
    -------
    dict with keys ``contigs``, ``reads``, ``avg_read_length``, ``hash_insertions``,
    ``avg_extension_length``, ``total_extensions`` (the paper's), and the exact counts
    ``hash_insertions_table2``, ``extended_bases``, ``walk_steps``, ``insertions_all_k``, ``k``.
    """
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

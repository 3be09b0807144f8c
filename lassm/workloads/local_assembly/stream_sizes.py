# SPDX-License-Identifier: BSD-3-Clause
"""The least room a replicated dataset takes on disk: the size bound of ``lassm data write`` and
``lassm data shard`` (:func:`lassm.fits.refuse_beyond`, the rule ``run --dry-run`` applies).

A lower bound: a size is refused only where it cannot fit, never where it might, so the
bound is what the file takes at the very least, without writing it.
"""
from __future__ import annotations

from .dataset import Dataset


def least_bytes(base: Dataset, times: int, parquet: bool, rows: int) -> float:
    """The fewest bytes ``base`` repeated ``times`` times takes as ``.dat`` text or as parquet
    (row groups of ``rows`` contigs); 0 for ``times`` 1 (a dataset in memory, bounded there).

    ``.dat`` text holds at least every base and quality. A parquet file compresses, replicas
    best of all (a row group's dictionary holds each distinct value once: 1/37 of the bases and
    qualities at ``sample-k77x20``), but a row group of as many contigs as the base, or more, holds
    each of the base's contigs (any run of that many replicated contigs does), and row groups
    are compressed apart: at least the base compressed once per such row group (once per
    replica where a row group is smaller than the base).
    """
    if times == 1:
        return 0.0
    if not parquet:
        return float(times) * (base.seqs.nbytes + 2 * (base.left.seqs.nbytes + base.right.seqs.nbytes))
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .parquet_io import PARQUET_COMPRESSION, parquet_table

    sink = pa.BufferOutputStream()
    pq.write_table(parquet_table(base, (0, 0)), sink, compression=PARQUET_COMPRESSION)
    n, unit = base.n_contigs * times, max(rows, base.n_contigs)
    whole = n // unit + (rows >= base.n_contigs and n % unit >= base.n_contigs)
    return float(sink.getvalue().size) * whole


__all__ = ["least_bytes"]

# SPDX-License-Identifier: BSD-3-Clause
"""The least room a replicated dataset takes on disk: the size bound of ``lassm data write`` and
``lassm data shard`` (:func:`lassm.fits.refuse_beyond`); a lower bound, so a size is refused only
where it cannot fit.
"""
from __future__ import annotations

from .dataset import Dataset


def least_bytes(base: Dataset, times: int, parquet: bool, rows: int) -> float:
    """The fewest bytes ``base`` repeated ``times`` times takes as ``.dat`` or as parquet (row groups of
    ``rows`` contigs); 0 for ``times`` 1.

    ``.dat`` holds every base and quality. Parquet dictionary-compresses replicas, but row groups are
    compressed apart, so at least the base compressed once per row group of the base's size or more
    (once per replica where row groups are smaller)."""
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

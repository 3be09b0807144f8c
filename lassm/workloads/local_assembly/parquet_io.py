# SPDX-License-Identifier: BSD-3-Clause
"""Datasets as parquet: a row per contig, the reads as list columns (:func:`parquet_table`); apart
from :mod:`.formats` so that :mod:`.stream` writes and reads blocks with the same builder and
checks.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ... import arrowio
from ...atomic import atomic_path
from ...errors import InputError
from .dataset import Dataset, Reads
from .parquet_checks import check_schema, check_values, refuse_repeated_cids


def write_parquet(ds: Dataset, path: str | os.PathLike) -> None:
    """Writes ``ds`` as one parquet table, a row per contig with list columns for the reads."""
    import pyarrow.parquet as pq

    with atomic_path(path) as tmp:
        pq.write_table(parquet_table(ds), tmp, compression=PARQUET_COMPRESSION)


#: The codec of every dataset file (a streamed file, :mod:`.stream`, must use the same to match).
PARQUET_COMPRESSION = "zstd"


def parquet_table(ds: Dataset, first_reads: tuple[int, int] = (0, 0)):
    """The Arrow table :func:`write_parquet` writes; ``first_reads`` (left, right) numbers unnamed reads
    ``@r<j>`` from there, so a file streamed in blocks (:mod:`.stream`) names them as the whole would."""
    import pyarrow as pa

    def side_columns(reads: Reads, prefix: str, first: int) -> dict:
        coff = reads.contig_offsets.astype(np.int32)
        roff = reads.offsets.astype(np.int64)
        seq = pa.LargeBinaryArray.from_buffers(pa.large_binary(), reads.n_reads, [None, pa.py_buffer(roff), pa.py_buffer(reads.seqs)])
        qual = pa.LargeBinaryArray.from_buffers(pa.large_binary(), reads.n_reads, [None, pa.py_buffer(roff), pa.py_buffer(reads.quals)])
        ids = pa.array(reads.ids if reads.ids else [f"@r{first + j}" for j in range(reads.n_reads)], pa.string())
        return {
            f"{prefix}_ids": pa.ListArray.from_arrays(pa.array(coff), ids),
            f"{prefix}_seqs": pa.ListArray.from_arrays(pa.array(coff), seq),
            f"{prefix}_quals": pa.ListArray.from_arrays(pa.array(coff), qual),
        }

    cseq = pa.LargeBinaryArray.from_buffers(pa.large_binary(), ds.n_contigs, [None, pa.py_buffer(ds.offsets), pa.py_buffer(ds.seqs)])
    cols = {"cid": pa.array(ds.cids), "seq": cseq, "depth": pa.array(ds.depths)}
    cols.update(side_columns(ds.left, "left", first_reads[0]))
    cols.update(side_columns(ds.right, "right", first_reads[1]))
    meta = {b"lassm.name": ds.name.encode(), b"lassm.k": str(ds.k or "").encode(), b"lassm.format": b"1"}
    return pa.table(cols).replace_schema_metadata(meta)


def read_parquet(path: str | os.PathLike) -> Dataset:
    """Reads a dataset written by :func:`write_parquet`.

    Through ``ParquetFile`` and the columns' buffers (:mod:`lassm.arrowio`), which import no pandas;
    every array is a writable copy (numba compiles a read-only array as another type)."""
    path = str(path)
    return table_dataset(arrowio.read_parquet(path), path)


def table_dataset(table, path: str) -> Dataset:
    """A table of :func:`parquet_table`'s columns (a whole file, or some of its row groups) as a
    checked :class:`Dataset`; ``path`` names the file in an error."""
    need = ["cid", "seq", "depth"] + [f"{s}_{c}" for s in ("left", "right") for c in ("ids", "seqs", "quals")]
    table = arrowio.whole_table(table, path, need, "contig rows")
    check_schema(path, table)
    meta = table.schema.metadata or {}

    # The five byte columns copied out side by side (the contigs, each side's reads and qualities).
    names = ["seq"] + [f"{prefix}_{kind}" for prefix in ("left", "right") for kind in ("seqs", "quals")]
    copied = dict(zip(names, arrowio.binaries([table.column("seq")] + [table.column(name).chunk(0).flatten()
                                                                      for name in names[1:]])))

    def side(prefix: str) -> Reads:
        coff = arrowio.numbers(table.column(f"{prefix}_seqs").chunk(0).offsets, np.int64)
        coff = coff - coff[0]
        (seqs, roff), (quals, qoff) = copied[f"{prefix}_seqs"], copied[f"{prefix}_quals"]
        if not np.array_equal(roff, qoff):
            raise InputError(path, None, f"{prefix}_quals", "quality lengths differ from sequence lengths")
        ids = table.column(f"{prefix}_ids").chunk(0).flatten().to_pylist()
        return Reads(seqs, quals, roff, coff, ids)

    seqs, off = copied["seq"]
    k = _metadata_k(path, meta.get(b"lassm.k", b""))
    cids = arrowio.numbers(table.column("cid"), np.int64)
    depths = arrowio.numbers(table.column("depth"), np.float64)
    left, right = side("left"), side("right")
    check_values(path, cids, seqs, off, depths, {"left": left, "right": right}, arrowio.threads())
    refuse_repeated_cids(path, cids, np.arange(1, len(cids) + 1), "row")
    return Dataset(
        cids=cids,
        seqs=seqs,
        offsets=off,
        depths=depths,
        left=left,
        right=right,
        name=meta.get(b"lassm.name", Path(path).stem.encode()).decode("utf-8", "replace"),
        k=k,
    )


def _metadata_k(path: str | os.PathLike, raw: bytes) -> int | None:
    """The start k a file's ``lassm.k`` metadata records: empty (none), or a whole number of bases,
    1 or more; anything else is refused naming the field."""
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < 1 or len(text) > 9:
        raise InputError(str(path), None, "lassm.k", f"{text[:40]!r} is no start k (a whole number of bases, 1 or more)")
    return int(text)

# SPDX-License-Identifier: BSD-3-Clause
"""The one in-memory form of a local-assembly input that every backend consumes.

Flat ``uint8`` buffers with ``int64`` offsets, as a GPU kernel reads them: contig ``i`` is
``seqs[offsets[i]:offsets[i+1]]``, the reads of one end a contiguous range of its side's
:class:`Reads`, stored oriented for their side as MetaHipMer dumps them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...byte_sets import offsets_of
from ...byte_sets import check_offsets

#: Bytes a read's id takes in a process (a short Python string and its list slot), for :attr:`Dataset.nbytes`.
ID_BYTES = 64

_COMPLEMENT = np.arange(256, dtype=np.uint8)
for _a, _b in zip(b"ACGTNacgtn", b"TGCANtgcan"):
    _COMPLEMENT[_a] = _b


def revcomp(seq: np.ndarray) -> np.ndarray:
    """Returns the reverse complement of a ``uint8`` base array (N stays N)."""
    return _COMPLEMENT[seq[::-1]]


@dataclass(frozen=True, eq=False)
class Reads:
    """All reads of one side (left or right), grouped by contig.

    Parameters
    ----------
    seqs, quals : uint8 buffers of equal length, every read's bases and qualities concatenated.
    offsets : int64, ``n_reads + 1``; read ``j`` is ``seqs[offsets[j]:offsets[j+1]]``.
    contig_offsets : int64, ``n_contigs + 1``; contig ``i`` owns reads
        ``contig_offsets[i] .. contig_offsets[i+1] - 1``.
    ids : one name per read (``@r1522788/1``).
    """

    seqs: np.ndarray
    quals: np.ndarray
    offsets: np.ndarray
    contig_offsets: np.ndarray
    ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("seqs", "quals"):
            arr = getattr(self, name)
            if arr.dtype != np.uint8 or arr.ndim != 1:
                raise TypeError(f"Reads.{name} must be a 1-D uint8 array")
        if len(self.seqs) != len(self.quals):
            raise ValueError("Reads.seqs and Reads.quals differ in length")
        check_offsets("Reads.offsets", self.offsets, len(self.seqs))
        check_offsets("Reads.contig_offsets", self.contig_offsets, len(self.offsets) - 1)
        if self.ids and len(self.ids) != self.n_reads:
            raise ValueError("Reads.ids must name every read")

    @property
    def n_reads(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def counts(self) -> np.ndarray:
        """Number of reads per contig."""
        return np.diff(self.contig_offsets)

    def read(self, j: int) -> tuple[bytes, bytes]:
        """Returns read ``j`` as ``(sequence, qualities)`` bytes."""
        a, b = self.offsets[j], self.offsets[j + 1]
        return self.seqs[a:b].tobytes(), self.quals[a:b].tobytes()

    def slice(self, a: int, b: int) -> "Reads":
        """The reads of contigs ``a .. b-1`` as views (offsets rebased): see :meth:`Dataset.slice`."""
        coff = self.contig_offsets[a : b + 1]
        ra, rb = int(coff[0]), int(coff[-1])
        off = self.offsets[ra : rb + 1]
        return Reads(self.seqs[int(off[0]) : int(off[-1])], self.quals[int(off[0]) : int(off[-1])], off - off[0],
                     coff - coff[0], self.ids[ra:rb] if self.ids else [])

    @staticmethod
    def from_lists(per_contig: list[list[tuple[str, bytes, bytes]]]) -> "Reads":
        """Builds the flat form from ``[[(id, seq, qual), ...] per contig]``."""
        ids: list[str] = []
        lens: list[int] = []
        counts = np.zeros(len(per_contig), dtype=np.int64)
        seq_parts: list[bytes] = []
        qual_parts: list[bytes] = []
        for i, reads in enumerate(per_contig):
            counts[i] = len(reads)
            for rid, seq, qual in reads:
                ids.append(rid)
                lens.append(len(seq))
                seq_parts.append(seq)
                qual_parts.append(qual)
        offsets = offsets_of(np.asarray(lens, dtype=np.int64))
        contig_offsets = offsets_of(counts)
        return Reads(
            seqs=np.frombuffer(b"".join(seq_parts), dtype=np.uint8).copy(),
            quals=np.frombuffer(b"".join(qual_parts), dtype=np.uint8).copy(),
            offsets=offsets,
            contig_offsets=contig_offsets,
            ids=ids,
        )


@dataclass(frozen=True, eq=False)
class Dataset:
    """Contigs with their left-end and right-end reads.

    Parameters
    ----------
    seqs, offsets : contig bases (uint8) and int64 offsets, ``n_contigs + 1``.
    depths : float64 contig depths (the kernel uses ``int(depth)``).
    k : the start k the dataset was made for, where known.
    """

    cids: np.ndarray
    seqs: np.ndarray
    offsets: np.ndarray
    depths: np.ndarray
    left: Reads
    right: Reads
    name: str = "dataset"
    k: int | None = None

    def __post_init__(self) -> None:
        if self.cids.dtype != np.int64 or self.depths.dtype != np.float64:
            raise TypeError("Dataset.cids must be int64 and Dataset.depths float64")
        if self.seqs.dtype != np.uint8:
            raise TypeError("Dataset.seqs must be uint8")
        n = len(self.cids)
        check_offsets("Dataset.offsets", self.offsets, len(self.seqs))
        if len(self.offsets) != n + 1 or len(self.depths) != n:
            raise ValueError("Dataset arrays disagree on the number of contigs")
        for side in (self.left, self.right):
            if len(side.contig_offsets) != n + 1:
                raise ValueError("reads are grouped for a different number of contigs")

    @property
    def n_contigs(self) -> int:
        return len(self.cids)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def nbytes(self) -> int:
        """Bytes a process holds of it: its arrays, and each read id at :data:`ID_BYTES` (a short
        string and its list slot). What a worker's memory budget weighs (``lassm.runs.memory``)."""
        arrays = [self.cids, self.seqs, self.offsets, self.depths]
        for reads in (self.left, self.right):
            arrays += [reads.seqs, reads.quals, reads.offsets, reads.contig_offsets]
        return int(sum(a.nbytes for a in arrays)) + ID_BYTES * (self.left.n_reads + self.right.n_reads)

    def contig(self, i: int) -> bytes:
        return self.seqs[self.offsets[i] : self.offsets[i + 1]].tobytes()

    def with_reads_mask(self) -> np.ndarray:
        """Boolean mask of contigs that have reads on at least one side."""
        return (self.left.counts > 0) | (self.right.counts > 0)

    def subset(self, index: np.ndarray) -> "Dataset":
        """Returns the contigs at ``index`` (in that order) as a new dataset."""
        return _subset(self, np.asarray(index, dtype=np.int64))

    def slice(self, a: int, b: int) -> "Dataset":
        """Contigs ``a .. b-1``, equal to ``subset(arange(a, b))`` but without copying: every array
        is a view of this dataset's (offsets rebased). A shard of contiguous contigs, cut at once."""
        off = self.offsets[a : b + 1]
        return Dataset(cids=self.cids[a:b], seqs=self.seqs[int(off[0]) : int(off[-1])], offsets=off - off[0],
                       depths=self.depths[a:b], left=self.left.slice(a, b), right=self.right.slice(a, b),
                       name=self.name, k=self.k)

    def replicate(self, times: int) -> "Dataset":
        """Returns the dataset repeated ``times`` times (ids renumbered), for scale runs."""
        n = self.n_contigs
        index = np.tile(np.arange(n, dtype=np.int64), times)
        out = _subset(self, index)
        stride = int(self.cids.max(initial=0)) + 1
        cids = out.cids + np.repeat(np.arange(times, dtype=np.int64) * stride, n)
        return Dataset(cids, out.seqs, out.offsets, out.depths, out.left, out.right,
                       name=f"{self.name}x{times}", k=self.k)


def _gather(buf: np.ndarray, offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenates the ranges ``index`` of a flat buffer; returns (buffer, offsets)."""
    from .segments_jit import gather_segments

    return gather_segments(buf, offsets, index)


def _subset_reads(reads: Reads, index: np.ndarray) -> Reads:
    from .segment_index import segment_items

    read_index, new_coff = segment_items(reads.contig_offsets, index)
    seqs, offsets = _gather(reads.seqs, reads.offsets, read_index)
    quals, _ = _gather(reads.quals, reads.offsets, read_index)
    ids = [reads.ids[j] for j in read_index] if reads.ids else []
    return Reads(seqs, quals, offsets, new_coff, ids)


def _subset(ds: Dataset, index: np.ndarray) -> Dataset:
    seqs, offsets = _gather(ds.seqs, ds.offsets, index)
    return Dataset(
        cids=ds.cids[index].copy(),
        seqs=seqs,
        offsets=offsets,
        depths=ds.depths[index].copy(),
        left=_subset_reads(ds.left, index),
        right=_subset_reads(ds.right, index),
        name=ds.name,
        k=ds.k,
    )

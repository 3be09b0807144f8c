# SPDX-License-Identifier: BSD-3-Clause
"""Replicated datasets written a block of contigs at a time, and sharded into parquet files.

A name's :class:`Replicas` cuts any range of a replicated set from its base, held once, so a
process holds one block at a time, never the whole set:

* :func:`write` writes one file, byte for byte what writing ``datasets.load(name)`` makes;
* :func:`write_shards` writes contiguous ranges of near-equal work, a parquet file each, with
  planning weights (``weights.npy``) and a manifest (``shards.json``); :func:`read_range` reads
  any range back from only the row groups holding it; :class:`ShardFolder` is the folder as a
  parent plans from it (manifest and weights, never contigs).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence, Union

import numpy as np

from ...atomic import atomic_folder, atomic_open, atomic_path, refuse_foreign_folder
from ...readback import matches, sha256
from ...errors import LassmError
from .dataset import Dataset, Reads
from .shard_manifest import check_manifest

#: Contigs per parquet row group and per streamed block: pyarrow's default largest row group,
#: so that a streamed file has the row groups, and so the bytes, of one written whole.
ROW_GROUP = 1 << 20
#: Contigs per row group of a shard file: a quarter of :data:`ROW_GROUP` (no whole file to match),
#: so that writing holds less and a worker splitting its shard (``lassm.runs.memory``) reads less.
SHARD_ROW_GROUP = 1 << 18
#: A shard folder's manifest, and its format's number (bumped when its form changes; an added
#: optional key, as ``weights``, leaves it).
MANIFEST, MANIFEST_FORMAT = "shards.json", 1
#: A shard folder's per-contig planning weights (:func:`contig_weights`, ``np.save`` of float64:
#: whole numbers, exact), so that a run's parent plans its ranges without reading the contigs.
WEIGHTS = "weights.npy"


#: A streamed block's peak memory per contig, beside the base's: ``gen-k21x20``, ``x40`` and
#: ``x80`` written in blocks of :data:`ROW_GROUP` contigs each peak at 0.8 GB, 0.55 kB a contig
#: past the base's 0.23 GB (each in a fresh process); rounded up.
BLOCK_BYTES_PER_CONTIG = 1_000
#: What :func:`write_shards` holds per contig of the whole set: its planning weight and the
#: running sum :func:`range_bounds` cuts (two float64).
WEIGHT_BYTES_PER_CONTIG = 16
#: The command whose output folders :func:`write_shards` writes (and may replace: its marker).
SHARD_MAKER = "lassm data shard"


def check_name(name: str, rows: int = ROW_GROUP) -> str:
    """Refuses, before any work, a name the streamed writers cannot write: its base as
    :func:`.datasets.check_name` refuses it (a replica count is no bound here: the replicas are
    never all in memory), and a block of ``rows`` contigs that would not fit (:mod:`lassm.fits`)."""
    from ...fits import refuse_beyond
    from . import datasets

    base = name
    while (m := datasets._TIMES.match(base)) and not base.endswith((".dat", ".parquet")):
        if int(m["times"]) < 1:
            raise LassmError(f"dataset {name!r}: replicated {m['times']} times; use x1 or more")
        base = m["base"]
    datasets.check_name(base)
    refuse_beyond(f"dataset {name!r} streamed in blocks of {rows:,} contigs", rows, BLOCK_BYTES_PER_CONTIG)
    return name


def part_file(number: int) -> str:
    """A shard's file in a shard folder."""
    return f"part-{number:05d}.parquet"


def concat(parts: Sequence[Dataset], name: str, k: int | None) -> Dataset:
    """The contigs of ``parts`` end to end, as one dataset (new arrays, offsets rebased)."""
    if not parts:
        raise ValueError("concat of no datasets")

    def offsets(arrays: Sequence[np.ndarray]) -> np.ndarray:
        shifts = np.cumsum([0] + [int(a[-1]) for a in arrays[:-1]])
        return np.concatenate([arrays[0][:1]] + [a[1:] + s for a, s in zip(arrays, shifts)]).astype(np.int64)

    def reads(side: str) -> Reads:
        rs = [getattr(p, side) for p in parts]
        ids = [i for r in rs for i in r.ids] if all(r.ids for r in rs if r.n_reads) else []
        return Reads(np.concatenate([r.seqs for r in rs]), np.concatenate([r.quals for r in rs]),
                     offsets([r.offsets for r in rs]), offsets([r.contig_offsets for r in rs]), ids)

    return Dataset(np.concatenate([p.cids for p in parts]), np.concatenate([p.seqs for p in parts]),
                   offsets([p.offsets for p in parts]), np.concatenate([p.depths for p in parts]),
                   reads("left"), reads("right"), name=name, k=k)


@dataclass(frozen=True)
class Replicas:
    """``base`` repeated ``times`` times as :meth:`Dataset.replicate` makes it, cut a range at a time."""

    base: Union[Dataset, "Replicas"]
    times: int
    name: str

    @property
    def n_contigs(self) -> int:
        return self.base.n_contigs * self.times

    @property
    def k(self) -> int | None:
        return self.base.k

    def max_cid(self) -> int:
        """The largest contig id (replica ``r`` adds ``r * stride``, stride the base's largest id + 1)."""
        return (self.times - 1) * (max_cid(self.base) + 1) + max_cid(self.base)

    def slice(self, a: int, b: int) -> Dataset:
        """Contigs ``a .. b-1``: equal, array for array, to ``replicate(times).slice(a, b)``."""
        n, stride = self.base.n_contigs, max_cid(self.base) + 1
        if not 0 <= a <= b <= self.n_contigs:
            raise ValueError(f"range {a}..{b} outside 0..{self.n_contigs}")
        if a == b:
            return concat([self.base.slice(0, 0)], self.name, self.k)
        pieces = []
        for r in range(a // n, (b - 1) // n + 1):
            piece = self.base.slice(max(a, r * n) - r * n, min(b, (r + 1) * n) - r * n)
            pieces.append(Dataset(piece.cids + r * stride, piece.seqs, piece.offsets, piece.depths, piece.left,
                                  piece.right, name=self.name, k=self.k))
        return concat(pieces, self.name, self.k)


Source = Union[Dataset, Replicas]


def max_cid(src: Source) -> int:
    """The largest contig id of a dataset or of replicas (0 for none, as ``replicate`` takes it)."""
    return src.max_cid() if isinstance(src, Replicas) else int(src.cids.max(initial=0))


def source(name: str, k: int | None = None) -> tuple[Source, int]:
    """The dataset called ``name`` as :func:`.datasets.load` reads it, with its ``x<N>`` replication
    left lazy (:class:`Replicas`); and its start k."""
    from . import datasets

    m = datasets._TIMES.match(name)
    if m and not name.endswith((".dat", ".parquet")):
        if int(m["times"]) < 1:
            raise LassmError(f"dataset {name!r}: replicated {m['times']} times; use x1 or more")
        base, start_k = source(m["base"], k)
        return Replicas(base, int(m["times"]), name), start_k
    return datasets.load(name, k)


def blocks(src: Source, a: int, b: int, rows: int = ROW_GROUP) -> Iterator[Dataset]:
    """Contigs ``a .. b-1`` of ``src`` as datasets of at most ``rows`` contigs, one after another."""
    for lo in range(a, b, rows):
        yield src.slice(lo, min(lo + rows, b))


def _write_parquet(src: Source, a: int, b: int, path: Path, rows: int) -> dict:
    """Contigs ``a .. b-1`` of ``src`` as one parquet file, a row group per block; its figures."""
    import pyarrow.parquet as pq

    from .parquet_io import PARQUET_COMPRESSION, parquet_table

    first = [0, 0]
    held = 0
    with atomic_path(path) as tmp:
        writer = None
        try:
            for block in blocks(src, a, b, rows):
                table = parquet_table(block, (first[0], first[1]))
                writer = writer or pq.ParquetWriter(tmp, table.schema, compression=PARQUET_COMPRESSION)
                writer.write_table(table, row_group_size=rows)
                first[0] += block.left.n_reads
                first[1] += block.right.n_reads
                held += block.nbytes
                del table, block  # the next block is made with this one's memory given back
        finally:
            if writer is not None:
                writer.close()
    return {"contigs": b - a, "reads": first[0] + first[1], "bytes": path.stat().st_size, "data_bytes": held}


def _write_dat(src: Source, a: int, b: int, path: Path, rows: int) -> dict:
    """Contigs ``a .. b-1`` of ``src`` as ``.dat`` text, block after block; its figures."""
    from .formats import dat_text

    reads = 0
    with atomic_open(path, "wb") as fh:
        for block in blocks(src, a, b, rows):
            for text in dat_text(block):
                fh.write(text)
            reads += block.left.n_reads + block.right.n_reads
    return {"contigs": b - a, "reads": reads, "bytes": path.stat().st_size}


def least_bytes(src: Source, parquet: bool, rows: int) -> float:
    """The fewest bytes ``src`` takes on disk (:func:`.stream_sizes.least_bytes`); 0 for a
    dataset that is no replica of one in memory (bounded there)."""
    from .stream_sizes import least_bytes as least

    if isinstance(src, Replicas) and not isinstance(src.base, Replicas):
        return least(src.base, src.times, parquet, rows)
    return 0.0


def write(name: str, dest: str | os.PathLike, k: int | None = None, rows: int = ROW_GROUP) -> dict:
    """Writes dataset ``name`` to ``dest`` (``.parquet`` or ``.dat``) a block of ``rows`` contigs at a
    time, byte for byte ``formats.write_dataset(datasets.load(name, k)[0], dest)``; returns the
    file's figures. A set the free space cannot hold is refused first (:func:`least_bytes`)."""
    from ...fits import refuse_beyond

    src, start_k = source(name, k)
    dest = Path(dest)
    times = src.times if isinstance(src, Replicas) else 1  # the x<N> bounded, as run --dry-run bounds it
    refuse_beyond(f"dataset {name!r} as {dest.suffix or 'text'}", times,
                  least_bytes(src, dest.suffix == ".parquet", rows) / times, disk=dest)
    t0 = time.perf_counter()
    figures = (_write_parquet if dest.suffix == ".parquet" else _write_dat)(src, 0, src.n_contigs, dest, rows)
    return {"name": name, "k": start_k, "file": str(dest), "seconds": time.perf_counter() - t0, **figures}


def contig_weights(src: Source, rows: int = ROW_GROUP) -> np.ndarray:
    """Each contig's work as the sharded runs plan it (``lassm.runs.shard_files.plan_ranges``):
    its reads' bases on both sides plus its own bases. Made a block at a time (8 bytes a contig)."""
    out = np.empty(src.n_contigs, dtype=np.float64)
    for i, block in enumerate(blocks(src, 0, src.n_contigs, rows)):
        w = np.diff(block.offsets).astype(np.float64)
        for reads in (block.left, block.right):
            co = reads.contig_offsets
            w += (reads.offsets[co[1:]] - reads.offsets[co[:-1]]).astype(np.float64)
        out[i * rows:i * rows + block.n_contigs] = w
    return out


def range_bounds(weights: np.ndarray, shards: int) -> list[tuple[int, int]]:
    """``shards`` contiguous ranges of near-equal total weight: the cuts fall where the running sum
    crosses each ``total * i / shards``, so a range exceeds the mean by at most the heaviest contig."""
    if shards < 1:
        raise LassmError(f"shards must be at least 1, got {shards}")
    n = len(weights)
    ends = np.cumsum(np.asarray(weights, dtype=np.float64))
    total = float(ends[-1]) if n else 0.0
    cuts = np.searchsorted(ends, total * np.arange(1, shards) / shards, side="left") if total else \
        (np.arange(1, shards) * n) // shards
    bounds = [0, *np.minimum(cuts, n).tolist(), n]
    return [(int(a), int(max(a, b))) for a, b in zip(bounds[:-1], bounds[1:])]


def write_shards(name: str, folder: str | os.PathLike, shards: int, k: int | None = None,
                 rows: int = SHARD_ROW_GROUP) -> dict:
    """Writes dataset ``name`` as ``shards`` parquet files of contiguous contigs; returns the manifest.

    Ranges are :func:`range_bounds` of :func:`contig_weights` (as ``lassm extend --cluster`` plans);
    weights go to :data:`WEIGHTS`; ``shards.json``, written last, lists each file's range, counts,
    bytes and SHA-256 (and the weights' file). The folder appears whole or not at all
    (:func:`lassm.atomic.atomic_folder`), replacing only one this command made. A set whose weights
    exceed memory, or files the free space, is refused before anything is written."""
    from ...fits import refuse_beyond

    refuse_foreign_folder(folder, SHARD_MAKER)
    src, start_k = source(name, k)
    if not 1 <= shards <= src.n_contigs:
        raise LassmError(f"--shards {shards}: {name} has {src.n_contigs:,} contigs; give 1 to {src.n_contigs:,}")
    times = src.times if isinstance(src, Replicas) else 1
    refuse_beyond(f"dataset {name!r} sharded (each contig's weight)", times,
                  WEIGHT_BYTES_PER_CONTIG * src.n_contigs / times, beside=rows * BLOCK_BYTES_PER_CONTIG)
    refuse_beyond(f"dataset {name!r} sharded", times,
                  (least_bytes(src, True, rows) + 8.0 * src.n_contigs) / times, disk=folder)
    with atomic_folder(folder, SHARD_MAKER) as built:
        return _write_shards(name, src, start_k, built, shards, rows)


def _write_shards(name: str, src: Source, start_k: int | None, folder: Path, shards: int, rows: int) -> dict:
    """:func:`write_shards`'s files, into the new folder ``folder``."""
    t0 = time.perf_counter()
    weights = contig_weights(src, rows)
    with atomic_open(folder / WEIGHTS, "wb") as fh:
        np.save(fh, weights, allow_pickle=False)
    saved = {"file": WEIGHTS, "dtype": str(weights.dtype), "bytes": (folder / WEIGHTS).stat().st_size,
             "sha256": sha256(folder / WEIGHTS)}
    parts = []
    for number, (a, b) in enumerate(range_bounds(weights, shards)):
        path = folder / part_file(number)
        figures = _write_parquet(src, a, b, path, rows)
        parts.append({"file": path.name, "start": a, "stop": b, "work": float(weights[a:b].sum()),
                      "sha256": sha256(path), **figures})
    manifest = {"format": MANIFEST_FORMAT, "name": name, "k": start_k, "contigs": int(src.n_contigs),
                "reads": sum(p["reads"] for p in parts), "row_group": rows, "shards": parts, "weights": saved,
                "seconds": time.perf_counter() - t0}
    with atomic_open(folder / MANIFEST, "w") as fh:
        fh.write(json.dumps(manifest, indent=1) + "\n")
    return manifest


def is_shard_folder(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a folder :func:`write_shards` finished."""
    return (Path(path) / MANIFEST).is_file()


def manifest(folder: str | os.PathLike) -> dict:
    """A shard folder's manifest (refused when it is missing, of another format, or of another
    form: :func:`.shard_manifest.check_manifest`)."""
    path = Path(folder) / MANIFEST
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise LassmError(f"{folder}: not a finished shard folder (no readable {MANIFEST}: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else doc
        raise LassmError(f"{path}: format {found!r}, this lassm reads {MANIFEST_FORMAT}")
    return check_manifest(path, doc)


def listed_part(folder: str | os.PathLike, part: dict) -> Path:
    """The file of ``part`` (a manifest ``shards`` entry or its ``weights``), refused where missing or
    of another size or SHA-256 than recorded, since a changed byte may still parse; the digest is
    taken once per process and file (:func:`lassm.readback.matches`)."""
    path = Path(folder) / part["file"]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise LassmError(f"{path}: missing; {Path(folder) / MANIFEST} lists it: this shard folder is not "
                         f"whole (write it again with {SHARD_MAKER})") from None
    if "bytes" in part and size != int(part["bytes"]):
        raise LassmError(f"{path}: {size:,} bytes, where {MANIFEST} records {int(part['bytes']):,}: changed since "
                         f"{SHARD_MAKER} wrote it (write the folder again)")
    if part.get("sha256") and not matches(path, str(part["sha256"])):
        raise LassmError(f"{path}: its SHA-256 is not the one {MANIFEST} records: changed since {SHARD_MAKER} "
                         "wrote it (write the folder again)")
    return path


def within_files(folder: str | os.PathLike, ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` cut where the folder's files meet, so each piece lies within one file and
    :func:`read_range` can return views rather than copies."""
    edges = sorted({int(p["start"]) for p in manifest(folder)["shards"]})
    out = []
    for lo, hi in ranges:
        cuts = [e for e in edges if lo < e < hi]
        out += [(x, y) for x, y in zip([lo, *cuts], [*cuts, hi])]
    return out


def in_row_groups(folder: str | os.PathLike, ranges: Sequence[tuple[int, int]], pieces: int) -> list[tuple[int, int]]:
    """``ranges`` (each within one file) cut at row-group edges into about ``pieces`` pieces, each its
    share by size, so a worker reads the next piece while it works on this one; no row group is
    read twice."""
    doc = manifest(folder)
    rows = int(doc["row_group"])
    total = sum(hi - lo for lo, hi in ranges) or 1
    out = []
    for lo, hi in ranges:
        start = next((int(p["start"]) for p in doc["shards"] if p["start"] <= lo < p["stop"]), lo)
        edges = list(range(start + rows * ((lo - start) // rows + 1), hi, rows))
        want = min(len(edges), max(1, round(pieces * (hi - lo) / total)) - 1)
        cuts = sorted({min(edges, key=lambda e: abs(e - (lo + (hi - lo) * (i + 1) / (want + 1)))) for i in range(want)})
        out += list(zip([lo, *cuts], [*cuts, hi]))
    return out


def read_range(folder: str | os.PathLike, a: int, b: int) -> Dataset:
    """Contigs ``a .. b-1`` of a shard folder, reading only the row groups that hold them; equal, array
    for array, to the same range of the whole dataset."""
    import pyarrow.parquet as pq

    from .parquet_io import table_dataset

    doc = manifest(folder)
    if not 0 <= a < b <= doc["contigs"]:
        raise LassmError(f"{folder}: range {a}..{b} is not within its {doc['contigs']} contigs")
    pieces = []
    for part in doc["shards"]:
        lo, hi = max(a, part["start"]), min(b, part["stop"])
        if lo >= hi:
            continue
        path = listed_part(folder, part)
        with pq.ParquetFile(path, memory_map=True) as pf:
            starts = np.cumsum([0] + [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)])
            groups = [g for g in range(pf.num_row_groups)
                      if starts[g] < hi - part["start"] and starts[g + 1] > lo - part["start"]]
            ds = table_dataset(pf.read_row_groups(groups), str(path))
        first = part["start"] + int(starts[groups[0]])
        pieces.append(ds.slice(lo - first, hi - first))
    if len(pieces) == 1:  # a range within one file (a worker's own, as planned): its views, not a copy
        return pieces[0]
    return concat(pieces, pieces[0].name, pieces[0].k)


@dataclass(frozen=True)
class ShardFolder:
    """A finished shard folder known by its manifest alone: what a sharded run's parent plans from.

    Planning needs only the saved weights (:data:`WEIGHTS`), so no process reads the whole set;
    ``weights_file`` is None for a folder without them, planned from its data (:meth:`load`)."""

    path: str
    name: str
    k: int | None
    n_contigs: int
    weights_file: str | None = None
    weights_sha256: str | None = None

    @classmethod
    def open(cls, path: str | os.PathLike) -> "ShardFolder":
        """The folder at ``path``, from its manifest (refused as :func:`manifest` refuses it)."""
        doc = manifest(path)
        saved = doc.get("weights")
        return cls(str(path), doc["name"], doc.get("k"), int(doc["contigs"]), saved["file"] if saved else None,
                   saved.get("sha256") if saved else None)

    def weights(self) -> np.ndarray | None:
        """Each contig's planning weight (:func:`contig_weights`), memory-mapped; None without them."""
        if self.weights_file is None:
            return None
        path = listed_part(self.path, {"file": self.weights_file, "sha256": self.weights_sha256})
        try:
            weights = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise LassmError(f"{path}: unreadable planning weights ({exc})") from None
        if weights.shape != (self.n_contigs,):
            raise LassmError(f"{path}: {weights.shape} weights for {self.n_contigs:,} contigs")
        return weights

    def planning_weights(self) -> np.ndarray:
        """:meth:`weights`, refused in one line where the folder saved none (an older lassm wrote it)."""
        weights = self.weights()
        if weights is None:
            raise LassmError(f"{self.path}: no planning weights saved (written by an older lassm); plan from its data")
        return weights

    def load(self) -> Dataset:
        """The whole set, read in this process: for what needs the contigs themselves."""
        return read_range(self.path, 0, self.n_contigs)


__all__ = ["MANIFEST", "ROW_GROUP", "SHARD_MAKER", "SHARD_ROW_GROUP", "WEIGHTS", "Replicas", "ShardFolder",
           "check_name", "concat", "contig_weights", "is_shard_folder", "least_bytes", "listed_part", "manifest",
           "part_file", "range_bounds", "read_range", "source", "within_files", "write",
           "write_shards"]

# SPDX-License-Identifier: BSD-3-Clause
"""Reading and writing X-drop pairs and results.

* Pairs as parquet: one row per pair, columns ``seq_h``, ``pos_h``, ``seq_v``, ``pos_v``,
  ``seed_len``; the name and the provenance (the generator's knobs, as JSON) in the schema's
  metadata, as the local-assembly parquet files keep theirs.
* Pairs as TSV, the line SeqAn's driver reads: ``seqH posH seqV posV seedLength``.
* Results (:class:`~.result.Alignments`) as parquet or TSV (by the suffix), one row per pair,
  with the scheme, the backend and the input's name in the parquet metadata.

Bad input raises :class:`~lassm.errors.InputError` naming the file, line (or row) and field;
every writer is atomic, so no half-written file is left behind.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from ...atomic import atomic_open, atomic_path
from ...errors import InputError
from .pairs import BASES, Pairs
from .result import COLUMNS, Alignments

#: The parquet columns of a pairs file, in order.
PAIR_COLUMNS = ("seq_h", "pos_h", "seq_v", "pos_v", "seed_len")
_FORMAT = b"xdrop-pairs-1"
_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[np.frombuffer(BASES, dtype=np.uint8)] = True


def _check_read(path: str, where: int, unit: str, field: str, seq: bytes) -> None:
    arr = np.frombuffer(seq, dtype=np.uint8)
    bad = np.flatnonzero(~_ALLOWED[arr])
    if len(bad):
        raise InputError(path, where if unit == "line" else None, field if unit == "line" else f"row {where} {field}",
                         f"base {chr(arr[bad[0]])!r} at position {bad[0] + 1} is not one of A, C, G, T, N")


def _check_seed(path: str, where: int, unit: str, h: bytes, ph: int, v: bytes, pv: int, k: int) -> None:
    for field, value in (("pos_h", ph), ("pos_v", pv), ("seed_len", k)):
        if value < 0:
            raise InputError(path, where if unit == "line" else None,
                             field if unit == "line" else f"row {where} {field}", f"{value} is below 0")
    if ph + k > len(h) or pv + k > len(v):
        raise InputError(path, where if unit == "line" else None, "seed" if unit == "line" else f"row {where} seed",
                         f"the seed ({ph}, {pv}, length {k}) runs past a read ({len(h)}, {len(v)} bases)")


# --- TSV -------------------------------------------------------------------------------------

def write_pairs_tsv(pairs: Pairs, path: str | os.PathLike) -> None:
    """Writes the pairs one per line, ``seqH posH seqV posV seedLength``, the driver's input."""
    with atomic_open(path, "w") as fh:
        for i in range(pairs.n_pairs):
            h, ph, v, pv, k = pairs.pair(i)
            fh.write(f"{h.decode()}\t{ph}\t{v.decode()}\t{pv}\t{k}\n")


def read_pairs_tsv(path: str | os.PathLike, name: str | None = None) -> Pairs:
    """Reads pairs written by :func:`write_pairs_tsv` (or by hand); blank lines are skipped."""
    path = str(path)
    rows = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            fields = raw.rstrip(b"\r\n").split(b"\t")
            if fields == [b""]:
                continue
            if len(fields) != 5:
                raise InputError(path, lineno, "pair", f"expected 5 tab-separated fields "
                                 f"(seqH posH seqV posV seedLength), got {len(fields)}")
            h, ph_s, v, pv_s, k_s = fields
            nums = []
            for field, text in (("posH", ph_s), ("posV", pv_s), ("seedLength", k_s)):
                if not text.isdigit():
                    raise InputError(path, lineno, field, f"{text.decode(errors='replace')!r} is not a non-negative integer")
                nums.append(int(text))
            _check_read(path, lineno, "line", "seqH", h)
            _check_read(path, lineno, "line", "seqV", v)
            _check_seed(path, lineno, "line", h, nums[0], v, nums[1], nums[2])
            rows.append((h, nums[0], v, nums[1], nums[2]))
    if not rows:
        raise InputError(path, None, "file", "empty: no pairs")
    return Pairs.from_lists(rows, name=name or Path(path).stem)


# --- parquet ---------------------------------------------------------------------------------

def write_pairs_parquet(pairs: Pairs, path: str | os.PathLike) -> None:
    """Writes the pairs as one parquet table, their name and provenance in its metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def reads(seqs: np.ndarray, offsets: np.ndarray):
        return pa.LargeBinaryArray.from_buffers(pa.large_binary(), pairs.n_pairs,
                                                [None, pa.py_buffer(offsets), pa.py_buffer(seqs)])

    cols = {"seq_h": reads(pairs.seqs_h, pairs.offsets_h), "pos_h": pa.array(pairs.pos_h),
            "seq_v": reads(pairs.seqs_v, pairs.offsets_v), "pos_v": pa.array(pairs.pos_v),
            "seed_len": pa.array(pairs.seed_len)}
    meta = {b"lassm.name": pairs.name.encode(), b"lassm.format": _FORMAT,
            b"lassm.provenance": json.dumps(pairs.provenance, sort_keys=True).encode()}
    table = pa.table(cols).replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_pairs_parquet(path: str | os.PathLike) -> Pairs:
    """Reads pairs written by :func:`write_pairs_parquet`, checking every read and seed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(path)
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, None, "file", f"not a readable parquet file ({exc})") from None
    meta = table.schema.metadata or {}
    if meta.get(b"lassm.format") != _FORMAT:
        raise InputError(path, None, "lassm.format", f"not an X-drop pairs file (format "
                         f"{meta.get(b'lassm.format', b'absent').decode(errors='replace')!r}, want {_FORMAT.decode()!r})")
    missing = [c for c in PAIR_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(path, None, "columns", f"missing {', '.join(missing)}")
    if table.num_rows == 0:
        raise InputError(path, None, "file", "empty: no pairs")
    table = table.combine_chunks()
    for c in PAIR_COLUMNS:
        if table.column(c).null_count:
            row = int(np.flatnonzero(table.column(c).is_null().to_numpy(zero_copy_only=False))[0]) + 1
            raise InputError(path, None, f"row {row} {c}", "is null")
    for c in PAIR_COLUMNS:
        kind = table.column(c).type
        want = pa.types.is_integer if c in ("pos_h", "pos_v", "seed_len") else \
            (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t))
        if not want(kind):
            raise InputError(path, None, c, f"is {kind}, want {'integers' if c.startswith(('pos', 'seed')) else 'binary'}")
    (seqs_h, off_h), (seqs_v, off_v) = _binary(table.column("seq_h")), _binary(table.column("seq_v"))
    for name, seqs, off in (("seq_h", seqs_h, off_h), ("seq_v", seqs_v, off_v)):
        bad = np.flatnonzero(~_ALLOWED[seqs])
        if len(bad):
            row = int(np.searchsorted(off, bad[0], side="right"))
            _check_read(path, row, "row", name, seqs[off[row - 1]:off[row]].tobytes())
    nums = {c: np.asarray(table.column(c).to_numpy(), dtype=np.int64) for c in ("pos_h", "pos_v", "seed_len")}
    ph, pv, k = nums["pos_h"], nums["pos_v"], nums["seed_len"]
    bad = np.flatnonzero((ph < 0) | (pv < 0) | (k < 0) | (ph + k > np.diff(off_h)) | (pv + k > np.diff(off_v)))
    if len(bad):
        i = int(bad[0])
        _check_seed(path, i + 1, "row", seqs_h[off_h[i]:off_h[i + 1]].tobytes(), int(ph[i]),
                    seqs_v[off_v[i]:off_v[i + 1]].tobytes(), int(pv[i]), int(k[i]))
    try:
        provenance = json.loads(meta.get(b"lassm.provenance", b"{}"))
    except ValueError:
        raise InputError(path, None, "lassm.provenance", "not JSON") from None
    name = meta.get(b"lassm.name", Path(path).stem.encode()).decode()
    return Pairs(seqs_h, off_h, seqs_v, off_v, ph, pv, k, name=name, provenance=provenance)


def _binary(col) -> tuple[np.ndarray, np.ndarray]:
    """A binary column's bytes (uint8) and int64 offsets from 0, without a copy per row."""
    import pyarrow as pa

    arr = col.chunk(0) if isinstance(col, pa.ChunkedArray) else col
    arr = arr.cast(pa.large_binary())
    off = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8) if arr.buffers()[2] is not None else np.zeros(0, np.uint8)
    return data[off[0]:off[-1]].copy(), (off - off[0]).astype(np.int64)


def read_pairs(path: str | os.PathLike) -> Pairs:
    """Reads ``.parquet`` or ``.tsv`` pairs, chosen by the file's suffix."""
    suffix = Path(path).suffix
    if suffix == ".parquet":
        return read_pairs_parquet(path)
    if suffix in (".tsv", ".txt"):
        return read_pairs_tsv(path)
    raise InputError(str(path), None, "file", f"unknown pairs format {suffix!r}; use .parquet or .tsv")


def write_pairs(pairs: Pairs, path: str | os.PathLike) -> None:
    """Writes ``.parquet`` or ``.tsv`` pairs by the suffix of ``path``."""
    suffix = Path(path).suffix
    if suffix == ".parquet":
        write_pairs_parquet(pairs, path)
    elif suffix in (".tsv", ".txt"):
        write_pairs_tsv(pairs, path)
    else:
        raise InputError(str(path), None, "file", f"unknown pairs format {suffix!r}; use .parquet or .tsv")


# --- results ---------------------------------------------------------------------------------

def write_alignments(result: Alignments, path: str | os.PathLike, input_name: str = "") -> None:
    """Writes a result as parquet (scheme, backend and input in the metadata) or, for ``.tsv``, TSV."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = result.columns()
    if str(path).endswith(".tsv"):
        with atomic_open(path, "w") as fh:
            fh.write("\t".join(cols) + "\n")
            for row in zip(*(c.tolist() for c in cols.values())):
                fh.write("\t".join(map(str, row)) + "\n")
        return
    meta = {b"lassm.format": b"xdrop-alignments-1", b"lassm.backend": result.backend.encode(),
            b"lassm.input": input_name.encode(),
            b"lassm.scoring": json.dumps(result.scoring.as_dict(), sort_keys=True).encode()}
    with atomic_path(path) as tmp:
        pq.write_table(pa.table(cols).replace_schema_metadata(meta), tmp)


def read_alignments_table(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The columns of a result file written by :func:`write_alignments` (parquet or TSV)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    path = str(path)
    try:
        table = (pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t")) if path.endswith(".tsv")
                 else pq.read_table(path))
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, None, "file", f"not a readable result table ({exc})") from None
    missing = [c for c in COLUMNS + ("score",) if c not in table.column_names]
    if missing:
        raise InputError(path, None, "columns", f"missing {', '.join(missing)}")
    return {c: np.asarray(table.column(c).to_numpy()) for c in COLUMNS + ("score",)}

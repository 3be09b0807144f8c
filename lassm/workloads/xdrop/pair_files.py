# SPDX-License-Identifier: BSD-3-Clause
"""Reading and writing X-drop pairs and results.

* Pairs as parquet: ``seq_h``, ``pos_h``, ``seq_v``, ``pos_v``, ``seed_len``; name and provenance
  (JSON) in the schema's metadata.
* Pairs as TSV, SeqAn's driver's line: ``seqH posH seqV posV seedLength``.
* Results (:class:`~.result.Alignments`) as parquet or TSV by suffix, with scheme, backend and
  input name in the parquet metadata.

Bad input raises :class:`~lassm.errors.InputError` naming file, line (or row) and field; writers
are atomic. A well-formed TSV is cut by NumPy (:func:`_scan_tsv`), any other read by the careful
reader. Parquet is read with ``ParquetFile``, which imports no pandas.
"""
from __future__ import annotations

import io
import json
import mmap
import os
from pathlib import Path

import numpy as np

from ...byte_sets import offsets_of
from ... import arrowio
from ...atomic import atomic_open, atomic_path
from ...errors import InputError
from ...byte_sets import first_outside
from ...compressed import unreadable_text
from .pairs import BASES, Pairs
from .alignments import COLUMNS, Alignments

#: The parquet columns of a pairs file, in order.
PAIR_COLUMNS = ("seq_h", "pos_h", "seq_v", "pos_v", "seed_len")
_FORMAT = b"xdrop-pairs-1"
_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[np.frombuffer(BASES, dtype=np.uint8)] = True
#: The longest number read in bulk: int64 holds every 18-digit number.
_MAX_DIGITS = 18
#: Bytes of a TSV checked at once: a chunk and its temporaries stay in the cache.
_SCAN_CHUNK = 1 << 22
#: Rows per block of a TSV result, which bounds the text built at once.
_WRITE_BLOCK = 65536


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
    """Reads pairs written by :func:`write_pairs_tsv` (or by hand), skipping blank lines; the file is
    mapped, cut in bulk (:func:`_scan_tsv`) where well formed, else read line by line
    (:func:`_read_pairs_tsv_careful`), naming the first fault. Both agree where the bulk reader answers."""
    path = str(path)
    with open(path, "rb") as fh:
        try:
            data: bytes | mmap.mmap = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file, or one that cannot be mapped (a pipe)
            data = fh.read()
    pairs = _scan_tsv(data, name or Path(path).stem)
    if pairs is None and (why := unreadable_text(path, bytes(data[:64]))):  # compressed, or UTF-16: not a field's fault
        raise InputError(path, None, "file", why)
    return pairs if pairs is not None else _read_pairs_tsv_careful(path, data[:], name)


def _read_pairs_tsv_careful(path: str, raw: bytes, name: str | None) -> Pairs:
    """Reads ``raw`` line by line, field by field; the first fault raises an InputError naming it."""
    rows = []
    for lineno, line in enumerate(io.BytesIO(raw), start=1):
        fields = line.rstrip(b"\r\n").split(b"\t")
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


def _scan_tsv(data: bytes | mmap.mmap, name: str) -> Pairs | None:
    """The pairs of a well-formed TSV file, cut by NumPy; None for any file not proved well formed.

    Well formed: only bases, digits, tabs and newlines; four tabs a non-empty line; numbers of 1 to
    18 digits; no digit in a read; every seed inside its reads: the careful reader's rules on such
    bytes. Checked a chunk at a time, so no temporary the file's size is made."""
    if not len(data):
        return None
    seps, digits = [], 0
    for at in range(0, len(data), _SCAN_CHUNK):
        chunk = data[at:at + _SCAN_CHUNK]
        rest = chunk.translate(None, BASES)  # digits, tabs and newlines: a few bytes a line
        if rest.translate(None, b"0123456789\t\n"):
            return None
        found = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) < ord("0"))  # tabs and newlines only
        digits += len(rest) - len(found)
        seps.append(found + at)
    a = np.frombuffer(data, dtype=np.uint8)
    sep = np.concatenate(seps)
    newline = a[sep] == ord("\n")
    nl = sep[newline]
    ends = nl if a[-1] == ord("\n") else np.append(nl, len(a))
    starts = np.concatenate(([0], nl + 1))[:len(ends)]
    filled = ends > starts  # blank lines are skipped
    starts, ends = starts[filled], ends[filled]
    n = len(starts)
    tabs = sep[~newline]
    if n == 0 or len(tabs) != 4 * n:
        return None
    tabs = tabs.reshape(n, 4)  # sorted, so the i-th four are line i's when each lies in its line
    if np.any(tabs[:, 0] < starts) or np.any(tabs[:, 3] >= ends):
        return None
    fields = ((tabs[:, 0] + 1, tabs[:, 1]), (tabs[:, 2] + 1, tabs[:, 3]), (tabs[:, 3] + 1, ends))
    ph, pv, k = (_digits(a, lo, hi) for lo, hi in fields)
    if ph is None or pv is None or k is None or digits != sum(int((hi - lo).sum()) for lo, hi in fields):
        return None  # a number that is not 1 to 18 digits, or a digit inside a read
    if np.any(ph + k > tabs[:, 0] - starts) or np.any(pv + k > tabs[:, 2] - tabs[:, 1] - 1):
        return None
    seqs_h, off_h = _segments(a, starts, tabs[:, 0])
    seqs_v, off_v = _segments(a, tabs[:, 1] + 1, tabs[:, 2])
    return Pairs(seqs_h, off_h, seqs_v, off_v, ph, pv, k, name=name, provenance={})


def _digits(a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """The numbers written in ``a[lo[i]:hi[i]]`` as int64, or None unless each is 1 to 18 digits."""
    width = hi - lo
    if width.min() < 1 or width.max() > _MAX_DIGITS:
        return None
    value = np.zeros(len(lo), dtype=np.int64)
    for back in range(int(width.max()), 0, -1):  # the most significant column first
        has = width >= back
        d = a[np.where(has, hi - back, 0)].astype(np.int64) - ord("0")
        if np.any(has & ((d < 0) | (d > 9))):
            return None
        value = np.where(has, value * 10 + d, value)
    return value


def _segments(a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a[lo[i]:hi[i]]`` end to end in a new writable array, and their int64 offsets."""
    offsets = offsets_of(hi - lo)
    if not len(lo):
        return np.zeros(0, dtype=np.uint8), offsets
    return np.concatenate([a[i:j] for i, j in zip(lo.tolist(), hi.tolist())]), offsets


# --- parquet ---------------------------------------------------------------------------------

def write_pairs_parquet(pairs: Pairs, path: str | os.PathLike) -> None:
    """Writes the pairs as one parquet table, their name and provenance in its metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"seq_h": arrowio.binary_array(pairs.seqs_h, pairs.offsets_h), "pos_h": arrowio.array(pairs.pos_h),
            "seq_v": arrowio.binary_array(pairs.seqs_v, pairs.offsets_v), "pos_v": arrowio.array(pairs.pos_v),
            "seed_len": arrowio.array(pairs.seed_len)}
    meta = {b"lassm.name": pairs.name.encode(), b"lassm.format": _FORMAT,
            b"lassm.provenance": json.dumps(pairs.provenance, sort_keys=True).encode()}
    table = pa.table(cols).replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_pairs_parquet(path: str | os.PathLike) -> Pairs:
    """Reads pairs written by :func:`write_pairs_parquet`, checking every read and seed."""
    import pyarrow as pa

    path = str(path)
    table = arrowio.read_parquet(path)
    meta = table.schema.metadata or {}
    if meta.get(b"lassm.format") != _FORMAT:
        raise InputError(path, None, "lassm.format", f"not an X-drop pairs file (format "
                         f"{meta.get(b'lassm.format', b'absent').decode(errors='replace')!r}, want {_FORMAT.decode()!r})")
    table = arrowio.whole_table(table, path, PAIR_COLUMNS, "pairs")
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
    (seqs_h, off_h), (seqs_v, off_v) = arrowio.binary(table.column("seq_h")), arrowio.binary(table.column("seq_v"))
    for name, seqs, off in (("seq_h", seqs_h, off_h), ("seq_v", seqs_v, off_v)):
        bad = first_outside(seqs, _ALLOWED)
        if bad < 0:
            continue
        row = int(np.searchsorted(off, bad, side="right"))
        _check_read(path, row, "row", name, seqs[off[row - 1]:off[row]].tobytes())
    # Copies, so that every array is writable: a read-only one is another type to numba, which
    # would build (or load) the CPU kernel once more for it.
    ph, pv, k = (arrowio.numbers(table.column(c), np.int64) for c in ("pos_h", "pos_v", "seed_len"))
    outside = np.flatnonzero((ph < 0) | (pv < 0) | (k < 0) | (ph + k > np.diff(off_h)) | (pv + k > np.diff(off_v)))
    if len(outside):
        i = int(outside[0])
        _check_seed(path, i + 1, "row", seqs_h[off_h[i]:off_h[i + 1]].tobytes(), int(ph[i]),
                    seqs_v[off_v[i]:off_v[i + 1]].tobytes(), int(pv[i]), int(k[i]))
    try:
        provenance = json.loads(meta.get(b"lassm.provenance", b"{}"))
    except ValueError:
        raise InputError(path, None, "lassm.provenance", "not JSON") from None
    name = meta.get(b"lassm.name", Path(path).stem.encode()).decode()
    return Pairs(seqs_h, off_h, seqs_v, off_v, ph, pv, k, name=name, provenance=provenance)


def is_pairs_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a file of X-drop pairs by its kind: a ``.tsv``, or a ``.parquet`` whose
    metadata names the pairs format (only the schema is read). Why: a local-assembly dataset may be
    a ``.parquet`` too, and a file read by the other kernel's reader is blamed on fields it never had."""
    p = Path(path)
    if not p.is_file() or p.suffix not in (".tsv", ".parquet"):
        return False
    if p.suffix == ".tsv":
        return True
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(p).metadata or {}
    except (OSError, ValueError):  # no Parquet file: the local-assembly reader, which takes .parquet, names its fault
        return False
    return meta.get(b"lassm.format") == _FORMAT


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
    cols = result.columns()
    if str(path).endswith(".tsv"):
        with atomic_open(path, "wb") as fh:
            fh.write(("\t".join(cols) + "\n").encode())
            values = list(cols.values())
            for at in range(0, result.n_pairs, _WRITE_BLOCK):
                fh.write(int_rows([c[at:at + _WRITE_BLOCK] for c in values]))
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = {b"lassm.format": b"xdrop-alignments-1", b"lassm.backend": result.backend.encode(),
            b"lassm.input": input_name.encode(),
            b"lassm.scoring": json.dumps(result.scoring.as_dict(), sort_keys=True).encode()}
    table = pa.table({name: arrowio.array(col) for name, col in cols.items()})
    with atomic_path(path) as tmp:
        pq.write_table(table.replace_schema_metadata(meta), tmp)


#: 10**1 .. 10**19 as uint64: a magnitude's digit count is 1 + how many of them it reaches.
_POWERS = np.array([10 ** p for p in range(1, 20)], dtype=np.uint64)


def int_rows(columns: list[np.ndarray]) -> bytes:
    """Equal-length integer columns (fitting int64) as text: ``"\\t".join(map(str, row)) + "\\n"`` for
    every row, concatenated, built by NumPy for all rows at once (padded fixed-width cells, the
    padding dropped in one pass)."""
    n = len(columns[0]) if columns else 0
    if n == 0:
        return b""
    cells = []
    for col in columns:
        values = np.asarray(col).astype(np.int64)
        magnitude = np.abs(values).astype(np.uint64)  # -2**63 stays itself, which is 2**63 as uint64
        width = np.searchsorted(_POWERS, magnitude, side="right") + 1
        widest = int(width.max())
        cell = np.zeros((n, widest + 2), dtype=np.uint8)  # sign, digits, separator
        for place in range(widest):  # the last digit first
            digit = (magnitude % np.uint64(10)).astype(np.uint8) + np.uint8(ord("0"))
            cell[:, widest - place] = np.where(width > place, digit, np.uint8(0))
            magnitude //= np.uint64(10)
        negative = np.flatnonzero(values < 0)
        cell[negative, widest - width[negative]] = ord("-")
        cell[:, -1] = ord("\t")
        cells.append(cell)
    cells[-1][:, -1] = ord("\n")
    flat = np.concatenate(cells, axis=1).reshape(-1)
    return flat[flat != 0].tobytes()


def read_alignments_table(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The columns of a result file written by :func:`write_alignments` (parquet or TSV)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    path = str(path)
    if not path.endswith(".tsv"):
        table = arrowio.read_parquet(path, "result table")
    else:
        try:
            table = pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t"))
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(path, None, "file", f"not a readable result table ({exc})") from None
    arrowio.require_columns(table, path, COLUMNS + ("score",))
    return {c: arrowio.numbers(table.column(c)) for c in COLUMNS + ("score",)}

# SPDX-License-Identifier: BSD-3-Clause
"""Reading and writing datasets and results.

* MetaHipMer's ``.dat`` dump: per contig ``cid contig depth n_left n_right`` then
  ``n_left + n_right`` triples ``read_id seq qual``; a record may span lines.
* Parquet, one row per contig, reads as list columns.
* FASTA/FASTQ export, and MetaHipMer's output ``cid extended_sequence``.

Bad input raises :class:`~lassm.errors.InputError` naming file, line and field, leaving no
output (writers are atomic). A contig id repeated in one input is refused
(:func:`refuse_repeated_cids`): the output is keyed by it.
"""
from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path
from typing import IO, Iterator, Sequence

import numpy as np

from ...byte_sets import offsets_of
from ... import settings
from ... import arrowio
from ...compressed import unreadable_text
from ...atomic import atomic_open, atomic_path
from . import dat_bulk
from .dataset import Dataset, Reads
from .parquet_checks import BASES as _BASES
from .parquet_checks import refuse_repeated_cids
from .parquet_io import PARQUET_COMPRESSION, parquet_table, read_parquet, write_parquet  # noqa: F401  (their home before)
from ...errors import InputError
from .result import SIDES, Extension


#: Suffixes of the formats ``data convert`` writes but no command reads (FASTA, FASTQ).
WRITE_ONLY: tuple[str, ...] = (".fasta", ".fa", ".fastq", ".fq")
#: The largest contig id: ids are 64-bit signed integers in every format and on every backend.
CID_MAX = 2**63 - 1


def _is_int(tok: str) -> bool:
    return tok.isdigit()


def _looks_like_header(tokens: list[str]) -> bool:
    """A line that starts a new record: ``cid seq depth n_left n_right``."""
    if len(tokens) < 5 or not (_is_int(tokens[0]) and _is_int(tokens[3]) and _is_int(tokens[4])):
        return False
    try:
        float(tokens[2])
    except ValueError:
        return False
    return True


def _check_bases(path: str, line: int, field: str, seq: str) -> None:
    bad = set(seq.encode()) - _BASES
    if bad:
        pos = next(i for i, c in enumerate(seq.encode()) if c in bad)
        raise InputError(path, line, field, f"base {seq[pos]!r} at position {pos + 1} is not one of A, C, G, T, N")


def _parse_record(path: str, toks: list[tuple[str, int]]) -> tuple[int, bytes, float, list, list]:
    (cid_s, l0), (seq, l1), (depth_s, l2), (nl_s, l3), (nr_s, l4) = toks[:5]
    if not _is_int(cid_s):
        raise InputError(path, l0, "cid", f"{cid_s!r} is not a non-negative integer contig id")
    if int(cid_s) > CID_MAX:
        raise InputError(path, l0, "cid", f"{cid_s} is over {CID_MAX}, the largest contig id (a 64-bit integer)")
    _check_bases(path, l1, f"contig {cid_s} sequence", seq)
    try:
        depth = float(depth_s)
    except ValueError:
        raise InputError(path, l2, f"contig {cid_s} depth", f"{depth_s!r} is not a number") from None
    if not math.isfinite(depth) or depth < 0:
        raise InputError(path, l2, f"contig {cid_s} depth", f"{depth_s!r} must be finite and >= 0")
    reads: list[list] = [[], []]
    n_side = (int(nl_s), int(nr_s))
    pos = 5
    for side, n in enumerate(n_side):
        for j in range(n):
            (rid, _), (rseq, ls), (rqual, lq) = toks[pos : pos + 3]
            pos += 3
            what = f"contig {cid_s} {'left' if side == 0 else 'right'} read {j + 1} ({rid})"
            _check_bases(path, ls, what + " sequence", rseq)
            if len(rqual) != len(rseq):
                raise InputError(
                    path, lq, what + " qualities",
                    f"{len(rqual)} quality characters for {len(rseq)} bases",
                )
            if any(not 33 <= c <= 126 for c in rqual.encode()):
                raise InputError(path, lq, what + " qualities", "quality characters must be printable ASCII 33..126")
            reads[side].append((rid, rseq.encode(), rqual.encode()))
    return int(cid_s), seq.encode(), depth, reads[0], reads[1]


def read_dat(path: str | os.PathLike, name: str | None = None, k: int | None = None) -> Dataset:
    """Reads a MetaHipMer ``.dat`` file into a Dataset labelled ``name`` (default the file's stem),
    made for start ``k`` where known. Well-formed files are read in bulk (:func:`_scan`), others by
    the careful reader, which names the file, line and field of the first fault."""
    path = str(path)
    with open(path, "rb") as fh:
        raw = fh.read()
    parsed = _scan(raw)
    if parsed is None:
        return _read_dat_careful(path, raw, name, k)
    refuse_repeated_cids(path, parsed["cids"], parsed["lines"], "line")
    return Dataset(cids=parsed["cids"], seqs=parsed["seqs"], offsets=parsed["offsets"], depths=parsed["depths"],
                   left=Reads(*parsed["left"]), right=Reads(*parsed["right"]), name=name or Path(path).stem, k=k)


def _scan(raw: bytes) -> dict | None:
    """The columns of a well-formed file, read in bulk: by the numba scanner for a big file
    where numba is installed, else (or if it declines) by :func:`.dat_bulk.scan`."""
    if len(raw) >= dat_bulk.JIT_MIN_BYTES:
        try:
            from . import dat_jit
        except ImportError:  # numba is absent: a GPU node may lack it
            pass
        else:
            parsed = dat_jit.scan(raw)
            if parsed is not None:
                return parsed
    return dat_bulk.scan(raw)


#: Bytes no ``.dat`` text holds: not ASCII, or a control byte other than a tab and a line break
#: (a carriage return only before a line feed). Python's ``splitlines`` and ``split`` take several
#: of them (0x0b, 0x0c, 0x1c-0x1f) for line breaks or spaces, which would move a fault to
#: another line or field; they are refused where they are instead.
_NOT_TEXT = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xff]|\r(?!\n)")
#: Names of the control bytes a user may meet.
_CONTROL_NAMES = {0x00: "NUL", 0x0b: "vertical tab", 0x0c: "form feed", 0x0d: "carriage return",
                  0x1b: "escape", 0x1c: "file separator", 0x1d: "group separator", 0x1e: "record separator",
                  0x1f: "unit separator", 0x7f: "delete"}


def _refuse_not_text(path: str, raw: bytes) -> None:
    """Raises an InputError at the first byte no ``.dat`` text holds (:data:`_NOT_TEXT`), at its
    true line and column, naming a compressed file as such."""
    bad = _NOT_TEXT.search(raw)
    if bad is None:
        return
    at = bad.start()
    if at < 8 and (why := unreadable_text(path, raw[:64])):
        raise InputError(path, None, "file", why)
    line = raw.count(b"\n", 0, at) + 1
    column = at - (raw.rfind(b"\n", 0, at) + 1) + 1
    byte = raw[at]
    if byte >= 0x80:
        raise InputError(path, line, "encoding", f"byte 0x{byte:02x} at column {column} is not ASCII")
    name = _CONTROL_NAMES.get(byte, "a control byte")
    raise InputError(path, line, "encoding", f"control byte 0x{byte:02x} ({name}) at column {column}: a .dat file "
                     "holds printable text, spaces, tabs and line breaks only")


#: The fewest bytes a read takes in a ``.dat`` file: a one-letter id, one base, one quality and
#: their three separators (``r A I``).
READ_BYTES_MIN = 6


def _read_dat_careful(path: str, raw: bytes, name: str | None, k: int | None) -> Dataset:
    """Reads ``raw`` field by field; the first fault raises an InputError naming its line and field."""
    _refuse_not_text(path, raw)  # located like every other error: line, then column
    lines = raw.decode("ascii").splitlines()
    records: list[tuple] = []
    starts: list[int] = []  # the line each record starts at
    toks: list[tuple[str, int]] = []
    expected = 0
    try:
        for lineno, line in enumerate(lines, start=1):
            words = line.split()
            if not words:
                continue
            if toks and _looks_like_header(words):
                have = (len(toks) - 5) // 3
                raise InputError(
                    path, toks[0][1], f"contig {toks[0][0]} n_left/n_right",
                    f"the record declares {(expected - 5) // 3} reads but the next record starts "
                    f"at line {lineno} after {have}",
                )
            if not toks:
                if len(words) < 5:
                    raise InputError(path, lineno, "record header", f"expected 'cid sequence depth n_left n_right', got {len(words)} fields")
                if not (_is_int(words[3]) and _is_int(words[4])):
                    bad = 3 if not _is_int(words[3]) else 4
                    field = "n_left" if bad == 3 else "n_right"
                    raise InputError(path, lineno, field, f"{words[bad]!r} is not a non-negative integer read count")
                for field, count in (("n_left", words[3]), ("n_right", words[4])):
                    if int(count) > len(raw) // READ_BYTES_MIN:  # said so, not as a file that ends too soon
                        raise InputError(path, lineno, f"contig {words[0]} {field}",
                                         f"{count} is out of range: a file of {len(raw):,} bytes holds at most "
                                         f"{len(raw) // READ_BYTES_MIN:,} reads")
                expected = 5 + 3 * (int(words[3]) + int(words[4]))
            toks.extend((w, lineno) for w in words)
            if len(toks) > expected:
                raise InputError(
                    path, lineno, f"contig {toks[0][0]} n_left/n_right",
                    f"the record declares {(expected - 5) // 3} reads but line {lineno} holds more fields "
                    f"({len(toks)} for {expected})",
                )
            if len(toks) == expected:
                records.append(_parse_record(path, toks))
                starts.append(toks[0][1])
                toks = []
        if toks:
            raise InputError(
                path, toks[0][1], f"contig {toks[0][0]} n_left/n_right",
                f"the file ends inside the record: {len(toks)} of {expected} fields",
            )
    except InputError as exc:  # a record gone wrong: a field too many on its first line shifts all after it
        raise (_header_surplus(path, toks) or exc) from None
    if not records:
        raise InputError(path, None, "file", "empty: no contig records")
    refuse_repeated_cids(path, np.fromiter((r[0] for r in records), np.int64, len(records)), np.asarray(starts), "line")
    return _from_records(records, name or Path(path).stem, k)


def _header_surplus(path: str, toks: list[tuple[str, int]]) -> InputError | None:
    """The fault of a record whose first line holds fields left over after its header and whole
    reads (a sixth header field, say), located there: every later field of the record is read one
    place off, so the reader's own complaint (a bad base a line or two on) points at the wrong line."""
    if not toks:
        return None
    line = toks[0][1]
    words = [w for w, at in toks if at == line]
    left = (len(words) - 5) % 3
    if len(words) < 5 or not left:
        return None
    first = len(words) - left + 1
    return InputError(path, line, f"contig {toks[0][0]} record header",
                      f"{len(words)} fields, where the header (cid sequence depth n_left n_right) and whole reads "
                      f"(read_id sequence qualities) make 5, 8, 11, ...; field {first} ({words[first - 1]!r}) "
                      f"{'and the next are' if left > 1 else 'is'} left over")


def _from_records(records: list[tuple], name: str, k: int | None) -> Dataset:
    n = len(records)
    seq_lens = np.fromiter((len(r[1]) for r in records), dtype=np.int64, count=n)
    offsets = offsets_of(seq_lens)
    return Dataset(
        cids=np.fromiter((r[0] for r in records), dtype=np.int64, count=n),
        seqs=np.frombuffer(b"".join(r[1] for r in records), dtype=np.uint8).copy(),
        offsets=offsets,
        depths=np.fromiter((r[2] for r in records), dtype=np.float64, count=n),
        left=Reads.from_lists([r[3] for r in records]),
        right=Reads.from_lists([r[4] for r in records]),
        name=name,
        k=k,
    )


def write_dat(ds: Dataset, path: str | os.PathLike) -> None:
    """Writes ``ds`` as a MetaHipMer ``.dat`` file, one record per line (atomically, in blocks)."""
    with atomic_open(path, "wb") as fh:
        for block in dat_text(ds):
            fh.write(block)


def dat_text(ds: Dataset) -> Iterator[bytes]:
    """``ds``'s ``.dat`` text in blocks: a big dataset's from the numba writer where numba is
    installed, any other's from the bulk writer; both give the same bytes."""
    if ds.seqs.nbytes + 2 * (ds.left.seqs.nbytes + ds.right.seqs.nbytes) >= dat_bulk.JIT_MIN_BYTES:
        try:
            from . import dat_jit
        except ImportError:  # numba is absent: a GPU node may lack it
            pass
        else:
            if dat_jit.writable(ds):
                return dat_jit.dat_blocks(ds)
    return dat_bulk.dat_blocks(ds)


def read_dataset(path: str | os.PathLike, k: int | None = None) -> Dataset:
    """Reads a ``.dat`` or ``.parquet`` dataset, chosen by the file's suffix."""
    p = Path(path)
    if not p.exists():
        raise InputError(str(p), None, "file", "does not exist")
    if p.suffix.lower() in WRITE_ONLY:
        raise InputError(str(p), None, "file", f"a {p.suffix} file is written by 'lassm data convert', not read; "
                                               "give a .dat or .parquet dataset")
    if p.is_file() and (why := unreadable_text(p)):
        raise InputError(str(p), None, "file", why)
    if p.suffix == ".parquet":
        ds = read_parquet(p)
        return ds if k is None or ds.k == k else Dataset(ds.cids, ds.seqs, ds.offsets, ds.depths, ds.left, ds.right, ds.name, k)
    return read_dat(p, k=k)


def write_dataset(ds: Dataset, path: str | os.PathLike) -> None:
    """Writes ``.dat`` or ``.parquet`` by the suffix of ``path``."""
    if Path(path).suffix == ".parquet":
        write_parquet(ds, path)
    else:
        write_dat(ds, path)


# --- FASTA / FASTQ ---------------------------------------------------------------------------

def write_fasta(ds: Dataset, path: str | os.PathLike) -> None:
    """Writes the contigs as FASTA (``>cid depth=...``), atomically."""
    with atomic_open(path, "wb") as fh:
        for block in dat_bulk.fasta_blocks(ds):
            fh.write(block)


def write_fastq(ds: Dataset, path: str | os.PathLike) -> None:
    """Writes every read as FASTQ, naming its contig and side in the header (atomically)."""
    with atomic_open(path, "wb") as fh:
        for block in dat_bulk.fastq_blocks(ds):
            fh.write(block)


# --- results ---------------------------------------------------------------------------------

def write_extended(ext: Extension, path: str | os.PathLike) -> None:
    """Writes MetaHipMer's output, ``cid extended_sequence`` per contig (atomically)."""
    with atomic_open(path, "wb") as fh:
        extended_into(ext, fh)


#: Contigs from which a process that has not imported numba yet imports it to write the output
#: (:mod:`.extended_jit`): the import (about 0.3 s) then costs less than the Python writer's
#: microsecond a line. A process that has numba loaded already uses it for any output.
EXTENDED_JIT_MIN_CONTIGS = 400_000


def extended_into(ext: Extension, fh: IO[bytes]) -> int:
    """Writes the output lines of ``ext`` to an open file; returns the bytes written.

    The one entry to the output writers, so a shard's blocks put end to end are the single run's
    file byte for byte. The compiled writer (:mod:`.extended_jit`) runs where numba is loaded or the
    output is large, :func:`.dat_bulk.extended_blocks` elsewhere or under ``LASSM_PY_WRITER``."""
    blocks = None
    if settings.value("LASSM_PY_WRITER") is None and ("numba" in sys.modules
                                                      or ext.dataset.n_contigs >= EXTENDED_JIT_MIN_CONTIGS):
        try:
            from . import extended_jit
        except ImportError:  # numba is absent: a GPU node may lack it
            pass
        else:
            blocks = extended_jit.extended_blocks(ext, dat_bulk.WRITE_BLOCK)
    size = 0
    for block in blocks or dat_bulk.extended_blocks(ext):
        fh.write(block)
        size += len(block)
    return size


def read_extended(path: str | os.PathLike) -> dict[int, str]:
    """Reads a ``cid extended_sequence`` file into ``{cid: sequence}``."""
    out: dict[int, str] = {}
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            words = line.split()
            if not words:
                continue
            if len(words) != 2 or not _is_int(words[0]):
                raise InputError(str(path), lineno, "record", "expected 'cid sequence'")
            out[int(words[0])] = words[1]
    return out


def ends_table(ext: Extension, sides: Sequence[str] = SIDES):
    """Per contig end: walk length, final k, termination code, k values tried, walk steps, insertions
    (built through the columns' buffers: ``pa.table`` of NumPy arrays would import pandas)."""
    return arrowio.table(ext.ends_columns(sides))


def is_tsv(path: str | os.PathLike) -> bool:
    """Whether :func:`write_ends` writes ``path`` as TSV (else parquet)."""
    return str(path).endswith(".tsv")


def ends_tsv_into(ext: Extension, dest: str | os.PathLike, sides: Sequence[str] = SIDES, header: bool = True) -> None:
    """Writes the ends of ``sides`` as TSV rows to ``dest`` (not atomically: a caller's temporary);
    consecutive ranges' rows after one header are the whole table's file byte for byte."""
    import pyarrow.csv as pacsv

    pacsv.write_csv(ends_table(ext, sides), str(dest), pacsv.WriteOptions(delimiter="\t", include_header=header))


def write_ends(ext: Extension, path: str | os.PathLike) -> None:
    """Writes :func:`ends_table` as parquet, or as TSV when ``path`` ends in ``.tsv``."""
    import pyarrow.parquet as pq

    with atomic_path(path) as tmp:
        if is_tsv(path):
            ends_tsv_into(ext, tmp)
        else:
            pq.write_table(ends_table(ext), tmp)

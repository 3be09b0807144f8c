# SPDX-License-Identifier: BSD-3-Clause
"""The ``.dat`` format at I/O speed: whole-file reading and writing with per-token work in C;
the extended contigs (``cid extended_sequence``), FASTA and FASTQ written the same way.

:func:`scan` makes no Python object per token: NumPy finds the blanks in threads, derives every
field, reads header numbers by digit arithmetic and copies each column out in large indexed
copies (releasing the GIL). It returns ``None`` for any file it does not prove well formed, and
the careful reader of :mod:`.formats` then names the file, line and field of the first fault.
Both readers agree on every file :func:`scan` accepts (see :func:`_record_lines`).
"""
from __future__ import annotations

import os
import threading
from functools import partial
from itertools import chain, repeat
from operator import itemgetter
from typing import Callable, Iterator, Sequence, TypeVar

import numpy as np

from ...byte_sets import offsets_of
from .dataset import revcomp

#: Bytes a file may hold for :func:`scan` to read it are printable ASCII, space, tab and newline;
#: this table marks the three blanks among the bytes up to 32. Anything else (``\r``, other line
#: breaks, control bytes, non-ASCII) goes to the careful reader.
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[9, 10, 32]] = True
_BASES = b"ACGTN"
#: Longest integer token read in bulk (int64 holds every 18-digit number).
_MAX_DIGITS = 18
#: Files (and datasets) of this size or more are read (and written) by :mod:`.dat_jit` where
#: numba is installed: importing numba costs a fresh process a fixed time (0.7-1.0 s on a GPU
#: node) that only a very large file wins back.
JIT_MIN_BYTES = 256 * 2**20
#: Bytes per slice when finding the blanks: its mask stays in the cache, and slices are few.
_SLICE = 1 << 20
#: Threads that read one file (this one included): the blanks of parts of the file, and the
#: columns, are found and copied side by side, in NumPy calls that release the GIL.
THREADS = max(1, min(4, os.cpu_count() or 1))
#: Chunk widths of :func:`_gather`, widest first; the last must be 1.
_WIDTHS = (128, 32, 8, 1)
#: Fields all shorter than this are gathered as a table of a row each (:func:`_gather`).
_SHORT = 48
#: Records per block when writing, which bounds the Python objects alive at once.
WRITE_BLOCK = 65536


def _pick(items: list, index: np.ndarray) -> tuple:
    """``tuple(items[i] for i in index)`` at C speed."""
    if len(index) == 0:
        return ()
    if len(index) == 1:
        return (items[int(index[0])],)
    return itemgetter(*index.tolist())(items)


def _lengths(items: Sequence[bytes]) -> np.ndarray:
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def _is_float(token: bytes | bytearray) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


T = TypeVar("T")


def _in_threads(calls: Sequence[Callable[[], T]]) -> list[T]:
    """The calls' results, in order, made by up to :data:`THREADS` threads (this one among them):
    call ``i`` runs on thread ``i % THREADS``. Their copies and scans release the GIL, so the
    threads overlap; a failure is raised here."""
    n = min(THREADS, len(calls))
    results: list = [None] * len(calls)
    failed: list[BaseException] = []

    def run(k: int) -> None:
        try:
            for i in range(k, len(calls), n):
                results[i] = calls[i]()
        except BaseException as exc:  # raised in the calling thread
            failed.append(exc)

    others = [threading.Thread(target=run, args=(k,), name=f"lassm-read-{k}") for k in range(1, n)]
    for t in others:
        t.start()
    run(0)
    for t in others:
        t.join()
    if failed:
        raise failed[0]
    return results


def _blank_part(buf: np.ndarray, a: int, b: int) -> list[np.ndarray] | None:
    """The positions of the bytes up to 32 in ``buf[a:b]``, slice by slice, or None at a byte
    over 126. A slice of :data:`_SLICE` bytes at a time, so that the comparison's mask stays in
    the cache between being written and being read."""
    mask = np.empty(min(_SLICE, b - a), dtype=bool)
    parts = []
    for lo in range(a, b, _SLICE):
        part = buf[lo : min(lo + _SLICE, b)]
        if part.max() > 126:
            return None
        m = mask[: len(part)]
        np.less_equal(part, 32, out=m)
        pos = np.flatnonzero(m)
        pos += lo
        parts.append(pos)
    return parts


def _fields(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Every field's start and length and the newlines' positions, or None for a byte other than
    printable ASCII, space, tab and newline. Field ``i`` is ``raw.split()[i]``, and the lines are the
    careful reader's."""
    n = len(buf)
    parts = min(THREADS, -(-n // _SLICE))
    cuts = [n * i // parts for i in range(parts + 1)]
    found = _in_threads([partial(_blank_part, buf, a, b) for a, b in zip(cuts[:-1], cuts[1:])])
    if any(part is None for part in found):
        return None
    bounds = np.concatenate([np.array([-1]), *(pos for part in found if part is not None for pos in part), np.array([n])])
    kind = buf[bounds[1:-1]]
    if not _BLANK[kind].all():
        return None
    step = np.diff(bounds)
    gap = np.flatnonzero(step > 1)  # a field lies between bounds[gap] and bounds[gap + 1]
    starts = bounds[gap]
    starts += 1
    lens = step[gap]
    lens -= 1
    return starts, lens, bounds[1:-1][kind == 10]


def _rows(buf: np.ndarray, width: int) -> np.ndarray:
    """Every ``width`` bytes of ``buf`` that start at a byte, as one item each (a view): indexing
    it copies runs of ``width`` bytes with one ``memcpy`` per index."""
    return np.ndarray((len(buf) - width + 1,), dtype=np.dtype((np.void, width)), buffer=buf, strides=(1,))


def _table(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes from each start, a row each (zeros past the end of ``buf``)."""
    table = np.empty((len(starts), width), dtype=np.uint8)
    if not table.size:
        return table
    rows = table.view(np.dtype((np.void, width)))[:, 0]
    last = len(buf) - width  # the last start with ``width`` bytes after it
    late = starts > last
    if late.any():  # a field near the end: read from a copy of the end, padded with zeros
        at = max(last, 0)
        tail = np.zeros(2 * width, dtype=np.uint8)
        tail[: len(buf) - at] = buf[at:]
        rows[late] = _rows(tail, width)[starts[late] - at]
        rows[~late] = _rows(buf, width)[starts[~late]]
    else:
        rows[:] = _rows(buf, width)[starts]
    return table


def _gather(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray, sep: bool = False) -> bytearray:
    """The fields ``buf[starts[i] : starts[i] + lens[i]]`` end to end (each followed by a newline where
    ``sep``), copied by NumPy alone with an index entry per fixed-width chunk, not per byte (a
    field's last chunk aligned to its end)."""
    widest = int(lens.max(initial=0))
    if not len(lens):
        return bytearray()
    if widest < _SHORT:
        width = widest + sep
        table = _table(buf, starts, width)
        if sep:
            table[np.arange(len(lens)), lens] = 10
        return bytearray(table[np.arange(width) < (lens + sep)[:, None]])
    off = offsets_of(lens + 1 if sep else lens)
    out = bytearray(int(off[-1]))
    dst = np.frombuffer(out, dtype=np.uint8)
    if sep:
        dst[off[1:] - 1] = 10
    upper = None
    for width in _WIDTHS:
        pick = lens >= width if upper is None else (lens >= width) & (lens < upper)
        upper = width
        if not pick.any():
            continue
        src_at, length, dst_at = starts[pick], lens[pick], off[:-1][pick]
        chunks = (length + (width - 1)) // width
        first = offsets_of(chunks)
        step = np.arange(first[-1], dtype=np.int64) - np.repeat(first[:-1], chunks)
        step *= width
        np.minimum(step, np.repeat(length - width, chunks), out=step)
        _rows(dst, width)[np.repeat(dst_at, chunks) + step] = _rows(buf, width)[np.repeat(src_at, chunks) + step]
    return out


def _digit_fields(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which fields are runs of ASCII digits (``bytes.isdigit``), their int64 values, and which are
    over 18 digits (values not read); read as a table of up to 19 columns per field."""
    width = int(min(lens.max(initial=0), _MAX_DIGITS + 1))
    inside = np.arange(width) < lens[:, None]
    digits = _table(buf, starts, width)
    digits -= 48
    digits[~inside] = 0
    isdigit = np.asarray((digits <= 9).all(axis=1))
    values = np.zeros(len(starts), dtype=np.int64)
    for j in range(min(width, _MAX_DIGITS)):
        values = np.where(inside[:, j], values * 10 + digits[:, j], values)
    too_long = isdigit & (lens > _MAX_DIGITS)
    for i in np.flatnonzero(too_long).tolist():  # the prefix was digits; is the rest?
        isdigit[i] = too_long[i] = buf[starts[i] : starts[i] + lens[i]].tobytes().isdigit()
    return isdigit, values, too_long


def _records(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray, newlines: np.ndarray):
    """The fields that start records, their lines and header values, or None.

    A header-looking line (five fields or more, the 1st, 4th and 5th digits, the 3rd a number) must
    be exactly a record start, each record's field count reaching exactly the next one and the last
    the file's end: the careful reader's rules, checked in bulk."""
    n = len(starts)
    after = np.searchsorted(starts, newlines)  # the field after each newline
    first = np.concatenate(([0], after[after < n]))
    first = first[np.diff(first, prepend=-1) > 0]  # the first field of each line that has one
    head = first[np.diff(first, append=n) >= 5]
    if not len(head):
        return None
    looks = np.ones(len(head), dtype=bool)
    ints = []
    for col in (0, 3, 4):
        isdigit, values, too_long = _digit_fields(buf, starts[head + col], lens[head + col])
        looks &= isdigit
        ints.append((values, too_long))
    head = head[looks]
    depth_tokens = _gather(buf, starts[head + 2], lens[head + 2], sep=True)[:-1].split(b"\n") if len(head) else []
    try:
        depths = np.fromiter(map(float, depth_tokens), dtype=np.float64, count=len(depth_tokens))
    except ValueError:  # a line with a non-numeric 3rd field does not look like a header
        keep = np.fromiter(map(_is_float, depth_tokens), dtype=np.bool_, count=len(depth_tokens))
        head = head[keep]
        looks[looks] = keep
        depths = np.fromiter(map(float, _pick(depth_tokens, np.flatnonzero(keep))), dtype=np.float64,
                             count=int(keep.sum()))
    if not len(head) or head[0] != 0 or any(too_long[looks].any() for _, too_long in ints):
        return None
    cids, n_left, n_right = (values[looks] for values, _ in ints)
    end = head + 5 + 3 * (n_left + n_right)
    if not (np.array_equal(end[:-1], head[1:]) and end[-1] == n):
        return None
    return np.searchsorted(newlines, starts[head]), head, cids, depths, n_left, n_right


def _bases(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray | None:
    """The fields end to end as a writable uint8 array, or None if a byte is not a base."""
    data = _gather(buf, starts, lens)
    return None if data.translate(None, _BASES) else np.frombuffer(data, dtype=np.uint8)


def _quals(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    return np.frombuffer(_gather(buf, starts, lens), dtype=np.uint8)


def _ids(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> list[str]:
    """The fields as str, decoded and cut in one go."""
    return _gather(buf, starts, lens, sep=True)[:-1].decode("ascii").split("\n") if len(starts) else []


def scan(raw: bytes) -> dict | None:
    """Reads a well-formed ``.dat`` file's bytes into a dataset's arrays, or None when ``raw`` is not
    proved well formed.

    Returns ``cids``, ``seqs``, ``offsets``, ``depths``, ``left``, ``right`` (each side ``seqs,
    quals, offsets, contig_offsets, ids``) and ``lines``, each record's first line (from 1)."""
    if not raw:
        return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    fields = _fields(buf)
    if fields is None:
        return None
    starts, lens, newlines = fields
    found = _records(buf, starts, lens, newlines)
    if found is None:
        return None
    lines, head, cids, depths, n_left, n_right = found
    if not np.all(np.isfinite(depths) & (depths >= 0)):
        return None
    # The columns, copied side by side: each side's (id, sequence, qualities) triples start at ``base``.
    calls: list[Callable[[], object]] = [partial(_bases, buf, starts[head + 1], lens[head + 1])]
    read_lens = []
    for count, first in ((n_left, head + 5), (n_right, head + 5 + 3 * n_left)):
        coff = offsets_of(count)
        base = np.repeat(first - 3 * coff[:-1], count) + 3 * np.arange(coff[-1], dtype=np.int64)
        seq_lens = lens[base + 1]
        if not np.array_equal(seq_lens, lens[base + 2]):
            return None
        read_lens.append(seq_lens)
        calls += [partial(_bases, buf, starts[base + 1], seq_lens), partial(_quals, buf, starts[base + 2], seq_lens),
                  partial(_ids, buf, starts[base], lens[base])]
    seqs, *columns = _in_threads(calls)
    if seqs is None or columns[0] is None or columns[3] is None:
        return None
    sides = [(columns[3 * i], columns[3 * i + 1], offsets_of(read_lens[i]), offsets_of(count), columns[3 * i + 2])
             for i, count in enumerate((n_left, n_right))]
    return {"cids": cids, "seqs": seqs, "offsets": offsets_of(lens[head + 1]),
            "depths": depths, "left": sides[0], "right": sides[1], "lines": lines + 1}


# --- writing ---------------------------------------------------------------------------------

def pieces(buf: np.ndarray, offsets: np.ndarray) -> list[bytes]:
    """``[buf[offsets[i]:offsets[i+1]].tobytes() for i ...]``, cut by one ``bytes.split`` on newlines
    put between the pieces (piece by piece where the buffer holds a newline itself)."""
    n = len(offsets) - 1
    if n <= 0:
        return []
    part = buf[offsets[0] : offsets[-1]]
    off = offsets - offsets[0]
    if np.count_nonzero(part == 10):
        data = part.tobytes()
        return [data[a:b] for a, b in zip(off[:-1].tolist(), off[1:].tolist())]
    out = np.empty(len(part) + n - 1, dtype=np.uint8)
    seps = off[1:-1] + np.arange(n - 1, dtype=np.int64)
    keep = np.ones(len(out), dtype=bool)
    keep[seps] = False
    out[keep] = part
    out[seps] = 10
    return out.tobytes().split(b"\n")


def _texts(values: Sequence[str]) -> list[bytes]:
    """ASCII strings (no newline) as bytes, encoded in one go."""
    return "\n".join(values).encode("ascii").split(b"\n") if len(values) else []


def fmt_depth(d: float) -> str:
    """A depth as MetaHipMer writes it: an integer without a point, else the shortest repr."""
    return str(int(d)) if float(d).is_integer() else repr(float(d))


def _read_ids(reads, a: int, b: int, contig_of: np.ndarray) -> list[str]:
    if reads.ids:
        return reads.ids[a:b]
    return [f"@r{i}_{j}" for i, j in zip(contig_of.tolist(), range(a, b))]


def dat_block(ds, a: int, b: int) -> bytes:
    """Records ``a .. b-1`` of dataset ``ds`` as ``.dat`` text, one record per line, joined by one
    ``bytes.join`` of fields cut in bulk (:func:`pieces`)."""
    n = b - a
    if n == 0:
        return b""
    pool: list[bytes] = []
    starts: dict[str, int] = {}

    def add(name: str, items: list[bytes]) -> None:
        starts[name] = len(pool)
        pool.extend(items)

    add("cid", _texts(list(map(str, ds.cids[a:b].tolist()))))
    add("contig", pieces(ds.seqs, ds.offsets[a : b + 1]))
    add("depth", _texts(list(map(fmt_depth, ds.depths[a:b].tolist()))))
    add("n_left", _texts(list(map(str, ds.left.counts[a:b].tolist()))))
    add("n_right", _texts(list(map(str, ds.right.counts[a:b].tolist()))))
    counts = []
    for name, reads in (("left", ds.left), ("right", ds.right)):
        ra, rb = int(reads.contig_offsets[a]), int(reads.contig_offsets[b])
        count = reads.counts[a:b]
        contig_of = np.repeat(np.arange(a, b, dtype=np.int64), count)
        add(name + " id", _texts(_read_ids(reads, ra, rb, contig_of)))
        add(name + " seq", pieces(reads.seqs, reads.offsets[ra : rb + 1]))
        add(name + " qual", pieces(reads.quals, reads.offsets[ra : rb + 1]))
        counts.append(count)
    n_left, n_right = counts
    per_record = 5 + 3 * (n_left + n_right)
    rec = offsets_of(per_record)
    order = np.empty(rec[-1], dtype=np.int64)
    idx = np.arange(n, dtype=np.int64)
    for col, name in enumerate(("cid", "contig", "depth", "n_left", "n_right")):
        order[rec[:-1] + col] = starts[name] + idx
    for name, count, first in (("left", n_left, rec[:-1] + 5), ("right", n_right, rec[:-1] + 5 + 3 * n_left)):
        coff = offsets_of(count)
        j = np.arange(coff[-1], dtype=np.int64)
        pos = np.repeat(first, count) + 3 * (j - np.repeat(coff[:-1], count))
        for col, part in enumerate(("id", "seq", "qual")):
            order[pos + col] = starts[f"{name} {part}"] + j
    toks = _pick(pool, order)
    del pool
    ends = np.cumsum(_lengths(toks) + 1) - 1  # where the separator after each field goes
    out = bytearray(b" ".join(toks))
    out.append(32)
    np.frombuffer(out, dtype=np.uint8)[ends[rec[1:] - 1]] = 10
    return bytes(out)


def dat_blocks(ds, block: int = WRITE_BLOCK) -> Iterator[bytes]:
    """The whole dataset as ``.dat`` text, ``block`` records at a time."""
    for a in range(0, ds.n_contigs, block):
        yield dat_block(ds, a, min(a + block, ds.n_contigs))


# --- the extended contigs --------------------------------------------------------------------

def extended_blocks(ext, block: int = WRITE_BLOCK) -> Iterator[bytes]:
    """MetaHipMer's output, ``cid extended_sequence`` a line, ``block`` contigs at a time: the left
    walk's reverse complement, the contig, the right walk (a block's left walks reverse-complemented
    at once)."""
    ds = ext.dataset
    for a in range(0, ds.n_contigs, block):
        b = min(a + block, ds.n_contigs)
        left, left_lens = ext.left.bases(a, b)
        right, right_lens = ext.right.bases(a, b)
        fields = zip(_texts([f"{c} " for c in ds.cids[a:b].tolist()]),
                     pieces(revcomp(left), offsets_of(left_lens[::-1]))[::-1],
                     pieces(ds.seqs, ds.offsets[a : b + 1]),
                     pieces(right, offsets_of(right_lens)),
                     repeat(b"\n", b - a))
        yield b"".join(chain.from_iterable(fields))


# --- FASTA / FASTQ ---------------------------------------------------------------------------

def fasta_blocks(ds, block: int = WRITE_BLOCK) -> Iterator[bytes]:
    """The contigs as FASTA (``>cid depth=...``, then the bases), ``block`` contigs at a time."""
    for a in range(0, ds.n_contigs, block):
        b = min(a + block, ds.n_contigs)
        heads = _texts([f">{c} depth={fmt_depth(d)}" for c, d in zip(ds.cids[a:b].tolist(), ds.depths[a:b].tolist())])
        fields = zip(heads, repeat(b"\n"), pieces(ds.seqs, ds.offsets[a : b + 1]), repeat(b"\n"))
        yield b"".join(chain.from_iterable(fields))


def fastq_blocks(ds, block: int = WRITE_BLOCK) -> Iterator[bytes]:
    """Every read as FASTQ, left reads first, naming its contig and side in the header."""
    for side, reads in (("left", ds.left), ("right", ds.right)):
        for a in range(0, ds.n_contigs, block):
            b = min(a + block, ds.n_contigs)
            ra, rb = int(reads.contig_offsets[a]), int(reads.contig_offsets[b])
            cids = np.repeat(ds.cids[a:b], reads.counts[a:b]).tolist()
            names = [r.lstrip("@") for r in reads.ids[ra:rb]] if reads.ids else [f"r{j}" for j in range(ra, rb)]
            heads = _texts([f"@{r} contig={c} side={side}" for r, c in zip(names, cids)])
            off = reads.offsets[ra : rb + 1]
            fields = zip(heads, repeat(b"\n"), pieces(reads.seqs, off), repeat(b"\n+\n"), pieces(reads.quals, off),
                         repeat(b"\n"))
            yield b"".join(chain.from_iterable(fields))

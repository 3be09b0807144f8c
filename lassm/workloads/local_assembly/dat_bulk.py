# SPDX-License-Identifier: BSD-3-Clause
"""The ``.dat`` format at I/O speed: whole-file reading and writing with per-token work in C;
the extended contigs (``cid extended_sequence``), FASTA and FASTQ written the same way.

A field-by-field reader in Python spends microseconds per token; a 50 MB dump holds millions of
tokens. Here the work per token is done by ``bytes.split``, ``operator.itemgetter``,
``bytes.join`` and NumPy over whole columns, so the cost is close to that of splitting the file.

This module only answers the common case. :func:`scan` returns ``None`` for any file it does not
prove well formed (a byte other than printable ASCII, space, tab or newline; a record that does
not start its line; a bad count, base, quality or depth), and the careful reader of
:mod:`.formats` then reads that file field by field and names the file, line and field of the
first fault, with the messages it has always given. The two readers agree on every file
:func:`scan` accepts: the record boundaries it derives are the ones the careful reader walks to
(see :func:`_record_lines`).
"""
from __future__ import annotations

from itertools import chain, repeat
from operator import itemgetter
from typing import Iterator, Sequence

import numpy as np

from .dataset import revcomp

#: Bytes a file may hold for :func:`scan` to read it: printable ASCII, space, tab and newline.
#: Anything else (``\r``, other line breaks, control bytes, non-ASCII) goes to the careful reader.
_FAST_BYTES = bytes(range(33, 127)) + b" \t\n"
_BASES = b"ACGTN"
#: Longest integer token read in bulk (int64 holds every 18-digit number).
_MAX_DIGITS = 18
#: Files (and datasets) of this size or more are read (and written) by :mod:`.dat_jit` where
#: numba is installed. A tunable: importing numba and loading the scanner from its cache cost a
#: fresh process a fixed time, which a small file does not win back. On a 2-core EPYC the NumPy
#: path reads the 73 MB x20 sample in 0.40 s, a fresh process's numba path in 0.65 s
#: (``logs/bench-io-1c3cc9f.log``); a GPU node's numba import alone took 0.7-1.0 s
#: (``nvidia-h100-80gb-hbm3/logs/startup-b01408d.log``), so the break-even lies past 150 MB.
JIT_MIN_BYTES = 256 * 2**20
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


def _ints(tokens: Sequence[bytes]) -> np.ndarray | None:
    """The tokens as int64, or None when one is not a short run of digits."""
    if len(tokens) and (max(map(len, tokens)) > _MAX_DIGITS or not all(map(bytes.isdigit, tokens))):
        return None
    return np.fromiter(map(int, tokens), dtype=np.int64, count=len(tokens))


def _is_float(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _only(buf: bytes | bytearray, allowed: bytes) -> bool:
    return not buf.translate(None, allowed)


def _as_array(parts: Sequence[bytes]) -> np.ndarray:
    """The parts concatenated into a new, writable uint8 array."""
    return np.frombuffer(bytearray().join(parts), dtype=np.uint8)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    return off


def _line_first_tokens(buf: np.ndarray) -> np.ndarray:
    """For every line (split at ``\\n``), the index of its first token, or of the next line's
    if it has none. The buffer holds no whitespace but space, tab and newline."""
    field = buf > 32
    starts = np.flatnonzero(field[1:] > field[:-1]) + 1
    if field[0]:
        starts = np.concatenate(([0], starts))
    line_starts = np.concatenate(([0], np.flatnonzero(buf == 10) + 1))
    return np.searchsorted(starts, line_starts)


def _record_lines(toks: list[bytes], first: np.ndarray, counts: np.ndarray):
    """The lines that start records, with each record's header fields, or None.

    A line *looks like a header* as the careful reader defines it: five fields or more, the 1st,
    4th and 5th digits, the 3rd a number. The careful reader refuses such a line inside a record,
    starts a record only at a line's start, and ends one only at a line's end; so a file is well
    formed only if the header-looking lines are exactly the record starts, each record's declared
    field count reaching exactly to the next one's first token and the last to the end of the
    file. That chain is checked here in bulk.
    """
    lines = np.flatnonzero(counts >= 5)
    if not len(lines):
        return None
    head = first[lines]
    looks = np.ones(len(lines), dtype=bool)
    for col in (0, 3, 4):
        tokens = _pick(toks, head + col)
        looks &= np.fromiter(map(bytes.isdigit, tokens), dtype=bool, count=len(tokens))
    lines, head = lines[looks], head[looks]
    depth_tokens = _pick(toks, head + 2)
    try:
        depths = np.fromiter(map(float, depth_tokens), dtype=np.float64, count=len(depth_tokens))
    except ValueError:  # a line with a non-numeric 3rd field does not look like a header
        keep = np.fromiter(map(_is_float, depth_tokens), dtype=bool, count=len(depth_tokens))
        lines, head = lines[keep], head[keep]
        depths = np.fromiter(map(float, _pick(depth_tokens, np.flatnonzero(keep))), dtype=np.float64,
                             count=int(keep.sum()))
    cids, n_left, n_right = (_ints(_pick(toks, head + col)) for col in (0, 3, 4))
    if cids is None or n_left is None or n_right is None or not len(head) or head[0] != 0:
        return None
    end = head + 5 + 3 * (n_left + n_right)
    if not (np.array_equal(end[:-1], head[1:]) and end[-1] == len(toks)):
        return None
    return lines, head, cids, depths, n_left, n_right


def _side(toks: list[bytes], base: np.ndarray, per_contig: np.ndarray):
    """One side's reads (id, sequence, qualities triples from token ``base``), or None if bad."""
    ids, seqs, quals = (_pick(toks, base + col) for col in (0, 1, 2))
    lens = _lengths(seqs)
    if not np.array_equal(lens, _lengths(quals)):
        return None
    seq_buf = bytearray().join(seqs)
    if not _only(seq_buf, _BASES):
        return None
    id_list = b"\n".join(ids).decode("ascii").split("\n") if ids else []
    return (np.frombuffer(seq_buf, dtype=np.uint8), _as_array(quals), _offsets(lens),
            _offsets(per_contig), id_list)


def scan(raw: bytes) -> dict | None:
    """Reads a well-formed ``.dat`` file's bytes into the arrays of a dataset.

    Parameters
    ----------
    raw : bytes
        The whole file.

    Returns
    -------
    dict or None
        ``cids``, ``seqs``, ``offsets``, ``depths``, ``left``, ``right`` (each side a tuple
        ``seqs, quals, offsets, contig_offsets, ids``) and ``lines``, the line each record starts
        at (from 1); None when the file is not proved well formed (the careful reader then
        finds and names the fault).
    """
    if not raw or not _only(raw, _FAST_BYTES):
        return None
    toks = raw.split()
    first = _line_first_tokens(np.frombuffer(raw, dtype=np.uint8))
    counts = np.diff(first, append=len(toks))
    found = _record_lines(toks, first, counts)
    if found is None:
        return None
    lines, head, cids, depths, n_left, n_right = found
    if not np.all(np.isfinite(depths) & (depths >= 0)):
        return None
    contigs = _pick(toks, head + 1)
    ctg_buf = bytearray().join(contigs)
    if not _only(ctg_buf, _BASES):
        return None
    sides = []
    for count, first in ((n_left, head + 5), (n_right, head + 5 + 3 * n_left)):
        coff = _offsets(count)
        base = np.repeat(first, count) + 3 * (np.arange(coff[-1], dtype=np.int64) - np.repeat(coff[:-1], count))
        side = _side(toks, base, count)
        if side is None:
            return None
        sides.append(side)
    return {"cids": cids, "seqs": np.frombuffer(ctg_buf, dtype=np.uint8), "offsets": _offsets(_lengths(contigs)),
            "depths": depths, "left": sides[0], "right": sides[1], "lines": lines + 1}


# --- writing ---------------------------------------------------------------------------------

def pieces(buf: np.ndarray, offsets: np.ndarray) -> list[bytes]:
    """``[buf[offsets[i]:offsets[i+1]].tobytes() for i ...]``, cut by one ``bytes.split``.

    A newline is put after every piece but the last and the result split on it, so no Python
    code runs per piece; a buffer that holds a newline itself is cut piece by piece instead.
    """
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
    """Records ``a .. b-1`` of dataset ``ds`` as ``.dat`` text, one record per line.

    Every field becomes one bytes object (cut in bulk by :func:`pieces`); an index array puts
    them in file order and one ``bytes.join`` with a space writes the block; the space after
    each record's last field is then turned into its newline.
    """
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
    rec = _offsets(per_record)
    order = np.empty(rec[-1], dtype=np.int64)
    idx = np.arange(n, dtype=np.int64)
    for col, name in enumerate(("cid", "contig", "depth", "n_left", "n_right")):
        order[rec[:-1] + col] = starts[name] + idx
    for name, count, first in (("left", n_left, rec[:-1] + 5), ("right", n_right, rec[:-1] + 5 + 3 * n_left)):
        coff = _offsets(count)
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
    """MetaHipMer's output, ``cid extended_sequence`` a line, ``block`` contigs at a time.

    The extended contig is the reverse complement of the left walk, the contig, then the right
    walk. The left walks of a block are reverse-complemented at once: the reverse complement of
    them all, end to end, holds each one's, last contig first.
    """
    ds = ext.dataset
    for a in range(0, ds.n_contigs, block):
        b = min(a + block, ds.n_contigs)
        left, left_lens = ext.left.bases(a, b)
        right, right_lens = ext.right.bases(a, b)
        fields = zip(_texts([f"{c} " for c in ds.cids[a:b].tolist()]),
                     pieces(revcomp(left), _offsets(left_lens[::-1]))[::-1],
                     pieces(ds.seqs, ds.offsets[a : b + 1]),
                     pieces(right, _offsets(right_lens)),
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

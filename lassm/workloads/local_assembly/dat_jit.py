# SPDX-License-Identifier: BSD-3-Clause
"""The ``.dat`` format compiled with numba: one pass over the bytes, for big files.

Each byte is read once, checked and written to its column. Importing numba is slow, so
:func:`.formats.read_dat` sends only files of :data:`.dat_bulk.JIT_MIN_BYTES` or more here
(numba's disk cache spares later compilations). :func:`dat_blocks` sizes each block, then writes
it. Like :func:`.dat_bulk.scan`, :func:`scan` answers only for a file it proves well formed, and
is stricter (a line inside a record starting with a number declines); depths are read by
Python's ``float``, as the careful reader does.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...byte_sets import offsets_of

#: Byte classes: 0 a field byte (printable ASCII), 1 space or tab, 2 newline, 3 anything else.
_CLASS = np.full(256, 3, dtype=np.uint8)
_CLASS[33:127] = 0
_CLASS[[9, 32]] = 1
_CLASS[10] = 2
_IS_BASE = np.zeros(256, dtype=np.bool_)
_IS_BASE[list(b"ACGTN")] = True

_OK, _BAD, _FULL = 0, 1, 2


@njit(cache=True)
def _next_field(buf, cls, pos):
    """Skips blanks and newlines from ``pos``: (start of the next field, or len(buf) at the end,
    or -1 at a byte no field may hold; newlines crossed)."""
    n = len(buf)
    lines = 0
    while pos < n:
        c = cls[buf[pos]]
        if c == 0:
            return pos, lines
        if c == 2:
            lines += 1
        elif c == 3:
            return -1, lines
        pos += 1
    return n, lines


@njit(cache=True)
def _field_end(buf, cls, pos):
    n = len(buf)
    while pos < n and cls[buf[pos]] == 0:
        pos += 1
    return pos


@njit(cache=True)
def _integer(buf, a, b):
    """The digits ``buf[a:b]`` as a number, or -1 (not all digits, or more than 18)."""
    if b - a > 18:
        return -1
    v = 0
    for i in range(a, b):
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return -1
        v = v * 10 + d
    return v


@njit(cache=True)
def _all_digits(buf, a, b):
    for i in range(a, b):
        if buf[i] < 48 or buf[i] > 57:
            return False
    return True


@njit(cache=True)
def _copy(buf, a, b, out, at, is_base, check):
    """Copies ``buf[a:b]`` to ``out[at:]``; False if ``check`` and a byte is not a base."""
    if check:
        for i in range(a, b):
            if not is_base[buf[i]]:
                return False
    out[at : at + b - a] = buf[a:b]
    return True


@njit(cache=True)
def _scan(buf, cls, is_base, ctg, seqs, quals, ids, depths, rec, read_len, sizes):
    """Reads every record, filling the columns and ``sizes``; returns _OK, or _BAD to decline.

    ``rec[r]``: cid, n_left, n_right, first line, contig length; ``depths`` gets each depth's text
    and a newline; ``seqs``, ``quals``, ``ids``, ``read_len`` have a row per side; ``sizes``:
    records, contig bytes, per side reads, bases and id bytes, then depth bytes."""
    n = len(buf)
    pos = 0
    line = 1
    nrec = 0
    cb = 0
    db = 0
    n_reads = np.zeros(2, np.int64)
    n_bytes = np.zeros(2, np.int64)
    n_ids = np.zeros(2, np.int64)
    counts = np.zeros(2, np.int64)  # reads of the record on each side
    while True:
        s, crossed = _next_field(buf, cls, pos)
        if s < 0:
            return _BAD
        line += crossed
        if s >= n:
            break
        if nrec >= rec.shape[0]:
            return _FULL
        cid = -1
        ctg_len = 0
        e = s
        for col in range(5):  # cid seq depth n_left n_right, all on the record's first line
            if col:
                s, crossed = _next_field(buf, cls, e)
                if s < 0 or s >= n or crossed:
                    return _BAD
            e = _field_end(buf, cls, s)
            if col == 1:
                if not _copy(buf, s, e, ctg, cb, is_base, True):
                    return _BAD
                ctg_len = e - s
                cb += ctg_len
            elif col == 2:
                _copy(buf, s, e, depths, db, is_base, False)
                db += e - s + 1
                depths[db - 1] = 10
            else:
                v = _integer(buf, s, e)
                if v < 0:
                    return _BAD
                if col == 0:
                    cid = v
                else:
                    counts[col - 3] = v
        rec[nrec, 0] = cid
        rec[nrec, 1] = counts[0]
        rec[nrec, 2] = counts[1]
        rec[nrec, 3] = line
        rec[nrec, 4] = ctg_len
        for side in range(2):
            for _ in range(counts[side]):
                r = n_reads[side]
                if r >= read_len.shape[1]:
                    return _BAD
                for col in range(3):  # id seq qual
                    s, crossed = _next_field(buf, cls, e)
                    if s < 0 or s >= n:
                        return _BAD
                    e = _field_end(buf, cls, s)
                    if crossed:
                        line += crossed
                        if _all_digits(buf, s, e):
                            return _BAD
                    if col == 0:
                        _copy(buf, s, e, ids[side], n_ids[side], is_base, False)
                        n_ids[side] += e - s + 1
                        ids[side, n_ids[side] - 1] = 10
                    elif col == 1:
                        if not _copy(buf, s, e, seqs[side], n_bytes[side], is_base, True):
                            return _BAD
                        read_len[side, r] = e - s
                    else:
                        if e - s != read_len[side, r]:
                            return _BAD
                        _copy(buf, s, e, quals[side], n_bytes[side], is_base, False)
                        n_bytes[side] += e - s
                n_reads[side] += 1
        pos = e  # the record's line must end here
        while pos < n and cls[buf[pos]] == 1:
            pos += 1
        if pos < n and cls[buf[pos]] != 2:
            return _BAD
        nrec += 1
    if nrec == 0:
        return _BAD
    sizes[0] = nrec
    sizes[1] = cb
    for side in range(2):
        sizes[2 + 3 * side] = n_reads[side]
        sizes[3 + 3 * side] = n_bytes[side]
        sizes[4 + 3 * side] = n_ids[side]
    sizes[8] = db
    return _OK


def scan(raw: bytes) -> dict | None:
    """Reads a well-formed ``.dat`` file's bytes (``raw``, the whole file): the same columns as
    :func:`.dat_bulk.scan`, whose parameters and return this shares, or None when this scanner does
    not prove the file well formed."""
    buf = np.frombuffer(raw, dtype=np.uint8)
    n = len(buf)
    # Capacities no well-formed file exceeds (a read takes 6 bytes or more), but for records;
    # the pages of the untouched part are never allocated.
    records = n // 64 + 16  # a guess; if it is short, the scan runs again with the bound
    ctg, depth_text = np.empty(n, dtype=np.uint8), np.empty(n, dtype=np.uint8)
    seqs, quals, ids = (np.empty((2, n), dtype=np.uint8) for _ in range(3))
    rec = np.empty((records, 5), dtype=np.int64)
    read_len = np.empty((2, n // 6 + 1), dtype=np.int32)
    sizes = np.zeros(9, dtype=np.int64)
    status = _scan(buf, _CLASS, _IS_BASE, ctg, seqs, quals, ids, depth_text, rec, read_len, sizes)
    if status == _FULL:  # every record ends a line
        rec = np.empty((raw.count(b"\n") + 1, 5), dtype=np.int64)
        status = _scan(buf, _CLASS, _IS_BASE, ctg, seqs, quals, ids, depth_text, rec, read_len, sizes)
    if status != _OK:
        return None
    try:  # the careful reader's own conversion, so the same numbers and the same refusals
        depths = np.fromiter(map(float, depth_text[: sizes[8] - 1].tobytes().split(b"\n")), dtype=np.float64,
                             count=int(sizes[0]))
    except ValueError:
        return None
    if not np.all(np.isfinite(depths) & (depths >= 0)):
        return None
    nrec, cb = int(sizes[0]), int(sizes[1])
    rec = rec[:nrec]
    sides = []
    for side in range(2):
        nr, nb, ni = (int(v) for v in sizes[2 + 3 * side : 5 + 3 * side])
        id_list = ids[side, : ni - 1].tobytes().decode("ascii").split("\n") if nr else []
        sides.append((seqs[side, :nb], quals[side, :nb], offsets_of(read_len[side, :nr].astype(np.int64)),
                      offsets_of(rec[:, 1 + side]), id_list))
    # The base columns stay views of their buffers: copying would cost as much as the scan, and
    # the pages past their ends were never touched, so they take no memory.
    return {"cids": rec[:, 0].copy(), "seqs": ctg[:cb], "offsets": offsets_of(rec[:, 4]),
            "depths": depths, "left": sides[0], "right": sides[1], "lines": rec[:, 3].copy()}


# --- writing ---------------------------------------------------------------------------------

@njit(cache=True)
def _put_int(out, at, v, write):
    """Writes the decimal digits of ``v >= 0`` at ``out[at:]``; returns the end."""
    digits = 1
    t = v // 10
    while t > 0:
        t //= 10
        digits += 1
    if write:
        p = at + digits - 1
        for _ in range(digits):
            out[p] = 48 + v % 10
            v //= 10
            p -= 1
    return at + digits


@njit(cache=True)
def _put(out, at, src, a, b, write):
    if write:
        out[at : at + b - a] = src[a:b]
    return at + b - a


@njit(cache=True)
def _put_byte(out, at, c, write):
    if write:
        out[at] = c
    return at + 1


@njit(cache=True)
def _dat_text(out, write, first, cids, ctg, ctg_off, depth_int, depth_txt, depth_off, counts, coffs, roffs,
              seqs, quals, ids, id_off, has_ids):
    """Records ``first ..`` (as many as ``cids``) as ``.dat`` lines in ``out``; returns their size
    (with ``write`` False, the size alone). A depth is ``depth_int[i]`` when not negative, else its
    text; reads without ids are named ``@r<contig>_<read>``."""
    at = 0
    for r in range(len(cids)):
        i = first + r
        at = _put_int(out, at, cids[r], write)
        at = _put_byte(out, at, 32, write)
        at = _put(out, at, ctg, ctg_off[i], ctg_off[i + 1], write)
        at = _put_byte(out, at, 32, write)
        if depth_int[r] >= 0:
            at = _put_int(out, at, depth_int[r], write)
        else:
            at = _put(out, at, depth_txt, depth_off[r], depth_off[r + 1], write)
        for side in range(2):
            at = _put_byte(out, at, 32, write)
            at = _put_int(out, at, counts[side, r], write)
        for side in range(2):
            for j in range(coffs[side, i], coffs[side, i] + counts[side, r]):
                at = _put_byte(out, at, 32, write)
                if has_ids[side]:
                    at = _put(out, at, ids[side], id_off[side][j], id_off[side][j + 1] - 1, write)
                else:
                    at = _put_byte(out, at, 64, write)
                    at = _put_byte(out, at, 114, write)
                    at = _put_int(out, at, i, write)
                    at = _put_byte(out, at, 95, write)
                    at = _put_int(out, at, j, write)
                at = _put_byte(out, at, 32, write)
                at = _put(out, at, seqs[side], roffs[side][j], roffs[side][j + 1], write)
                at = _put_byte(out, at, 32, write)
                at = _put(out, at, quals[side], roffs[side][j], roffs[side][j + 1], write)
        at = _put_byte(out, at, 10, write)
    return at


def _id_buffer(ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every id followed by a newline, as one buffer, and where each starts."""
    if not ids:
        return np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64)
    data = bytearray(("\n".join(ids) + "\n").encode("ascii"))
    off = offsets_of(np.fromiter(map(len, ids), dtype=np.int64, count=len(ids)) + 1)
    return np.frombuffer(data, dtype=np.uint8), off


def _pair(arrays) -> tuple[np.ndarray, np.ndarray]:
    """Both sides' arrays as one tuple numba can index by side: of one numba type, so contiguous
    and writable (copied only if not)."""
    return tuple(a if a.flags.c_contiguous and a.flags.writeable else a.copy() for a in arrays)


def writable(ds) -> bool:
    """Whether :func:`dat_blocks` can write ``ds``: it writes contig ids that are not negative."""
    return bool(np.all(ds.cids >= 0))


def dat_blocks(ds, block: int = 1 << 18):
    """The dataset as ``.dat`` text, ``block`` records at a time, byte for byte as
    :func:`.dat_bulk.dat_blocks` writes it (for a dataset :func:`writable` accepts)."""
    from .dat_bulk import fmt_depth

    sides = (ds.left, ds.right)
    id_bufs = [_id_buffer(r.ids) for r in sides]
    ids = _pair(b for b, _ in id_bufs)
    id_off = _pair(o for _, o in id_bufs)
    seqs = _pair(r.seqs for r in sides)
    quals = _pair(r.quals for r in sides)
    roffs = _pair(r.offsets for r in sides)
    coffs = np.stack([r.contig_offsets for r in sides])
    has_ids = np.array([bool(r.ids) for r in sides])
    for a in range(0, ds.n_contigs, block):
        b = min(a + block, ds.n_contigs)
        depths = ds.depths[a:b]
        whole = np.isfinite(depths) & (depths == np.floor(depths)) & (depths >= 0) & (depths < 2.0**62)
        depth_int = np.where(whole, depths, -1).astype(np.int64)
        texts = [fmt_depth(d) for d in depths[~whole].tolist()]
        txt = "".join(texts).encode("ascii")
        txt_len = np.zeros(b - a, dtype=np.int64)
        txt_len[~whole] = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        txt_off = offsets_of(txt_len)
        counts = np.stack([r.counts[a:b] for r in sides])
        args = (a, ds.cids[a:b], ds.seqs, ds.offsets, depth_int, np.frombuffer(txt, dtype=np.uint8), txt_off,
                counts, coffs, roffs, seqs, quals, ids, id_off, has_ids)
        size = _dat_text(np.zeros(0, dtype=np.uint8), False, *args)
        out = np.empty(size, dtype=np.uint8)
        _dat_text(out, True, *args)
        yield out

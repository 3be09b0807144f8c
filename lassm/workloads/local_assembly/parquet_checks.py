# SPDX-License-Identifier: BSD-3-Clause
"""A Parquet dataset's values refused where the ``.dat`` reader refuses them in text, checked a
column at a time and named by row, contig and read.
"""
from __future__ import annotations

import numpy as np

from ...errors import InputError
from ...arrowio import side_by_side
from ...byte_sets import first_outside

#: The bases a contig or a read may hold, in either format.
BASES = frozenset(b"ACGTN")


_BASE_MASK = np.zeros(256, dtype=bool)
_BASE_MASK[list(BASES)] = True
_QUAL_MASK = np.zeros(256, dtype=bool)
_QUAL_MASK[33:127] = True


#: Columns of a dataset table: the contig's (name: what it must hold) and each side's read lists.
CONTIG_COLUMNS = {"cid": "integers", "depth": "numbers", "seq": "byte strings"}
READ_COLUMNS = ("ids", "seqs", "quals")


def check_schema(path: str, table) -> None:
    """Each column of the kind the reader reads, with no nulls (none inside a read list either):
    a column of another kind is refused by name, not met later as a failed cast."""
    import pyarrow as pa

    def text(kind) -> bool:
        return pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_string(kind) or \
            pa.types.is_large_string(kind)

    tests = {"integers": pa.types.is_integer, "byte strings": text,
             "numbers": lambda t: pa.types.is_integer(t) or pa.types.is_floating(t)}
    for column, what in CONTIG_COLUMNS.items():
        kind, nulls = table.schema.field(column).type, table.column(column).null_count
        if not tests[what](kind) or nulls:
            raise InputError(path, None, column, f"a column of {kind}{' with nulls' if nulls else ''}, not {what}")
    for column in (f"{side}_{c}" for side in ("left", "right") for c in READ_COLUMNS):
        kind = table.schema.field(column).type
        if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) or not text(kind.value_type):
            raise InputError(path, None, column, f"a column of {kind}, not lists of byte strings")
        col = table.column(column)
        nulls = col.null_count + sum(chunk.flatten().null_count for chunk in col.chunks)
        if nulls:
            raise InputError(path, None, column, f"{nulls} null value(s), not lists of byte strings")


def check_values(path: str, cids: np.ndarray, seqs: np.ndarray, offsets: np.ndarray, depths: np.ndarray,
                         sides: dict, threads: int = 1) -> None:
    """Refuses, as :func:`read_dat` does in text, a negative contig id, a base other than A, C, G, T,
    N, a depth not finite and >= 0, a quality outside ASCII 33..126; names the first fault's row
    (from 1), contig and read, checking columns on up to ``threads`` threads."""
    row = lambda i: int(i) + 1  # noqa: E731
    neg = np.flatnonzero(cids < 0)
    if len(neg):
        raise InputError(path, None, f"row {row(neg[0])} cid", f"{cids[neg[0]]} is not a non-negative integer contig id")
    columns = [(seqs, _BASE_MASK)] + [(values, mask) for reads in sides.values()
                                      for values, mask in ((reads.seqs, _BASE_MASK), (reads.quals, _QUAL_MASK))]
    firsts = iter(side_by_side(lambda pair: first_outside(*pair), columns, threads))
    at = next(firsts)
    if at >= 0:
        r = int(np.searchsorted(offsets, at, side="right")) - 1
        raise InputError(path, None, f"row {row(r)} (contig {cids[r]}) seq",
                         f"base {chr(seqs[at])!r} at position {at - int(offsets[r]) + 1} is not one of A, C, G, T, N")
    bad = np.flatnonzero(~(np.isfinite(depths) & (depths >= 0)))
    if len(bad):
        raise InputError(path, None, f"row {row(bad[0])} (contig {cids[bad[0]]}) depth",
                         f"{float(depths[bad[0]])!r} must be finite and >= 0")
    for name, reads in sides.items():
        for values, mask, column, what in ((reads.seqs, _BASE_MASK, "seqs", "base {c!r} is not one of A, C, G, T, N"),
                                           (reads.quals, _QUAL_MASK, "quals",
                                            "quality character {c!r} is outside printable ASCII 33..126")):
            at = next(firsts)
            if at < 0:
                continue
            read = int(np.searchsorted(reads.offsets, at, side="right")) - 1
            r = int(np.searchsorted(reads.contig_offsets, read, side="right")) - 1
            which = read - int(reads.contig_offsets[r]) + 1
            raise InputError(path, None, f"row {row(r)} (contig {cids[r]}) {name}_{column} read {which}",
                             what.format(c=chr(values[at])))


def refuse_repeated_cids(path: str, cids: np.ndarray, where: np.ndarray, unit: str) -> None:
    """Raises an InputError at the first contig id seen twice, naming both copies' ``where`` (line of a
    ``.dat``, row of a parquet, from 1, per ``unit``); the output is keyed by id, so a repeat is
    refused rather than guessed at."""
    order = np.argsort(cids, kind="stable")
    same = np.flatnonzero(cids[order][1:] == cids[order][:-1])
    if not len(same):
        return
    second = int(order[same + 1].min())  # the earliest record whose id was seen before
    first = int(np.flatnonzero(cids == cids[second])[0])
    what = f"contig id {int(cids[second])} repeats the record at {unit} {int(where[first])}; contig ids must be unique"
    if unit == "line":
        raise InputError(path, int(where[second]), "cid", what)
    raise InputError(path, None, "cid", f"row {int(where[second])}: {what}")


__all__ = ["BASES", "check_values", "refuse_repeated_cids"]

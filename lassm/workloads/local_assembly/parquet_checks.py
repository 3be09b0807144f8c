# SPDX-License-Identifier: BSD-3-Clause
"""A Parquet dataset's values refused where the ``.dat`` reader refuses them in text.

:func:`lassm.workloads.local_assembly.formats.read_dat` checks every field as it parses it; a
Parquet dataset arrives as whole columns, so the same rules run over the columns at once (one
NumPy pass each) and the first fault is named by row, contig and read.
"""
from __future__ import annotations

import numpy as np

from ...errors import InputError

#: The bases a contig or a read may hold, in either format.
BASES = frozenset(b"ACGTN")


def _first_bad(values: np.ndarray, allowed: np.ndarray) -> int:
    """Index of the first byte of ``values`` not in ``allowed`` (a 256-entry mask), or -1."""
    bad = np.flatnonzero(~allowed[values])
    return int(bad[0]) if len(bad) else -1


_BASE_MASK = np.zeros(256, dtype=bool)
_BASE_MASK[list(BASES)] = True
_QUAL_MASK = np.zeros(256, dtype=bool)
_QUAL_MASK[33:127] = True


def check_values(path: str, cids: np.ndarray, seqs: np.ndarray, offsets: np.ndarray, depths: np.ndarray,
                         sides: dict) -> None:
    """Refuses, as :func:`read_dat` refuses the same in text, a Parquet dataset's values: a
    negative contig id, a contig or read base other than A, C, G, T, N, a depth that is not
    finite and >= 0, a quality character outside printable ASCII 33..126. The message names the
    row (from 1), the contig and the read."""
    row = lambda i: int(i) + 1  # noqa: E731
    neg = np.flatnonzero(cids < 0)
    if len(neg):
        raise InputError(path, None, f"row {row(neg[0])} cid", f"{cids[neg[0]]} is not a non-negative integer contig id")
    at = _first_bad(seqs, _BASE_MASK)
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
            at = _first_bad(values, mask)
            if at < 0:
                continue
            read = int(np.searchsorted(reads.offsets, at, side="right")) - 1
            r = int(np.searchsorted(reads.contig_offsets, read, side="right")) - 1
            which = read - int(reads.contig_offsets[r]) + 1
            raise InputError(path, None, f"row {row(r)} (contig {cids[r]}) {name}_{column} read {which}",
                             what.format(c=chr(values[at])))


__all__ = ["BASES", "check_values"]

# SPDX-License-Identifier: BSD-3-Clause
"""Tunables of the X-drop kernel, in one place: the linear scoring scheme and X.

SeqAn 2's ``extendSeed(..., GappedXDrop())`` takes a ``Score<int, Simple>`` with linear gaps and
drops a cell more than X below the best score seen. The defaults are LOGAN's and BELLA's: match
+1, mismatch -1, gap -1, 17-mer seeds. Every backend receives a :class:`Scoring` explicitly,
and every result records it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

#: LOGAN's and BELLA's scores (match, mismatch, gap).
DEFAULT_MATCH = 1
DEFAULT_MISMATCH = -1
DEFAULT_GAP = -1
#: The drop-off used when none is given; LOGAN's study sweeps X, so runs name theirs.
DEFAULT_XDROP = 100
#: LOGAN's seed (k-mer) length.
DEFAULT_SEED_LENGTH = 17
#: Bounds that keep every sum of SeqAn's 32-bit scores away from overflow, except the one
#: SeqAn itself overflows in (an undefined cell plus a mismatch below the gap; the oracle
#: reproduces that wrap-around, see :mod:`lassm.backends.xdrop.xdrop_cpu`).
MAX_ABS_SCORE = 1000
MAX_XDROP = 1 << 24


@dataclass(frozen=True)
class Scoring:
    """A linear scoring scheme and the X-drop threshold: ``match`` > 0, ``mismatch`` < 0, ``gap`` < 0
    (open = extend), ``xdrop`` >= 0."""

    match: int = DEFAULT_MATCH
    mismatch: int = DEFAULT_MISMATCH
    gap: int = DEFAULT_GAP
    xdrop: int = DEFAULT_XDROP

    def __post_init__(self) -> None:
        if not 0 < int(self.match) <= MAX_ABS_SCORE:
            raise ValueError(f"match = {self.match} must be in 1..{MAX_ABS_SCORE}")
        for name in ("mismatch", "gap"):
            value = int(getattr(self, name))
            if not -MAX_ABS_SCORE <= value < 0:
                raise ValueError(f"{name} = {value} must be in -{MAX_ABS_SCORE}..-1 (SeqAn's X-drop needs it below 0)")
        if not 0 <= int(self.xdrop) <= MAX_XDROP:
            raise ValueError(f"xdrop = {self.xdrop} must be in 0..{MAX_XDROP}")

    def as_dict(self) -> dict:
        """Returns the scheme as a plain dict, for provenance records."""
        return asdict(self)

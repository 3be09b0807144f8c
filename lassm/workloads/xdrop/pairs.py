# SPDX-License-Identifier: BSD-3-Clause
"""The one in-memory form of an X-drop input: read pairs, each with an exact seed.

Pair ``i`` is a horizontal read H (SeqAn's "database") and a vertical read V (its "query") with a
seed of ``seed_len[i]`` bases at ``pos_h[i]`` in H and ``pos_v[i]`` in V. Reads live in flat
``uint8`` buffers with ``int64`` offsets: H of pair ``i`` is ``seqs_h[offsets_h[i]:offsets_h[i+1]]``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...byte_sets import offsets_of
from ...byte_sets import check_offsets

#: The bases a read may hold (SeqAn's Dna5: anything else would silently become N).
BASES = b"ACGTN"


def _flat(seqs: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = offsets_of(np.fromiter((len(s) for s in seqs), np.int64, len(seqs)))
    return np.frombuffer(b"".join(seqs), dtype=np.uint8).copy(), offsets


@dataclass(frozen=True, eq=False)
class Pairs:
    """Read pairs and their seeds.

    Parameters
    ----------
    seqs_h, offsets_h : the H reads, bases (uint8) and int64 offsets, ``n_pairs + 1``.
    seqs_v, offsets_v : the V reads, likewise.
    pos_h, pos_v : int64, where each seed starts in H and in V.
    seed_len : int64, each seed's length (0 allowed: an empty seed).
    provenance : how the pairs were made (the generator's knobs), recorded with them.
    """

    seqs_h: np.ndarray
    offsets_h: np.ndarray
    seqs_v: np.ndarray
    offsets_v: np.ndarray
    pos_h: np.ndarray
    pos_v: np.ndarray
    seed_len: np.ndarray
    name: str = "pairs"
    provenance: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("seqs_h", "seqs_v"):
            arr = getattr(self, name)
            if arr.dtype != np.uint8 or arr.ndim != 1:
                raise TypeError(f"Pairs.{name} must be a 1-D uint8 array")
        check_offsets("Pairs.offsets_h", self.offsets_h, len(self.seqs_h))
        check_offsets("Pairs.offsets_v", self.offsets_v, len(self.seqs_v))
        n = len(self.offsets_h) - 1
        if len(self.offsets_v) - 1 != n:
            raise ValueError(f"Pairs: {n} H reads but {len(self.offsets_v) - 1} V reads")
        for name in ("pos_h", "pos_v", "seed_len"):
            arr = getattr(self, name)
            if arr.dtype != np.int64 or arr.shape != (n,):
                raise TypeError(f"Pairs.{name} must be a 1-D int64 array of {n} values, got {arr.dtype} {arr.shape}")
        bad = np.flatnonzero((self.pos_h < 0) | (self.pos_v < 0) | (self.seed_len < 0)
                             | (self.pos_h + self.seed_len > self.lengths_h)
                             | (self.pos_v + self.seed_len > self.lengths_v))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"pair {i}: the seed ({self.pos_h[i]}, {self.pos_v[i]}, length {self.seed_len[i]}) "
                             f"is not inside both reads ({self.lengths_h[i]}, {self.lengths_v[i]} bases)")

    @property
    def n_pairs(self) -> int:
        return len(self.offsets_h) - 1

    @property
    def lengths_h(self) -> np.ndarray:
        return np.diff(self.offsets_h)

    @property
    def lengths_v(self) -> np.ndarray:
        return np.diff(self.offsets_v)

    def pair(self, i: int) -> tuple[bytes, int, bytes, int, int]:
        """Pair ``i`` as ``(H, pos_h, V, pos_v, seed_len)``, the driver's line."""
        h = self.seqs_h[self.offsets_h[i]:self.offsets_h[i + 1]].tobytes()
        v = self.seqs_v[self.offsets_v[i]:self.offsets_v[i + 1]].tobytes()
        return h, int(self.pos_h[i]), v, int(self.pos_v[i]), int(self.seed_len[i])

    @staticmethod
    def from_lists(rows: list[tuple[bytes, int, bytes, int, int]], name: str = "pairs",
                   provenance: dict | None = None) -> "Pairs":
        """Builds the flat form from ``[(H, pos_h, V, pos_v, seed_len), ...]``."""
        seqs_h, off_h = _flat([r[0] for r in rows])
        seqs_v, off_v = _flat([r[2] for r in rows])
        col = lambda j: np.fromiter((r[j] for r in rows), np.int64, len(rows))  # noqa: E731
        return Pairs(seqs_h, off_h, seqs_v, off_v, col(1), col(3), col(4), name=name,
                     provenance=dict(provenance or {}))


def seed_scores(pairs: Pairs, match: int, mismatch: int) -> np.ndarray:
    """Each seed's own score: ``match`` per equal base pair, ``mismatch`` per other (int64).

    SeqAn's Simple score compares Dna5 values, so N against N is a match, as byte equality is.
    """
    n = pairs.seed_len
    pair_of = np.repeat(np.arange(pairs.n_pairs), n)
    within = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    h = pairs.seqs_h[pairs.offsets_h[:-1][pair_of] + pairs.pos_h[pair_of] + within]
    v = pairs.seqs_v[pairs.offsets_v[:-1][pair_of] + pairs.pos_v[pair_of] + within]
    per_base = np.where(h == v, np.int64(match), np.int64(mismatch))
    return np.bincount(pair_of, weights=per_base, minlength=pairs.n_pairs).astype(np.int64)

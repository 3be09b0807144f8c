# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic read pairs like LOGAN's benchmark: two noisy reads of one stretch, and a seed.

LOGAN times 100K pairs of 2,500-7,500-base reads differing by 15 % errors. Here H is a random
stretch and V a copy with substitutions, insertions and deletions; the seed is the error-free
shared k-mer nearest the middle of H. A share of pairs can be unrelated apart from the seed
(spurious candidates). The same knobs and ``seed`` give the same pairs, byte for byte.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .scoring import DEFAULT_SEED_LENGTH
from .pairs import Pairs

_ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)


@dataclass(frozen=True)
class PairKnobs:
    """What :func:`generate` draws; recorded as the pairs' provenance.

    Parameters
    ----------
    min_length, max_length : the H read's length is drawn uniformly in this range.
    error_rate : the share of V's alignment columns that are errors, 0 <= rate < 1.
    indel_share : the share of errors that are insertions or deletions (half each).
    unrelated : the share of pairs whose V is random apart from the seed.
    """

    n_pairs: int = 100
    min_length: int = 2500
    max_length: int = 7500
    error_rate: float = 0.15
    indel_share: float = 0.5
    seed_length: int = DEFAULT_SEED_LENGTH
    unrelated: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_pairs < 1:
            raise ValueError(f"n_pairs = {self.n_pairs} must be at least 1")
        if not 1 <= self.seed_length <= self.min_length <= self.max_length:
            raise ValueError(f"need 1 <= seed_length ({self.seed_length}) <= min_length ({self.min_length}) "
                             f"<= max_length ({self.max_length})")
        if not 0 <= self.error_rate < 1:
            raise ValueError(f"error_rate = {self.error_rate} must be in [0, 1)")
        for name in ("indel_share", "unrelated"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} = {getattr(self, name)} must be in [0, 1]")
        if self.seed < 0:
            raise ValueError(f"seed = {self.seed} must be 0 or above")


def _noisy_copy(h: np.ndarray, knobs: PairKnobs, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """V, and for each base of H the position of its error-free copy in V (-1 where none); each H base
    is independently substituted, preceded by an insertion, deleted or copied."""
    n = len(h)
    kind = rng.random(n)
    sub_p = knobs.error_rate * (1 - knobs.indel_share)
    ins_p = sub_p + knobs.error_rate * knobs.indel_share / 2
    sub, ins = kind < sub_p, (kind >= sub_p) & (kind < ins_p)
    gone = (kind >= ins_p) & (kind < knobs.error_rate)
    emits = np.where(gone, 0, np.where(ins, 2, 1))
    start = np.cumsum(emits) - emits  # where each base's output begins in V
    v = np.empty(int(emits.sum()), dtype=np.uint8)
    code = np.searchsorted(_ACGT, h)
    subst = _ACGT[(code + rng.integers(1, 4, n)) % 4]
    kept = ~gone
    v[start[kept] + ins[kept]] = np.where(sub, subst, h)[kept]  # an insertion's copy follows it
    v[start[ins]] = _ACGT[rng.integers(0, 4, int(ins.sum()))]
    where = np.where(sub | gone, -1, start + ins).astype(np.int64)
    return v, where


def _seed_nearest_middle(where: np.ndarray, k: int) -> int | None:
    """The start in H of the error-free run of ``k`` bases nearest H's middle, or None."""
    n = len(where)
    if n < k:
        return None
    good = where >= 0
    link = good[:-1] & good[1:] & (np.diff(where) == 1)  # base i and i + 1 copied side by side
    links = np.concatenate(([0], np.cumsum(link)))
    starts = np.flatnonzero(good[:n - k + 1] & (links[k - 1:] - links[:n - k + 1] == k - 1))
    if not len(starts):
        return None
    middle = (n - k) // 2
    return int(starts[np.argmin(np.abs(starts - middle))])


def generate(knobs: PairKnobs | None = None, name: str | None = None) -> Pairs:
    """Draws ``knobs.n_pairs`` read pairs (default knobs: LOGAN's), each with an exact seed of
    ``knobs.seed_length`` bases, labelled ``name`` (default from the knobs), ``knobs`` as provenance."""
    knobs = knobs or PairKnobs()
    rng = np.random.default_rng(knobs.seed)
    rows = []
    k = knobs.seed_length
    for _ in range(knobs.n_pairs):
        for _attempt in range(1000):
            h = _ACGT[rng.integers(0, 4, rng.integers(knobs.min_length, knobs.max_length + 1))]
            v, where = _noisy_copy(h, knobs, rng)
            start = _seed_nearest_middle(where, k)
            if start is not None:
                break
        else:
            raise ValueError(f"no error-free run of {k} bases in 1000 draws: lower error_rate or seed_length")
        pos_v = int(where[start])
        if rng.random() < knobs.unrelated:  # V: fresh bases around the seed's k-mer
            v = _ACGT[rng.integers(0, 4, len(v))]
            v[pos_v:pos_v + k] = h[start:start + k]
        rows.append((h.tobytes(), start, v.tobytes(), pos_v, k))
    label = name or f"xdrop-n{knobs.n_pairs}-e{knobs.error_rate:g}-s{knobs.seed}"
    return Pairs.from_lists(rows, name=label, provenance={"generator": "lassm.workloads.xdrop.synthetic_pairs",
                                                          **asdict(knobs)})

# SPDX-License-Identifier: BSD-3-Clause
"""What a backend returns: the walk of every contig end, plus the work it took.

Backends compute one side at a time (:class:`SideResult`, in the side's own orientation);
:class:`Extension` joins the two sides with the contigs into MetaHipMer's extended contigs.
Every backend must produce bit-identical ``SideResult`` fields (timing aside).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .dat_bulk import extended_blocks
from .dataset import Dataset, revcomp

#: Termination codes: 0 = no walk was tried.
TERM_CODES = {0: "-", ord("X"): "X", ord("F"): "F", ord("R"): "R"}


@dataclass(eq=False)
class SideResult:
    """Walks of one side for every contig.

    Parameters
    ----------
    walks : uint8, ``n_contigs * max_walk``; walk ``i`` is ``walks[i*max_walk : i*max_walk + walk_len[i]]``.
    walk_len : int32, bases in the kept (longest) walk.
    final_k : int32, k of the kept walk (0 when no walk was run or none was kept).
    term : uint8, termination code of the kept walk: ``X`` dead end, ``F`` fork, ``R`` loop, 0 none.
    n_k : int32, number of k values tried.
    steps : int64, walk steps taken over all k values (table look-ups that extended the walk).
    insertions : int64, hash-table insertions (k-mers counted) over all k values.
    start_insertions : int64, insertions at the start k only.
    """

    max_walk: int
    walks: np.ndarray
    walk_len: np.ndarray
    final_k: np.ndarray
    term: np.ndarray
    n_k: np.ndarray
    steps: np.ndarray
    insertions: np.ndarray
    start_insertions: np.ndarray
    kernel_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @staticmethod
    def empty(n: int, max_walk: int) -> "SideResult":
        return SideResult(
            max_walk=max_walk,
            walks=np.zeros(n * max_walk, dtype=np.uint8),
            walk_len=np.zeros(n, dtype=np.int32),
            final_k=np.zeros(n, dtype=np.int32),
            term=np.zeros(n, dtype=np.uint8),
            n_k=np.zeros(n, dtype=np.int32),
            steps=np.zeros(n, dtype=np.int64),
            insertions=np.zeros(n, dtype=np.int64),
            start_insertions=np.zeros(n, dtype=np.int64),
        )

    def walk(self, i: int) -> bytes:
        a = i * self.max_walk
        return self.walks[a : a + int(self.walk_len[i])].tobytes()

    def scatter(self, index: np.ndarray, part: "SideResult") -> None:
        """Copies ``part`` (results for contigs ``index``) into this result, in place."""
        for name in ("walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions"):
            getattr(self, name)[index] = getattr(part, name)
        mine = self.walks.reshape(-1, self.max_walk)
        mine[index] = part.walks.reshape(-1, self.max_walk)
        self.kernel_seconds += part.kernel_seconds

    def compare(self, other: "SideResult") -> list[str]:
        """Names the fields in which two results differ (empty when bit-identical)."""
        diffs = []
        for name in ("walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions"):
            a, b = getattr(self, name), getattr(other, name)
            if a.shape != b.shape or not np.array_equal(a, b):
                bad = np.flatnonzero(a != b) if a.shape == b.shape else []
                diffs.append(f"{name} ({len(bad)} contigs, first at {bad[:5].tolist()})")
        n = len(self.walk_len)
        if self.max_walk == other.max_walk and not diffs:
            w1 = self.walks.reshape(n, -1)
            w2 = other.walks.reshape(n, -1)
            mask = np.arange(self.max_walk)[None, :] < self.walk_len[:, None]
            bad = np.flatnonzero(np.any((w1 != w2) & mask, axis=1))
            if len(bad):
                diffs.append(f"walks ({len(bad)} contigs, first at {bad[:5].tolist()})")
        return diffs


@dataclass(eq=False)
class Extension:
    """Both sides' walks of a dataset, and the extended contigs they make."""

    dataset: Dataset
    right: SideResult
    left: SideResult
    backend: str
    params: dict
    wall_seconds: float = 0.0

    @property
    def kernel_seconds(self) -> float:
        return self.right.kernel_seconds + self.left.kernel_seconds

    def extended(self, i: int) -> bytes:
        """Returns contig ``i`` extended: reverse-complemented left walk + contig + right walk."""
        left = self.left.walk(i)
        left_rc = revcomp(np.frombuffer(left, dtype=np.uint8)).tobytes() if left else b""
        return left_rc + self.dataset.contig(i) + self.right.walk(i)

    def lines(self) -> list[str]:
        """MetaHipMer's output lines, ``cid extended_sequence``, in input order."""
        return b"".join(extended_blocks(self)).decode("ascii").splitlines()

    def ends_columns(self) -> dict[str, np.ndarray]:
        """Per contig end (right ends first): cid, side, reads, walk length, final k, termination,
        k values tried, walk steps and insertions: the ``ends`` table of every run record."""
        n = self.dataset.n_contigs
        cols: dict[str, list] = {}
        for side, res, reads in (("right", self.right, self.dataset.right), ("left", self.left, self.dataset.left)):
            part = {"cid": self.dataset.cids, "side": np.full(n, side), "reads": reads.counts,
                    "walk_len": res.walk_len, "final_k": res.final_k,
                    "term": np.array([chr(t) if t else "-" for t in res.term]), "n_k": res.n_k,
                    "steps": res.steps, "insertions": res.insertions, "start_insertions": res.start_insertions}
            for key, val in part.items():
                cols.setdefault(key, []).append(val)
        return {key: np.concatenate(val) for key, val in cols.items()}

    def compare(self, other: "Extension") -> list[str]:
        """Names what differs from another backend's extension of the same dataset."""
        return [f"right {d}" for d in self.right.compare(other.right)] + [
            f"left {d}" for d in self.left.compare(other.left)
        ]

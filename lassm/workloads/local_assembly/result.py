# SPDX-License-Identifier: BSD-3-Clause
"""What a backend returns: the walk of every contig end, plus the work it took.

Backends compute a side at a time (:class:`SideResult`, in the side's orientation);
:class:`Extension` joins both sides with the contigs into MetaHipMer's extended contigs. Every
backend's ``SideResult`` fields are bit-identical, timing aside.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from ...byte_sets import offsets_of
from .dat_bulk import extended_blocks
from .dataset import Dataset, revcomp
from .figures import SideFigures


#: Text of every termination code, indexed by the code (0 reads ``-``): the ends table of a
#: million-contig set in one take instead of a Python loop per end.
_TERM_TEXT = np.array(["-"] + [chr(c) for c in range(1, 256)])

#: The per-contig fields besides the walks themselves.
FIELDS = ("walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions")

#: The sides in the order of the ``ends`` table: right ends first.
SIDES = ("right", "left")


@dataclass(eq=False)
class SideResult:
    """Walks of one side for every contig.

    Two layouts of the walks: **dense**, what the backends write (a ``max_walk`` row per contig),
    and **ragged** (:meth:`compact`, ``offsets`` set): the walks end to end. Most walks are a few
    bases long, so shards travel and merge ragged (:meth:`gathered`).

    Parameters
    ----------
    walks : uint8; dense: ``n_contigs * max_walk``, walk ``i`` is ``walks[i*max_walk : i*max_walk + walk_len[i]]``;
        ragged: walk ``i`` is ``walks[offsets[i] : offsets[i + 1]]``.
    walk_len : int32, bases in the kept (longest) walk.
    final_k : int32, k of the kept walk (0 when no walk was run or none was kept).
    term : uint8, termination code of the kept walk: ``X`` dead end, ``F`` fork, ``R`` loop, 0 none.
    n_k : int32, number of k values tried.
    steps : int64, walk steps taken over all k values (table look-ups that extended the walk).
    insertions : int64, hash-table insertions (k-mers counted) over all k values.
    start_insertions : int64, insertions at the start k only.
    offsets : int64, ``n_contigs + 1``, only in the ragged layout (None: dense).
    extra : what the backend reports besides the walks (:class:`~.figures.SideFigures`).
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
    extra: SideFigures = field(default_factory=SideFigures)
    offsets: np.ndarray | None = None

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
        a = int(self.offsets[i]) if self.offsets is not None else i * self.max_walk
        return self.walks[a : a + int(self.walk_len[i])].tobytes()

    def bases(self, a: int = 0, b: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Walks ``a .. b-1`` in either layout: their bases end to end and their int64 lengths, indexing
        one int64 per walked base rather than masking every ``max_walk`` slot."""
        b = len(self.walk_len) if b is None else b
        lens = self.walk_len[a:b].astype(np.int64)
        if self.offsets is not None:
            return self.walks[int(self.offsets[a]) : int(self.offsets[b])], lens
        new_off = offsets_of(lens)
        rows = np.arange(a, b, dtype=np.int64) * int(self.max_walk)
        index = np.arange(int(new_off[-1]), dtype=np.int64) + np.repeat(rows - new_off[:-1], lens)
        return self.walks[index], lens

    def compact(self) -> "SideResult":
        """This result in the ragged layout (itself when it is already): what a shard ships."""
        if self.offsets is not None:
            return self
        flat, lens = self.bases()
        return replace(self, walks=flat, offsets=offsets_of(lens))

    @staticmethod
    def gathered(n: int, max_walk: int, parts: Sequence[tuple[np.ndarray, "SideResult"]]) -> "SideResult":
        """One ragged result of ``n`` contigs from ``(index, part)`` pairs covering each contig once, in
        any order; each part's bases land with one vectorized copy."""
        out = SideResult.empty(0, max_walk)
        for name in FIELDS:
            setattr(out, name, np.zeros(n, dtype=getattr(out, name).dtype))
        parts = [(np.asarray(index, dtype=np.int64), part.compact()) for index, part in parts]
        for index, part in parts:
            for name in FIELDS:
                getattr(out, name)[index] = getattr(part, name)
            out.kernel_seconds += part.kernel_seconds
        offsets = out.offsets = offsets_of(out.walk_len.astype(np.int64))
        out.walks = np.empty(int(offsets[-1]), dtype=np.uint8)
        for index, part in parts:
            if not len(index):
                continue
            a, b = int(index[0]), int(index[-1]) + 1
            if b - a == len(index) and np.array_equal(index, np.arange(a, b)):
                out.walks[offsets[a] : offsets[b]] = part.walks
                continue
            lens = part.walk_len.astype(np.int64)
            assert part.offsets is not None  # compact: ragged
            dest = np.repeat(offsets[index] - part.offsets[:-1], lens) + np.arange(len(part.walks), dtype=np.int64)
            out.walks[dest] = part.walks
        return out

    def scatter(self, index: np.ndarray, part: "SideResult") -> None:
        """Copies ``part`` (results for contigs ``index``, either layout) into this dense result, in place."""
        if self.offsets is not None:
            raise ValueError("scatter fills a dense result; join ragged ones with SideResult.gathered")
        for name in FIELDS:
            getattr(self, name)[index] = getattr(part, name)
        if part.offsets is None:
            mine = self.walks.reshape(-1, self.max_walk)
            mine[index] = part.walks.reshape(-1, self.max_walk)
        else:
            lens = part.walk_len.astype(np.int64)
            rows = np.asarray(index, dtype=np.int64) * int(self.max_walk)
            self.walks[np.repeat(rows - part.offsets[:-1], lens) + np.arange(len(part.walks), dtype=np.int64)] = \
                part.walks
        self.kernel_seconds += part.kernel_seconds

    def compare(self, other: "SideResult") -> list[str]:
        """Names the fields in which two results differ (empty when bit-identical), in either layout."""
        diffs = []
        for name in FIELDS:
            a, b = getattr(self, name), getattr(other, name)
            if a.shape != b.shape or not np.array_equal(a, b):
                bad = np.flatnonzero(a != b) if a.shape == b.shape else np.zeros(0, dtype=np.int64)
                diffs.append(f"{name} ({len(bad)} contigs, first at {bad[:5].tolist()})")
        if not diffs:
            (w1, lens), (w2, _) = self.bases(), other.bases()
            if not np.array_equal(w1, w2):
                owner = np.repeat(np.arange(len(lens)), lens)
                bad = np.unique(owner[np.flatnonzero(w1 != w2)])
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

    def ends_columns(self, sides: Sequence[str] = SIDES) -> dict[str, np.ndarray]:
        """Per contig end (right ends first, or ``sides`` in the order given): cid, side, reads, walk
        length, final k, termination, k values tried, walk steps and insertions: a run record's ``ends``
        table."""
        n = self.dataset.n_contigs
        cols: dict[str, list] = {}
        for side in sides:
            res, reads = (self.right, self.dataset.right) if side == "right" else (self.left, self.dataset.left)
            part = {"cid": self.dataset.cids, "side": np.full(n, side), "reads": reads.counts,
                    "walk_len": res.walk_len, "final_k": res.final_k,
                    "term": _TERM_TEXT[res.term], "n_k": res.n_k,
                    "steps": res.steps, "insertions": res.insertions, "start_insertions": res.start_insertions}
            for key, val in part.items():
                cols.setdefault(key, []).append(val)
        return {key: np.concatenate(val) for key, val in cols.items()}

    def compare(self, other: "Extension") -> list[str]:
        """Names what differs from another backend's extension of the same dataset."""
        return [f"right {d}" for d in self.right.compare(other.right)] + [
            f"left {d}" for d in self.left.compare(other.left)
        ]

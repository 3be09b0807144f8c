# SPDX-License-Identifier: BSD-3-Clause
"""What an X-drop backend returns: each pair's extended seed and its scores.

SeqAn's figures: each direction's score and the seed's begin and end in H and V after
``extendSeed(..., EXTEND_BOTH, ..., GappedXDrop())``. ``score`` is LOGAN's: left + right + the
seed's own score under the scheme.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .scoring import Scoring

#: The per-pair columns, in the order of the driver's output and of the tables written.
COLUMNS = ("score_left", "score_right", "begin_h", "begin_v", "end_h", "end_v")


@dataclass(frozen=True)
class XdropFigures:
    """What an X-drop backend reports beside its alignments (``None``: not reported by that backend).

    The records (:mod:`lassm.campaign.xdrop_run`, :mod:`lassm.campaign.xdrop_lanes`) and the
    CLI's summary line read these fields by name.
    """

    #: Dynamic-programming cells computed over both directions (cpu, cuda, opencl, hip-cpu).
    cells: int | None = None
    #: Seconds of kernel time over every launch: CUDA events (cuda), event profiling (opencl), the
    #: driver's wall clock (hip-cpu).
    kernel_seconds: float | None = None
    #: LOGAN's figure: giga cells per second of kernel time (cuda, opencl, hip-cpu).
    gcups: float | None = None
    #: The device's name (cuda, opencl, hip-cpu).
    device: str | None = None
    #: Kernel launches, as many as the scratch budget cut the tasks into (cuda, opencl, hip-cpu).
    launches: int | None = None
    #: Threads per block or work-group (cuda, opencl, hip-cpu).
    group: int | None = None
    #: Threads per direction of the lanes kernel, 0 for a block layout (cuda).
    lanes: int | None = None
    #: The layout plan's name, ``logan`` or ``warps`` (cuda, hip-cpu).
    plan: str | None = None
    #: Shared ints per anti-diagonal of the wide-band block, 0 where it did not run (cuda, hip-cpu).
    shared_stride: int | None = None
    #: The wide-band block's warp width, 0 where it did not run (hip-cpu).
    warp: int | None = None
    #: The HIP-CPU checkout's label (hip-cpu).
    hip_cpu: str | None = None
    #: What timed the launches (hip-cpu: ``driver wall clock``).
    timer: str | None = None
    #: The driver program's name (seqan).
    driver: str | None = None
    #: CPU threads that aligned (seqan).
    threads: int | None = None
    #: A layout the backend names itself, read before ``lanes`` and ``shared_stride`` (no backend
    #: here sets it; the records derive the layout from those two).
    layout: str | None = None


@dataclass(frozen=True, eq=False)
class Alignments:
    """Extended seeds, one per pair.

    Parameters
    ----------
    score_left, score_right : int32, each direction's score as SeqAn returns it.
    begin_h, begin_v, end_h, end_v : int64, the extended seed (end exclusive).
    seed_score : int64, the seed's own score under the scheme.
    wall_seconds : how long the backend took, the build of its code excluded where it can be.
    extra : what else the backend reports (:class:`XdropFigures`).
    """

    score_left: np.ndarray
    score_right: np.ndarray
    begin_h: np.ndarray
    begin_v: np.ndarray
    end_h: np.ndarray
    end_v: np.ndarray
    seed_score: np.ndarray
    scoring: Scoring
    backend: str
    wall_seconds: float = 0.0
    extra: XdropFigures = field(default_factory=XdropFigures)

    def __post_init__(self) -> None:
        n = len(self.seed_score)
        for name in ("score_left", "score_right"):
            arr = getattr(self, name)
            if arr.dtype != np.int32 or arr.shape != (n,):
                raise TypeError(f"Alignments.{name} must be int32 of shape ({n},), got {arr.dtype} {arr.shape}")
        for name in ("begin_h", "begin_v", "end_h", "end_v", "seed_score"):
            arr = getattr(self, name)
            if arr.dtype != np.int64 or arr.shape != (n,):
                raise TypeError(f"Alignments.{name} must be int64 of shape ({n},), got {arr.dtype} {arr.shape}")

    @property
    def n_pairs(self) -> int:
        return len(self.seed_score)

    @property
    def score(self) -> np.ndarray:
        """LOGAN's score: left + right + the seed's own, in int64 (no wrap-around)."""
        return self.score_left.astype(np.int64) + self.score_right.astype(np.int64) + self.seed_score

    def columns(self) -> dict[str, np.ndarray]:
        """The table written for a run: :data:`COLUMNS` and ``score``."""
        cols = {name: getattr(self, name) for name in COLUMNS}
        cols["score"] = self.score
        return cols

    def differences(self, other: "Alignments") -> list[str]:
        """Where ``other`` differs from this result, one line per differing pair (first 10)."""
        if other.n_pairs != self.n_pairs:
            return [f"{self.n_pairs} pairs here, {other.n_pairs} there"]
        mine, theirs = self.columns(), other.columns()
        differ = np.zeros(self.n_pairs, dtype=bool)
        for name in COLUMNS:
            differ |= mine[name] != theirs[name]
        out = []
        for i in np.flatnonzero(differ)[:10]:
            a = " ".join(str(int(mine[c][i])) for c in COLUMNS)
            b = " ".join(str(int(theirs[c][i])) for c in COLUMNS)
            out.append(f"pair {i}: {self.backend} {a} != {other.backend} {b} ({' '.join(COLUMNS)})")
        return out

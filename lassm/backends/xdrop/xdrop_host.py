# SPDX-License-Identifier: BSD-3-Clause
"""Host side shared by the X-drop GPU backends (OpenCL, CUDA): tasks, scratch, batches, results.

Each direction of a pair's seed is a *task* (one work-group of ``xdrop_kernel``): tasks
``0..n-1`` extend left, ``n..2n-1`` right (from the seed's original end, as the oracle). Each
gets three rolling anti-diagonals of :func:`strides` ints in one scratch buffer; a launch takes
the tasks that fit a byte budget (:func:`batches`). :func:`assemble` turns the kernels' score,
extensions, cells and status into :class:`~lassm.workloads.xdrop.alignments.Alignments`.

GCUPS as LOGAN reports it: cells computed (band widths ``maxCol - minCol`` summed over
anti-diagonals) per second of kernel device time, transfers and build excluded.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs, seed_scores
from ...workloads.xdrop.alignments import Alignments, XdropFigures

LEFT, RIGHT = 0, 1
#: The steps every X-drop kernel shares (``#include "xdrop_steps.h"``), CUDA's and OpenCL's alike.
STEPS_HEADER = "xdrop/xdrop_steps.h"
#: LOGAN's block per direction, the one body of ``cuda/xdrop.cu`` and ``opencl/xdrop.cl``.
BLOCK_HEADER = "xdrop/xdrop_block.h"
#: Work-items (threads) per task by default: LOGAN gives a block 128 threads for X = 100.
DEFAULT_GROUP = 128
#: Lanes per task the CUDA lanes kernel builds for (``XDROP_LANES``); 0 names LOGAN's block layout.
LANES = (8, 16, 32)
#: X's plan, ``(largest X, lanes)`` in order; a larger X takes LOGAN's block layout (lanes 0).
#: Chosen from the ablation ``lassm xdrop lanes`` records in ``xdrop/lanes.csv``.
LANES_BY_X = ((50, 8), (200, 16), (1000, 32))


#: The switch between the CUDA backend's two plans, read at each alignment: ``logan`` (the default)
#: runs the tasks in their order, the lanes kernel up to X = 1000 and LOGAN's block above (:func:`lanes_for`);
#: ``warps`` runs them by their expected cells, most first (:func:`work_order`), on the kernel
#: :data:`WARPS_PLAN` names: the lanes kernel for narrow bands, the wide-band block
#: (``cuda/xdrop_warps.cu``: one barrier an anti-diagonal, the anti-diagonals in shared memory) for
#: wide ones. Both are bit for bit the oracle; the switch lets one GPU session time them side by side.
LAYOUT_ENV = "LASSM_XDROP_LAYOUT"
LAYOUTS = ("logan", "warps")
DEFAULT_LAYOUT = "logan"
#: Lanes of a warp on NVIDIA: the wide-band block's threads are a multiple of it.
WARP = 32
#: The ``warps`` plan, ``(largest X, lanes, group, stride)`` in order, the last for every larger X:
#: lanes > 0 runs the lanes kernel; lanes 0 the wide-band block of ``group`` threads with ``stride``
#: shared ints per anti-diagonal, or with stride 0 LOGAN's block of ``group`` threads. A band of
#: LOGAN-like pairs holds about 0.7 X cells up to X = 1000 and under 2,000 at X = 5000; a false
#: seed's about 3 X up to X = 100 and near 1,000 at X = 1000. One that outgrows the stride reruns on
#: its global scratch.
#: The rows above X = 200 follow sweeps of the block's threads and shared ints: on the H200
#: (xdrop-sim-20k and a set of half false seeds, X = 100 to 5000) 64 threads and 1,024 ints were
#: fastest or near it on both up to X = 1000, and at X = 5000 LOGAN's block beat the wide ones of up
#: to 2,048 ints, whose bands outgrew them and ran again; on the H100 (xdrop-sim-20k, X = 5000) 128
#: threads and 4,000 ints (48,000 bytes, the most a block has without opting in) took 551 ms where
#: LOGAN's block took 657 and 2,048 ints 766.
WARPS_PLAN = ((50, 8, 32, 512), (200, 16, 32, 1024), (2000, 0, 64, 1024), (2**31 - 1, 0, 128, 4000))


def layout(name: str | None = None) -> str:
    """The plan to run: ``name``, else :data:`LAYOUT_ENV`, else :data:`DEFAULT_LAYOUT`; a name outside
    :data:`LAYOUTS` raises LassmError (one line; the command exits 2)."""
    from ...errors import LassmError
    from ...settings import value

    chosen = name if name is not None else value(LAYOUT_ENV) or DEFAULT_LAYOUT
    if chosen not in LAYOUTS:
        raise LassmError(f"layout {chosen!r}: use one of {', '.join(LAYOUTS)}")
    return chosen


def warps_plan(xdrop: int) -> tuple[int, int, int]:
    """``(lanes, group, stride)`` of the ``warps`` plan at X (:data:`WARPS_PLAN`)."""
    for largest, lanes, group, stride in WARPS_PLAN:
        if xdrop <= largest:
            return lanes, group, stride
    return WARPS_PLAN[-1][1:]


def lanes_for(xdrop: int) -> int:
    """Lanes per task for X: narrow bands (small X) share a warp, wide ones get LOGAN's block; by X
    because X, known before any pair is read, bounds the band's width."""
    for largest, lanes in LANES_BY_X:
        if xdrop <= largest:
            return lanes
    return 0
#: Kernel status codes (``XDROP_OK``, ``XDROP_BAND_OVERFLOW`` in the kernels).
STATUS = {0: "ok", 1: "a band outgrew its scratch (a kernel bug)"}


@dataclass(frozen=True)
class Tasks:
    """One row per direction of each pair: where its query (V) and database (H) start, and their lengths."""

    q_start: np.ndarray  # int64, into seqs_v
    q_len: np.ndarray  # int32
    d_start: np.ndarray  # int64, into seqs_h
    d_len: np.ndarray  # int32
    direction: np.ndarray  # uint8, LEFT or RIGHT

    @property
    def n(self) -> int:
        return len(self.q_len)

    def take(self, lo: int, hi: int) -> "Tasks":
        """Tasks ``lo..hi-1``, for one launch."""
        return Tasks(*(np.ascontiguousarray(a[lo:hi]) for a in
                       (self.q_start, self.q_len, self.d_start, self.d_len, self.direction)))

    def permuted(self, order: np.ndarray) -> "Tasks":
        """The tasks in ``order`` (task ``order[i]`` runs as task ``i``)."""
        return Tasks(*(np.ascontiguousarray(a[order]) for a in
                       (self.q_start, self.q_len, self.d_start, self.d_len, self.direction)))


#: Bases next to the seed, in the direction of the extension, whose shared 4-mers tell a seed that
#: extends from one that dies (a false seed): random windows of 32 share about 3 of their 29
#: 4-mers, windows 15 % apart about 17.
PROBE, PROBE_K, PROBE_SHARED = 32, 4, 8
_CODE = np.zeros(256, np.int64)
_CODE[np.frombuffer(b"CGT", np.uint8)] = (1, 2, 3)  # A and anything else 0: a probe, not a score


def _probe_kmers(seqs: np.ndarray, start: np.ndarray, length: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Which 4-mers (one row of 256 per task) the :data:`PROBE` bases next to each task's seed hold."""
    n = len(length)
    width = np.minimum(length.astype(np.int64), PROBE)
    first = np.where(direction == RIGHT, start, start + length - width)
    at = np.arange(PROBE)
    held = at[None, :] < width[:, None]
    idx = np.where(held, first[:, None] + at[None, :], 0)
    codes = _CODE[seqs[idx]] if len(seqs) else np.zeros((n, PROBE), np.int64)
    kmers = np.asarray(sum(codes[:, i:PROBE - PROBE_K + 1 + i] << (2 * (PROBE_K - 1 - i)) for i in range(PROBE_K)))
    whole = held[:, PROBE_K - 1:]
    present = np.zeros((n, 4 ** PROBE_K), bool)
    rows = np.broadcast_to(np.arange(n)[:, None], kmers.shape)
    present[rows[whole], kmers[whole]] = True
    return present


def seeds_that_extend(t: Tasks, seqs_q: np.ndarray, seqs_d: np.ndarray) -> np.ndarray:
    """Per task, whether its seed looks true: the windows next to it on both sides share at least
    :data:`PROBE_SHARED` 4-mers. A guess for the launch order only; no result depends on it."""
    shared = (_probe_kmers(seqs_q, t.q_start, t.q_len, t.direction)
              & _probe_kmers(seqs_d, t.d_start, t.d_len, t.direction)).sum(axis=1)
    return shared >= PROBE_SHARED


#: How many times a true seed's band a false seed's is, for the launch order: under LOGAN's scores
#: (1, -1, -1) an extension of unrelated reads runs to their ends as a true one does, on a band of
#: about 3 X against under 1 X at X <= 100 (the oracle on LOGAN-like pairs; at X >= 1000 both are
#: bounded by the reads and come close).
FALSE_SEED_BAND = 3


def work_order(t: Tasks, seqs_q: np.ndarray, seqs_d: np.ndarray) -> np.ndarray:
    """The tasks by expected cells, most first, so the heaviest start at once and a lanes warp's tasks
    end together: ``q_len + d_len`` anti-diagonals, a false-looking seed's (:func:`seeds_that_extend`)
    band :data:`FALSE_SEED_BAND` times as wide. A stable sort: one order for every run."""
    work = t.q_len.astype(np.int64) + t.d_len
    work[~seeds_that_extend(t, seqs_q, seqs_d)] *= FALSE_SEED_BAND
    return np.argsort(-work, kind="stable")


def tasks(pairs: Pairs) -> Tasks:
    """The left extensions (prefixes before the seed), then the right ones (suffixes after it)."""
    off_h, off_v = pairs.offsets_h[:-1], pairs.offsets_v[:-1]
    end_h, end_v = pairs.pos_h + pairs.seed_len, pairs.pos_v + pairs.seed_len
    if max(int(pairs.lengths_h.max(initial=0)), int(pairs.lengths_v.max(initial=0))) >= (1 << 30):
        raise ValueError("a read of 2**30 bases or more does not fit the kernels' 32-bit indices")
    q_start = np.concatenate((off_v, off_v + end_v)).astype(np.int64)
    q_len = np.concatenate((pairs.pos_v, pairs.lengths_v - end_v)).astype(np.int32)
    d_start = np.concatenate((off_h, off_h + end_h)).astype(np.int64)
    d_len = np.concatenate((pairs.pos_h, pairs.lengths_h - end_h)).astype(np.int32)
    direction = np.repeat(np.array([LEFT, RIGHT], dtype=np.uint8), pairs.n_pairs)
    return Tasks(q_start, q_len, d_start, d_len, direction)


def strides(t: Tasks) -> np.ndarray:
    """Ints per anti-diagonal of each task: ``min(cols, rows) + 2``, as the kernels compute it (a band's
    cells plus two edge cells; more is reported as ``XDROP_BAND_OVERFLOW``)."""
    return np.minimum(t.q_len.astype(np.int64), t.d_len.astype(np.int64)) + 3


def scratch_offsets(t: Tasks) -> np.ndarray:
    """Where each task's three anti-diagonals start in the scratch buffer (ints), and the total last."""
    size = 3 * strides(t)
    out = np.zeros(t.n + 1, dtype=np.int64)
    np.cumsum(size, out=out[1:])
    return out


def batches(t: Tasks, max_bytes: int) -> list[tuple[int, int]]:
    """Task ranges ``(lo, hi)`` whose scratch fits ``max_bytes`` (a task larger than it goes alone)."""
    if max_bytes < 1:
        raise ValueError(f"max_bytes = {max_bytes} must be positive")
    ends = scratch_offsets(t)[1:] * 4
    out, lo = [], 0
    while lo < t.n:
        base = ends[lo - 1] if lo else 0
        hi = int(np.searchsorted(ends, base + max_bytes, side="right"))
        hi = max(hi, lo + 1)
        out.append((lo, hi))
        lo = hi
    return out


def include_options() -> tuple[str, ...]:
    """``-I`` of the shared headers' folder and their digest (:mod:`lassm.backends.headers`)."""
    from ...paths import kernel_source
    from ..headers import digest_define, include_flag, staged_folder

    header = kernel_source(STEPS_HEADER)
    return (include_flag(staged_folder(header.parent)),
            digest_define("XDROP_STEPS_SHA256", (header, kernel_source(BLOCK_HEADER))))


def scoring_args(scoring: Scoring) -> tuple[np.int32, np.int32, np.int32, np.int32]:
    """The kernels' scalar arguments, with explicit 32-bit types (the devices check none)."""
    return (np.int32(scoring.match), np.int32(scoring.mismatch), np.int32(scoring.gap), np.int32(scoring.xdrop))


@dataclass
class Outputs:
    """What the kernels write per task, gathered over every launch."""

    score: np.ndarray  # int32
    ext_col: np.ndarray  # int32, along V
    ext_row: np.ndarray  # int32, along H
    cells: np.ndarray  # int64
    status: np.ndarray  # int32

    @staticmethod
    def empty(n: int) -> "Outputs":
        return Outputs(np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32),
                       np.zeros(n, np.int64), np.zeros(n, np.int32))

    def put(self, lo: int, hi: int, order: np.ndarray | None, got: dict[str, np.ndarray]) -> None:
        """One launch's outputs (``got[name]`` for tasks ``lo..hi-1`` as they ran) into their
        tasks' places: ``order`` is the launch order (:func:`work_order`), None for the tasks' own."""
        where = slice(lo, hi) if order is None else order[lo:hi]
        for name in OUTPUT_NAMES:
            getattr(self, name)[where] = got[name]


#: What each task writes, in the kernels' argument order.
OUTPUT_NAMES = ("score", "ext_col", "ext_row", "cells", "status")


def gcups(cells: int, seconds: float) -> float:
    """Giga cells computed per second (LOGAN's figure; 0 when nothing was timed)."""
    return cells / seconds / 1e9 if seconds > 0 else 0.0


def assemble(pairs: Pairs, scoring: Scoring, out: Outputs, backend: str, wall: float, kernel_seconds: float,
             extra: XdropFigures) -> Alignments:
    """The extended seeds from the tasks' outputs (begin = seed start - left extension, end = seed end
    + right extension); raises RuntimeError when a kernel reported a status other than ok."""
    bad = np.flatnonzero(out.status != 0)
    if len(bad):
        i = int(bad[0])
        raise RuntimeError(f"{backend}: task {i} (pair {i % max(pairs.n_pairs, 1)}) ended with status "
                           f"{int(out.status[i])}: {STATUS.get(int(out.status[i]), 'unknown')}")
    n = pairs.n_pairs
    col, row = out.ext_col.astype(np.int64), out.ext_row.astype(np.int64)
    cells = int(out.cells.sum())
    info = replace(extra, cells=cells, kernel_seconds=kernel_seconds, gcups=gcups(cells, kernel_seconds))
    return Alignments(score_left=out.score[:n].copy(), score_right=out.score[n:].copy(),
                      begin_h=pairs.pos_h - row[:n], begin_v=pairs.pos_v - col[:n],
                      end_h=pairs.pos_h + pairs.seed_len + row[n:], end_v=pairs.pos_v + pairs.seed_len + col[n:],
                      seed_score=seed_scores(pairs, scoring.match, scoring.mismatch), scoring=scoring,
                      backend=backend, wall_seconds=wall, extra=info)

# SPDX-License-Identifier: BSD-3-Clause
"""X-drop run records: the CSV tables under ``data/results/<machine>/xdrop/`` and the timing of one backend.

``times.csv`` (per dataset, X and backend), ``counters.csv`` (Nsight Compute, per dataset, X and
program) and ``against-logan.csv``; their columns are the contract of ``book/data-contract.md``.
Each is rewritten whole by :func:`upsert`; a later run skips what :func:`recorded` finds.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path

from .. import paths
from ..workloads.xdrop.scoring import Scoring
from ..workloads.xdrop.pairs import Pairs
from ..workloads.xdrop.alignments import Alignments, XdropFigures
from .tables import read_rows, recorded, upsert, write_rows  # noqa: F401  (this module's tables' API)

#: The folder of a machine's X-drop tables, under its results folder.
FOLDER = "xdrop"
TIMES_FILE, COUNTERS_FILE, AGAINST_LOGAN_FILE = "times.csv", "counters.csv", "against-logan.csv"
#: ``times.csv``: one row per (dataset, xdrop, backend); ``checked_pairs`` (the pairs compared
#: with the oracle: all of them, or the head of a set too large for the CPU) follows the contract's columns,
#: then ``layout`` (which kernel ran) and ``host`` (the id of the host that timed the row, :func:`lassm.runs.host.host_id`; empty in a
#: table written before rows named their host).
TIMES_COLUMNS: tuple[str, ...] = (
    "machine", "device", "driver", "kernel", "dataset", "n_pairs", "bases", "xdrop", "scoring", "backend", "threads",
    "seconds", "wall_seconds", "repeats", "cells", "gcups", "matches_oracle", "git_sha", "command", "checked_pairs",
    "layout", "host")
TIMES_KEY: tuple[str, ...] = ("dataset", "xdrop", "scoring", "backend")
#: ``counters.csv``: the local-assembly counter quantities, summed over a run's launches.
COUNTER_COLUMNS: tuple[str, ...] = (
    "device", "dataset", "xdrop", "program", "simd_width", "duration_s", "int_lane_ops", "warp_inst", "thread_inst",
    "dram_read_bytes", "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes", "launches", "machine", "git_sha",
    "command", "layout")
COUNTERS_KEY: tuple[str, ...] = ("dataset", "xdrop", "program")
#: ``against-logan.csv``: LOGAN's demo and ``lassm xdrop align --backend cuda`` on the same pairs and X;
#: ``scores_equal`` (LOGAN's score equals ours for every pair), ``original_source`` and ``nvcc`` were
#: added at the end, so older tables read with them empty.
AGAINST_LOGAN_COLUMNS: tuple[str, ...] = (
    "machine", "device", "driver", "dataset", "n_pairs", "xdrop", "program", "kernel_seconds", "kernel_launches",
    "logan_gpu_seconds", "whole_seconds", "git_sha", "command", "scores_equal", "original_source", "nvcc", "layout")
AGAINST_LOGAN_KEY: tuple[str, ...] = ("dataset", "xdrop", "program")
#: ``lanes.csv``: the CUDA kernel's layouts side by side (the ablation of X's plan): one row per
#: (dataset, xdrop, lanes), lanes 0 being LOGAN's one block per direction; ``equal_to_block``: every
#: pair's scores and ends equal the block layout's in the same run.
LANES_FILE = "lanes.csv"
LANES_COLUMNS: tuple[str, ...] = (
    "machine", "device", "driver", "dataset", "n_pairs", "xdrop", "lanes", "planned", "kernel_seconds", "repeats",
    "cells", "gcups", "equal_to_block", "git_sha", "command")
LANES_KEY: tuple[str, ...] = ("dataset", "xdrop", "lanes")
#: The kernel label of X-drop rows (run records of local assembly say ``local-assembly``).
KERNEL = "xdrop"
#: ``layout``, the last column of ``times.csv``, ``counters.csv`` and ``against-logan.csv``: which
#: kernel ran. LOGAN's one block per alignment direction (``block``), a few lanes of a warp per
#: direction (``lanes-8``, ``lanes-16``, ``lanes-32``: the CUDA lanes kernel), one alignment per CPU
#: thread (``scalar``: the oracle and SeqAn) or LOGAN's own program (``logan``). Why a column: two
#: kernels of one algorithm differ eightfold in time, and a ratio of two rows is only a ratio of
#: programming models or machines where both ran the same layout.
BLOCK, SCALAR, LOGAN = "block", "scalar", "logan"
#: The wide-band block of the ``warps`` plan (``cuda/xdrop_warps.cu``: one barrier an anti-diagonal,
#: the anti-diagonals in shared memory).
WIDE_BLOCK = "wide-block"
#: The backends that align on the CPU, one pair per thread.
CPU_SIDE: tuple[str, ...] = ("cpu", "seqan")


def layout_name(lanes: int) -> str:
    """The ``layout`` cell of a GPU run with ``lanes`` threads per direction (0: LOGAN's block)."""
    return BLOCK if not int(lanes) else f"lanes-{int(lanes)}"


def layout_of(backend: str, extra: XdropFigures) -> str:
    """The layout a backend reports it launched: its own ``layout``, else its ``lanes`` (the CUDA
    backend's; a GPU backend without them runs the block layout), ``scalar`` on the CPU."""
    if extra.layout is not None:
        return str(extra.layout)
    if backend in CPU_SIDE:
        return SCALAR
    if int(extra.shared_stride or 0) and not int(extra.lanes or 0):
        return WIDE_BLOCK
    return layout_name(int(extra.lanes or 0))


def planned_layout(backend: str, xdrop: int, plan_name: str | None = None) -> str:
    """The layout ``lassm xdrop align --backend <backend> --xdrop X [--layout plan_name]`` launches
    without ``--lanes``: on CUDA, X's row of the plan (:func:`lassm.backends.xdrop.xdrop_host.lanes_for`,
    or :func:`~lassm.backends.xdrop.xdrop_host.warps_plan` for ``warps``), the block elsewhere on a GPU.
    For the rows of a run in another process (Nsight Compute's, LOGAN's side by side)."""
    from ..backends.xdrop import xdrop_host

    if backend in CPU_SIDE:
        return SCALAR
    if backend != "cuda":
        return BLOCK
    if xdrop_host.layout(plan_name) == "warps":
        lanes, _group, stride = xdrop_host.warps_plan(int(xdrop))
        return layout_name(lanes) if lanes or not stride else WIDE_BLOCK
    return layout_name(xdrop_host.lanes_for(int(xdrop)))


def folder(machine: str) -> Path:
    """``data/results/<machine>/xdrop/``."""
    return paths.results_dir(machine) / FOLDER


def scoring_label(scoring: Scoring) -> str:
    """``"match,mismatch,gap"``, e.g. ``"1,-1,-1"``: the scheme without X."""
    return f"{scoring.match},{scoring.mismatch},{scoring.gap}"


def head_result(result: Alignments, n: int) -> Alignments:
    """The first ``n`` pairs of a result (to compare with an oracle run on the head of a set)."""
    if n >= result.n_pairs:
        return result
    cut = {f: getattr(result, f)[:n] for f in ("score_left", "score_right", "begin_h", "begin_v", "end_h", "end_v",
                                              "seed_score")}
    return replace(result, **cut)


@dataclass
class Timing:
    """What timing one backend on one set and X gave: its first result and each timed run's seconds
    (``seconds``: the backend's compute time; ``wall``: the whole ``align`` call); ``agree``: every
    repeat gave the first result."""

    result: Alignments
    seconds: list[float]
    wall: list[float]
    agree: bool

    @property
    def median_seconds(self) -> float:
        return float(statistics.median(self.seconds))

    @property
    def median_wall(self) -> float:
        return float(statistics.median(self.wall))


def compute_seconds(result: Alignments) -> float:
    """A result's compute time: the kernels' device time for a GPU backend, else the backend's own timer."""
    seconds = result.extra.kernel_seconds
    return float(seconds if seconds is not None else result.wall_seconds)


def time_backend(align, pairs: Pairs, scoring: Scoring, *, threads: int | None = None, repeats: int = 1,
                 warmup: int = 0) -> Timing:
    """Runs ``align(pairs, scoring, threads=...)`` ``warmup`` times untimed, then up to ``repeats``
    times timed (:mod:`lassm.runs.repeat_rule`), and returns the :class:`Timing`; GPU backends
    ignore ``threads``."""
    from .repeat_rule import enough

    if repeats < 1 or warmup < 0:
        raise ValueError(f"repeats = {repeats} must be at least 1 and warmup = {warmup} not negative")
    for _ in range(warmup):
        align(pairs, scoring, threads=threads)
    first: Alignments | None = None
    seconds: list[float] = []
    wall: list[float] = []
    agree = True
    while not enough(seconds, repeats):  # lassm.runs.repeat_rule: 3 runs where they agree
        t0 = time.perf_counter()
        res = align(pairs, scoring, threads=threads)
        wall.append(time.perf_counter() - t0)
        seconds.append(compute_seconds(res))
        if first is None:
            first = res
        elif first.differences(res):
            agree = False
    assert first is not None  # at least one timed run
    return Timing(first, seconds, wall, agree)


def digest(pairs: Pairs) -> str:
    """A digest of the pairs' bases and seeds: two sets with equal digests are the same input
    (the head of a synthetic set and the smaller set of its seed)."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for name in ("seqs_h", "offsets_h", "seqs_v", "offsets_v", "pos_h", "pos_v", "seed_len"):
        h.update(getattr(pairs, name).tobytes())
    return h.hexdigest()


def bases(pairs: Pairs) -> int:
    """H and V bases of every pair together."""
    return int(len(pairs.seqs_h) + len(pairs.seqs_v))


def gcups(cells: int, seconds: float) -> float | None:
    """Giga cells per second, None when nothing was timed."""
    return cells / seconds / 1e9 if seconds > 0 else None

# SPDX-License-Identifier: BSD-3-Clause
"""How a sharded run cuts its contigs: estimated work per contig, interleaved plans balanced bin by
bin (:func:`plan_shards`), their balance, and the check that a plan covers every contig once.
"""
from __future__ import annotations

import heapq
from typing import Sequence

import numpy as np

from ..errors import LassmError
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.stream import ShardFolder

#: Read-count bins of the CUDA backend (larger side's reads): launched one after another on
#: each GPU, so a shard plan balances each bin on its own, heavy bin first.
BIN_EDGES = (1, 10)


def work_estimate(ds: Dataset) -> np.ndarray:
    """Estimated work per contig: the read bases of both ends (0 without reads). Insertions and most of
    a walk scale with read bases at every k, enough to balance shards of one dataset."""
    est = np.zeros(ds.n_contigs, dtype=np.float64)
    for reads in (ds.left, ds.right):
        co = reads.contig_offsets
        est += (reads.offsets[co[1:]] - reads.offsets[co[:-1]]).astype(np.float64)
    return est


def contig_bins(ds: Dataset) -> np.ndarray:
    """The CUDA backend's bin per contig: 0 (no reads), 1 (1-9 reads), 2 (10 or more)."""
    counts = np.maximum(ds.left.counts, ds.right.counts)
    return np.searchsorted(np.asarray(BIN_EDGES), counts, side="right").astype(np.int8)


def plan_shards(ds: Dataset, shards: int, weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Splits the contigs into ``shards`` ascending index arrays of near-equal work, balanced bin by bin
    (a GPU runs its bins one launch after another).

    Per bin, heaviest first, longest-processing-time greedy: each contig to the shard with least work
    in that bin (ties: least overall), so
    ``max / mean <= 1 + shards * sum(bin's max weight) / total weight``. Contigs without reads are
    dealt round-robin."""
    if shards < 1:
        raise LassmError(f"shards must be at least 1, got {shards}")
    n = ds.n_contigs
    if shards == 1:
        return [np.arange(n, dtype=np.int64)]
    w = work_estimate(ds) if weights is None else np.asarray(weights, dtype=np.float64)
    bins = contig_bins(ds)
    owner = np.empty(n, dtype=np.int64)
    total = [0.0] * shards
    for b in sorted(set(bins.tolist()), reverse=True):
        idx = np.flatnonzero(bins == b)
        if b == 0:
            owner[idx] = np.arange(len(idx)) % shards
            continue
        idx = idx[np.argsort(-w[idx], kind="stable")]
        heap = [(0.0, total[s], s) for s in range(shards)]
        heapq.heapify(heap)
        for i, wi in zip(idx.tolist(), w[idx].tolist()):
            load, _, s = heapq.heappop(heap)
            owner[i] = s
            total[s] += wi
            heapq.heappush(heap, (load + wi, total[s], s))
    order = np.argsort(owner, kind="stable")
    cuts = np.searchsorted(owner[order], np.arange(1, shards))
    return [np.sort(part) for part in np.split(order, cuts)]


def plan_balance(ds: Dataset, plan: Sequence[np.ndarray]) -> dict:
    """Estimated work per shard, its max/mean and the LPT bound (see :func:`plan_shards`)."""
    w = work_estimate(ds)
    bins = contig_bins(ds)
    return balance(w, plan, sum(float(w[bins == b].max(initial=0.0)) for b in (1, 2)))


def balance(weights: np.ndarray, plan: Sequence[np.ndarray], heaviest: float) -> dict:
    """Each shard's work (``shard_work``: its contigs' ``weights``), the largest over the mean, the
    bound ``1 + shards * heaviest / total`` a plan guarantees, and each shard's contig count."""
    w = np.asarray(weights, dtype=np.float64)
    loads = np.array([w[idx].sum() for idx in plan])
    mean, total = (float(loads.mean()) if len(loads) else 0.0), float(w.sum())
    return {"shard_work": loads.tolist(), "max_over_mean": float(loads.max() / mean) if mean else 1.0,
            "bound": 1.0 + len(plan) * heaviest / total if total else 1.0,
            "shard_contigs": [int(len(idx)) for idx in plan]}


def check_cover(ds: Dataset | ShardFolder, plan: Sequence[np.ndarray]) -> None:
    """Refuses a plan that misses or repeats a contig: the merge (or the joined files) would lack or double it.
    Contiguous ranges are checked end to end (sorting 5.5 million indices took a third of a second)."""
    runs = [(int(i[0]), int(i[-1]) + 1) for i in plan if len(i)]
    if all(len(i) < 2 or bool((np.diff(i) == 1).all()) for i in plan):
        ends = [0] + [b for _, b in sorted(runs)]
        if [a for a, _ in sorted(runs)] != ends[:-1] or ends[-1] != ds.n_contigs:
            raise LassmError("shards must cover every contig exactly once")
        return
    covered = np.concatenate(plan) if plan else np.zeros(0, dtype=np.int64)
    if len(covered) != ds.n_contigs or not np.array_equal(np.sort(covered), np.arange(ds.n_contigs)):
        raise LassmError("shards must cover every contig exactly once")

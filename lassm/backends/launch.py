# SPDX-License-Identifier: BSD-3-Clause
"""Launch geometry, binning and slicing for the warp-per-contig-end GPU kernels.

Plain NumPy, shared by the CUDA and HIP backends. MetaHipMer bins ends by the larger side's
read count (0: not launched, 1-9, >= 10) and slices each bin to fit device memory.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult

#: Bins by read count, as in MetaHipMer: (label, lowest count, highest count or None).
BINS: tuple[tuple[str, int, int | None], ...] = (("1-9", 1, 9), (">=10", 10, None))
#: Bytes of one k-mer table slot (``LASSM_SLOT_BYTES`` in the kernel).
SLOT_BYTES = 48
#: Bytes of one visited-table slot (a pointer into the walk buffer).
VISITED_BYTES = 8
#: Padding after every buffer the kernel reads with aligned word loads.
PAD_BYTES = 16
#: Largest k: the walk buffer holds the start k-mer plus the walk.
MAX_KMER_LEN = 121


def ceil_div(a: int, b: int) -> int:
    """Integer ceiling of ``a / b`` for non-negative ``a`` and positive ``b``."""
    return -(-int(a) // int(b))


def geometry(n_ends: int, block_warps: int, warp_size: int, n_team: int = 0,
             ends_per_warp: int = 1) -> tuple[tuple[int], tuple[int]]:
    """``((blocks,), (threads,))`` of a launch with one warp per contig end (``ends_per_warp`` ends for
    fast's warp teams) and a block for each of the first ``n_team`` ends.

    ``block_warps`` may be any positive number (odd ones are tested); ``warp_size`` comes from the
    device; threads are a whole number of warps."""
    if block_warps < 1 or warp_size < 1 or ends_per_warp < 1:
        raise ValueError(f"block_warps ({block_warps}), warp_size ({warp_size}) and ends_per_warp "
                         f"({ends_per_warp}) must be positive")
    if not 0 <= n_team <= max(n_ends, 0):
        raise ValueError(f"n_team ({n_team}) must lie in 0..n_ends ({n_ends})")
    blocks = int(n_team) + ceil_div(n_ends - n_team, int(block_warps) * int(ends_per_warp))
    return (max(1, blocks),), (int(block_warps) * int(warp_size),)


#: Most threads in one block, on NVIDIA GPUs and on AMD GPUs alike.
MAX_BLOCK_THREADS = 1024
#: Contig ends per SM from which a launch counts as many waves (fast's register cap at scale: the
#: build with more resident warps). On the H100 (132 SMs, about 20 resident warps per SM at fast's 96
#: registers) gen-k21 launches 210 ends per SM, about 10 waves, and lost 8 % to the capped build;
#: the x20 sample launches 610 and gained 7 %, gen-k21x20 4,200 and gained 13 %.
MANY_ENDS_PER_SM = 400


def many_ends(n_ends: int, multiprocessors: int, per_sm: int = MANY_ENDS_PER_SM) -> bool:
    """Whether a launch of ``n_ends`` warp-team ends fills the device's ``multiprocessors`` SMs
    for many waves (at least ``per_sm`` ends each): there the wait for an end's slowest loads is
    hidden best by more resident warps, and the tail of the last wave matters least."""
    if multiprocessors < 1:
        raise ValueError(f"multiprocessors = {multiprocessors} must be positive")
    return int(n_ends) >= int(per_sm) * int(multiprocessors)


def team_scratch_bytes(warp_size: int, block_warps: int = 1) -> int:
    """Shared memory fast's block teams sum through (``Team<true>``): 8 counters of 8 bytes for each
    warp the largest block holds, so 2048 bytes with 32-lane warps and 1024 with 64-lane wavefronts
    (HIP on CDNA). Refuses a block of ``block_warps`` past :data:`MAX_BLOCK_THREADS` threads."""
    ws, warps = int(warp_size), int(block_warps)
    if ws < 1 or MAX_BLOCK_THREADS % ws:
        raise ValueError(f"warp_size = {warp_size} must divide {MAX_BLOCK_THREADS}")
    if not 1 <= warps <= MAX_BLOCK_THREADS // ws:
        raise ValueError(f"block_warps = {block_warps}: a block holds 1 to {MAX_BLOCK_THREADS // ws} "
                         f"warps of {ws} lanes")
    return MAX_BLOCK_THREADS // ws * 8 * 8


def require_shared(shared: int, limit: int, block_warps: int, max_walk: int) -> None:
    """Refuses a block that needs more dynamic shared memory than the device gives one block (on
    AMD, the LDS of a work-group, with no opt-in past it), naming the knobs that shrink it."""
    if int(shared) > int(limit):
        raise ValueError(f"fast needs {int(shared)} bytes of shared memory per block ({block_warps} warps, walk limit "
                         f"{max_walk}); this device gives a block at most {int(limit)}: use fewer block warps or a "
                         "lower walk limit")


def walk_stride(max_walk: int) -> int:
    """Bytes of one contig end's walk scratch: start k-mer plus walk, rounded to 16."""
    return ceil_div(int(max_walk) + MAX_KMER_LEN, 16) * 16


def bin_of(counts: np.ndarray) -> np.ndarray:
    """Bin number per contig end from its read count: 0 (no reads), 1 (1-9) or 2 (>= 10)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(len(counts), dtype=np.int8)
    out[counts >= 1] = 1
    out[counts >= 10] = 2
    return out


def bins(run_mask: np.ndarray, counts: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Contig ends to launch per bin, in input order: ``(label, int64 index)`` pairs, empty bins left
    out. Ends masked in with count 0 go with the 1-9 bin: walked, they find nothing."""
    b = bin_of(counts)
    b[(b == 0) & np.asarray(run_mask, dtype=bool)] = 1
    b[~np.asarray(run_mask, dtype=bool)] = 0
    out = []
    for number, (label, _, _) in enumerate(BINS, start=1):
        idx = np.flatnonzero(b == number).astype(np.int64)
        if len(idx):
            out.append((label, idx))
    return out


def table_slots(counts: np.ndarray, max_read_len: int) -> np.ndarray:
    """Slots of each contig end's k-mer table: read count x longest read, at least 1, so the table is
    at most (L - 21) / L full and linear probing always finds an empty slot."""
    return np.maximum(np.asarray(counts, dtype=np.int64) * int(max_read_len), 1)


@dataclass(frozen=True)
class EndBytes:
    """Device bytes each contig end needs in a launch, by kind."""

    inputs: np.ndarray
    table: np.ndarray
    scratch: int
    outputs: int

    @property
    def total(self) -> np.ndarray:
        return self.inputs + self.table + self.scratch + self.outputs


def end_bytes(ctg_len: np.ndarray, read_bytes: np.ndarray, n_reads: np.ndarray, slots: np.ndarray,
              max_walk: int) -> EndBytes:
    """Device bytes of each contig end: inputs, table, scratch and outputs (``read_bytes``: bases of
    its reads, qualities doubling them; ``slots``: its table's slots)."""
    inputs = ctg_len + 2 * read_bytes + 8 * n_reads + 8 * 4  # bases, quals, offsets, 4 per-end words
    table = slots * SLOT_BYTES
    scratch = max_walk * VISITED_BYTES + walk_stride(max_walk)
    outputs = max_walk + 4 * 3 + 1 + 8 * 3
    return EndBytes(np.asarray(inputs, dtype=np.int64), np.asarray(table, dtype=np.int64), int(scratch),
                    int(outputs))


def slices(nbytes: np.ndarray, budget: int, fixed: int = 4096) -> list[tuple[int, int]]:
    """Splits ends ``0..n-1`` in order into ``(start, stop)`` runs whose bytes plus ``fixed`` fit
    ``budget``; an end over the budget gets a slice of its own (its allocation then fails loudly)."""
    nbytes = np.asarray(nbytes, dtype=np.int64)
    n = len(nbytes)
    out: list[tuple[int, int]] = []
    start = 0
    room = max(int(budget) - int(fixed), 1)
    csum = np.concatenate(([0], np.cumsum(nbytes)))
    while start < n:
        # Largest stop with csum[stop] - csum[start] <= room, and at least start + 1.
        stop = int(np.searchsorted(csum, csum[start] + room, side="right")) - 1
        stop = min(max(stop, start + 1), n)
        out.append((start, stop))
        start = stop
    return out


def gather(buf: np.ndarray, offsets: np.ndarray, index: np.ndarray, pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Concatenates ranges ``index`` of a flat buffer plus ``pad`` zero bytes, in one compiled pass;
    returns ``(buffer, int64 offsets)``, ``len(index) + 1`` offsets from 0."""
    from ..workloads.local_assembly.segments_jit import gather_segments

    return gather_segments(buf, offsets, index, pad)


def read_index(contig_offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reads of contig ends ``index``, in order: ``(read ids, per-end int64 offsets)``; one
    int64 per read, in NumPy (:mod:`lassm.workloads.local_assembly.segment_index`)."""
    from ..workloads.local_assembly.segment_index import segment_items

    return segment_items(contig_offsets, index)


def end_spans(offsets: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Segments ``index`` of ``offsets`` as int64 ``(begin, end)`` pairs, flat: where the fast
    kernel's ends find their bases or reads in buffers that were not gathered for them."""
    offsets = np.asarray(offsets, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    out = np.empty(2 * len(index), dtype=np.int64)
    out[0::2] = offsets[index]
    out[1::2] = offsets[index + 1]
    return out


def stack_reads(a, b):
    """Reads of two sides as one: ``b``'s reads and contig ends follow ``a``'s (the one-launch
    variants walk both sides of every contig together)."""
    from ..workloads.local_assembly.dataset import Reads

    return Reads(
        seqs=np.concatenate((a.seqs, b.seqs)),
        quals=np.concatenate((a.quals, b.quals)),
        offsets=np.concatenate((a.offsets, a.offsets[-1] + b.offsets[1:])),
        contig_offsets=np.concatenate((a.contig_offsets, a.contig_offsets[-1] + b.contig_offsets[1:])),
    )


def split_sides(res: SideResult, n: int) -> tuple[SideResult, SideResult]:
    """The right (ends ``0..n-1``) and left (``n..2n-1``) halves of a stacked result (either
    layout), as views of it (no copy of the walks: the stacked result is not used again); the
    launch time and records stay with the right half, so that the two still sum to the run's."""
    halves = []
    for lo, hi in ((0, n), (n, 2 * n)):
        if res.offsets is None:
            walks, offsets = res.walks[lo * res.max_walk : hi * res.max_walk], None
        else:
            walks, offsets = res.walks[int(res.offsets[lo]) : int(res.offsets[hi])], res.offsets[lo : hi + 1] - res.offsets[lo]
        halves.append(SideResult(
            max_walk=res.max_walk,
            walks=walks,
            offsets=offsets,
            walk_len=res.walk_len[lo:hi], final_k=res.final_k[lo:hi], term=res.term[lo:hi],
            n_k=res.n_k[lo:hi], steps=res.steps[lo:hi], insertions=res.insertions[lo:hi],
            start_insertions=res.start_insertions[lo:hi],
            kernel_seconds=res.kernel_seconds if lo == 0 else 0.0,
            extra=res.extra if lo == 0 else replace(res.extra, launches=[], resident_upload_seconds=0.0),
        ))
    return halves[0], halves[1]


def transfer_seconds(*extras: SideFigures) -> float | None:
    """Wall seconds that runs (their backends' ``extra``) spent moving data between host and
    device: the inputs copied up to stay resident, each launch's bases copied up where they were
    not, and each launch's results copied back. ``None`` where no run recorded its copies (the
    CPU, OpenCL, SYCL): unknown, not free."""
    uploads = [e.resident_upload_seconds for e in extras if e.resident_upload_seconds is not None]
    if not uploads:
        return None
    launches = [lc for e in extras for lc in e.launches]
    return float(sum(uploads)
                 + sum(lc.get("upload_seconds", 0.0) + lc.get("download_seconds", 0.0) for lc in launches))


def work_order(index: np.ndarray, read_bytes: np.ndarray) -> np.ndarray:
    """``index`` reordered by read bases, most first (stable): the longest-running ends start
    first, so that they overlap the many short ones instead of trailing after them."""
    index = np.asarray(index, dtype=np.int64)
    return index[np.argsort(-np.asarray(read_bytes, dtype=np.int64)[index], kind="stable")]


def fast_table_slots(counts: np.ndarray, max_read_len: int) -> np.ndarray:
    """Slots of each contig end's table for ``fast``: :func:`table_slots` rounded up to a
    power of two, so that every per-k size the kernel picks (a power of two, at most this) is
    masked rather than divided, and the largest still holds more slots than k-mers."""
    base = table_slots(counts, max_read_len)
    out = np.ones_like(base)
    big = base > 1
    out[big] = np.left_shift(np.int64(1), np.ceil(np.log2(base[big].astype(np.float64))).astype(np.int64))
    short = out < base  # float rounding below an exact power of two
    out[short] *= 2
    return out

# SPDX-License-Identifier: BSD-3-Clause
"""Host-side preparation shared by the two OpenCL C hosts, dpctl (:mod:`.sycl`) and pyopencl (:mod:`.opencl`).

Both kernels take the same arguments, so input checks, kernel knobs, the launch plan (bins by
read count, slices within a memory budget) and the host arrays live here. :func:`fast_plan`
follows the CUDA host's: power-of-two tables, ends in work order, wide teams for the heaviest.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..byte_sets import offsets_of
from ..errors import BackendUnavailable
from ..paths import kernel_source
from ..workloads.local_assembly import config
from ..workloads.local_assembly.result import SideResult
from . import launch
from .cuda import team_count
from .launch import fast_table_slots, work_order
from .nvrtc import PROTOCOLS as PROTOCOLS_OF_CUDA
from .sides import Sides

#: Collision protocol name -> macro value of ``-DLASSM_PROTOCOL`` (the CUDA kernel's names).
PROTOCOL_MACROS: dict[str, str] = PROTOCOLS_OF_CUDA
#: Collision protocols of ``ht_insert`` (the first is the default). See ``ht_insert.h``.
PROTOCOLS: tuple[str, ...] = tuple(PROTOCOL_MACROS)
DEFAULT_PROTOCOL = "casptr"
#: The optimized variant (``fast.cl``, book/fast-kernel.md): a build of its own, not a protocol of
#: ``ht_insert``; the pyopencl host builds it, the dpctl host does not.
FAST = "fast"
#: Every build ``defines`` knows: the protocols and the fast variant.
BUILD_MACROS: dict[str, str] = {**PROTOCOL_MACROS, FAST: "LASSM_PROTO_FAST"}
#: Bytes of one slot of fast's table: a 64-bit key and 8 vote counters (no extension byte).
FAST_SLOT_BYTES = 8 + 8 * 4
#: Bytes of one table slot besides its key: 8 vote counters (uint32) and the extension byte.
SLOT_VALUE_BYTES = 8 * 4 + 1
#: Bytes of one visited-table slot (a walk-buffer offset + 1, uint32).
VISITED_BYTES = 4


def defines(protocol: str, lanes: str, key64: bool, fp64: bool, max_walk: int, qual_offset: int,
            test_kernels: bool = False) -> tuple[str, ...]:
    """The ``-D`` options of one kernel variant, the lanes' knob (e.g. ``-DLASSM_TEAM=32``) second.

    ``protocol`` is a key of :data:`BUILD_MACROS`; ``max_walk`` and ``qual_offset`` are compiled in;
    ``test_kernels`` also builds ``set_ext_kernel``."""
    if protocol not in BUILD_MACROS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(BUILD_MACROS)}")
    return (
        f"-DLASSM_PROTOCOL={BUILD_MACROS[protocol]}",
        lanes,
        f"-DLASSM_KEY64={int(bool(key64))}",
        f"-DLASSM_FP64={int(bool(fp64))}",
        f"-DLASSM_MAX_WALK={int(max_walk)}",
        f"-DLASSM_QUAL_OFFSET={int(qual_offset)}",
        f"-DLASSM_MIN_QUAL={config.MIN_QUAL}",
        f"-DLASSM_MIN_HI_QUAL={config.MIN_HI_QUAL}",
        f"-DLASSM_MIN_KMER_LEN={config.MIN_KMER_LEN}",
        f"-DLASSM_MAX_KMER_LEN={config.MAX_KMER_LEN}",
        f"-DLASSM_SHIFT_SIZE={config.SHIFT_SIZE}",
        f"-DLASSM_TEST_KERNELS={int(bool(test_kernels))}",
    )


def include_options(kernel: str) -> tuple[str, ...]:
    """``-I`` of the staged copy of the kernel's header folder (:func:`lassm.backends.headers.staged_folder`),
    quoted where it holds a space; apart from :func:`defines`, which run records keep."""
    from .headers import include_flag, staged_folder

    folder = str(staged_folder(kernel_source(kernel).parent))
    if '"' in folder:
        raise BackendUnavailable(f"the OpenCL headers' folder {folder!r} holds a double quote, "
                                 "which OpenCL build options cannot carry")
    return (include_flag(folder),)


def workspace_bytes(slots: np.ndarray, max_walk: int, key_bytes: int) -> np.ndarray:
    """Device bytes of each contig end's workspace: its table, visited table and walk buffer."""
    return (np.asarray(slots, dtype=np.int64) * (key_bytes + SLOT_VALUE_BYTES)
            + max_walk * VISITED_BYTES + launch.walk_stride(max_walk))


def check_array(name: str, arr: np.ndarray, dtype) -> None:
    """Refuses anything but a 1-D array of ``dtype`` (the kernel reads raw bytes)."""
    if not isinstance(arr, np.ndarray) or arr.dtype != dtype or arr.ndim != 1:
        got = f"{arr.dtype} {arr.shape}" if isinstance(arr, np.ndarray) else type(arr).__name__
        raise TypeError(f"{name} must be a 1-D {np.dtype(dtype)} array, got {got}")


def check_inputs(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                 protocol: str, protocols: tuple[str, ...] = PROTOCOLS) -> int:
    """Checks the arrays of one side and the protocol (one of ``protocols``, the host's builds);
    returns the number of contigs."""
    for name, arr, dtype in (("ctg_seqs", ctg_seqs, np.uint8), ("ctg_off", ctg_off, np.int64),
                             ("depths", depths, np.float64), ("reads.seqs", reads.seqs, np.uint8),
                             ("reads.quals", reads.quals, np.uint8), ("reads.offsets", reads.offsets, np.int64),
                             ("reads.contig_offsets", reads.contig_offsets, np.int64)):
        check_array(name, arr, dtype)
    n = len(ctg_off) - 1
    if len(depths) != n or len(reads.contig_offsets) != n + 1 or len(run_mask) != n:
        raise ValueError(f"contigs, depths, reads and run_mask disagree on the number of contigs ({n})")
    if protocol not in protocols:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(protocols)}")
    return n


def choose_fp64(has_fp64: bool, fp64: bool | None, device: str) -> bool:
    """The vote's precision: ``fp64`` or, when None, the device's; refuses fp64 it lacks."""
    use = has_fp64 if fp64 is None else bool(fp64)
    if use and not has_fp64:
        raise ValueError(f"{device} has no fp64: pass fp64=False (the integer vote is bit-identical)")
    return use


def choose_key64(has_atomic64: bool, key_bits: int | None, read_bytes: int, device: str) -> bool:
    """64-bit keys or 32: ``key_bits`` or, when None, 64 where the device has 64-bit atomics.

    Keys are read offsets + 1; 32-bit keys reserve 0 (empty) and 0xFFFFFFFF (claimed, unpublished).
    """
    if key_bits not in (None, 32, 64):
        raise ValueError(f"key_bits must be 32 or 64, not {key_bits}")
    key64 = has_atomic64 if key_bits is None else key_bits == 64
    if key64 and not has_atomic64:
        raise ValueError(f"{device} has no 64-bit atomics: use key_bits=32")
    if not key64 and read_bytes >= 0xFFFFFFFE:
        raise ValueError(f"{read_bytes} read bytes do not fit 32-bit keys; use key_bits=64")
    return key64


def table_offsets(slots: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``ends`` (int32 contig ids) and ``ht_off`` (int64 table offsets) of one launch of the
    ends ``idx``, whose tables have ``slots[idx]`` slots."""
    ht_off = offsets_of(slots[idx])
    return idx.astype(np.int32), ht_off


@dataclass
class Plan:
    """The launches of one side: ``(bin label, contig ids, slice number)`` each, and the tables."""

    launches: list[tuple[str, np.ndarray, int]]
    slots: np.ndarray
    nbytes: np.ndarray
    budget: int

    def ends(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`table_offsets` of one launch."""
        return table_offsets(self.slots, idx)

    def scratch_bytes(self, key_bytes: int, max_walk: int) -> list[int]:
        """Bytes of the workspace buffers (keys, votes, exts, visited, walk buffers), sized for the
        largest launch: one workspace serves every launch of an in-order queue."""
        most_ends = max(len(idx) for _, idx, _ in self.launches)
        most_slots = max(int(self.slots[idx].sum()) for _, idx, _ in self.launches)
        return [most_slots * key_bytes, most_slots * 8 * 4, most_slots,
                most_ends * max_walk * VISITED_BYTES, most_ends * launch.walk_stride(max_walk)]


def plan(reads, run_mask: np.ndarray, bin_counts: np.ndarray | None, max_walk: int, key_bytes: int,
         budget: int) -> Plan:
    """Bins the contig ends in ``run_mask`` with reads by read count (``bin_counts``, default this
    side's) and slices each bin so one launch's workspace fits ``budget`` device bytes."""
    n = len(run_mask)
    counts = reads.counts.astype(np.int64) if bin_counts is None else np.asarray(bin_counts, dtype=np.int64)
    if len(counts) != n:
        raise ValueError(f"bin_counts has {len(counts)} entries for {n} contigs")
    slots = launch.table_slots(counts, int(reads.lengths.max(initial=0)))
    nbytes = workspace_bytes(slots, max_walk, key_bytes)
    launches = [(label, idx[a:b], number) for label, idx in launch.bins(run_mask, counts)
                for number, (a, b) in enumerate(launch.slices(nbytes[idx], budget))]
    return Plan(launches, slots, nbytes, int(budget))


def input_arrays(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads) -> list[np.ndarray]:
    """The kernel's input arrays, in argument order (depths as ``int(depth)``, as the oracle)."""
    depth_int = np.trunc(depths).astype(np.int64)
    return [ctg_seqs, ctg_off, depth_int, reads.seqs, reads.quals, reads.offsets, reads.contig_offsets]


def output_arrays(out: SideResult) -> list[np.ndarray]:
    """The kernel's result arrays, in argument order: the fields of ``out``, written in place."""
    return [out.walks, out.walk_len, out.final_k, out.term, out.n_k, out.steps, out.insertions,
            out.start_insertions]


@dataclass
class FastPlan:
    """The launches of one ``fast`` run: slices of the ends in work order (heaviest first), each
    ``(contig ids, n_wide)`` with its first ``n_wide`` ends for the wide teams; and the tables."""

    slices: list[tuple[np.ndarray, int]]
    slots: np.ndarray
    nbytes: np.ndarray
    budget: int

    def ends(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`table_offsets` of one slice."""
        return table_offsets(self.slots, idx)

    def most_slots(self) -> int:
        """Slots of the largest slice: one table serves every slice of an in-order queue."""
        return max(int(self.slots[idx].sum()) for idx, _ in self.slices)


def fast_plan(reads, run_mask: np.ndarray, bin_counts: np.ndarray | None, budget: int,
              wide_teams: bool = True) -> FastPlan:
    """The launches of ``fast``: every end in ``run_mask`` with reads at once, most read bases first, a
    power-of-two table each (sized by ``bin_counts``), sliced only to fit ``budget`` bytes.

    With ``wide_teams``, the leading ends of each slice with at least
    :data:`lassm.backends.cuda.TEAM_MIN_BASES` read bases get a wide team."""
    n = len(run_mask)
    counts = reads.counts.astype(np.int64) if bin_counts is None else np.asarray(bin_counts, dtype=np.int64)
    if len(counts) != n:
        raise ValueError(f"bin_counts has {len(counts)} entries for {n} contigs")
    slots = fast_table_slots(counts, int(reads.lengths.max(initial=0)))
    nbytes = slots * FAST_SLOT_BYTES
    rd_bytes = reads.offsets[reads.contig_offsets[1:]] - reads.offsets[reads.contig_offsets[:-1]]
    order = work_order(np.flatnonzero(np.asarray(run_mask, dtype=bool)), rd_bytes)
    slices = []
    for a, b in launch.slices(nbytes[order], budget) if len(order) else []:
        idx = order[a:b]
        slices.append((idx, team_count(rd_bytes[idx]) if wide_teams else 0))
    return FastPlan(slices, slots, nbytes, int(budget))


def check_fast(has_atomic64: bool, key_bits: int | None, max_walk: int, device: str) -> None:
    """Refuses what ``fast`` cannot build: keys below 64 bits (they carry an epoch above the read
    offset, claimed by a 64-bit CAS), and walks too long for its 16-bit walk offsets."""
    if key_bits == 32 or not has_atomic64:
        why = "key_bits=32 refuses" if has_atomic64 else f"{device} lacks"
        raise ValueError(f"protocol fast tags its keys with an epoch: it needs 64-bit keys and atomics "
                         f"(cl_khr_int64_base_atomics), which {why}")
    if max_walk >= 0xFFFF:
        raise ValueError(f"max_walk = {max_walk}: fast keeps walk offsets in 16 bits; use a walk limit below 65535")


def pocl_threshold() -> int:
    """The widest work-group PoCL builds by copying the kernel once per work-item instead of
    looping over the work-items (``POCL_FULL_REPLICATION_THRESHOLD``, 2 by default; none under a
    ``POCL_WORK_GROUP_METHOD`` of loops): ``fast.cl`` built so counts wrong insertions (PoCL 3.1)."""
    if os.environ.get("POCL_WORK_GROUP_METHOD", "auto") in ("loops", "workitemloops", "loopvec"):
        return 1
    try:
        return int(os.environ.get("POCL_FULL_REPLICATION_THRESHOLD", "2"))
    except ValueError:
        return 2


def pocl_replicates(width: int) -> bool:
    """Whether PoCL copies the kernel per work-item for work-groups of ``width`` (a width of 1
    has one copy: nothing to get wrong)."""
    return 1 < width <= pocl_threshold()


def padded_reads(reads) -> np.ndarray:
    """The read bases followed by :data:`launch.PAD_BYTES` zeros: ``fast.cl`` loads aligned words
    that may run past a k-mer's end."""
    return np.concatenate((reads.seqs, np.zeros(launch.PAD_BYTES, dtype=np.uint8)))


def both_sides(extend_side: Callable[..., SideResult], sides: Sides, **options) -> tuple[SideResult, SideResult]:
    """Both sides of every contig at once (fast's one launch ordered by work), through a host's
    ``extend_side``: the right ends (contigs as given) and the left ends (``left_ctgs``,
    reverse-complemented) stacked into one list of 2n ends (:meth:`~lassm.backends.sides.Sides.stacked`),
    scheduled together by work. Returns ``(right, left)``."""
    res = extend_side(sides.stacked(), **options)
    for rec in res.extra.launches:
        rec["side"] = "both"
    return launch.split_sides(res, sides.n_contigs)


def one_launch(protocol: str) -> bool:
    """Whether ``protocol`` walks both sides at once (a host's ``extend_sides``): ``fast`` does."""
    return protocol == FAST


def sides_of(extend_side: Callable[..., SideResult]) -> Callable[..., tuple[SideResult, SideResult]]:
    """A host's ``extend_sides``, through its ``extend_side`` (:func:`both_sides`)."""
    def extend_sides(sides: Sides, protocol: str = FAST, **options) -> tuple[SideResult, SideResult]:
        """Both sides of every contig at once (fast's one launch ordered by work,
        :func:`lassm.backends.clplan.both_sides`): the options of ``extend_side``; returns ``(right, left)``."""
        return both_sides(extend_side, sides, protocol=protocol, **options)

    return extend_sides

# SPDX-License-Identifier: BSD-3-Clause
"""The hip-cpu backend: our HIP kernels executed on the CPU by ROCm's HIP-CPU runtime.

The same sources (``kernels/local_assembly/cuda/``, HIP branches) are built by g++ into driver
programs (:mod:`.hip_cpu_build`) and checked against the CPU oracle; the host plan is
:mod:`.launch`'s. HIP-CPU runs a block on one thread of fibers that yield at each barrier
(shuffles and votes included), so every thread of a block must meet the same barriers: each block
is one team (one warp, or ``block_warps`` warps for fast's block teams, launched apart).
``warpSize`` is 64; a ``WARP_SIZE`` 32 build runs in the first half of the wavefront.
:func:`refused` names what cannot run, and why.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import settings
from ..byte_sets import offsets_of
from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import hip_cpu_build, launch
from .cuda import launch_scratch, one_launch, team_count  # noqa: F401  one_launch: this backend's API, as CUDA's
from .nvrtc import VARIANTS, kernel_options, launch_build
from .sides import Side, Sides

#: What builds on HIP: the protocols without match-any, then fast and its ablation builds (the hip backend's).
PROTOCOLS: tuple[str, ...] = ("casptr", "doneflag", "barrier", *VARIANTS)
#: The kernels' warp widths tried: HIP-CPU's wavefront, and RDNA's 32 as half of it.
WARP_SIZES: tuple[int, ...] = (64, 32)
#: HIP-CPU's wavefront (its constant ``warpSize``).
WAVEFRONT = 64
#: Warps of a block team unless told otherwise (a block of fast's heaviest ends).
DEFAULT_BLOCK_WARPS = 4
#: Dynamic shared memory a block may take: an AMD work-group's LDS, as the driver is built.
SHARED_LIMIT = 65536
#: Bytes one launch's buffers may take (host memory; larger launches are sliced).
DEFAULT_BUDGET = 1 << 30
#: Seconds one launch may run before it is stopped (``LASSM_HIP_CPU_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 600.0
TIMEOUT_ENV = "LASSM_HIP_CPU_TIMEOUT"
#: fast's builds whose block team has a wavefront of its own: the look-ahead walk and the sorted
#: table's walk run on wavefront 0 alone, and its wavefront barriers are the block's on HIP-CPU.
WAVE_TEAMS: tuple[str, ...] = ("fast-spec", "fast-spec2", "fast-sorted")


def team_warps(protocol: str, warp_size: int, block_warps: int) -> int:
    """Warps of one of fast's block teams on HIP-CPU: ``block_warps``, but one where the team code is
    one wavefront's (:data:`WAVE_TEAMS`) and one for 32-lane warps, since HIP-CPU's width-32
    shuffles count lanes from the wavefront's lane 0 (a second warp would hang)."""
    if protocol in WAVE_TEAMS or int(warp_size) < WAVEFRONT:
        return 1
    return int(block_warps)


def refused(protocol: str, warp_size: int = WAVEFRONT) -> str | None:
    """Why ``protocol`` cannot run on HIP-CPU with ``warp_size``-lane warps, in one line; None when it can."""
    if protocol not in PROTOCOLS:
        return f"{protocol} does not build on HIP (it needs __match_any_sync)" if protocol == "matchany" else \
            f"unknown protocol {protocol!r}"
    if warp_size not in WARP_SIZES:
        return f"HIP-CPU's wavefront has {WAVEFRONT} lanes: a warp of {warp_size} is neither it nor its half"
    if protocol == "doneflag" and warp_size != WAVEFRONT:
        return ("doneflag's probe loop ends on __all, which HIP-CPU counts over its 64-lane wavefront: a 32-lane "
                "warp's vote is never unanimous, so the loop never ends")
    return None


def available() -> tuple[bool, str]:
    """Whether g++, TBB and the pinned HIP-CPU are here (nothing is downloaded or built to say so)."""
    return hip_cpu_build.available()


def device_kind() -> str:
    """``cpu``: HIP-CPU is no GPU, so the registry never picks it as the best backend."""
    return "cpu"


def _check(protocol: str, warp_size: int) -> None:
    why = refused(protocol, warp_size)
    if why:
        raise ValueError(f"hip-cpu: {protocol} at warp size {warp_size}: {why}")


def driver(protocol: str, warp_size: int = WAVEFRONT) -> Path:
    """The built driver of ``protocol`` for ``warp_size``-lane warps (from the cache after the first
    build). It checks nothing :func:`refused` would: the tests build refused ones to show why."""
    options = [o for o in kernel_options(protocol, warp_size) if o.startswith("-D")]
    if protocol in VARIANTS:
        options.append("-DLASSM_HIP_CPU_FAST=1")
    return hip_cpu_build.build("local_assembly", options, ("local_assembly/cuda",))


def warm_up(protocol: str | None = None) -> None:
    """Builds the driver ``lassm extend`` will run (at wavefront 64) while it reads its input."""
    if refused(protocol or "casptr") is None:
        driver(protocol or "casptr")


def launch_timeout(timeout: float | None = None) -> float:
    """Seconds one launch may run: ``timeout``, else ``LASSM_HIP_CPU_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`."""
    return float(timeout if timeout is not None else settings.value(TIMEOUT_ENV) or DEFAULT_TIMEOUT)


@dataclass(frozen=True)
class Driver:
    """A built driver and how its launches run: ``exe`` of build ``protocol`` at the kernel's
    ``warp_size``, each launch stopped after ``timeout`` seconds."""

    exe: Path
    protocol: str
    warp_size: int
    timeout: float


def launch_ends(driven: Driver, side: Side, index: np.ndarray, slots: np.ndarray, block_warps: int,
                teams: bool) -> tuple[SideResult, dict]:
    """One launch of ``driven.exe`` over the contig ends ``index`` of ``side``: with ``teams`` each a
    block team of ``block_warps`` warps, else one warp each (``ends_per_warp`` for lane builds).

    Buffers are :func:`lassm.backends.cuda_slice.run_slice`'s, passed as files; ``driven.timeout``
    stops it. Returns ``(SideResult, launch record)``."""
    exe, protocol, warp_size, timeout = driven.exe, driven.protocol, driven.warp_size, driven.timeout
    ctg_seqs, ctg_off, depths, reads, params = side.ctg_seqs, side.ctg_off, side.depths, side.reads, side.params
    n, max_walk = len(index), int(params.max_walk)
    variant = VARIANTS.get(protocol)
    per_warp = 1 if variant is None else variant.ends_per_warp(warp_size)
    visited, shared = launch_scratch(variant, n, block_warps, max_walk, warp_size, per_warp)  # zeroed by the driver
    launch.require_shared(shared, SHARED_LIMIT, block_warps, max_walk)
    stride = launch.walk_stride(max_walk)
    rids, cnt_off = launch.read_index(reads.contig_offsets, index)
    ctg, c_off = launch.gather(ctg_seqs, ctg_off, index, pad=launch.PAD_BYTES)
    seqs, r_off = launch.gather(reads.seqs, reads.offsets, rids, pad=launch.PAD_BYTES)
    quals, _ = launch.gather(reads.quals, reads.offsets, rids, pad=launch.PAD_BYTES)
    ht_off = offsets_of(slots)
    if variant is not None:  # fast takes (begin, end) spans of the gathered buffers
        c_off, cnt_off = launch.end_spans(c_off, np.arange(n)), launch.end_spans(cnt_off, np.arange(n))
    inputs = {"ctg_seqs": (ctg, np.uint8), "ctg_off": (c_off, np.int64),
              "depths": (np.asarray(depths)[index], np.float64), "rd_seqs": (seqs, np.uint8),
              "rd_quals": (quals, np.uint8), "rd_off": (r_off, np.int64), "rd_cnt_off": (cnt_off, np.int64),
              "ht_off": (ht_off, np.int64)}
    n_team = n if teams else 0  # the kernel's argument: its first n_team blocks are block teams
    if teams:  # a block of block_warps warps for each end
        grid, threads = n, block_warps * warp_size
    else:  # a block of one warp, which walks per_warp ends
        (grid,), (threads,) = launch.geometry(n, 1, warp_size, 0, per_warp)
    with tempfile.TemporaryDirectory(prefix="lassm-hip-cpu-") as tmp:
        for name, (arr, dtype) in inputs.items():
            np.ascontiguousarray(arr, dtype=dtype).tofile(os.path.join(tmp, f"{name}.bin"))
        said = hip_cpu_build.run(exe, (tmp, n, params.k, max_walk, params.qual_offset, stride, n_team, grid, threads,
                                       shared, visited, n * stride + launch.PAD_BYTES), timeout,
                                 f"the {protocol} launch of {n} contig ends")

        def out(name: str, dtype) -> np.ndarray:
            return np.fromfile(os.path.join(tmp, f"{name}.bin"), dtype=dtype)

        part = SideResult(max_walk=max_walk, walks=out("walks", np.uint8), walk_len=out("walk_len", np.int32),
                          final_k=out("final_k", np.int32), term=out("term", np.uint8), n_k=out("n_k", np.int32),
                          steps=out("steps", np.int64), insertions=out("insertions", np.int64),
                          start_insertions=out("start_insertions", np.int64), kernel_seconds=said["seconds"])
    record = {"contigs": int(n), "seconds": said["seconds"], "blocks": int(grid), "threads": int(threads),
              "block_teams": int(n_team), "shared_bytes": int(shared)}
    return part, record


def extend_side(side: Side, protocol: str = "casptr", block_warps: int = DEFAULT_BLOCK_WARPS,
                max_bytes: int | None = None, warp_size: int = WAVEFRONT, timeout: float | None = None) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set, on HIP-CPU; contigs arrive oriented.

    Parameters
    ----------
    side : as :func:`lassm.backends.cuda.extend_side` takes it.
    protocol : a name of :data:`PROTOCOLS` that :func:`refused` does not refuse at ``warp_size``.
    block_warps : warps of each of fast's block teams (every other block is one warp).
    max_bytes : bytes one launch's buffers may take (default :data:`DEFAULT_BUDGET`).
    warp_size : the kernel's ``WARP_SIZE``: 64 (HIP-CPU's wavefront) or 32 (half of it).
    timeout : seconds one launch may run (default ``LASSM_HIP_CPU_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`).

    Returns
    -------
    SideResult, ``kernel_seconds`` the launches' wall seconds in the driver.
    """
    _check(protocol, warp_size)
    ctg_off, reads, run_mask, params, bin_counts = side.ctg_off, side.reads, side.run_mask, side.params, side.bin_counts
    n = len(ctg_off) - 1
    if len(side.depths) != n or len(run_mask) != n or len(reads.contig_offsets) != n + 1:
        raise ValueError("contigs, depths, run_mask and reads disagree on the number of contigs")
    build = launch_build(protocol, params.k)  # fast's sorted build at a small start k, as on CUDA
    exe = driver(build, warp_size)
    variant = VARIANTS.get(build)
    warps = team_warps(build, warp_size, block_warps)
    counts = reads.counts.astype(np.int64) if bin_counts is None else np.asarray(bin_counts, dtype=np.int64)
    max_read_len = int(reads.lengths.max(initial=0))
    slots_all = (launch.table_slots if variant is None else launch.fast_table_slots)(counts, max_read_len)
    rd_bytes = reads.offsets[reads.contig_offsets[1:]] - reads.offsets[reads.contig_offsets[:-1]]
    nbytes = launch.end_bytes(np.diff(ctg_off), rd_bytes, reads.counts, slots_all, int(params.max_walk)).total
    if variant is not None and variant.one_launch:
        groups = [("all", launch.work_order(np.flatnonzero(np.asarray(run_mask, dtype=bool)), rd_bytes))]
    else:
        groups = launch.bins(run_mask, counts)
    out = SideResult.empty(n, int(params.max_walk))
    launches, driven = [], Driver(exe, build, warp_size, launch_timeout(timeout))
    for label, idx in groups:
        for number, (a, b) in enumerate(launch.slices(nbytes[idx], int(max_bytes or DEFAULT_BUDGET))):
            index = idx[a:b]
            n_team = team_count(rd_bytes[index]) if variant is not None and variant.block_teams else 0
            # a block is one team: the block teams in a launch of their own, then a warp per end
            for part_index, teams in ((index[:n_team], True), (index[n_team:], False)):
                if not len(part_index):
                    continue
                part, record = launch_ends(driven, side, part_index, slots_all[part_index], warps if teams else 1,
                                           teams)
                out.scatter(part_index, part)
                launches.append({"bin": label, "slice": number, **record})
    out.extra = SideFigures(
        backend="hip-cpu", protocol=protocol, build=build, as_published=False, warp_size=int(warp_size),
        wavefront=WAVEFRONT, block_warps=warps, launches=launches,
        device=f"HIP-CPU (wavefront {int(warp_size)})", hip_cpu=hip_cpu_build.HIP_CPU.label,
        compiler=hip_cpu_build.compiler_version(hip_cpu_build.compiler() or "g++"),
        options=list(kernel_options(build, warp_size)), timer="driver wall clock",
    )
    return out


def extend_sides(sides: Sides, protocol: str = "fast", block_warps: int = DEFAULT_BLOCK_WARPS,
                 max_bytes: int | None = None, warp_size: int = WAVEFRONT,
                 timeout: float | None = None) -> tuple[SideResult, SideResult]:
    """Both sides in one launch plan, the right ends then the left ones (reverse-complemented on the
    host), scheduled together by work as on CUDA; same parameters as :func:`extend_side`. Returns
    ``(right, left)``."""
    if sides.left_ctgs is None:
        raise ValueError("the hip-cpu backend takes left_ctgs: its contigs are reverse-complemented on the host")
    res = extend_side(sides.stacked(), protocol=protocol, block_warps=block_warps, max_bytes=max_bytes,
                      warp_size=warp_size, timeout=timeout)
    for record in res.extra.launches:
        record["side"] = "both"
    return launch.split_sides(res, sides.n_contigs)

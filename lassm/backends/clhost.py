# SPDX-License-Identifier: BSD-3-Clause
"""The one host of the OpenCL C kernels: what pyopencl (:mod:`.opencl`) and dpctl (:mod:`.sycl`) do alike.

Memory budget, launch loops, wait, copy back and vote live here; each host supplies a
:class:`Runtime` (device, build, allocate, launch, time) and its lanes' knob. The launch plan is
:mod:`.clplan`'s. ``kernel_seconds`` sums the profiled launch times (wall clock where the queue
cannot profile); ``extra`` records device, driver, lanes, protocol, build options and launches.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..workloads.local_assembly import config
from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import clplan, launch
from .sides import Choices, Side

#: Share of the device's global memory one extend_side call may use by default.
MEMORY_FRACTION = 0.25


class Runtime:
    """What an OpenCL C host differs in: its device's facts, its buffers, its launches, its clock.
    A host's chosen device is one (``_Device`` in :mod:`.opencl` and :mod:`.sycl`)."""

    #: ``extra.backend``.
    backend = ""
    #: ``extra.timer``: what times the launches.
    timer = "event profiling"
    #: 64-bit atomics; fp64.
    key64: bool
    fp64: bool
    #: The runtime's handle of the chosen device.
    device: Any

    @property
    def name(self) -> str:
        """The device's name and where it answers."""
        raise NotImplementedError

    @property
    def driver(self) -> str:
        return str(self.device.driver_version)

    def memory(self) -> tuple[int, int]:
        """(global memory, the largest allocation), bytes."""
        return int(self.device.global_mem_size), int(self.device.max_mem_alloc_size)

    @property
    def profiling(self) -> bool:
        """Whether launch events carry profiled times."""
        return True

    def upload(self, arr: np.ndarray) -> Any:
        """A device copy of ``arr`` (at least one byte, so that empty arrays have a buffer)."""
        raise NotImplementedError

    def alloc(self, nbytes: int) -> Any:
        """A device buffer of ``nbytes`` (at least one)."""
        raise NotImplementedError

    def size(self, buf: Any) -> int:
        """A buffer's bytes."""
        return int(buf.nbytes)

    def int32(self, value: int) -> Any:
        """A 32-bit integer kernel argument."""
        return np.int32(value)

    def launch(self, kernel: Any, args: list, gsize: int, lsize: int) -> Any:
        """Enqueues ``kernel`` on ``args`` over ``gsize`` work-items in groups of ``lsize``; its event."""
        raise NotImplementedError

    def zero(self, buf: Any, nbytes: int) -> None:
        """Zeroes the first ``nbytes`` of ``buf``, in queue order."""
        raise NotImplementedError

    def wait(self) -> None:
        """Waits for the queue."""
        raise NotImplementedError

    def download(self, buf: Any, arr: np.ndarray) -> None:
        """Copies ``buf`` back into ``arr`` (nothing for an empty array)."""
        raise NotImplementedError

    def event_seconds(self, event: Any) -> float:
        """A launch's profiled time."""
        raise NotImplementedError


def budget(rt: Runtime, max_bytes: int | None) -> int:
    """``max_bytes``, else :data:`MEMORY_FRACTION` of the device memory (at most one allocation)."""
    if max_bytes is not None:
        return int(max_bytes)
    memory, most = rt.memory()
    return int(min(memory * MEMORY_FRACTION, most))


def extra(rt: Runtime, lanes: SideFigures, choices: Choices, key_bits: int, use_fp64: bool, options,
          build_seconds: float, budget_bytes: int) -> SideFigures:
    """A result's ``extra`` before its launches: device, driver, ``lanes`` (the runtime's version
    and the lane widths, as the host names them), protocol, keys, vote, build and budget."""
    return replace(lanes, backend=rt.backend, device=rt.name, driver=rt.driver, protocol=choices.protocol,
                   key_bits=key_bits, fp64=use_fp64, options=list(options), build_seconds=build_seconds,
                   budget_bytes=budget_bytes, launches=[], mem_high_water_bytes=0)


def extend_bins(rt: Runtime, side: Side, choices: Choices, build: Callable, lanes: Callable) -> SideResult:
    """One side through a protocol of ``ht_insert`` (bins by read count, sliced: :func:`clplan.plan`).

    ``build(key64, fp64)`` gives the host's ``(options, kernel, width)`` (``width``: lanes per
    contig end); ``lanes(width)`` gives the ``extra`` entries of runtime and lanes, and
    ``(contig ends per work-group, width)``."""
    use_fp64 = clplan.choose_fp64(rt.fp64, choices.fp64, rt.name)
    key64 = clplan.choose_key64(rt.key64, choices.key_bits, len(side.reads.seqs), rt.name)
    out = SideResult.empty(len(side.ctg_off) - 1, int(side.params.max_walk))
    t0 = time.perf_counter()
    options, kernel, width = build(key64, use_fp64)
    build_seconds = time.perf_counter() - t0
    key_bytes = 8 if key64 else 4
    room = budget(rt, choices.max_bytes)
    plan = clplan.plan(side.reads, side.run_mask, side.bin_counts, int(side.params.max_walk), key_bytes, room)
    named, group = lanes(width)
    out.extra = extra(rt, named, choices, 8 * key_bytes, use_fp64, options, build_seconds, room)
    if not plan.launches:
        return out
    return run_bins(rt, kernel, side, out, plan, key_bytes, group)


def extend_fast(rt: Runtime, side: Side, choices: Choices, widths: tuple[int, int | None], build: Callable,
                lanes: SideFigures) -> SideResult:
    """One side (or both, stacked) through ``fast``: every end at once in work order
    (:func:`clplan.fast_plan`), ``widths`` = (team, the wide teams' width; None: none);
    ``build(width, fp64)`` gives the host's ``(options, kernel)``; ``lanes``, the ``extra`` entries
    of the runtime and its lanes."""
    clplan.check_fast(rt.key64, choices.key_bits, int(side.params.max_walk), rt.name)
    use_fp64 = clplan.choose_fp64(rt.fp64, choices.fp64, rt.name)
    out = SideResult.empty(len(side.ctg_off) - 1, int(side.params.max_walk))
    room = budget(rt, choices.max_bytes)
    team, block = widths
    plan = clplan.fast_plan(side.reads, side.run_mask, side.bin_counts, room,
                            wide_teams=block is not None and block != team)
    wanted = sorted({team} | ({block} if block is not None and any(wide for _, wide in plan.slices) else set()))
    t0 = time.perf_counter()
    built = {w: build(w, use_fp64) for w in wanted}
    out.extra = extra(rt, lanes, choices, 64, use_fp64, built[team][0], time.perf_counter() - t0, room)
    if not plan.slices:
        return out
    return run_fast(rt, {w: kernel for w, (_o, kernel) in built.items()}, side, out, plan, widths)


def run_bins(rt: Runtime, kernel: Any, side: Side, out: SideResult, plan: clplan.Plan, key_bytes: int,
             group: tuple[int, int]) -> SideResult:
    """Every launch of ``plan`` (bins by read count, sliced), ``group`` = (contig ends per
    work-group, lanes per end), on one workspace sized for the largest launch: the queue is in order."""
    max_walk = int(side.params.max_walk)
    inputs = [rt.upload(a) for a in clplan.input_arrays(side.ctg_seqs, side.ctg_off, side.depths, side.reads)]
    results = clplan.output_arrays(out)
    outputs = [rt.upload(a) for a in results]
    scratch = [rt.alloc(max(nb, 1)) for nb in plan.scratch_bytes(key_bytes, max_walk)]
    resident = sum(rt.size(b) for b in inputs + outputs + scratch)
    events, alive = [], []
    t0 = time.perf_counter()
    for label, idx, number in plan.launches:
        ends = [rt.upload(a) for a in plan.ends(idx)]
        alive.append(ends)  # alive until the queue has run
        (blocks,), (threads,) = launch.geometry(len(idx), *group)
        args = [*inputs, ends[0], rt.int32(len(idx)), ends[1], *scratch, rt.int32(int(side.params.k)), *outputs]
        events.append(rt.launch(kernel, args, blocks * threads, threads))
        out.extra.launches.append({"bin": label, "slice": number, "contigs": int(len(idx)),
                                      "slots": int(plan.slots[idx].sum()), "bytes": int(plan.nbytes[idx].sum()),
                                      "global": blocks * threads, "local": threads})
    return finish(rt, out, t0, events, results, outputs, resident)


def run_fast(rt: Runtime, kernels: dict[int, Any], side: Side, out: SideResult, plan: clplan.FastPlan,
             widths: tuple[int, int | None]) -> SideResult:
    """Every slice of ``fast``'s plan: the keys zeroed (epoch 0: every slot empty), then one launch
    of ``kernels[block]``-wide teams for the slice's heaviest ends and one of ``kernels[team]``-wide
    teams for the others, ``widths`` = (team, block; None: no wide teams and no ``block_teams``
    in the launch records)."""
    team, block = widths
    wide = block if block is not None else team  # without wide teams no slice has any
    host_in = clplan.input_arrays(side.ctg_seqs, side.ctg_off, side.depths, side.reads)
    host_in[3] = clplan.padded_reads(side.reads)  # fast's word loads run past a k-mer's end
    inputs = [rt.upload(a) for a in host_in]
    results = clplan.output_arrays(out)
    outputs = [rt.upload(a) for a in results]
    slots = plan.most_slots()
    keys, votes = rt.alloc(max(8 * slots, 8)), rt.alloc(max(32 * slots, 32))
    events, alive = [], []
    t0 = time.perf_counter()
    for number, (idx, n_wide) in enumerate(plan.slices):
        ends = [rt.upload(a) for a in plan.ends(idx)]
        alive.append(ends)  # alive until the queue has run
        rt.zero(keys, 8 * max(int(plan.slots[idx].sum()), 1))
        for first, stop, width in ((0, n_wide, wide), (n_wide, len(idx), team)):
            if stop <= first:
                continue
            args = [*inputs, ends[0], rt.int32(stop), rt.int32(first), ends[1], keys, votes,
                    rt.int32(int(side.params.k)), *outputs]
            events.append(rt.launch(kernels[width], args, (stop - first) * width, width))
            record = {"bin": "all", "slice": number, "contigs": stop - first,
                      "block_teams": stop - first if first < n_wide else 0,
                      "slots": int(plan.slots[idx[first:stop]].sum()),
                      "bytes": int(plan.nbytes[idx[first:stop]].sum()),
                      "global": (stop - first) * width, "local": width}
            if block is None:
                del record["block_teams"]
            out.extra.launches.append(record)
    return finish(rt, out, t0, events, results, outputs, sum(rt.size(b) for b in inputs + outputs + [keys, votes]))


def finish(rt: Runtime, out: SideResult, t0: float, events: list, results: list, outputs: list,
           resident: int) -> SideResult:
    """Waits for the queue, copies the outputs back into ``out`` and records each launch's
    profiled time (the wall time since ``t0`` where the queue cannot profile) and the device
    bytes in use (``resident``)."""
    rt.wait()
    wall = time.perf_counter() - t0
    for arr, buf in zip(results, outputs):
        rt.download(buf, arr)
    rt.wait()
    if rt.profiling:
        for rec, ev in zip(out.extra.launches, events):
            rec["seconds"] = rt.event_seconds(ev)
        out.kernel_seconds = float(sum(rec["seconds"] for rec in out.extra.launches))
        timer = rt.timer
    else:
        out.kernel_seconds, timer = wall, "wall clock"
    out.extra = replace(out.extra, timer=timer, wall_seconds=wall, mem_high_water_bytes=int(resident))
    return out


def vote(rt: Runtime, votes: np.ndarray, depths: np.ndarray, fp64: bool | None, build: tuple) -> np.ndarray:
    """The kernel's ``set_ext`` on many vote vectors, so the vote can be checked alone.

    ``votes``: uint32 ``(n, 8)``, A C G T votes (q >= MIN_QUAL) then high-quality ones; ``depths``:
    int64 ``int(depth)``; ``fp64``: double-precision vote (None: when the device has fp64);
    ``build``: ``(build_options, default lanes' knob, kernel_of)``. Returns a uint8 extension per
    row: a base, ``X`` or ``F``."""
    build_options, lanes, kernel_of = build
    votes = np.ascontiguousarray(votes, dtype=np.uint32).reshape(-1, 8)
    depths = np.ascontiguousarray(depths, dtype=np.int64)
    if len(depths) != len(votes):
        raise ValueError(f"{len(votes)} vote vectors but {len(depths)} depths")
    use_fp64 = clplan.choose_fp64(rt.fp64, fp64, rt.name)
    kernel = kernel_of(build_options(clplan.DEFAULT_PROTOCOL, lanes, False, use_fp64, config.DEFAULT_MAX_WALK,
                                     config.DEFAULT_QUAL_OFFSET, test_kernels=True))
    out = np.zeros(len(votes), dtype=np.uint8)
    if len(votes):
        bufs = [rt.upload(votes.reshape(-1)), rt.upload(depths), rt.upload(out)]
        local = 64
        rt.launch(kernel, bufs + [rt.int32(len(votes))], launch.ceil_div(len(votes), local) * local, local)
        rt.wait()
        rt.download(bufs[2], out)
        rt.wait()
    return out


__all__ = ["MEMORY_FRACTION", "Runtime", "budget", "extend_bins", "extend_fast", "extra", "finish",
           "run_bins", "run_fast", "vote"]

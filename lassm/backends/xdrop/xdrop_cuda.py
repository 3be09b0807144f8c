# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop CUDA backend: ``kernels/xdrop/cuda/xdrop.cu`` through CuPy, timed with CUDA events.

Layouts chosen by X (:func:`plan.lanes_for`): LOGAN's block per alignment direction
(``xdrop.cu``), or a few lanes of a warp per direction (``xdrop_lanes.cu``). The ``warps`` plan
(:data:`plan.LAYOUT_ENV`) orders tasks by expected cells and runs wide bands on the wide-band
block (``xdrop_warps.cu``, anti-diagonals in shared memory; :data:`plan.WARPS_PLAN`). The source
compiles alone with NVRTC, so :func:`compile_ptx` checks it without a GPU using
:func:`build_options`. Host preparation is :mod:`.xdrop_host`'s.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from ...paths import kernel_source
from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs
from ...workloads.xdrop.alignments import Alignments, XdropFigures
from .. import cuda as cu
from . import xdrop_host as plan

KERNEL = "xdrop/cuda/xdrop.cu"
ENTRY = "xdrop_kernel"
LANES_KERNEL = "xdrop/cuda/xdrop_lanes.cu"
LANES_ENTRY = "xdrop_lanes_kernel"
WARPS_KERNEL = "xdrop/cuda/xdrop_warps.cu"
WARPS_ENTRY = "xdrop_warps_kernel"
#: Threads per block of the lanes layout.
LANES_BLOCK = 128
#: CUDA's largest block.
MAX_GROUP = 1024
#: Share of the free device memory one launch's scratch may use.
MEMORY_FRACTION = 0.5


def available() -> tuple[bool, str]:
    """Whether CuPy for CUDA and a CUDA device are here (the local-assembly backend's probe)."""
    return cu.available()


def build_options(group: int) -> tuple[str, ...]:
    """The options of one build: the block size as ``XDROP_GROUP``; part of CuPy's cache key."""
    if not 1 <= group <= MAX_GROUP:
        raise ValueError(f"group = {group} must be in 1..{MAX_GROUP}")
    return ("--std=c++17", f"-DXDROP_GROUP={int(group)}", *plan.include_options())


def lanes_options(lanes: int) -> tuple[str, ...]:
    """The options of one lanes build: ``XDROP_LANES`` and the block size ``XDROP_BLOCK``."""
    if lanes not in plan.LANES:
        raise ValueError(f"lanes = {lanes} must be one of {plan.LANES}")
    return ("--std=c++17", f"-DXDROP_LANES={int(lanes)}", f"-DXDROP_BLOCK={LANES_BLOCK}", *plan.include_options())


def warps_options(group: int, stride: int) -> tuple[str, ...]:
    """The options of one wide-band build: ``XDROP_GROUP`` threads, ``XDROP_SHARED_STRIDE`` shared
    ints per anti-diagonal."""
    if group % plan.WARP or not 1 <= group <= MAX_GROUP:
        raise ValueError(f"group = {group} must be a multiple of {plan.WARP} up to {MAX_GROUP} for the wide-band block")
    if stride < 3:
        raise ValueError(f"shared stride = {stride} must be at least 3")
    return ("--std=c++17", f"-DXDROP_GROUP={int(group)}", f"-DXDROP_WARP={plan.WARP}",
            f"-DXDROP_SHARED_STRIDE={int(stride)}", *plan.include_options())


def _source(lanes: int, group: int = plan.DEFAULT_GROUP, stride: int = 0) -> tuple[str, tuple[str, ...], str]:
    """(file, options, entry) of one layout: the wide-band block of ``group`` threads and ``stride``
    shared ints per anti-diagonal (``stride`` > 0), LOGAN's block of ``group`` threads (``lanes``
    0) or the lanes kernel."""
    if stride:
        return WARPS_KERNEL, warps_options(group, stride), WARPS_ENTRY
    if lanes == 0:
        return KERNEL, build_options(group), ENTRY
    return LANES_KERNEL, lanes_options(lanes), LANES_ENTRY


def choose(xdrop: int, lanes: int | None, layout: str | None, stride: int | None,
           group: int | None = None) -> tuple[int, int, int]:
    """(lanes, group, shared stride) of a run: a ``stride`` above 0 names the wide-band block at any
    X, ``lanes`` the lanes kernel (0: LOGAN's block); else the plan's (:func:`plan.layout`) for X.
    ``group`` (threads of a block) where given, else the plan's: LOGAN's 128, or the ``warps`` plan's."""
    wide = plan.layout(layout) == "warps"
    planned_lanes, planned_group, planned_stride = plan.warps_plan(xdrop)
    if stride:  # asked for by name, at any X
        return 0, int(group or planned_group), int(stride)
    if lanes is None and wide:
        lanes, stride = planned_lanes, 0 if planned_lanes else planned_stride
        return lanes, int(group or (plan.DEFAULT_GROUP if lanes else planned_group)), stride
    lanes = plan.lanes_for(xdrop) if lanes is None else int(lanes)
    return lanes, int(group or plan.DEFAULT_GROUP), 0


def compile_ptx(arch: str = "compute_90", group: int = plan.DEFAULT_GROUP, lanes: int = 0,
                stride: int = 0) -> tuple[str, str]:
    """A kernel compiled to PTX by NVRTC alone (no CuPy, no GPU): ``(ptx, log)``; ``stride`` > 0 is
    the wide-band block, ``lanes`` 0 LOGAN's block layout with ``group`` threads, else the lanes
    kernel with that many lanes."""
    from .. import nvrtc

    name, options, _entry = _source(lanes, group, stride)
    path = kernel_source(name)
    return nvrtc.compile_ptx(path.read_text(), [*options, f"--gpu-architecture={arch}"], name=path.name)


@functools.lru_cache(maxsize=None)
def _kernel(options: tuple[str, ...], code: str, entry: str, name: str):
    """A compiled kernel, once per options and source text, loaded by the lean runtime
    (:func:`lassm.backends.cuda.lean_runtime`: the driver, else CuPy)."""
    rt = cu.lean_runtime()
    if cu.is_driver(rt):
        return rt.load(code, options, name, entry)
    return rt.RawModule(code=code, options=options).get_function(entry)


def kernel(group: int, lanes: int = 0, stride: int = 0):
    """The wide-band block (``stride`` > 0) or LOGAN's block kernel for blocks of ``group`` threads
    (``lanes`` 0), else the lanes kernel."""
    name, options, entry = _source(lanes, group, stride)
    return _kernel(options, kernel_source(name).read_text(), entry, name.rsplit("/", 1)[-1])


def warm_up(xdrop: int | None = None, lanes: int | None = None, layout: str | None = None) -> None:
    """Makes the context and loads the kernel that ``align`` will use for X (or ``lanes``) and the
    plan ``layout``, compiled once, then from CuPy's disk cache: start-up that ``lassm xdrop
    align`` overlaps with reading."""
    group, stride = plan.DEFAULT_GROUP, 0
    if lanes is None:
        lanes, group, stride = choose(xdrop, None, layout, None) if xdrop is not None else (0, group, 0)
    rt = cu.lean_runtime()
    if cu.is_driver(rt):  # the other layouts' cubins, built beside this one where none is cached
        for other in (0, *plan.LANES):
            if other != lanes:
                name, options, _entry = _source(other)
                rt.prebuild(kernel_source(name).read_text(), options, name.rsplit("/", 1)[-1])
    kernel(group, lanes, stride)


def _budget(rt) -> int:
    free, _total = rt.mem_get_info() if cu.is_driver(rt) else rt.cuda.runtime.memGetInfo()
    return max(int(free * MEMORY_FRACTION), 1)


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None, group: int | None = None,
          max_bytes: int | None = None, lanes: int | None = None, layout: str | None = None,
          stride: int | None = None) -> Alignments:
    """Extends every pair's seed both ways on the GPU, bit for bit as the oracle.

    Parameters
    ----------
    threads : ignored (the GPU decides); kept for the backends' one signature.
    group : threads per block of LOGAN's layout or the wide-band block (``XDROP_GROUP``); default
        the plan's (:func:`choose`).
    max_bytes : scratch bytes of one launch (default: half the free device memory).
    lanes : threads per direction: 0 for LOGAN's block layout, 8, 16 or 32 for the lanes kernel;
        None (default) for X's plan.
    layout : ``logan`` or ``warps`` (:data:`plan.LAYOUTS`); None: :data:`plan.LAYOUT_ENV`.
    stride : run the wide-band block at any X with this many shared ints per anti-diagonal; None:
        the plan's where the ``warps`` plan runs that block.

    Returns
    -------
    Alignments
        ``extra``: device, cells, kernel_seconds (CUDA events), gcups, launches, group, lanes, plan,
        shared_stride (0 unless the wide-band block ran).
    """
    cupy = cu.lean_runtime()  # the driver through ctypes where it can build, else CuPy: one interface
    chosen = plan.layout(layout)
    lanes, group, stride = choose(scoring.xdrop, lanes, chosen, stride, group)
    kern = kernel(group, lanes, stride)
    start_wall = time.perf_counter()
    t = plan.tasks(pairs)
    out = plan.Outputs.empty(t.n)
    order = plan.work_order(t, pairs.seqs_v, pairs.seqs_h) if chosen == "warps" else None
    if order is not None:
        t = t.permuted(order)
    seqs_v = cupy.asarray(pairs.seqs_v if len(pairs.seqs_v) else np.zeros(1, np.uint8))
    seqs_h = cupy.asarray(pairs.seqs_h if len(pairs.seqs_h) else np.zeros(1, np.uint8))
    ranges = plan.batches(t, max_bytes or _budget(cupy))
    kernel_seconds = 0.0
    for lo, hi in ranges:
        sub = t.take(lo, hi)
        offs = plan.scratch_offsets(sub)
        ins = [cupy.asarray(a) for a in (sub.q_start, sub.q_len, sub.d_start, sub.d_len, sub.direction, offs)]
        for arr, dtype in zip(ins, (np.int64, np.int32, np.int64, np.int32, np.uint8, np.int64)):
            assert arr.dtype == dtype and arr.flags.c_contiguous  # CuPy checks no kernel argument
        scratch = cupy.empty(max(int(offs[-1]), 1), dtype=np.int32)
        res = [cupy.zeros(sub.n, dtype=d) for d in (np.int32, np.int32, np.int32, np.int64, np.int32)]
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        args = (seqs_v, seqs_h, *ins, scratch, *plan.scoring_args(scoring), *res)
        if lanes:
            kern((-(-sub.n * lanes // LANES_BLOCK),), (LANES_BLOCK,), (*args, np.int32(sub.n)))
        else:
            kern((sub.n,), (group,), args)
        end.record()
        end.synchronize()
        kernel_seconds += cupy.cuda.get_elapsed_time(start, end) / 1000.0
        out.put(lo, hi, order, {k: cupy.asnumpy(arr) for k, arr in zip(plan.OUTPUT_NAMES, res)})
        del scratch
    wall = time.perf_counter() - start_wall
    device = cu.driver_info()["device"] if cu.is_driver(cupy) else cu.device_name()
    return plan.assemble(pairs, scoring, out, "cuda", wall, kernel_seconds,
                         XdropFigures(device=device, launches=len(ranges), group=LANES_BLOCK if lanes else group,
                                      lanes=lanes, plan=chosen, shared_stride=stride))

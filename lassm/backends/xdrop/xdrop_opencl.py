# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop OpenCL backend: ``kernels/xdrop/opencl/xdrop.cl`` through pyopencl.

One work-group per alignment direction, as LOGAN gives a block. Device, queue, ICD workaround and
program cache are :mod:`lassm.backends.opencl`'s (``LASSM_OPENCL_DEVICE`` picks for both kernels).
Kernel time sums the launches' profiling events; :mod:`.xdrop_host` holds the shared host side.
"""
from __future__ import annotations

import time

from ...errors import BackendUnavailable
from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs
from ...workloads.xdrop.alignments import Alignments, XdropFigures
from .. import opencl as ocl
from . import xdrop_host

KERNEL = "xdrop/opencl/xdrop.cl"
ENTRY = "xdrop_kernel"
#: Built kernels by (context, options). Not :func:`lassm.backends.opencl.program`'s cache: it keys
#: on the device, and two values of ``LASSM_OPENCL_DEVICE`` naming one device give two contexts,
#: whose buffers a program of the other cannot take (``INVALID_MEM_OBJECT``).
_KERNELS: dict[tuple, object] = {}


def available() -> tuple[bool, str]:
    """Whether pyopencl and an OpenCL device are here (the local-assembly backend's answer)."""
    return ocl.available()


def build_options(group: int) -> tuple[str, ...]:
    """OpenCL C 1.2 and the work-group size; part of the program memo key."""
    if group < 1:
        raise ValueError(f"group = {group} must be at least 1")
    return (ocl.CL_STD, f"-DXDROP_GROUP={int(group)}", *xdrop_host.include_options())


def max_group() -> int:
    """The device's largest work-group."""
    return int(ocl._device().device.max_work_group_size)


def kernel(group: int):
    """``xdrop_kernel`` built for work-groups of ``group`` on this backend's device (memoized); raises
    BackendUnavailable with the options and log when the compiler rejects it."""
    dev = ocl._device()
    options = build_options(group)
    key = (dev.context.int_ptr, options)
    if key not in _KERNELS:
        _KERNELS[key] = ocl.cl.Kernel(ocl.built(KERNEL, options), ENTRY)
    return _KERNELS[key]


def warm_up() -> None:
    """Picks the device, makes its context and queue and builds the default work-group's kernel:
    start-up that ``lassm xdrop align`` overlaps with reading its pairs."""
    kernel(min(xdrop_host.DEFAULT_GROUP, max_group()))


def _default_budget() -> int:
    return int(ocl._device().device.global_mem_size * ocl.MEMORY_FRACTION)


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None, group: int = xdrop_host.DEFAULT_GROUP,
          max_bytes: int | None = None) -> Alignments:
    """Extends every pair's seed both ways on the OpenCL device, bit for bit as the oracle.

    ``threads`` is ignored (kept for the one signature); ``group``: work-items per work-group
    (``XDROP_GROUP``), capped at the device's maximum; ``max_bytes``: scratch bytes of one launch
    (default: a share of device memory). ``extra``: device, cells, kernel_seconds, gcups, launches,
    group."""
    group = min(int(group), max_group())
    kern = kernel(group)
    dev, cl = ocl._device(), ocl.cl
    start = time.perf_counter()
    t = xdrop_host.tasks(pairs)
    out = xdrop_host.Outputs.empty(t.n)
    ctx, queue = dev.context, dev.queue
    seqs_v, seqs_h = ocl._buffer(ctx, pairs.seqs_v), ocl._buffer(ctx, pairs.seqs_h)
    ranges = xdrop_host.batches(t, max_bytes or _default_budget())
    kernel_seconds = 0.0
    for lo, hi in ranges:
        sub = t.take(lo, hi)
        offs = xdrop_host.scratch_offsets(sub)
        n = sub.n
        res = xdrop_host.Outputs.empty(n)
        try:
            scratch = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, max(int(offs[-1]) * 4, 4))
        except cl.Error as exc:
            raise BackendUnavailable(f"OpenCL: no room for {int(offs[-1]) * 4} scratch bytes ({exc})") from None
        outs = [cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes) for a in
                (res.score, res.ext_col, res.ext_row, res.cells, res.status)]
        ins = [ocl._buffer(ctx, a) for a in (sub.q_start, sub.q_len, sub.d_start, sub.d_len, sub.direction, offs)]
        event = kern(queue, (n * group,), (group,), seqs_v, seqs_h, *ins, scratch,
                     *xdrop_host.scoring_args(scoring), *outs)
        event.wait()
        kernel_seconds += (event.profile.end - event.profile.start) * 1e-9
        for buf, arr in zip(outs, (res.score, res.ext_col, res.ext_row, res.cells, res.status)):
            cl.enqueue_copy(queue, arr, buf)
        queue.finish()
        for name in ("score", "ext_col", "ext_row", "cells", "status"):
            getattr(out, name)[lo:hi] = getattr(res, name)
    wall = time.perf_counter() - start
    return xdrop_host.assemble(pairs, scoring, out, "opencl", wall, kernel_seconds,
                         XdropFigures(device=dev.name, launches=len(ranges), group=group))

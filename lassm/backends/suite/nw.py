# SPDX-License-Identifier: BSD-3-Clause
"""k4, Needleman-Wunsch (Jin and Vetter): the global alignment score matrix of two sequences.

Rodinia's NW as HeCBench's ``nw-cuda`` runs it: 16 x 16 tiles, one launch per anti-diagonal of
tiles (2 n / 16 - 1 dependent launches), penalty 10, BLOSUM62. Jin and Vetter traced the portable
gap to queue overhead over those launches, so the variants are the queues: CUDA's stream, in-order
and out-of-order OpenCL queues, ``graph`` (a CUDA graph), ``recorded`` (a command buffer,
:mod:`.command_buffer`, or the device's refusal), and ``strips``, our fastest shape (one launch,
a warp per 32-row strip). A variant matches when every integer cell equals the reference's.
Its 1 GiB output is not copied back when unchecked (``fetch=False``, :data:`LARGE_OUTPUT`), and
runs start from a device copy of the start matrix.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .common import (CUDA_LAUNCHED, Run, cuda_launched, cuda_time, device, exact_check,
                     opencl_input, opencl_kernel, opencl_queue,
                     opencl_span, opencl_time, sources)

NAME = "nw"
CUDA_KERNEL, OPENCL_KERNEL, ENTRY = sources(NAME, "nw_tiles")
#: Variants that are kernels of their own: (CUDA source, OpenCL source, entry).
OWN_SOURCES: dict[str, tuple[str, str, str]] = {"strips": sources("nw_strips")}
#: ``strips``: rows of a strip, threads (work-items) of its block.
STRIP = 32
#: ``strips``: each byte of a strip's edge row before the strip writes it (``NWS_EMPTY``).
EMPTY_BYTE = 0x80
#: Runs take ``fetch``: a run whose output is not read skips the 1 GiB copy back
#: (:func:`lassm.backends.suite.common.unchecked_run`).
LARGE_OUTPUT = True
#: Cells along a tile's side: threads per block (``NW_TILE``).
TILE = 16
#: The gap penalty.
PENALTY = 10
#: Residues per sequence per size class: Jin and Vetter's on a GPU, small on a CPU (multiples of TILE).
SIZES: dict[str, int] = {"gpu": 16384, "cpu": 1024, "tiny": 48}
#: Variants: (the queue, its build options).
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "cuda": {"stream": (), "graph": (), "strips": ()},
    "opencl": {"in-order": (), "out-of-order": (), "recorded": (), "strips": ()},
}
#: ``opencl-ptx``: the OpenCL build launched by CUDA on one stream.
VARIANTS["opencl-ptx"] = {"stream": (), "strips": ()}
#: BLOSUM62 (Henikoff and Henikoff, 1992), rows and columns in the order of :data:`RESIDUES`.
RESIDUES = "ARNDCQEGHILKMFPSTWYVBZX*"
BLOSUM62 = np.array([[int(v) for v in line.split()] for line in """
 4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0 -2 -1  0 -4
-1  5  0 -2 -3  1  0 -2  0 -3 -2  2 -1 -3 -2 -1 -1 -3 -2 -3 -1  0 -1 -4
-2  0  6  1 -3  0  0  0  1 -3 -3  0 -2 -3 -2  1  0 -4 -2 -3  3  0 -1 -4
-2 -2  1  6 -3  0  2 -1 -1 -3 -4 -1 -3 -3 -1  0 -1 -4 -3 -3  4  1 -1 -4
 0 -3 -3 -3  9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1 -3 -3 -2 -4
-1  1  0  0 -3  5  2 -2  0 -3 -2  1  0 -3 -1  0 -1 -2 -1 -2  0  3 -1 -4
-1  0  0  2 -4  2  5 -2  0 -3 -3  1 -2 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
 0 -2  0 -1 -3 -2 -2  6 -2 -4 -4 -2 -3 -3 -2  0 -2 -2 -3 -3 -1 -2 -1 -4
-2  0  1 -1 -3  0  0 -2  8 -3 -3 -1 -2 -1 -2 -1 -2 -2  2 -3  0  0 -1 -4
-1 -3 -3 -3 -1 -3 -3 -4 -3  4  2 -3  1  0 -3 -2 -1 -3 -1  3 -3 -3 -1 -4
-1 -2 -3 -4 -1 -2 -3 -4 -3  2  4 -2  2  0 -3 -2 -1 -2 -1  1 -4 -3 -1 -4
-1  2  0 -1 -3  1  1 -2 -1 -3 -2  5 -1 -3 -1  0 -1 -3 -2 -2  0  1 -1 -4
-1 -1 -2 -3 -1  0 -2 -3 -2  1  2 -1  5  0 -2 -1 -1 -1 -1  1 -3 -1 -1 -4
-2 -3 -3 -3 -2 -3 -3 -3 -1  0  0 -3  0  6 -4 -2 -2  1  3 -1 -3 -3 -1 -4
-1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4  7 -1 -1 -4 -3 -2 -2 -1 -2 -4
 1 -1  1  0 -1  0  0  0 -1 -2 -2  0 -1 -2 -1  4  1 -3 -2 -2  0  0  0 -4
 0 -1  0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1  1  5 -2 -2  0 -1 -1  0 -4
-3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1  1 -4 -3 -2 11  2 -3 -4 -3 -2 -4
-2 -2 -2 -3 -2 -1 -2 -3  2 -1 -1 -2 -1  3 -3 -2 -2  2  7 -1 -3 -2 -1 -4
 0 -3 -3 -3 -1 -2 -2 -3 -3  3  1 -2  1 -1 -2 -2  0 -3 -1  4 -3 -2 -1 -4
-2 -1  3  4 -3  0  1 -1  0 -3 -4  0 -3 -3 -2  0 -1 -4 -3 -3  4  1 -1 -4
-1  0  0  1 -3  3  4 -2  0 -3 -3  1 -1 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
 0 -1 -1 -1 -2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -2  0  0 -2 -1 -1 -1 -1 -1 -4
-4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4  1
""".strip().splitlines()], dtype=np.int32)


@dataclass(frozen=True)
class Inputs:
    """The two sequences (residue indices into :data:`RESIDUES`), the reference matrix and the
    score matrix's first row and column, both (n+1) x (n+1) int32."""

    seq_a: np.ndarray
    seq_b: np.ndarray
    ref: np.ndarray
    start: np.ndarray
    penalty: int = PENALTY

    @property
    def n(self) -> int:
        return len(self.seq_a)


def inputs(size: str = "cpu", seed: int = 0, penalty: int = PENALTY) -> Inputs:
    """Two sequences of ``SIZES[size]`` residues drawn uniformly from ``seed``."""
    n = SIZES[size]
    if n % TILE:
        raise ValueError(f"n = {n} must be a multiple of {TILE}")
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(RESIDUES), n).astype(np.int32)
    b = rng.integers(0, len(RESIDUES), n).astype(np.int32)
    ref = np.zeros((n + 1, n + 1), dtype=np.int32)
    ref[1:, 1:] = BLOSUM62[a[:, None], b[None, :]]
    start = np.zeros((n + 1, n + 1), dtype=np.int32)
    start[:, 0] = -penalty * np.arange(n + 1, dtype=np.int32)
    start[0, :] = -penalty * np.arange(n + 1, dtype=np.int32)
    return Inputs(a, b, ref, start, penalty)


def _reference_kernel():
    import numba

    @numba.njit(cache=True)
    def ref_scores(score, ref, penalty):
        n1 = score.shape[0]
        for i in range(1, n1):
            for j in range(1, n1):
                score[i, j] = max(score[i - 1, j - 1] + ref[i, j], score[i, j - 1] - penalty, score[i - 1, j] - penalty)
        return score

    return ref_scores


def reference(inp: Inputs) -> np.ndarray:
    """The whole score matrix, row after row (numba)."""
    return _reference_kernel()(inp.start.copy(), inp.ref, np.int32(inp.penalty))


#: (every element equal to the reference's, the number that differ).
check = exact_check


def diagonals(n: int) -> list[tuple[int, int, int]]:
    """(anti-diagonal of tiles, its first tile column, its tiles) of every launch, in order."""
    tiles = n // TILE
    out = []
    for d in range(2 * tiles - 1):
        first = max(0, d - tiles + 1)
        out.append((d, first, min(d, tiles - 1) - first + 1))
    return out


def _recorded(cupy, launches):
    """The kernels ``launches`` enqueues, recorded once as a CUDA graph (on a stream of its own, as
    capture needs), to be launched on the current stream."""
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            launches()
        finally:
            graph = stream.end_capture()
    return graph


def build_options(backend: str, variant: str) -> tuple[str, ...]:
    """The options ``variant`` is built with on ``backend`` (its PTX is made with the same)."""
    if variant in OWN_SOURCES:
        return VARIANTS[backend][variant]
    return (*VARIANTS[backend][variant], f"-DNW_TILE={TILE}")




#: The last inputs' start matrix on a device, per model: ("cuda", inputs, array) or ("opencl", inputs, context, buffer).
_started: dict[str, tuple] = {}


def _device_start(cupy, inp: Inputs):
    """A new device score matrix holding ``inp``'s start: a device-to-device copy of one upload
    kept for the last inputs (each run overwrites its matrix), not 1 GiB from pageable memory."""
    kept = _started.get("cuda")
    if kept is None or kept[0] is not inp or kept[1].device.id != cupy.cuda.Device().id:
        kept = (inp, cupy.asarray(inp.start))
        _started["cuda"] = kept
    return kept[1].copy()


def _opencl_start(cl, queue, inp: Inputs):
    """:func:`_device_start` for OpenCL: a new buffer filled from one kept upload on the queue's context."""
    kept = _started.get("opencl")
    if kept is None or kept[0] is not inp or kept[1] != queue.context:
        kept = (inp, queue.context, cl.Buffer(queue.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                                              hostbuf=inp.start))
        _started["opencl"] = kept
    score = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=inp.start.nbytes)
    cl.enqueue_copy(queue, score, kept[2])
    return score


def run(backend: str, inp: Inputs, variant: str, *, fetch: bool = True) -> Run:
    """One run of ``variant`` on ``backend``: every anti-diagonal of tiles, one launch each;
    ``fetch=False`` leaves the score matrix on the device (the run's ``output`` is None)."""
    options = build_options(backend, variant)
    cu_src, cl_src, entry = OWN_SOURCES.get(variant, (CUDA_KERNEL, OPENCL_KERNEL, ENTRY))
    cols = inp.n + 1
    plan = diagonals(inp.n)
    strips = -(-inp.n // STRIP)
    out = np.empty_like(inp.start) if fetch else None
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        fn = cuda_launched(backend, (cu_src, cl_src), entry, options)
        score, ref = _device_start(cupy, inp), cupy.asarray(inp.ref)

        def tiles() -> int:
            for d, first, count in plan:
                fn((count,), (TILE,), (score, ref, np.int32(cols), np.int32(d), np.int32(first), np.int32(inp.penalty)))
            return len(plan)

        if variant in OWN_SOURCES:
            ticket = cupy.zeros(1, dtype=cupy.int32)
            edge = cupy.empty((strips, inp.n), dtype=cupy.int32)

            def launch() -> int:
                ticket.fill(0)
                cupy.cuda.runtime.memsetAsync(edge.data.ptr, EMPTY_BYTE, edge.nbytes, 0)
                fn((strips,), (STRIP,), (score, ref, np.int32(inp.n), np.int32(inp.penalty), ticket, edge))
                return 1
        elif variant == "graph":
            graph = _recorded(cupy, tiles)

            def launch() -> int:
                graph.launch()
                return len(plan)
        else:
            launch = tiles
        # 2,047 launches from Python outrun the runtime's queue: no gate, the host's pace is the variant's
        seconds, host, launches = cuda_time(launch, gate=variant != "stream")
        if fetch:
            score.get(out=out)
    else:
        from .. import opencl as ocl

        cl = ocl.cl
        kern = opencl_kernel(cl_src, entry, options)
        queue = opencl_queue(out_of_order=variant == "out-of-order")
        recording = None
        if variant == "recorded":
            from .command_buffer import Recording

            recording = Recording(queue)  # refused, with the reason, on a device without command buffers
        mf = cl.mem_flags
        score = _opencl_start(cl, queue, inp)
        ref = opencl_input(queue, inp.ref)
        if variant in OWN_SOURCES:
            ticket = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
            edge = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR,
                             hostbuf=np.full(max(strips * inp.n, 1), EMPTY_BYTE * 0x01010101, dtype=np.uint32))
            kern.set_args(score, ref, np.int32(inp.n), np.int32(inp.penalty), ticket, edge)
            seconds, host, launches = opencl_time(
                queue, lambda: [cl.enqueue_nd_range_kernel(queue, kern, (strips * STRIP,), (STRIP,))])
        elif recording is not None:
            try:
                for d, first, count in plan:
                    kern.set_args(score, ref, np.int32(cols), np.int32(d), np.int32(first), np.int32(inp.penalty))
                    recording.launch(kern, (count * TILE,), (TILE,))
                recording.finalize()
                # the span between markers around it: a command buffer's own event need not carry
                # its launches' times (Intel's CPU driver's does not)
                seconds, host, _three = opencl_time(queue, lambda: [cl.enqueue_marker(queue), recording.enqueue(),
                                                                    cl.enqueue_marker(queue)])
            finally:
                recording.release()
            launches = recording.launches
        else:
            queue.finish()
            t0 = time.perf_counter()
            events: list = []
            for d, first, count in plan:
                kern.set_args(score, ref, np.int32(cols), np.int32(d), np.int32(first), np.int32(inp.penalty))
                # out of order, each anti-diagonal waits for the last
                wait = None if variant == "in-order" or not events else [events[-1]]
                events.append(cl.enqueue_nd_range_kernel(queue, kern, (count * TILE,), (TILE,), wait_for=wait))
            events[-1].wait()
            queue.finish()
            host = time.perf_counter() - t0
            seconds, launches = opencl_span(events), len(events)
        if out is not None:  # fetch
            cl.enqueue_copy(queue, out, score).wait()
    name, driver = device(backend)
    return Run(NAME, backend, variant, out, seconds, host, launches, name, driver)


__all__ = ["BLOSUM62", "CUDA_KERNEL", "ENTRY", "Inputs", "NAME", "OPENCL_KERNEL", "OWN_SOURCES", "PENALTY", "RESIDUES",
           "SIZES", "STRIP", "TILE", "VARIANTS", "build_options", "check", "diagonals", "inputs",
           "reference", "run"]

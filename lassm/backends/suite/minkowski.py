# SPDX-License-Identifier: BSD-3-Clause
"""k5, the Minkowski distance (Jin and Vetter): every row of a against every column of b.

``c[p][r][q] = (sum_i |a[r][i] - b[i][q]|^p)^(1/p)`` for p = 1..4 (HeCBench's ``minkowski-cuda``).
Jin and Vetter traced the portable gap to ``pow`` not lowered under fast math as ``powf`` is; the
variants are the powers and each model's fast-math switch, and ``tiles``, our fastest shape
(register tiles, whole powers as products). A single-precision output matches the double-precision
reference when no relative error exceeds :data:`TOLERANCE`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import (CUDA_LAUNCHED, Run, cuda_launched, cuda_time, device, opencl_input, opencl_launching, opencl_time,
                     round_up, sources)

NAME = "minkowski"
CUDA_KERNEL, OPENCL_KERNEL, ENTRY = sources(NAME)
#: Variants that are kernels of their own: (CUDA source, OpenCL source, entry).
OWN_SOURCES: dict[str, tuple[str, str, str]] = {"tiles": sources("minkowski_tiles")}
#: ``tiles``: outputs along a block's tile's side (16 x 16 threads, 4 x 4 outputs each).
TILE = 64
#: Threads (work-items) per block along each of its two dimensions.
BLOCK = 16
#: The powers p, each one launch, as the original runs them.
POWERS: tuple[int, ...] = (1, 2, 3, 4)
#: (rows of a, dimensions, columns of b) per size class: Jin and Vetter's on a GPU, small on a CPU.
SIZES: dict[str, tuple[int, int, int]] = {"gpu": (512, 1024, 2048), "cpu": (64, 128, 256), "tiny": (5, 7, 9)}
#: The largest relative error an output may have against the double-precision reference: the
#: single-precision sum of n = 1,024 terms, each power accurate to a few ulp (2 ulp for CUDA's
#: __powf on this range, and OpenCL's native_powr is implementation-defined), stays far below it.
TOLERANCE = 1e-3
#: Variants: build options per model (the power, fast math).
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "cuda": {
        "powf": ("-DMINKOWSKI_POW=0",),
        "powf-fast-math": ("-DMINKOWSKI_POW=0", "--use_fast_math"),
        "__powf": ("-DMINKOWSKI_POW=1",),
        "tiles": (),
    },
    "opencl": {
        "pow": ("-DMINKOWSKI_POW=0",),
        "pow-fast-math": ("-DMINKOWSKI_POW=0", "-cl-fast-relaxed-math"),
        "powr": ("-DMINKOWSKI_POW=1",),
        "powr-fast-math": ("-DMINKOWSKI_POW=1", "-cl-fast-relaxed-math"),
        "native_powr": ("-DMINKOWSKI_POW=2",),
        "tiles": (),
    },
}
#: ``opencl-ptx`` builds what ``opencl`` builds (its PTX, launched by CUDA).
VARIANTS["opencl-ptx"] = dict(VARIANTS["opencl"])


@dataclass(frozen=True)
class Inputs:
    """a (m x n) and b (n x k), single precision, and the powers."""

    a: np.ndarray
    b: np.ndarray
    powers: tuple[int, ...] = POWERS

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.a.shape[0], self.a.shape[1], self.b.shape[1]


def inputs(size: str = "cpu", seed: int = 0) -> Inputs:
    """Uniform values in [0, 1), drawn from ``seed``, at the size class ``size`` (:data:`SIZES`)."""
    m, n, k = SIZES[size]
    rng = np.random.default_rng(seed)
    return Inputs(rng.random((m, n), dtype=np.float32), rng.random((n, k), dtype=np.float32))


def _reference_kernel():
    import numba

    from ..threads import choose_layer

    choose_layer()

    @numba.njit(parallel=True, cache=True)
    def ref(a, b):
        m, n = a.shape
        k = b.shape[1]
        out = np.empty((4, m, k))
        for r in numba.prange(m):
            for q in range(k):
                s1 = s2 = s3 = s4 = 0.0
                for i in range(n):
                    d = abs(a[r, i] - b[i, q])
                    d2 = d * d
                    s1 += d
                    s2 += d2
                    s3 += d2 * d
                    s4 += d2 * d2
                out[0, r, q] = s1
                out[1, r, q] = s2 ** 0.5
                out[2, r, q] = s3 ** (1.0 / 3.0)
                out[3, r, q] = s4 ** 0.25
        return out

    return ref


def reference(inp: Inputs) -> np.ndarray:
    """The distances in double precision, shape (powers, m, k): each power as exact products."""
    if tuple(inp.powers) != POWERS:
        raise ValueError(f"the reference computes p = {POWERS}, not {inp.powers}")
    return _reference_kernel()(inp.a.astype(np.float64), inp.b.astype(np.float64))


def check(output: np.ndarray, ref: np.ndarray) -> tuple[bool, float]:
    """(every output within :data:`TOLERANCE` of the reference, the largest relative error)."""
    if output.shape != ref.shape:
        return False, float("inf")
    err = np.abs(output.astype(np.float64) - ref) / np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    worst = float(err.max()) if err.size else 0.0
    return bool(np.isfinite(worst) and worst <= TOLERANCE), worst


def build_options(backend: str, variant: str) -> tuple[str, ...]:
    """The options ``variant`` is built with on ``backend`` (its PTX is made with the same)."""
    return VARIANTS[backend][variant]


def run(backend: str, inp: Inputs, variant: str) -> Run:
    """One run of ``variant`` on ``backend``: every power, one launch each."""
    options = build_options(backend, variant)
    cu_src, cl_src, entry = OWN_SOURCES.get(variant, (CUDA_KERNEL, OPENCL_KERNEL, ENTRY))
    per_block = TILE if variant in OWN_SOURCES else BLOCK  # outputs along a block's side
    m, n, k = inp.shape
    grid = (round_up(k, per_block) // per_block, round_up(m, per_block) // per_block)
    out = np.empty((len(inp.powers), m, k), dtype=np.float32)
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        fn = cuda_launched(backend, (cu_src, cl_src), entry, options)
        a, b = cupy.asarray(inp.a), cupy.asarray(inp.b)
        c = cupy.empty((len(inp.powers), m, k), dtype=cupy.float32)

        def launch() -> int:
            for j, p in enumerate(inp.powers):
                fn(grid, (BLOCK, BLOCK), (a, b, c[j], np.int32(m), np.int32(n), np.int32(k), np.float32(p),
                                          np.float32(1.0 / p)))
            return len(inp.powers)

        seconds, host, launches = cuda_time(launch)
        out[...] = cupy.asnumpy(c)
    else:
        cl, kern, queue = opencl_launching(cl_src, entry, options)
        a, b = opencl_input(queue, inp.a), opencl_input(queue, inp.b)
        planes = [cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, size=out[0].nbytes) for _p in inp.powers]

        def enqueue() -> list:
            events = []
            for c, p in zip(planes, inp.powers):
                kern.set_args(a, b, c, np.int32(m), np.int32(n), np.int32(k), np.float32(p), np.float32(1.0 / p))
                events.append(cl.enqueue_nd_range_kernel(queue, kern, (grid[0] * BLOCK, grid[1] * BLOCK),
                                                         (BLOCK, BLOCK)))
            return events

        seconds, host, launches = opencl_time(queue, enqueue)
        for j, c in enumerate(planes):
            cl.enqueue_copy(queue, out[j], c)
    name, driver = device(backend)
    return Run(NAME, backend, variant, out, seconds, host, launches, name, driver)


__all__ = ["BLOCK", "CUDA_KERNEL", "ENTRY", "Inputs", "NAME", "OPENCL_KERNEL", "OWN_SOURCES", "POWERS", "SIZES", "TILE",
           "TOLERANCE",
           "VARIANTS", "build_options", "check", "inputs", "reference", "run"]

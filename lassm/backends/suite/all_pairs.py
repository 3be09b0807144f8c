# SPDX-License-Identifier: BSD-3-Clause
"""k1, the all-pairs distance (Jin and Vetter): how many attributes two SNP instances differ in.

HeCBench's ``all-pairs-distance-cuda``: 224 instances of 4,096 attributes, one block per pair.
Jin and Vetter traced the portable build's gap to 64-bit shared addressing, lost ``char4`` loads
and no unroll; ``char4`` and ``bytes`` are that kernel's two loads, ``tiles`` our fastest shape
in both models (a block per tile of pairs, rows in shared memory). A variant matches when every
integer distance equals the reference's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import (CUDA_LAUNCHED, Run, cuda_launched, cuda_time, device, exact_check,
                     opencl_input, opencl_launching, opencl_time,
                     same_variants, sources)

NAME = "all_pairs"
CUDA_KERNEL, OPENCL_KERNEL, ENTRY = sources(NAME)
#: Variants that are kernels of their own: (CUDA source, OpenCL source, entry).
OWN_SOURCES: dict[str, tuple[str, str, str]] = {"tiles": sources("all_pairs_tiles")}
#: ``tiles``: pairs along a tile's side, and work-items per pair (``APT_TILE``, ``APT_SPLIT``).
TILE, SPLIT = 8, 4
#: Threads (work-items) per block: the original's THREADS.
THREADS = 128
#: (instances, attributes) per size class: Jin and Vetter's on a GPU, small on a CPU (attributes a multiple of 4).
SIZES: dict[str, tuple[int, int]] = {"gpu": (224, 4096), "cpu": (64, 1024), "tiny": (5, 24)}
#: Variants: build options (vector loads or bytes), the same in every model.
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = same_variants(
    {"char4": ("-DAPD_VECTOR=1",), "bytes": ("-DAPD_VECTOR=0",), "tiles": ()})


@dataclass(frozen=True)
class Inputs:
    """The instances' attributes (instances x attributes), genotypes 0, 1 or 2 as int8."""

    data: np.ndarray


def inputs(size: str = "cpu", seed: int = 0) -> Inputs:
    """Genotypes drawn uniformly from {0, 1, 2} with ``seed``, at the size class ``size``."""
    rows, cols = SIZES[size]
    if cols % 4:
        raise ValueError(f"{cols} attributes: the kernel reads four at a time")
    return Inputs(np.random.default_rng(seed).integers(0, 3, (rows, cols)).astype(np.int8))


def reference(inp: Inputs) -> np.ndarray:
    """distance[b][a]: the attributes instances a and b differ in (symmetric, int32)."""
    d = inp.data
    out = np.empty((d.shape[0], d.shape[0]), dtype=np.int32)
    for a in range(d.shape[0]):
        out[:, a] = np.count_nonzero(d != d[a], axis=1)
    return out


#: (every element equal to the reference's, the number that differ).
check = exact_check


def build_options(backend: str, variant: str) -> tuple[str, ...]:
    """The options ``variant`` is built with on ``backend`` (its PTX is made with the same)."""
    if variant in OWN_SOURCES:
        return (*VARIANTS[backend][variant], f"-DAPT_TILE={TILE}", f"-DAPT_SPLIT={SPLIT}")
    return (*VARIANTS[backend][variant], f"-DAPD_THREADS={THREADS}")


def _shape(variant: str, rows: int) -> tuple[tuple[int, ...], int]:
    """(grid in blocks, threads per block) of ``variant``: a block per pair, or per tile of pairs
    on or above the diagonal."""
    if variant in OWN_SOURCES:
        tiles = -(-rows // TILE)
        return (tiles * (tiles + 1) // 2,), TILE * TILE * SPLIT
    return (rows, rows), THREADS


def run(backend: str, inp: Inputs, variant: str) -> Run:
    """One launch of ``variant`` on ``backend``: a block per pair of instances."""
    options = build_options(backend, variant)
    cu_src, cl_src, entry = OWN_SOURCES.get(variant, (CUDA_KERNEL, OPENCL_KERNEL, ENTRY))
    rows, cols = inp.data.shape
    grid, threads = _shape(variant, rows)
    out = np.empty((rows, rows), dtype=np.int32)
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        fn = cuda_launched(backend, (cu_src, cl_src), entry, options)
        data, dist = cupy.asarray(inp.data), cupy.empty((rows, rows), dtype=cupy.int32)

        def launch() -> int:
            fn(grid, (threads,), (data, dist, np.int32(rows), np.int32(cols)))
            return 1

        seconds, host, launches = cuda_time(launch)
        out[...] = cupy.asnumpy(dist)
    else:
        cl, kern, queue = opencl_launching(cl_src, entry, options)
        data = opencl_input(queue, inp.data)
        dist = cl.Buffer(queue.context, cl.mem_flags.WRITE_ONLY, size=out.nbytes)
        kern.set_args(data, dist, np.int32(rows), np.int32(cols))
        size, local = ((grid[0] * threads,), (threads,)) if len(grid) == 1 else ((rows * threads, rows), (threads, 1))
        seconds, host, launches = opencl_time(queue, lambda: [cl.enqueue_nd_range_kernel(queue, kern, size, local)])
        cl.enqueue_copy(queue, out, dist).wait()
    name, driver = device(backend)
    return Run(NAME, backend, variant, out, seconds, host, launches, name, driver)


__all__ = ["CUDA_KERNEL", "ENTRY", "Inputs", "NAME", "OPENCL_KERNEL", "OWN_SOURCES", "SIZES", "SPLIT", "THREADS", "TILE",
           "VARIANTS", "build_options", "check", "inputs", "reference", "run"]

# SPDX-License-Identifier: BSD-3-Clause
"""The contigs' reverse complement and a launch's gather, on the GPU (``kernels/local_assembly/cuda/segments.cu``).

Why: on the host these per-base copies need a compiled loop, and importing numba to get one
costs a whole ``lassm extend --backend cuda`` more than its kernel (issue 20). The GPU backends
upload a dataset's bases once and cut each launch's buffers out of them on the device; only the
per-segment offsets (one int64 per read) are computed on the host
(:mod:`lassm.workloads.local_assembly.segment_index`).
"""
from __future__ import annotations

import functools

import numpy as np

from ..paths import kernel_source
from ..workloads.local_assembly.dataset import _COMPLEMENT
from ..workloads.local_assembly.segment_index import segment_offsets

#: Threads per block of both kernels; a block copies one segment at a time.
BLOCK = 128
#: Most blocks launched; each strides over the segments past it.
MAX_BLOCKS = 65535


SOURCE = "local_assembly/cuda/segments.cu"
OPTIONS = ("--std=c++14",)


@functools.lru_cache(maxsize=1)
def _module():
    import cupy

    return cupy.RawModule(code=kernel_source(SOURCE).read_text(), options=OPTIONS)


def _runtime(rt):
    """CuPy unless ``rt`` names another runtime (:mod:`.cudadrv`, with the same calls)."""
    if rt is not None:
        return rt
    import cupy

    return cupy


def _function(name: str, rt=None):
    """Kernel ``name`` loaded by ``rt`` (default CuPy)."""
    if rt is not None and getattr(rt, "__name__", "").endswith(".cudadrv"):
        return rt.load(kernel_source(SOURCE).read_text(), OPTIONS, "segments.cu", name)
    return _module().get_function(name)


def warm_up(rt=None) -> None:
    """Loads both kernels into the current context (compiled once, then from the disk cache)."""
    for name in ("gather_segments", "revcomp_segments"):
        _function(name, rt)


def _grid(n: int) -> tuple[int]:
    return (max(1, min(int(n), MAX_BLOCKS)),)


def gather(d_src, offsets: np.ndarray, index: np.ndarray, pad: int = 0, rt=None):
    """Segments ``index`` of the device buffer ``d_src`` (host ``offsets``), concatenated on the
    device, then ``pad`` zero bytes. Returns ``(device uint8 buffer, host int64 offsets)``."""
    xp = _runtime(rt)
    starts, new_off = segment_offsets(offsets, index)
    total = int(new_off[-1])
    out = xp.zeros(total + int(pad), dtype=np.uint8)
    if total:
        _function("gather_segments", rt)(
            _grid(len(index)), (BLOCK,),
            (d_src, xp.asarray(starts), xp.asarray(new_off), np.int64(len(index)), out))
    return out, new_off


def revcomp(d_src, offsets: np.ndarray, rt=None):
    """Every segment of the device buffer ``d_src`` reverse-complemented in place of itself (same
    offsets), as :func:`lassm.runs.extend.revcomp_contigs` does on the host."""
    xp = _runtime(rt)
    out = xp.empty_like(d_src)
    n = len(offsets) - 1
    if len(d_src):
        _function("revcomp_segments", rt)(
            _grid(n), (BLOCK,),
            (d_src, xp.asarray(np.asarray(offsets, dtype=np.int64)), np.int64(n), xp.asarray(_COMPLEMENT), out))
    return out

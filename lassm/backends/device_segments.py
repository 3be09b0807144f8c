# SPDX-License-Identifier: BSD-3-Clause
"""The contigs' reverse complement, a launch's gather and its walks packed, on the GPU
(``kernels/local_assembly/cuda/segments.cu``).

The bases are uploaded once and each launch's buffers cut on the device, so the host needs no
compiled loop; only per-segment offsets are computed on the host
(:mod:`lassm.workloads.local_assembly.segment_index`).
"""
from __future__ import annotations

import functools

import numpy as np

from ..paths import kernel_source
from .cuda_runtime import is_driver
from ..workloads.local_assembly.dataset import _COMPLEMENT
from ..workloads.local_assembly.segment_index import segment_offsets

#: Threads per block of both kernels; each of its warps copies one segment at a time.
BLOCK = 128
#: Segments a block copies at once: its warps (``SEG_LANES`` = 32 threads each in the kernels).
SEGMENTS_PER_BLOCK = BLOCK // 32
#: Most blocks launched; each warp strides over the segments past it.
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
    if is_driver(rt):
        return rt.load(kernel_source(SOURCE).read_text(), OPTIONS, "segments.cu", name)
    return _module().get_function(name)


def warm_up(rt=None) -> None:
    """Loads both kernels into the current context (compiled once, then from the disk cache)."""
    for name in ("gather_segments", "revcomp_segments"):
        _function(name, rt)


def _grid(n: int) -> tuple[int]:
    """Blocks for ``n`` segments: a warp for each, up to :data:`MAX_BLOCKS` blocks."""
    return (max(1, min(-(-int(n) // SEGMENTS_PER_BLOCK), MAX_BLOCKS)),)


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


def padded(src, pad: int, rt=None):
    """A device copy of ``src`` (host array or device buffer) with ``pad`` zero bytes after it: a
    buffer the fast kernel's ends point into (spans) and read with word loads past a segment's end."""
    xp = _runtime(rt)
    if not isinstance(src, np.ndarray):  # made on the device: one device-to-device copy
        return xp.concatenate((src, xp.zeros(int(pad), dtype=src.dtype)))
    src = np.ascontiguousarray(src)
    out = xp.zeros(len(src) + int(pad), dtype=src.dtype)
    if len(src):
        if is_driver(rt):
            rt.copy_in(out, src)
        else:
            out[: len(src)].set(src)
    return out


def pack_rows(d_rows, row_bytes: int, lengths: np.ndarray, rt=None):
    """The first ``lengths[i]`` bytes of every ``row_bytes`` row of ``d_rows``, end to end, on the
    device: returns ``(device uint8 buffer, host int64 offsets)``, a launch's walks, ragged.

    Why: walk rows are ``max_walk`` bytes and mostly empty; only walked bases should travel."""
    xp = _runtime(rt)
    lengths = np.asarray(lengths, dtype=np.int64)
    new_off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_off[1:])
    total = int(new_off[-1])
    out = xp.empty(max(total, 1), dtype=np.uint8)  # never a zero-byte allocation
    if total:
        starts = np.arange(len(lengths), dtype=np.int64) * int(row_bytes)
        _function("gather_segments", rt)(
            _grid(len(lengths)), (BLOCK,),
            (d_rows, xp.asarray(starts), xp.asarray(new_off), np.int64(len(lengths)), out))
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

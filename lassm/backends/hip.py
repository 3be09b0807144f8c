# SPDX-License-Identifier: BSD-3-Clause
"""The HIP backend: the same kernel source as CUDA, built by CuPy for ROCm with 64-lane wavefronts.

CuPy for ROCm (``cupy.cuda.runtime.is_hip``) compiles ``kernels/local_assembly/cuda/faithful.cu`` with
hipRTC; the source switches its warp collectives to HIP's wavefront forms and takes
``WARP_SIZE`` from the device (64 on CDNA, 32 on RDNA). The ``matchany`` protocol needs
``__match_any_sync``, which HIP lacks, and is refused; ``doneflag`` is the HIP port's own.
A ``WARP_SIZE`` other than the target's wavefront width stops the build with an ``#error``.

No AMD GPU has run this yet; CI compiles the source for gfx908, gfx90a and gfx1030 with hipcc
(:mod:`lassm.backends.hipcc`, ``tests/test_hip_compile.py``). See ``book/hip-backend.md``.
"""
from __future__ import annotations

import numpy as np

from ..workloads.local_assembly import config
from ..workloads.local_assembly.result import SideResult
from .cuda import DEFAULT_BLOCK_WARPS, _probe, extend_side_gpu

#: Protocols that build on HIP.
PROTOCOLS = ("casptr", "doneflag", "barrier")


def available() -> tuple[bool, str]:
    """Whether CuPy for ROCm and an AMD device are present, and which."""
    return _probe(hip=True)


def extend_side(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                params: config.Params, protocol: str = "casptr", block_warps: int = DEFAULT_BLOCK_WARPS,
                max_bytes: int | None = None, bin_counts: np.ndarray | None = None) -> SideResult:
    """Walks one side on an AMD GPU; same parameters and result as :func:`lassm.backends.cuda.extend_side`."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol {protocol!r} does not build on HIP; choose one of {', '.join(PROTOCOLS)}")
    return extend_side_gpu(ctg_seqs, ctg_off, depths, reads, run_mask, params, protocol=protocol,
                           block_warps=block_warps, max_bytes=max_bytes, bin_counts=bin_counts, hip=True)

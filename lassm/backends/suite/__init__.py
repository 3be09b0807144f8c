# SPDX-License-Identifier: BSD-3-Clause
"""Jin and Vetter's bioinformatics kernels, one module each, on CUDA and OpenCL.

Each kernel's CUDA source (``kernels/suite/cuda/``, CuPy) and OpenCL C 1.2 source
(``kernels/suite/opencl/``, pyopencl), checked against a NumPy/numba reference, in the variants
that test Jin and Vetter's finding for it. Every module has ``NAME``, ``SIZES`` (``gpu``: their
sizes; ``cpu``; ``tiny``), ``VARIANTS`` (per backend: name -> build options),
``inputs(size, seed)``, ``reference(inputs)``, ``run(backend, inputs, variant)`` and
``check(output, reference)``.
"""
from __future__ import annotations

from types import ModuleType

from ...errors import LassmError
from . import all_pairs, cmap, epistasis, minkowski, nw
from .common import BACKENDS, Refused, Run, available

#: The suite's kernels by name, in Jin and Vetter's order (k1 to k5).
KERNELS: dict[str, ModuleType] = {"all_pairs": all_pairs, "epistasis": epistasis, "cmap": cmap, "nw": nw,
                                  "minkowski": minkowski}


def get(name: str) -> ModuleType:
    """The kernel module called ``name``; a clear error naming the others otherwise."""
    if name not in KERNELS:
        raise LassmError(f"unknown suite kernel {name!r}; choose one of {', '.join(KERNELS)}")
    return KERNELS[name]


__all__ = ["BACKENDS", "KERNELS", "Refused", "Run", "available", "get"]

# SPDX-License-Identifier: BSD-3-Clause
"""X-drop backend registry: every module has ``available()`` and ``align(pairs, scoring, threads)``.

Apart from the local-assembly registry (:data:`lassm.backends.BACKENDS`). ``cpu`` is the numba
oracle; ``seqan`` is SeqAn 2 through a C++ driver, the oracle's reference; ``opencl`` and ``cuda``
are LOGAN's GPU design, bit for bit the oracle; ``hip-cpu`` runs its CUDA/HIP source on HIP-CPU.
A backend that cannot run raises :class:`~lassm.errors.BackendUnavailable` naming what to install.
"""
from __future__ import annotations

from types import ModuleType

from .. import load

#: name -> (module, what provides its runtime).
XDROP_BACKENDS: dict[str, tuple[str, str]] = {
    "cpu": ("lassm.backends.xdrop.xdrop_cpu", "pip install 'lassm[cpu]'"),
    "seqan": ("lassm.backends.xdrop.seqan", "g++ and the Debian package libseqan2-dev"),
    "opencl": ("lassm.backends.xdrop.xdrop_opencl", "pip install 'lassm[opencl]' and an OpenCL driver"),
    "cuda": ("lassm.backends.xdrop.xdrop_cuda", "pip install 'lassm[cuda12]' (cupy-cuda12x) and an NVIDIA GPU"),
    "hip-cpu": ("lassm.backends.xdrop.xdrop_hip_cpu", "g++, the Debian package libtbb-dev and the pinned HIP-CPU (make hip-cpu)"),
}


def get(name: str) -> ModuleType:
    """Returns the X-drop backend module ``name`` (a key of :data:`XDROP_BACKENDS`), which has
    ``align(pairs, scoring, threads=None)``; raises BackendUnavailable when it cannot run here."""
    return load(XDROP_BACKENDS, name, "X-drop backend", "it needs {}")

# SPDX-License-Identifier: BSD-3-Clause
"""Shared pytest set-up: GPU tests skip themselves where no NVIDIA GPU answers.

A test marked ``@pytest.mark.gpu`` runs only when CuPy imports and sees at least one CUDA
device; elsewhere it is skipped with the reason. ``LASSM_NO_GPU=1`` skips them on a GPU
machine too. (GPU test modules should still skip at module level without a device, so that
they import nothing GPU-specific there; this hook is the safety net.)
"""
from __future__ import annotations

import functools
import os

import pytest


@functools.lru_cache(maxsize=1)
def no_gpu_reason() -> str | None:
    """Why GPU tests cannot run here, or ``None`` when an NVIDIA GPU answers."""
    if os.environ.get("LASSM_NO_GPU", "") not in ("", "0"):
        return "LASSM_NO_GPU is set"
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 'lassm[cuda12]' or 'lassm[cuda13]')"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        return f"no CUDA device answers ({exc})"
    return None if count > 0 else "no CUDA device"


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items:
        return
    reason = no_gpu_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"needs an NVIDIA GPU: {reason}")
        for item in gpu_items:
            item.add_marker(skip)

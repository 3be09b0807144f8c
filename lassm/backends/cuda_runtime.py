# SPDX-License-Identifier: BSD-3-Clause
"""Which runtime allocates, copies and launches a CUDA run (CuPy, or the driver through ctypes),
and what CuPy says of the device.

The commands timed against the C++ originals run on :mod:`.cudadrv`, avoiding CuPy's import; the
faithful protocols keep CuPy. Both answer the same calls. ``LASSM_CUDA_RUNTIME`` (``driver`` or
``cupy``) sets it for every run.
"""
from __future__ import annotations

import functools
import platform
from typing import Any

from .. import settings
from .nvrtc import VARIANTS

#: ``LASSM_CUDA_RUNTIME``: ``driver`` or ``cupy`` for every CUDA run; unset, the fast kernels
#: (one launch for both sides) run on the driver alone and the faithful protocols on CuPy.
RUNTIME_ENV = "LASSM_CUDA_RUNTIME"


def cupy_module():
    """CuPy, imported on first use so that the backends import without it."""
    import cupy

    return cupy


def probe(hip: bool) -> tuple[bool, str]:
    try:
        cupy = cupy_module()
    except ImportError as exc:
        if hip:
            return False, f"CuPy is not installed ({exc}); for AMD GPUs install CuPy for ROCm (cupy-rocm-7-0)"
        return False, f"CuPy is not installed ({exc}); install it with: pip install 'lassm[cuda12]' (cupy-cuda12x)"
    except Exception as exc:  # a broken CUDA/ROCm install raises from deep inside CuPy
        return False, f"CuPy failed to import: {exc}"
    is_hip = bool(cupy.cuda.runtime.is_hip)
    if hip and not is_hip:
        return False, "this CuPy is built for CUDA, not ROCm: install CuPy for ROCm (cupy-rocm-7-0) to use the hip backend"
    if not hip and is_hip:
        return False, "this CuPy is built for ROCm: use the hip backend"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no {'ROCm' if hip else 'CUDA'} driver or device: {exc}"
    if n < 1:
        return False, f"no {'ROCm' if hip else 'CUDA'} device"
    facts = device_facts(cupy.cuda.Device().id)  # no nvidia-smi: every GPU command probes
    return True, (f"{facts['device']}, warp {facts['warp_size']}, driver API {facts['cuda_driver_api']}, "
                  f"CuPy {facts['cupy']}")


def device_info() -> dict[str, Any]:
    """Name, warp width and software versions of the current device, for provenance, asked once per
    process and device; ``driver`` comes from nvidia-smi, which the probe and :func:`device_name` skip."""
    facts = device_facts(cupy_module().cuda.Device().id)
    return {**facts, "driver": nvidia_driver() or facts["driver"]}


@functools.lru_cache(maxsize=None)
def device_facts(device_id: int) -> dict[str, Any]:
    """What the CUDA runtime says of device ``device_id`` (no process started)."""
    cupy = cupy_module()
    rt = cupy.cuda.runtime
    dev = cupy.cuda.Device(device_id)
    props = rt.getDeviceProperties(dev.id)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    return {
        "device": name,
        "device_id": int(dev.id),
        "compute_capability": str(dev.compute_capability),
        "warp_size": int(props["warpSize"]),
        "multiprocessors": int(props["multiProcessorCount"]),
        "driver": int(rt.driverGetVersion()),  # nvidia-smi's, where it answers, in device_info
        "cuda_driver_api": int(rt.driverGetVersion()),
        "runtime": int(rt.runtimeGetVersion()),
        "cupy": cupy.__version__,
        "is_hip": bool(rt.is_hip),
        "host": platform.node(),
    }


@functools.lru_cache(maxsize=1)
def nvidia_driver() -> str:
    """The kernel driver's version as nvidia-smi reports it (e.g. 580.159.04), or ''."""
    import shutil
    import subprocess

    exe = shutil.which("nvidia-smi")
    if not exe:
        return ""
    try:
        out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.strip().splitlines()[0].strip() if out.strip() else ""


def device_name() -> str:
    """The current GPU's name (results are filed under it), or '' when none answers."""
    ok, _ = probe(False)
    return device_facts(cupy_module().cuda.Device().id)["device"] if ok else ""


def choice() -> str:
    """``LASSM_CUDA_RUNTIME``'s value: ``driver``, ``cupy`` or ``""`` (the default choice)."""
    return settings.value(RUNTIME_ENV) or ""


@functools.lru_cache(maxsize=1)
def nvrtc_found() -> bool:
    """Whether NVRTC is here: the driver's cubins are built with it."""
    from . import nvrtc

    return nvrtc.find_library() is not None


def lean_runtime():
    """:mod:`.cudadrv` where its cubins can be built (NVRTC found) or ``LASSM_CUDA_RUNTIME=driver``
    asks for it, else CuPy (``LASSM_CUDA_RUNTIME=cupy`` too)."""
    wanted = choice()
    if wanted == "driver" or (not wanted and nvrtc_found()):
        from . import cudadrv

        return cudadrv
    return cupy_module()


def for_protocol(protocol: str | None, hip: bool = False):
    """The runtime of ``protocol``'s runs: the lean one for the one-launch (fast) variants, CuPy
    for the faithful protocols and for HIP, unless ``LASSM_CUDA_RUNTIME`` says otherwise."""
    wanted = choice()
    variant = VARIANTS.get(protocol or "")
    if hip or wanted == "cupy" or (not wanted and (variant is None or not variant.one_launch)):
        return cupy_module()
    return lean_runtime()


def is_driver(rt) -> bool:
    """Whether ``rt`` is :mod:`.cudadrv` (not CuPy)."""
    return getattr(rt, "__name__", "").endswith(".cudadrv")


def driver_info() -> dict[str, Any]:
    """The CUDA backend's ``device_info`` keys, from the driver (no runtime library: ``runtime`` is
    the driver API's version, ``cupy`` None)."""
    from . import cudadrv

    f = cudadrv.context().facts
    return {"device": f.name, "device_id": 0, "compute_capability": f.compute_capability, "warp_size": f.warp_size,
            "multiprocessors": f.multiprocessors, "driver": f.driver_api, "cuda_driver_api": f.driver_api,
            "runtime": f.driver_api, "cupy": None, "is_hip": False, "host": platform.node(), "runtime_library": "driver"}

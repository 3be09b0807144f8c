# SPDX-License-Identifier: BSD-3-Clause
"""The HIP backend: the CUDA kernel sources, built by CuPy for ROCm for the device's wavefronts.

hipRTC compiles ``faithful.cu`` (the protocols) or ``fast.cu``, with ``WARP_SIZE`` from the device
(a mismatch with the target stops the build with ``#error``); ``fast`` uses the CUDA host code
and walks both sides in one launch (:func:`extend_sides`). ``matchany`` needs
``__match_any_sync``, which HIP lacks, and is refused.

Compile-checked only: no AMD GPU has run these builds, so their results and times on AMD are
unknown. CI compiles them with hipcc (:mod:`lassm.backends.hipcc`) and runs their HIP code on the
CPU (hip-cpu); on an AMD GPU ``lassm run`` checks each build against hip-cpu first
(:mod:`lassm.runs.hip_check`). :func:`target` names the builds' target.
"""
from __future__ import annotations

from ..workloads.local_assembly.result import SideResult
from . import rocminfo
from .cuda import DEFAULT_BLOCK_WARPS, device_info, extend_side_gpu, extend_sides_gpu
from .cuda_runtime import probe
from .cuda import one_launch as _one_launch
from .nvrtc import VARIANTS
from .sides import Side, Sides

#: Builds for HIP: the three protocols that need no match-any, then ``fast`` and its ablations.
PROTOCOLS = ("casptr", "doneflag", "barrier", *VARIANTS)


def available() -> tuple[bool, str]:
    """Whether CuPy for ROCm and an AMD device are present, and which."""
    return probe(hip=True)


def device_name() -> str:
    """The AMD GPU's name as its runtime gives it ('' when none answers): a run's results are filed
    under it, as a CUDA GPU's are (:func:`lassm.runs.records.machine_for_backend`)."""
    ok, _ = probe(hip=True)
    return str(device_info()["device"]) if ok else ""


def target() -> tuple[rocminfo.Agent, str] | None:
    """What the builds are made for, and where that was read: rocminfo's first GPU (its gfx target
    and name), with the wavefront the runtime's device reports where CuPy for ROCm runs here, else
    rocminfo's own (a dry run before the runtime is installed); None when neither sees an AMD GPU."""
    agents = rocminfo.gpus()
    ok, _ = probe(hip=True)
    if ok:
        facts = device_info()
        first = agents[0] if agents else rocminfo.Agent(arch="?", name=str(facts["device"]), wavefront=0)
        return rocminfo.Agent(arch=first.arch, name=str(facts["device"]) or first.name,
                              wavefront=int(facts["warp_size"]), compute_units=first.compute_units), \
            "the device; its gfx target from rocminfo" if agents else "the device"
    return (agents[0], "rocminfo") if agents else None


def _check(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol {protocol!r} does not build on HIP; choose one of {', '.join(PROTOCOLS)}")


def one_launch(protocol: str) -> bool:
    """Whether ``protocol`` walks both sides in one launch (:func:`extend_sides`), as on CUDA."""
    return protocol in PROTOCOLS and _one_launch(protocol)


def extend_side(side: Side, protocol: str = "casptr", block_warps: int = DEFAULT_BLOCK_WARPS,
                max_bytes: int | None = None) -> SideResult:
    """Walks one side on an AMD GPU; same parameters and result as :func:`lassm.backends.cuda.extend_side`
    (``block_warps`` counts wavefronts)."""
    _check(protocol)
    return extend_side_gpu(side, protocol=protocol, block_warps=block_warps, max_bytes=max_bytes, hip=True)


def extend_sides(sides: Sides, protocol: str = "fast", block_warps: int = DEFAULT_BLOCK_WARPS,
                 max_bytes: int | None = None) -> tuple[SideResult, SideResult]:
    """Both sides in one launch on an AMD GPU (the ``fast`` builds); same parameters and result as
    :func:`lassm.backends.cuda.extend_sides`."""
    _check(protocol)
    return extend_sides_gpu(sides, protocol=protocol, block_warps=block_warps, max_bytes=max_bytes, hip=True)

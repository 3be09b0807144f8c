# SPDX-License-Identifier: BSD-3-Clause
"""Every cubin the default GPU commands load through the CUDA driver, built before their first use.

``lassm build-kernels`` (run by ``make venv``) compiles them in threads, for this GPU's
architecture or those named, into the cache :func:`lassm.backends.cudadrv.load` reads, so a first
GPU command need not compile. Nothing is committed: a cubin is a build product.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

from ..paths import kernel_source


@dataclass(frozen=True)
class Build:
    """One kernel build: the name NVRTC sees, the source text and the options (no architecture)."""

    label: str
    name: str
    source: str
    options: tuple[str, ...]


def default_builds(warp_size: int = 32) -> list[Build]:
    """What the default commands load: ``fast`` and ``fast-sorted`` (and their many-ends builds), the segment kernels,
    and the X-drop layouts of :data:`lassm.backends.xdrop.xdrop_host.LANES` beside LOGAN's block."""
    from . import cuda, device_segments
    from .nvrtc import VARIANTS
    from .xdrop import xdrop_cuda as xcuda, xdrop_host

    out = []
    scaled = (False, True) if VARIANTS["fast"].scale_registers is not None else (False,)
    for build in ("fast", VARIANTS["fast"].small_k_build):  # fast's own, and its sorted-table build
        if build is None:
            continue
        for many in scaled:
            name, code, options = cuda._build(build, warp_size, False, many)
            out.append(Build(f"{build}, many ends" if many else build, name.rsplit("/", 1)[-1], code, options))
    out.append(Build("segments", "segments.cu", kernel_source(device_segments.SOURCE).read_text(),
                     tuple(device_segments.OPTIONS)))
    for lanes in (0, *xdrop_host.LANES):
        name, options, _entry = xcuda._source(lanes)
        out.append(Build(f"xdrop, {lanes} lanes" if lanes else "xdrop, LOGAN's block", name.rsplit("/", 1)[-1],
                         kernel_source(name).read_text(), tuple(options)))
    return out


def build(archs: Sequence[str], builds: Sequence[Build] | None = None, threads: int = 4) -> list[dict]:
    """Builds each of ``builds`` (default :func:`default_builds`) for each architecture (``sm_90``)
    into the cache, ``threads`` at a time; returns one row per build: label, arch, seconds, and
    whether it was cached already. NVRTC's absence raises FileNotFoundError (its search says where
    it looked); a compile error raises as the load would."""
    from . import cudadrv

    jobs = [(b, a) for a in archs for b in (default_builds() if builds is None else builds)]

    def one(job: tuple[Build, str]) -> dict:
        b, arch = job
        cached = cudadrv.cached(b.source, b.options, arch)
        t0 = time.perf_counter()
        cudadrv.module_image(b.source, b.options, b.name, arch)
        return {"label": b.label, "arch": arch, "seconds": time.perf_counter() - t0, "cached": cached}

    with ThreadPoolExecutor(max_workers=max(1, int(threads))) as pool:
        return list(pool.map(one, jobs))


def this_gpu_arch() -> str:
    """``sm_XY`` of device 0, through the driver (raises :class:`lassm.backends.cudadrv.DriverError`
    or OSError where there is none)."""
    from . import cudadrv

    return f"sm_{cudadrv.context().facts.compute_capability}"


__all__ = ["Build", "build", "default_builds", "this_gpu_arch"]

# SPDX-License-Identifier: BSD-3-Clause
"""Compile-checks the CUDA kernel for AMD GPUs with ``hipcc``: no ROCm driver, no GPU, so it runs in CI.

Each build's source (:func:`lassm.backends.nvrtc.kernel_file`) is compiled device-only to AMDGCN
assembly per offload architecture with the backends' ``-D`` options
(:func:`lassm.backends.nvrtc.kernel_options`), and the kernel's name and wavefront width are read
back from the metadata: a wavefront other than the given ``WARP_SIZE`` fails. It proves only that
the builds compile. ``HIP_PLATFORM=amd`` is always set, else hipcc hands the file to any ``nvcc``
on the PATH; ``LASSM_HIPCC`` names another hipcc.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .. import settings
from .nvrtc import BUILDS, ENTRY, VARIANTS, kernel_file, kernel_options
from ..paths import kernel_source

#: Offload architecture -> its wavefront width (what ``hipDeviceProp_t.warpSize`` reports, and so
#: the ``WARP_SIZE`` the HIP backend builds with): CDNA 1 (MI100), CDNA 2 (MI210/MI250X), RDNA 2.
ARCHS: dict[str, int] = {"gfx908": 64, "gfx90a": 64, "gfx1030": 32}
#: Builds for HIP: every protocol but ``matchany`` (it needs ``__match_any_sync``, which HIP lacks),
#: then ``fast`` and its ablation builds (:data:`lassm.backends.hip.PROTOCOLS` lists the same).
HIP_PROTOCOLS: tuple[str, ...] = ("casptr", "doneflag", "barrier", *VARIANTS)
#: How long one compile may take (seconds); one takes about 1.5 s on a 2-core machine.
TIMEOUT = 300


class HipccError(RuntimeError):
    """hipcc rejected the source; the message holds the command and its output."""


def find() -> Path | None:
    """Path of ``hipcc`` (``LASSM_HIPCC``, else the PATH, else ``/opt/rocm/bin``), or None."""
    named = settings.value("LASSM_HIPCC")
    if named is not None:
        return named
    found = shutil.which("hipcc")
    if found:
        return Path(found)
    rocm = Path(os.environ.get("ROCM_PATH", "/opt/rocm")) / "bin" / "hipcc"
    return rocm if rocm.is_file() else None


def environment() -> dict[str, str]:
    """The environment hipcc runs in: the caller's, with the AMD platform forced."""
    env = dict(os.environ)
    env["HIP_PLATFORM"] = "amd"
    return env


def version() -> str:
    """hipcc's first version line (``HIP version: 5.2.21153-0`` on Debian 12)."""
    exe = find()
    if exe is None:
        raise FileNotFoundError("hipcc is not installed: apt-get install hipcc (Debian 12), or ROCm")
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=environment(),
                         timeout=60)
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    return lines[0].strip() if lines else ""


def options(protocol: str, arch: str, warp_size: int | None = None, device_only: bool = True) -> list[str]:
    """hipcc's arguments for one build: the backends' ``-D`` options plus the offload target;
    ``warp_size`` defaults to the architecture's wavefront (:data:`ARCHS`), and ``device_only=False``
    compiles an object with both passes."""
    ws = ARCHS.get(arch, 64) if warp_size is None else int(warp_size)
    passes = ["--cuda-device-only", "-c", "-S"] if device_only else ["-c"]
    return [f"--offload-arch={arch}", "-x", "hip", *passes, "-O3",
            # -c keeps hipcc from adding linker flags; clang then calls it unused next to -S.
            "-Wno-unused-command-line-argument", *kernel_options(protocol, ws)]


def _run(cmd: list[str]) -> tuple[str, float]:
    """Runs one hipcc command; returns ``(log, seconds)``, raises :class:`HipccError` on failure."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=environment(), timeout=TIMEOUT)
    seconds = time.perf_counter() - start
    log = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise HipccError(f"hipcc exited with {proc.returncode}: {' '.join(cmd)}\n{log}")
    return log, seconds


def _exe() -> Path:
    exe = find()
    if exe is None:
        raise FileNotFoundError("hipcc is not installed: apt-get install hipcc (Debian 12), or ROCm")
    return exe


def compile_asm(protocol: str, arch: str, warp_size: int | None = None,
                extra: Sequence[str] = ()) -> tuple[str, str, float]:
    """Compiles the kernel device-only to AMDGCN assembly; returns ``(assembly, log, seconds)``,
    raises :class:`HipccError` (with hipcc's output) on failure."""
    src = kernel_source(kernel_file(protocol))  # hipcc finds its .cuh headers beside it
    with tempfile.TemporaryDirectory(prefix="lassm-hipcc-") as tmp:
        out = Path(tmp) / f"{arch}-{protocol}.s"
        log, seconds = _run([str(_exe()), *options(protocol, arch, warp_size), *extra, str(src), "-o", str(out)])
        return out.read_text(), log, seconds


def compile_object(protocol: str, arch: str, warp_size: int | None = None) -> tuple[str, float]:
    """Compiles the kernel to an object with hipcc's host and device passes (as a program that
    links it would); the host pass, too, must accept the source. Returns ``(log, seconds)``."""
    src = kernel_source(kernel_file(protocol))
    with tempfile.TemporaryDirectory(prefix="lassm-hipcc-") as tmp:
        out = Path(tmp) / f"{arch}-{protocol}.o"
        return _run([str(_exe()), *options(protocol, arch, warp_size, device_only=False), str(src), "-o", str(out)])


def kernel_metadata(asm: str) -> dict[str, str | int]:
    """Target, kernel name and wavefront width of the kernel, from the assembly's metadata."""
    target = re.search(r'\.amdgcn_target\s+"([^"]+)"', asm)
    kernel = re.search(r"^\s*\.amdhsa_kernel\s+(\S+)", asm, re.M)
    wave = re.search(r"^\s*\.wavefront_size:\s+(\d+)", asm, re.M)
    return {"target": target.group(1) if target else "", "kernel": kernel.group(1) if kernel else "",
            "wavefront_size": int(wave.group(1)) if wave else 0}


def kernel_builds(protocols: Iterable[str] = HIP_PROTOCOLS, warp_size: int = 64) -> tuple[str, ...]:
    """The builds of ``protocols`` that compile to distinct code: a build whose options equal an
    earlier one's (``fast-bins`` and ``fast-warps`` differ from ``fast`` only on the host) is left
    out, since its compile would repeat that one."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for protocol in protocols:
        opts = kernel_options(protocol, warp_size)
        if opts not in seen:
            seen.add(opts)
            out.append(protocol)
    return tuple(out)


def verify(asm: str, arch: str, protocol: str, warp_size: int) -> dict[str, str | int]:
    """The assembly's metadata (:func:`kernel_metadata`), after checking that it holds the kernel
    and that its wavefront width is ``warp_size``; raises :class:`HipccError` otherwise. A build
    whose wavefront disagrees with ``WARP_SIZE`` would cast its votes and shuffles over the wrong
    lanes without any error at run time."""
    meta = kernel_metadata(asm)
    if meta["kernel"] != ENTRY:
        raise HipccError(f"{arch} {protocol}: no kernel {ENTRY} in the assembly (found {meta['kernel']!r})")
    if meta["wavefront_size"] != int(warp_size):
        raise HipccError(f"{arch} {protocol}: wavefront size {meta['wavefront_size']} in the metadata, "
                         f"WARP_SIZE {warp_size}")
    return meta


@dataclass(frozen=True)
class CheckResult:
    """One hipcc compile of the kernel: what was asked, what came out, and hipcc's log."""

    arch: str
    protocol: str
    warp_size: int
    wavefront_size: int
    asm_bytes: int
    seconds: float
    log: str


def check_kernel(archs: Iterable[str] = tuple(ARCHS),
                 protocols: Iterable[str] = kernel_builds()) -> list[CheckResult]:
    """Compiles every architecture and build (default: each distinct build of :data:`HIP_PROTOCOLS`);
    raises HipccError on the first failure, a wrong wavefront width in the metadata included.
    ``matchany`` is refused on HIP by an ``#error``."""
    out = []
    for arch in archs:
        for protocol in protocols:
            if protocol not in BUILDS:
                raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(BUILDS)}")
            ws = ARCHS.get(arch, 64)
            asm, log, seconds = compile_asm(protocol, arch, ws)
            meta = verify(asm, arch, protocol, ws)
            out.append(CheckResult(arch, protocol, ws, int(meta["wavefront_size"]), len(asm), seconds, log))
    return out

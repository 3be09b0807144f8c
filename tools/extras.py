# SPDX-License-Identifier: BSD-3-Clause
"""The pip extras `make venv` installs on this machine: the platform's, plus its GPU's runtime.

Standard library only: the Makefile runs it before ``.venv`` exists
(``EXTRAS := $(shell $(PYTHON) tools/extras.py)``). It prints the extras on one line, comma
separated; ``--why`` prints the same line, then one line of reason per decision.

- Platform: ``test,book,intel,dask,opencl`` on x86-64 Linux (Intel's OpenCL CPU driver, the
  ``intel`` extra, has wheels there only), ``test,book,dask,opencl`` elsewhere.
- NVIDIA GPU: ``nvidia-smi`` on PATH; the driver's CUDA version, from the ``CUDA Version: X.Y`` of
  its header, picks ``cuda12`` (12.x) or ``cuda13`` (13.x and later). Older drivers get no CUDA
  extra: CuPy for them is installed by hand.
- AMD GPU: ``rocminfo`` on PATH listing a GPU agent (``Device Type: GPU``; its ``Name:``, the gfx
  target, is named in the reason), or ``/opt/rocm`` present. A rocminfo that lists none (Debian's
  ROCm packages on a machine without the GPU or its kernel driver: it exits 1, *ROCk module is
  NOT loaded*) is no AMD GPU. rocminfo does not print the ROCm
  release (its "ROCk module version" is the kernel driver's), so the release is read from
  ``/opt/rocm/.info/version``, else from ``hipconfig --version`` (PATH, then ``/opt/rocm/bin``),
  whose HIP major.minor is the ROCm release's. ``rocm`` is added where PyPI has a CuPy wheel
  for that release (:data:`ROCM_WHEELS`); otherwise a line says how to build CuPy.
- Intel GPU: a DRM render node whose PCI vendor is Intel's (``/sys/class/drm/renderD*/device/vendor``
  is ``0x8086``). sysfs needs no Intel software, where ``sycl-ls`` or ``xpu-smi`` would need the
  very runtime this is deciding to install. Keeps ``intel``, and says that the GPU also needs
  Intel's compute runtime (Debian ``intel-opencl-icd``, Level Zero), which is no Python package.

Inputs, for tests only: the programs are looked up on PATH, and the files are read under
``LASSM_EXTRAS_ROOT`` (default ``/``), so ``$LASSM_EXTRAS_ROOT/opt/rocm`` and
``$LASSM_EXTRAS_ROOT/sys/class/drm``.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Environment variable: the file system root under which /opt/rocm and /sys are read (tests).
ROOT_ENV = "LASSM_EXTRAS_ROOT"
#: The extras of every platform, and of x86-64 Linux (where Intel's OpenCL CPU driver has wheels).
EVERYWHERE = ("test", "book", "dask", "opencl")
X86_64_LINUX = ("test", "book", "intel", "dask", "opencl")
#: The extras only a GPU adds.
GPU_EXTRAS = ("cuda12", "cuda13", "rocm")
#: ROCm (major, minor) -> the extra whose CuPy wheel is built for it (pyproject's ``rocm`` is
#: cupy-rocm-7-0; PyPI's cupy-rocm-4-3 and -5-0 are too old for CuPy 14).
ROCM_WHEELS = {(7, 0): "rocm"}
#: Seconds a probe (nvidia-smi, hipconfig) may take before it counts as no answer.
PROBE_TIMEOUT = 20
INTEL_PCI_VENDOR = "0x8086"
#: The reason line where ROCm's rocminfo is installed but lists no GPU (it finds no GPU either).
NO_AMD_GPU = "rocminfo is on PATH but lists no AMD GPU (no GPU, or its kernel driver not loaded): no rocm extra"


def _root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or "/")


def _run(program: str, *args: str) -> str | None:
    """The stdout of ``program args`` found on PATH; None when absent, failing or too slow."""
    path = shutil.which(program)
    if path is None:
        return None
    try:
        done = subprocess.run([path, *args], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _major_minor(text: str, pattern: str = r"(\d+)\.(\d+)") -> tuple[int, int] | None:
    match = re.search(pattern, text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def platform_extras(system: str, machine: str) -> tuple[list[str], str]:
    """The extras of an OS and CPU without regard to GPUs, and the reason."""
    if (system, machine.lower()) in (("Linux", "x86_64"), ("Linux", "amd64")):
        return list(X86_64_LINUX), f"{system} {machine}: {','.join(X86_64_LINUX)} (intel: Intel's OpenCL CPU driver)"
    return list(EVERYWHERE), f"{system} {machine}: {','.join(EVERYWHERE)} (intel has wheels for x86-64 Linux only)"


def nvidia() -> tuple[list[str], list[str]]:
    """(extras, reasons) for an NVIDIA GPU, from the CUDA version of nvidia-smi's header."""
    if shutil.which("nvidia-smi") is None:
        return [], []
    out = _run("nvidia-smi")
    version = _major_minor(out, r"CUDA Version:\s*(\d+)\.(\d+)") if out is not None else None
    if version is None:
        return [], ["NVIDIA: nvidia-smi is on PATH but names no CUDA version (no GPU or no driver): no CUDA extra"]
    cuda = f"{version[0]}.{version[1]}"
    if version[0] < 12:
        return [], [f"NVIDIA GPU, driver for CUDA {cuda}: no CUDA extra fits (cuda12 and cuda13 need a 12.x or "
                    f"newer driver); install CuPy for CUDA {cuda} by hand (e.g. pip install cupy-cuda{version[0]}x)"]
    extra = "cuda12" if version[0] == 12 else "cuda13"
    return [extra], [f"NVIDIA GPU, driver for CUDA {cuda} (nvidia-smi): {extra}"]


def rocm_release() -> tuple[tuple[int, int] | None, str]:
    """The ROCm release (major, minor) and where it was read; None when nothing says."""
    info = _root() / "opt" / "rocm" / ".info" / "version"
    try:
        version = _major_minor(info.read_text())
    except OSError:
        version = None
    if version is not None:
        return version, str(info)
    hipconfig = "hipconfig" if shutil.which("hipconfig") else str(_root() / "opt" / "rocm" / "bin" / "hipconfig")
    out = _run(hipconfig, "--version")
    version = _major_minor(out) if out is not None else None
    return version, "hipconfig --version"


def rocminfo_gpu() -> str | None:
    """The first GPU agent's gfx target rocminfo lists (``gfx90a``), ``"GPU"`` where it names none,
    None where rocminfo is absent, fails or lists no GPU (the full reading is lassm.backends.rocminfo)."""
    out = _run("rocminfo")
    if out is None:
        return None
    for agent in re.split(r"^\s*Agent\s+\d+\s*$", out, flags=re.M):
        if re.search(r"^\s*Device Type:\s*GPU\s*$", agent, flags=re.M):
            name = re.search(r"^\s*Name:\s*(\S+)", agent, flags=re.M)
            return name.group(1) if name else "GPU"
    return None


def amd() -> tuple[list[str], list[str]]:
    """(extras, reasons) for an AMD GPU: ``rocm`` where a CuPy wheel exists for its ROCm release."""
    rocm_dir = _root() / "opt" / "rocm"
    has_rocminfo = shutil.which("rocminfo") is not None
    gpu = rocminfo_gpu() if has_rocminfo else None
    if gpu is None and not rocm_dir.is_dir():
        return [], [NO_AMD_GPU] if has_rocminfo else []
    version, source = rocm_release()
    build = ("build CuPy for it instead: CUPY_INSTALL_USE_HIP=1 ROCM_HOME=/opt/rocm pip install cupy "
             "(ROCM_HOME: the ROCm install)")
    if version is None:
        return [], [f"AMD ROCm found (rocminfo or /opt/rocm) but no release read (.info/version, hipconfig): "
                    f"no rocm extra; {build}"]
    release = f"{version[0]}.{version[1]}"
    extra = ROCM_WHEELS.get(version)
    which = f"AMD GPU {gpu} (rocminfo)" if gpu else "AMD GPU"
    if extra is None:
        have = ", ".join(f"{a}.{b}" for a, b in ROCM_WHEELS)
        return [], [f"{which}, ROCm {release} ({source}): no CuPy wheel for it (the rocm extra is for ROCm {have}); "
                    f"{build}"]
    return [extra], [f"{which}, ROCm {release} ({source}): {extra}"]


def intel_gpu() -> bool:
    """Whether a DRM render node belongs to an Intel PCI device."""
    for vendor in sorted((_root() / "sys" / "class" / "drm").glob("renderD*/device/vendor")):
        try:
            if vendor.read_text().strip().lower() == INTEL_PCI_VENDOR:
                return True
        except OSError:
            continue
    return False


def intel(extras: list[str], linux_x86_64: bool) -> tuple[list[str], list[str]]:
    """(extras to add, reasons) for an Intel GPU; ``intel`` is the platform's already on x86-64 Linux."""
    if not intel_gpu():
        return [], []
    runtime = ("the GPU also needs Intel's compute runtime (Debian intel-opencl-icd, Level Zero), "
               "which is no Python package")
    if not linux_x86_64:
        return [], [f"Intel GPU (a render node of vendor {INTEL_PCI_VENDOR}): the intel extra has wheels for "
                    f"x86-64 Linux only; {runtime}"]
    return [e for e in ("intel",) if e not in extras], [
        f"Intel GPU (a render node of vendor {INTEL_PCI_VENDOR}): intel; {runtime}"]


def choose(system: str | None = None, machine: str | None = None) -> tuple[list[str], list[str]]:
    """The extras for this machine and one reason per decision."""
    system = system or platform.system()
    machine = machine or platform.machine()
    extras, why = platform_extras(system, machine)
    reasons = [why]
    found = [nvidia(), amd(), intel(extras, "intel" in extras)]
    for add, said in found:
        extras += [e for e in add if e not in extras]
        reasons += said
    if not any(line != NO_AMD_GPU for _, said in found for line in said):
        reasons.append("no GPU found (nvidia-smi, rocminfo or /opt/rocm, an Intel render node): the platform's extras")
    return extras, reasons


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--why", action="store_true", help="also print the reason for each extra")
    args = parser.parse_args(argv)
    extras, reasons = choose()
    print(",".join(extras))
    if args.why:
        for reason in reasons:
            print(f"  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

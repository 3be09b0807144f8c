# SPDX-License-Identifier: BSD-3-Clause
"""ROCm's HIP-CPU runtime, pinned, and the hip-cpu backend's drivers built against it.

HIP-CPU is header-only (g++ and ``libtbb-dev`` run HIP code on the host). Never committed, it is
pinned (:data:`HIP_CPU`, :mod:`.pinned`): the ``LASSM_HIP_CPU`` folder, else
``LASSM_CACHE/hip-cpu``, filled by :func:`fetch` (``make hip-cpu``). Each build is a driver
program (``kernels/<kernel>/hip_cpu/driver.cpp``) running one launch over buffers passed as files:
a program, since HIP-CPU keeps a polling thread for its process's life and a stuck launch must be
ended by a time limit (:func:`run`). Drivers are cached by sources, options, HIP-CPU's commit and
the compiler's version.
"""
from __future__ import annotations

import ctypes.util
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from ..atomic import atomic_path, locked
from ..errors import BackendUnavailable, LassmError
from ..paths import cache_dir, kernel_source
from .pinned import Source, SourceUnavailable, file_pins, locate

#: HIP-CPU at its newest commit (2024-03-19): every header the drivers read, on every architecture
#: libco (its fibers) supports.
HIP_CPU = Source(
    name="HIP-CPU", repo="ROCm/HIP-CPU", commit="e112c935057434897bb12d9ab3910380a8bd5f58",
    files=file_pins(Path(__file__).with_name("hip_cpu_pins.json"), "HIP-CPU"),
    why="ROCm's HIP runtime for the CPU: our HIP kernels executed at wavefront 64 without an AMD GPU",
    folder_env="LASSM_HIP_CPU", cache_folder="hip-cpu", offline_hint="LASSM_HIP_CPU=DIR")
#: The Debian package of TBB, which libstdc++'s parallel algorithms (HIP-CPU's blocks) need.
TBB_PACKAGE = "libtbb-dev"
#: The compile: C++17 (HIP-CPU's floor), optimized, one program per build.
FLAGS = ("-std=c++17", "-O2")
#: Seconds a driver may take to build.
BUILD_TIMEOUT = 600.0


class LaunchTimeout(LassmError):
    """A launch on HIP-CPU did not finish in its time (its threads wait in a way fibers cannot serve)."""


def compiler() -> str | None:
    """The C++ compiler (``CXX``, else ``g++``), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


@functools.lru_cache(maxsize=None)
def compiler_version(cxx: str) -> str:
    """``cxx --version``'s first line, asked once per process (part of every build's key)."""
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0] if out else "unknown"


def tbb_missing() -> str | None:
    """Why TBB cannot be linked here, or None: its header and its shared library are both needed."""
    roots = [Path(p) for p in os.environ.get("CPATH", "").split(os.pathsep) if p] + [Path("/usr/include"),
                                                                                       Path("/usr/local/include")]
    if not any((r / "tbb" / "tbb.h").is_file() or (r / "oneapi" / "tbb.h").is_file() for r in roots):
        return f"TBB's headers are missing; install the Debian package {TBB_PACKAGE}"
    if ctypes.util.find_library("tbb") is None:
        return f"TBB's library (libtbb.so) is missing; install the Debian package {TBB_PACKAGE}"
    return None


def source(fetch: bool = False) -> Path:
    """HIP-CPU's checked tree: the ``LASSM_HIP_CPU`` folder or the cache, downloaded with ``fetch``;
    else raises SourceUnavailable, saying where it looked and how to get it."""
    try:
        return locate(HIP_CPU, fetch=fetch)
    except SourceUnavailable:
        if fetch or os.environ.get(HIP_CPU.folder_env):  # a download failed, or the folder named is wrong
            raise
        raise SourceUnavailable(f"HIP-CPU {HIP_CPU.label} is neither in a folder named by {HIP_CPU.folder_env} nor in "
                                f"the cache ({HIP_CPU.cached()}); `make hip-cpu` (python -m "
                                f"lassm.backends.hip_cpu_build) downloads it where the network allows, else copy "
                                f"{HIP_CPU.repo} at {HIP_CPU.commit[:12]} into a folder and set {HIP_CPU.folder_env}") \
            from None


def available() -> tuple[bool, str]:
    """Whether drivers can be built here: g++, TBB and the pinned HIP-CPU (never downloaded here)."""
    cxx = compiler()
    if cxx is None:
        return False, f"no C++ compiler ({os.environ.get('CXX', 'g++')}) on PATH"
    why = tbb_missing()
    if why:
        return False, why
    try:
        tree = source()
    except SourceUnavailable as exc:
        return False, str(exc)
    return True, f"HIP-CPU {HIP_CPU.label} in {tree}, {cxx}"


def _digest(paths: Sequence[Path], extra: str) -> str:
    from .headers import files_digest

    return files_digest(paths, extra.encode())[:16]


def build(kernel: str, options: Sequence[str], include: Sequence[str]) -> Path:
    """The executable driver of ``kernel`` (a folder under ``kernels/``) built with the ``-D``
    ``options`` and ``include`` folders, from the cache when the same inputs built it before.

    Raises BackendUnavailable when g++, TBB or HIP-CPU is missing or the build fails (g++'s output
    in the message)."""
    ok, why = available()
    if not ok:
        raise BackendUnavailable(f"backend 'hip-cpu' cannot run here: {why}")
    cxx = compiler()
    assert cxx is not None  # available() found one
    driver = kernel_source(f"{kernel}/hip_cpu/driver.cpp")
    folders = [kernel_source("hip_cpu"), *(kernel_source(d) for d in include)]
    sources = [driver, *sorted(p for d in folders for p in d.iterdir() if p.is_file())]
    stamp = repr((FLAGS, tuple(options), HIP_CPU.label, compiler_version(cxx), sys.platform))
    exe = cache_dir() / "hip-cpu" / "build" / f"{kernel}-{_digest(sources, stamp)}"
    if _built(exe):
        return exe
    tree = source()
    cmd = [cxx, *FLAGS, f"-I{tree / 'include'}", *(f"-I{d}" for d in folders), *options, str(driver)]
    exe.parent.mkdir(parents=True, exist_ok=True)
    with locked(exe):  # a process building the same driver now (a second run, a test worker): wait, then take it
        if _built(exe):
            return exe
        with atomic_path(exe) as tmp:
            done = subprocess.run([*cmd, "-o", str(tmp), "-ltbb", "-lpthread"], capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT, check=False)
            if done.returncode != 0:
                raise BackendUnavailable(f"building {driver} for HIP-CPU failed ({' '.join(options)}):\n"
                                         f"{done.stderr[-3000:]}")
        exe.chmod(exe.stat().st_mode | 0o111)  # published with the umask's file mode: made executable
    return exe


def _built(exe: Path) -> bool:
    """The driver is in the cache, whole and executable (its mode is set just after the rename)."""
    return exe.is_file() and os.access(exe, os.X_OK)


def run(exe: Path, args: Sequence[object], timeout: float, what: str) -> dict[str, float]:
    """Runs one launch's driver and returns what it printed (``seconds``, ``wavefront``, ...); raises
    LaunchTimeout past ``timeout`` seconds (it is killed), LassmError with its message on failure."""
    try:
        done = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise LaunchTimeout(f"{what} did not finish in {timeout:g} s on HIP-CPU and was stopped") from None
    if done.returncode != 0:
        raise LassmError(f"{what} failed on HIP-CPU (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    out = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = float(value)
    return out


def fetch() -> Path:
    """Downloads the pinned HIP-CPU into the cache where it is not there yet; returns its tree."""
    return source(fetch=True)


def main() -> int:
    """``python -m lassm.backends.hip_cpu_build``: the set-up step of ``make test`` (``make hip-cpu``).
    Says where HIP-CPU is, or why it is not; exit 0 either way (the tests that need it skip, saying why)."""
    try:
        tree = fetch()
    except SourceUnavailable as exc:
        print(f"hip-cpu: not set up: {exc}")
        return 0
    print(f"hip-cpu: HIP-CPU {HIP_CPU.label} in {tree}")
    why = tbb_missing() or (None if compiler() else "no C++ compiler on PATH")
    if why:
        print(f"hip-cpu: the drivers cannot be built here: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

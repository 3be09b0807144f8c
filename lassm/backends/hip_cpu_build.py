# SPDX-License-Identifier: BSD-3-Clause
"""ROCm's HIP-CPU runtime, pinned, and the hip-cpu backend's drivers built against it.

HIP-CPU (github.com/ROCm/HIP-CPU) is a header-only HIP for the CPU: g++ and Debian's
``libtbb-dev`` (the parallel algorithms it runs blocks with) compile unmodified HIP code into a
program that runs it on the host's cores. It is third-party code and never committed here: it is
pinned like the original programs (:data:`HIP_CPU`, :mod:`.pinned`): a folder named by
``LASSM_HIP_CPU`` for machines without internet, else the cache (``LASSM_CACHE/hip-cpu``), into
which :func:`fetch` (``make hip-cpu``, part of ``make test``'s set-up) downloads GitHub's tarball
of the pinned commit where the network allows.

Each build is a small driver program (``kernels/<kernel>/hip_cpu/driver.cpp``, with the shim
``kernels/hip_cpu/hip_cpu.h``) that includes the kernel's CUDA/HIP source unchanged, runs one
launch over buffers the host wrote as files, and exits. A program, not a library loaded into
Python, because HIP-CPU's runtime keeps a thread polling its streams for as long as its process
lives (a whole core), and because a launch that waits in a way fibers cannot serve must be ended by
a time limit (:func:`run`). Drivers are cached under ``LASSM_CACHE/hip-cpu/build``, keyed by the
sources, the options, HIP-CPU's commit and the compiler's version, so a second run builds nothing.
"""
from __future__ import annotations

import ctypes.util
import functools
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from ..atomic import atomic_path, locked
from ..errors import BackendUnavailable, LassmError
from ..paths import cache_dir, kernel_source
from .pinned import Source, SourceUnavailable, locate

#: HIP-CPU at its newest commit (2024-03-19): every header the drivers read, on every architecture
#: libco (its fibers) supports.
HIP_CPU = Source(
    name="HIP-CPU", repo="ROCm/HIP-CPU", commit="e112c935057434897bb12d9ab3910380a8bd5f58",
    files={
        "include/hip/hip_runtime.h": "7e44c3caa298eaf8be4096e65fdb495bf30ea7769163c5bab6fdb87889b26b91",
        "external/half/half.hpp": "9572ab28bafbb3a85f3178969ceb7a45fb8fd725f54be6e56a589368fe26178e",
        "external/libco/aarch64.inl": "9a7b05ce2dee92285a07b141affef55aab967830b205c14db629207c11fd1a12",
        "external/libco/amd64.inl": "b0e40ecd481962494c122998a7388f58c75eb168ee2c5607b54a8229dc4d3ee6",
        "external/libco/arm.inl": "cc2ecdcdec1937a3be5478ffe282f4b8d22f2d6b6062d246ecd7ca42099eafbf",
        "external/libco/fiber.inl": "46341fba34d3d24812bd4f45fe69c12eb47f19b9cf4d972937cdbb3cafcfc880",
        "external/libco/libco.h": "1f39526511e32ee7d76b131a8e650367eba04a1e4a078e76c8e822115f21b1e7",
        "external/libco/libco.inl": "2d1f49331b12f36641e0c4d4bdcf68b5f3ce8abcfa0a64264a9b8731f4fce53f",
        "external/libco/ppc.inl": "e46c9f0c1f0d0ad8c65a6d142969f744d08ba25b2a3405c7bf4293dbaefda33b",
        "external/libco/ppc64v2.inl": "12a82c2a591a2c2958c651a2df7ebc0c60cc3efbd356e5607f74fa25ae35ea53",
        "external/libco/settings.h": "8d2f9c8e06856f8f6ab62e076b86422499e35991b05d24e9884d14c3fba215c8",
        "external/libco/sjlj.inl": "cab75bc39d820ed770ebc12195469780edf3a9993325ce19c2f48b2bcb8b329e",
        "external/libco/ucontext.inl": "af86a6d6164b05f0089f467102699ea0571a397d0093e3d01994f0138e8ef59a",
        "external/libco/x86.inl": "0d1ee1814797ab88a911165381589fbb7376e9a999eb7d751ac907a253dbb7ab",
        "include/hip/hip_api.h": "b221966c201ff17e87a591982993e87f8de9c298351d8e79135dc8e6c5d29bba",
        "include/hip/hip_atomic.h": "9432be73d25224bcc9f69b7634bc1039f248246353733d721875a1dceec7864a",
        "include/hip/hip_complex.h": "44df3db42367e1acc450a13a25b8ec5deb71adc34d5b480f7d081752b62a07a5",
        "include/hip/hip_constants.h": "8637b42bf5be4b65920ca1116872fb9f272fc393e15057be4023107135aede31",
        "include/hip/hip_defines.h": "3e0ad1f203c57454ebc366f0ad708f048052f2ab2eccdb1fdddad41281937cbb",
        "include/hip/hip_device_launch_parameters.h": "46d9ad35f737817c4569878e90cff5ad0624238045004f058d558b92bff802d0",
        "include/hip/hip_enums.h": "77e73637112ea88f764bd83e32e60713247124629bf43d4c0c632e5f75830161",
        "include/hip/hip_fp16.h": "e84981625e0d1f34d3e2dd578d21c30b05f9501bdff7112a376e6295eceb855a",
        "include/hip/hip_ldg.h": "b5ae6e0a120d2761852c09ce6a4fca15a604e81178e15d542cbea6b0de9d17b2",
        "include/hip/hip_math.h": "263c8619262770e7c5cad388858a32417fe6e496d0f22367c80d03e33d719ce5",
        "include/hip/hip_runtime_api.h": "21dc79af8975d87660a22445d233d2677230480e9f45688d68616756f783664d",
        "include/hip/hip_types.h": "ed436449cacc027b215d8ea7d265b088b26155819a63a2d86c54b1caf8422c3a",
        "include/hip/hip_vector_types.h": "477d94dec43a8c1371e1175f2c826f9da5e6243be0aec5f6ff5f9b0ba7874ec3",
        "src/include/hip/detail/api.hpp": "a7fba4457144d260a46815431af5a00696adcd7443af71ed1af4751056eafcd0",
        "src/include/hip/detail/atomic_clang_gcc.hpp": "92c680d2c101824775f0b52937b6dccadcc80266461a6bdbff118f5031de14be",
        "src/include/hip/detail/atomic_msvc.hpp": "512d6cdd0375deb2ca23989c616be397c9844039d1a08f484d0e7f91a0e2d434",
        "src/include/hip/detail/complex.hpp": "4782e0368ee6a2780c1148835f2bda24fbb00e2a33200d8fabe4026b6bc44fe1",
        "src/include/hip/detail/context.hpp": "d3768225ea36dacc58782e3ec7e7b36d9db03bc6bd8b14ecfdaa003b29597a29",
        "src/include/hip/detail/coordinates.hpp": "99958c4aa2a67694504245bdf2ce7354f83e43f17336d8017468aea20b2f8619",
        "src/include/hip/detail/device.hpp": "460bfb15a95122fda4070fc4ceffcc1c331b0d0ff044155239572cb1fe6cc093",
        "src/include/hip/detail/event.hpp": "eb68c3e853f271aa59c9bed0add97d4695248edc3cd717a7d4dfb7de26a2d72b",
        "src/include/hip/detail/fiber.hpp": "52b4e50aa0fdd6e1d5acd5eb7cec9e8e1d87c27886b1e04fe01d4175a89da18c",
        "src/include/hip/detail/flat_combiner.hpp": "b88720b9bc158477660927c2cfb23d360f54a6fa6af5bfd1754bc59037e2a80f",
        "src/include/hip/detail/function.hpp": "3d40e69a16b013e071e881dfd0d4529bfa8d62ffca65412b3f93e39160d6055b",
        "src/include/hip/detail/grid_launch.hpp": "627502fea492ded5b82368b070401c9aa77e76c3248fcfc7984e36f67b3acf0d",
        "src/include/hip/detail/half.hpp": "9b20a522c46b6e34840472b05e19826f102f20ec4ce0987833a4250e6767ebcf",
        "src/include/hip/detail/helpers.hpp": "d539647f4578df1f70e20a0aec064789c42e7bc309609723a1c4a0e11e964b1b",
        "src/include/hip/detail/intrinsics.hpp": "cbd2da96c78f635e723df3ea6ce33abb5c9e256db962369f28681bf69bbff433",
        "src/include/hip/detail/math.hpp": "6c753672c178edad1bab4f91f78020831a11ace36b4517c59bcf06f05a2c3793",
        "src/include/hip/detail/module.hpp": "ac808b3dd526760374e806aa8fe0adc252a3d89a1faa8c3800f6f5a2901a08d3",
        "src/include/hip/detail/runtime.hpp": "b2bd14a6e7981d094f3076fd0f5ad1a8d1f9ba72bdd0d0fb2d8daceb27aee7dd",
        "src/include/hip/detail/stream.hpp": "a6dfac726b142953ac39b9fcbd4f3032e3ede05be4bd77a04119f29ff45fdc39",
        "src/include/hip/detail/system.hpp": "e6ee1e80261dfd213a774c40f7ec69ec1554be33f838d1626f80b9e7443a2e7a",
        "src/include/hip/detail/system_posix.inl": "1e96571ce9425e72441a0220b55c1672f3465bbf5832de63e526f379110620b2",
        "src/include/hip/detail/system_windows.inl": "3249645a4a70e4f9ebada0090cd3817e1217794190821cbb0b24e36ede6fa472",
        "src/include/hip/detail/task.hpp": "f92fa54002de2fdbf3bf392574854cdee315c134632d1b09b51eb8a5f3707b44",
        "src/include/hip/detail/tile.hpp": "3d204312919aa9b8ae774ded25d3aeda298fac6c7646a3eb68c814594c8bbb56",
        "src/include/hip/detail/types.hpp": "6d7f568fb7617b427f20d46dd460f1025b5d012866c9cd33aa33db384831f92a",
        "src/include/hip/detail/vector.hpp": "dc42a9bb6af734819d7ff8f5799518490e92a03d8b0b75d835fb1262dcb39802",
    },
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
    """HIP-CPU's checked tree: the ``LASSM_HIP_CPU`` folder or the cache; downloaded with ``fetch``.

    Raises
    ------
    SourceUnavailable
        One line saying where it looked and how to get it.
    """
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
    h = hashlib.sha256(extra.encode())
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build(kernel: str, options: Sequence[str], include: Sequence[str]) -> Path:
    """The driver of ``kernel`` (``local_assembly`` or ``xdrop``) built with ``options``, from the
    cache when the same sources, options, HIP-CPU and compiler built it before.

    Parameters
    ----------
    kernel : the kernel's folder under ``kernels/``; its driver is ``<kernel>/hip_cpu/driver.cpp``.
    options : ``-D`` options of the build (the kernel's, as every backend passes them).
    include : folders under ``kernels/`` the driver's includes are found in, besides the shim's.

    Returns
    -------
    Path
        The executable.

    Raises
    ------
    BackendUnavailable
        When g++, TBB or HIP-CPU is missing, or the build fails (g++'s output in the message).
    """
    ok, why = available()
    if not ok:
        raise BackendUnavailable(f"backend 'hip-cpu' cannot run here: {why}")
    cxx = compiler()
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
    """Runs one launch's driver; returns what it printed (``seconds``, ``wavefront``, ...).

    Raises
    ------
    LaunchTimeout
        When it runs past ``timeout`` seconds (it is killed).
    LassmError
        When it fails, with its message.
    """
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

# SPDX-License-Identifier: BSD-3-Clause
"""The OpenCL driver libraries to name to an ICD loader, NVIDIA's found without root.

pyopencl's bundled loader reads only one vendors folder, so :mod:`.opencl` writes a temporary
one naming :func:`driver_libraries`. NVIDIA's ``libnvidia-opencl.so.1`` comes with the driver
but no ``.icd`` names it: :func:`find_nvidia_opencl` looks where the dynamic loader would.
:func:`env_intel_driver` finds Intel's CPU driver from PyPI. Standard library only.
"""
from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

#: The vendors folder the loaders read by default.
VENDORS = Path("/etc/OpenCL/vendors")
#: NVIDIA's OpenCL driver, by the name its .icd file gives when the driver's installer writes one.
NVIDIA_OPENCL = "libnvidia-opencl.so.1"
#: Folders NVIDIA's driver libraries are installed in (distributions, NVIDIA's container runtime),
#: searched after LD_LIBRARY_PATH and the loader cache.
DRIVER_DIRS: tuple[str, ...] = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64",
                                "/usr/local/nvidia/lib", "/usr/lib/aarch64-linux-gnu")
#: Seconds ``ldconfig -p`` may take before the cache counts as empty.
LDCONFIG_TIMEOUT = 5.0
#: Where ldconfig lives when a user's PATH lacks the sbin folders.
LDCONFIG_FALLBACKS = ("/sbin/ldconfig", "/usr/sbin/ldconfig")
#: ``\tlibname.so.1 (libc6,x86-64) => /path/libname.so.1``, one line of ``ldconfig -p``.
_CACHE_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*?)\s*$")


def env_intel_driver() -> Path | None:
    """Intel's OpenCL CPU driver of this environment (``lib/libintelocl.so`` of the prefix, then of
    the user base), or None."""
    for prefix in filter(None, [sys.prefix, getattr(site, "USER_BASE", None) or ""]):
        lib = Path(prefix) / "lib" / "libintelocl.so"
        if lib.is_file():
            return lib
    return None


def _is_64bit() -> bool:
    return sys.maxsize > 2**32


def _loadable(path: Path) -> bool:
    """Whether ``path`` is an ELF file of this interpreter's word size (a 32-bit driver of
    ``/usr/local/nvidia/lib`` cannot be loaded into a 64-bit process)."""
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except OSError:
        return False
    return head[:4] == b"\x7fELF" and head[4] == (2 if _is_64bit() else 1)


def ld_cache(name: str = NVIDIA_OPENCL, ldconfig: str | None = None) -> list[str]:
    """Paths of ``name`` in the dynamic loader's cache (``ldconfig -p``), those of this word size
    first; none when ldconfig is absent, fails or takes over :data:`LDCONFIG_TIMEOUT` seconds."""
    program = ldconfig or shutil.which("ldconfig") or next((p for p in LDCONFIG_FALLBACKS if os.access(p, os.X_OK)),
                                                           None)
    if program is None:
        return []
    try:
        done = subprocess.run([program, "-p"], capture_output=True, text=True, timeout=LDCONFIG_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    hits = [(flags, path) for lib, flags, path in (m.groups() for m in map(_CACHE_LINE.match, done.stdout.splitlines())
                                                   if m) if lib == name]
    same_size = [path for flags, path in hits if ("64" in flags) == _is_64bit()]
    return same_size + [path for flags, path in hits if path not in same_size]


def find_nvidia_opencl(search_dirs: Iterable[str] | None = None,
                       cache: Callable[[], list[str]] = ld_cache) -> str | None:
    """NVIDIA's OpenCL driver, resolved, where the dynamic loader would find it: ``LD_LIBRARY_PATH``,
    then the loader cache (a subprocess, so only on no hit), then ``search_dirs`` (default
    :data:`DRIVER_DIRS`); None when there is none."""
    def candidates() -> Iterable[Path]:
        for folder in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
            if folder:
                yield Path(folder) / NVIDIA_OPENCL
        yield from map(Path, cache())
        for folder in DRIVER_DIRS if search_dirs is None else search_dirs:
            yield Path(folder) / NVIDIA_OPENCL

    for path in candidates():
        if path.is_file() and _loadable(path):
            return str(path.resolve())
    return None


def _key(lib: str) -> str:
    """A library's identity: its resolved path where it is a path to a file, else its name."""
    path = Path(lib)
    return str(path.resolve()) if path.is_absolute() and path.exists() else lib


def driver_libraries(vendors: Path = VENDORS) -> list[str]:
    """The drivers a loader should know, each once (by resolved path), in this order: the
    ``.icd`` files of ``vendors``, ``OCL_ICD_FILENAMES``, NVIDIA's driver (:func:`find_nvidia_opencl`,
    only where none of those names an NVIDIA library), Intel's CPU driver of this environment."""
    libs = []
    if vendors.is_dir():
        for icd in sorted(vendors.glob("*.icd")):
            try:
                libs.append(icd.read_text().strip())
            except OSError:
                continue
    libs += os.environ.get("OCL_ICD_FILENAMES", "").split(":")
    libs = [lib for lib in libs if lib]
    if not any("nvidia" in Path(lib).name.lower() for lib in libs):
        libs.append(find_nvidia_opencl() or "")
    libs.append(str(env_intel_driver() or ""))
    unique: dict[str, str] = {}
    for lib in filter(None, libs):
        unique.setdefault(_key(lib), lib)
    return list(unique.values())

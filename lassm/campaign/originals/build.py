# SPDX-License-Identifier: BSD-3-Clause
"""Building the original programs with nvcc, as their Makefiles do, for this GPU, once.

A build is cached under a key of all that decides the binary (pinned sources, our LOGAN driver,
flags, architecture, ``nvcc --version``), and renamed into place only when every step succeeded:
a failed or killed build leaves nothing."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...errors import LassmError
from .sources import HT_LOC, LOGAN, Source, cache_root, locate

#: Where nvcc is looked for after ``PATH``: ``$CUDA_HOME/bin``, then the toolkit's usual home.
NVCC_HOMES = ("CUDA_HOME", "CUDA_PATH")
NVCC_FALLBACK = Path("/usr/local/cuda/bin/nvcc")
#: ``ht_loc``'s Makefile flags (its ``-x cu`` compile of the three ``.cpp`` files), the architecture
#: added. Its ``kernel.hpp`` uses ``uint32_t`` without ``<cstdint>``, which some toolchains bring
#: in and others do not: the header is included on the command line, the sources stay as published.
HT_LOC_FLAGS = ("--std=c++11", "-O3")
HT_LOC_COMPILE = ("-x", "cu", "-I.", "-include", "cstdint")
HT_LOC_SOURCES = ("main", "kernel", "helper")
#: LOGAN's Makefile: ``nvcc -O3 -maxrregcount=32 -std=c++14 -Isrc -Xcompiler -fopenmp``, objects
#: built with ``-dc`` and linked with the same flags; the architecture added (its ``v100`` switch adds sm_70).
LOGAN_FLAGS = ("-O3", "-maxrregcount=32", "-std=c++14", "-Isrc", "-Xcompiler", "-fopenmp")
LOGAN_LIBRARY = ("seed", "score", "logan_functions")
LOGAN_SOURCES = ("demo", *LOGAN_LIBRARY)
#: Our driver printing LOGAN's per-pair scores (built beside the demo, from LOGAN's library).
SCORES_DRIVER = Path(__file__).with_name("logan_scores.cu")
#: Seconds one nvcc call may take.
NVCC_TIMEOUT = 600.0


class BuildFailed(LassmError):
    """nvcc is missing or refused a source; the message names the step and ends with its output."""


@dataclass(frozen=True)
class Built:
    """The executables of one original program and what made them."""

    programs: dict[str, Path]
    source: Source
    arch: str
    nvcc: str

    def __getitem__(self, name: str) -> Path:
        return self.programs[name]

    def context(self, machine: str, device: tuple[str, str], sha: str) -> dict:
        """The columns every row of a side-by-side run shares: the folder, the GPU (name, driver),
        the pinned source, the compiler and our commit."""
        return {"machine": machine, "device": device[0], "driver": device[1], "original_source": self.source.label,
                "nvcc": self.nvcc, "git_sha": sha}


@dataclass(frozen=True)
class Given:
    """Where a side-by-side command takes an original from: programs already built (``--program``:
    name -> path), else its pinned tree (``--source``, else the cache, else a download) built for
    ``arch`` (nvcc's ``sm_XY``; default: the GPU's)."""

    tree: Path | None = None
    programs: dict[str, Path] | None = None
    arch: str | None = None

    def built(self, source: Source) -> Built:
        """The programs of ``source`` (:data:`.sources.HT_LOC` or :data:`.sources.LOGAN`)."""
        if self.programs:
            return Built(dict(self.programs), source, self.arch or "", "")
        make = build_ht_loc if source is HT_LOC else build_logan
        return make(locate(source, self.tree), self.arch or gpu_arch())


def find_nvcc() -> str | None:
    """nvcc on ``PATH``, else under ``$CUDA_HOME``/``$CUDA_PATH``, else the toolkit's ``/usr/local/cuda``."""
    found = shutil.which("nvcc")
    if found:
        return found
    for var in NVCC_HOMES:
        home = os.environ.get(var)
        if home and os.access(Path(home, "bin", "nvcc"), os.X_OK):
            return str(Path(home, "bin", "nvcc"))
    return str(NVCC_FALLBACK) if os.access(NVCC_FALLBACK, os.X_OK) else None


def require_nvcc(nvcc: str | None = None) -> str:
    """``nvcc`` when given, else :func:`find_nvcc`'s; raises :class:`BuildFailed` naming where it looked."""
    found = nvcc or find_nvcc()
    if found is None:
        raise BuildFailed("nvcc not found (not on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin)")
    return found


def nvcc_version(nvcc: str) -> str:
    """``nvcc --version``'s last line (``Build cuda_13.0.r13.0/compiler.36424714_0``), or its whole output."""
    res = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    lines = [ln.strip() for ln in res.stdout.splitlines() if ln.strip()]
    release = next((ln for ln in lines if "release" in ln), "")
    return (release + " " + (lines[-1] if lines else "")).strip()


def _run(cmd: list[str], cwd: Path, step: str) -> None:
    try:
        res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=NVCC_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildFailed(f"{step}: {exc}") from None
    if res.returncode != 0:
        tail = " | ".join((res.stderr or res.stdout).strip().splitlines()[-6:])
        raise BuildFailed(f"{step}: nvcc exited {res.returncode}: {tail}")


def _key(source: Source, arch: str, version: str, extra: bytes = b"") -> str:
    text = repr((source.repo, source.commit, arch, version, HT_LOC_FLAGS, HT_LOC_COMPILE, LOGAN_FLAGS)).encode()
    return hashlib.sha256(text + extra).hexdigest()[:16]


def _cached(source: Source, arch: str, nvcc: str, names: tuple[str, ...], make, extra: bytes = b"") -> Built:
    """The cached build of ``names`` under its key, or ``make(tree_dir)`` run in a temporary folder first."""
    version = nvcc_version(nvcc)
    home = cache_root() / "build" / f"{source.name}-{_key(source, arch, version, extra)}"
    if not all((home / n).is_file() for n in names):
        home.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=home.parent))
        try:
            make(tmp)
            missing = [n for n in names if not (tmp / n).is_file()]
            if missing:
                raise BuildFailed(f"{source.name}: the build made no {', '.join(missing)}")
            for leftover in tmp.glob("*.o"):
                leftover.unlink()
            shutil.rmtree(home, ignore_errors=True)
            os.replace(tmp, home)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return Built({n: home / n for n in names}, source, arch, version)


def build_ht_loc(tree: Path, arch: str, nvcc: str | None = None) -> Built:
    """``ht_loc`` from the checked source tree, its three objects compiled at once, for ``arch`` (``sm_90``)."""
    nvcc = require_nvcc(nvcc)
    src = tree / "src"

    def make(out: Path) -> None:
        def one(name: str) -> None:
            _run([nvcc, *HT_LOC_FLAGS, *HT_LOC_COMPILE, f"--gpu-architecture={arch}", "-c", f"{name}.cpp",
                  "-o", str(out / f"{name}.o")], src, f"ht_loc: compiling {name}.cpp")

        with ThreadPoolExecutor(len(HT_LOC_SOURCES)) as pool:
            list(pool.map(one, HT_LOC_SOURCES))
        _run([nvcc, *HT_LOC_FLAGS, f"--gpu-architecture={arch}", *[str(out / f"{n}.o") for n in HT_LOC_SOURCES],
              "-o", str(out / "ht_loc")], src, "ht_loc: linking")

    return _cached(HT_LOC, arch, nvcc, ("ht_loc",), make)


def build_logan(tree: Path, arch: str, nvcc: str | None = None) -> Built:
    """LOGAN's ``demo`` and our ``logan_scores`` driver, from a copy of the checked tree, for ``arch``."""
    nvcc = require_nvcc(nvcc)
    flags = [*LOGAN_FLAGS, f"-arch={arch}"]
    driver = SCORES_DRIVER.read_bytes()

    def make(out: Path) -> None:
        work = out / "LOGAN"
        shutil.copytree(tree / "src", work / "src")
        (work / "src" / SCORES_DRIVER.name).write_bytes(driver)

        def one(name: str) -> None:
            _run([nvcc, "-c", *flags, "-dc", f"src/{name}.cu", "-o", f"src/{name}.o"], work, f"LOGAN: compiling {name}.cu")

        with ThreadPoolExecutor(len(LOGAN_SOURCES) + 1) as pool:
            list(pool.map(one, (*LOGAN_SOURCES, SCORES_DRIVER.stem)))
        library = [f"src/{n}.o" for n in LOGAN_LIBRARY]
        _run([nvcc, *flags, "src/demo.o", *library, "-o", str(out / "demo")], work, "LOGAN: linking demo")
        _run([nvcc, *flags, f"src/{SCORES_DRIVER.stem}.o", *library, "-o", str(out / SCORES_DRIVER.stem)], work,
             "LOGAN: linking the scores driver")
        shutil.rmtree(work)

    return _cached(LOGAN, arch, nvcc, ("demo", SCORES_DRIVER.stem), make, extra=driver)


def gpu_arch() -> str:
    """``sm_<major><minor>`` of CUDA device 0 (CuPy's view); :class:`BuildFailed` without CuPy or
    a device."""
    try:
        import cupy

        return f"sm_{cupy.cuda.Device(0).compute_capability}"
    except Exception as exc:  # no CuPy, no driver, no device: one reason, named
        raise BuildFailed(f"no CUDA device answers ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None


__all__ = ["BuildFailed", "Built", "Given", "HT_LOC_FLAGS", "LOGAN_FLAGS", "LOGAN_SOURCES", "SCORES_DRIVER", "build_ht_loc",
           "build_logan", "find_nvcc", "gpu_arch", "nvcc_version", "require_nvcc"]

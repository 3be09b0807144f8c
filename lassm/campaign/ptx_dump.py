# SPDX-License-Identifier: BSD-3-Clause
"""The PTX of the CUDA and the OpenCL builds of the kernel, and their instruction mixes.

CUDA: NVRTC's PTX of each build as the backends build it (:func:`lassm.backends.nvrtc.compile_build`,
NVRTC from the ``nvidia-cuda-nvrtc-cu12`` wheel, else CuPy's). OpenCL: NVIDIA's program binary of
``portable.cl`` (``fast.cl`` for ``fast``) with the ``opencl`` backend's options: PTX text, the
very PTX ``opencl-ptx`` launches. :func:`dump` writes each file whole into
``data/results/<machine>/ptx/``: ``<backend>-<build>.ptx``, ``mix.csv``, ``summary.csv``,
``compare-<build>.csv`` and ``provenance.json``; what cannot be built is one line on stderr."""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
from pathlib import Path

from .. import stderr
from .. import paths
from ..analysis import ptx
from ..atomic import atomic_open
from ..backends import nvrtc
from ..errors import LassmError
from ..runs.records import git_sha, slug
from ..workloads.local_assembly import config

OPENCL_FAST = "local_assembly/opencl/fast.cl"


class Missing(Exception):
    """A part that cannot be built here: its message is the one line the user reads."""


class Skipped(Exception):
    """A part this tree does not have (``fast.cl`` before it is written): noted, no failure."""


# ---------------------------------------------------------------------------------------------- CUDA

def _cupy_device() -> dict:
    """This GPU as CuPy sees it ({} without CuPy or a GPU)."""
    try:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        return {"device": name, "compute_capability": f"{props['major']}{props['minor']}",
                "driver": cupy.cuda.runtime.driverGetVersion(), "cupy": cupy.__version__}
    except Exception:  # no CuPy, no driver, no GPU: the caller says which part is missing
        return {}


def _use_cupys_nvrtc() -> str:
    """Points ``LASSM_NVRTC`` at the libnvrtc CuPy loads, when no NVRTC wheel is installed."""
    try:
        try:
            from cupy_backends.cuda.libs import nvrtc as cnv
        except ImportError:
            from cupy.cuda import nvrtc as cnv
        cnv.getVersion()  # loads the library
    except Exception as exc:
        raise Missing(f"no NVRTC: neither the nvidia-cuda-nvrtc-cu12 wheel nor CuPy's ({exc})") from None
    with open("/proc/self/maps") as fh:
        libs = {line.split()[-1] for line in fh if "/libnvrtc.so" in line}
    if not libs:
        raise Missing("CuPy loaded NVRTC, but its library is not among this process's mappings")
    os.environ["LASSM_NVRTC"] = sorted(libs)[0]
    return sorted(libs)[0]


def cuda_ptx(build: str, arch: str) -> tuple[str, dict]:
    """NVRTC's PTX of one CUDA build, and what made it."""
    found = nvrtc.find_library()
    library = str(found) if found else _use_cupys_nvrtc()
    path = paths.kernel_source(nvrtc.kernel_file(build))
    try:
        text, log = nvrtc.compile_build(build, arch)
    except (nvrtc.NvrtcError, OSError) as exc:
        raise Missing(f"NVRTC did not build {build}: {str(exc).splitlines()[0]}") from None
    return text, {"source": path.relative_to(paths.kernel_dir()).as_posix(), "arch": arch,
                  "options": [*nvrtc.kernel_options(build, 32), f"--gpu-architecture={arch}"],
                  "nvrtc": "%d.%d" % nvrtc.version(), "nvrtc_library": library, "log": log.strip()}


# ---------------------------------------------------------------------------------------------- OpenCL

def opencl_ptx(build: str, team: int, extra: tuple[str, ...]) -> tuple[str, dict]:
    """The program binary of one OpenCL build (PTX text on NVIDIA), and what made it."""
    os.environ.setdefault("LASSM_OPENCL_DEVICE", "NVIDIA")
    from ..backends import clplan, opencl

    if build != "fast" and build not in clplan.PROTOCOL_MACROS:
        raise Skipped(f"{build} has no OpenCL build")
    kernel = OPENCL_FAST if build == "fast" else opencl.KERNEL
    if not (paths.kernel_dir() / kernel).is_file():
        raise Skipped(f"{kernel} is not in this tree")
    if opencl.cl is None:
        raise Missing(opencl._IMPORT_ERROR)
    try:
        dev = opencl._device()  # the device the backend runs on, with its 64-bit atomics and fp64
    except LassmError as exc:
        raise Missing(str(exc)) from None
    # fast.cl: the fast build of the opencl backend (its epoch-tagged keys are 64-bit).
    options = opencl.build_options(build, team, dev.key64 or build == "fast", dev.fp64, config.DEFAULT_MAX_WALK,
                                   config.DEFAULT_QUAL_OFFSET) + tuple(extra)
    try:
        program = opencl.program(options, kernel)  # the program the opencl (and opencl-ptx) backends run
    except (opencl.cl.Error, LassmError) as exc:
        raise Missing(f"{kernel} does not build on {dev.name}: {str(exc).splitlines()[0]}") from None
    binary = program.get_info(opencl.cl.program_info.BINARIES)[0]
    text = bytes(binary).rstrip(b"\0").decode("utf-8", errors="replace")
    d = dev.device
    info = {"source": kernel, "options": list(options), "device": dev.name, "driver": str(d.driver_version),
            "opencl_c": str(d.opencl_c_version), "pyopencl": opencl.cl.VERSION_TEXT, "team": team,
            "key64": dev.key64, "fp64": dev.fp64}
    if ".entry" not in text:
        raise Missing(f"{dev.name}'s program binary of {kernel} is not PTX (not NVIDIA's OpenCL driver?)")
    return text, info


def _write(path: Path, text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def _say(line: str) -> None:
    stderr.line(f"lassm measure ptx: {line}")


def dump(machine: str | None, builds: list[str], arch: str | None, team: int, fast_options: tuple[str, ...],
         command: str) -> int:
    """Writes every build's PTX, the mixes and the provenance into ``machine``'s ``ptx/`` (default:
    ``LASSM_MACHINE``, else this GPU's name); 0 when everything was built and parsed, 2 when a part
    is missing (said on stderr, the rest written)."""
    device = _cupy_device()
    machine = machine or paths.env_machine() or slug(str(device.get("device") or "unknown-gpu"))
    out = paths.results_dir(machine) / "ptx"
    arch = arch or (f"compute_{device['compute_capability']}" if device else "compute_90")
    if not device:
        _say(f"no CUDA device seen through CuPy; NVRTC builds for {arch}")
    out.mkdir(parents=True, exist_ok=True)
    records, mixes, problems = [], [], []
    jobs = [("cuda", b, lambda b=b: cuda_ptx(b, arch)) for b in builds]
    jobs += [("opencl", b, lambda b=b: opencl_ptx(b, team, fast_options if b == "fast" else ())) for b in builds]
    for backend, build, make in jobs:
        record = {"backend": backend, "protocol": build}
        try:
            text, info = make()
        except (Missing, Skipped) as exc:
            skipped = isinstance(exc, Skipped)
            _say(f"{backend} {build}: {'skipped: ' if skipped else ''}{exc}")
            problems += [] if skipped else [f"{backend} {build}: {exc}"]
            records.append({**record, "status": ("skipped: " if skipped else "") + str(exc)})
            continue
        name = f"{backend}-{build}.ptx"
        _write(out / name, text)
        record.update(file=name, sha256=hashlib.sha256(text.encode()).hexdigest(), **info)
        try:
            mixes.append(ptx.mix(text, name, backend=backend, protocol=build, file=name))
        except LassmError as exc:  # a PTX construct the parser does not know: the file stays
            problems.append(f"{backend} {build}: {name} written, not parsed: {exc}")
            _say(problems[-1])
            records.append({**record, "status": f"not parsed: {exc}"})
            continue
        records.append({**record, "status": "ok"})
        total = int(ptx.summary(mixes[-1], by=("file",))["instructions"].sum())
        stderr.line(f"{name}: {len(text.splitlines())} lines, {total} instructions")
    if mixes:
        import pandas as pd

        mix = pd.concat(mixes, ignore_index=True)
        _write(out / "mix.csv", mix.to_csv(index=False))
        _write(out / "summary.csv", ptx.summary(mix, by=("backend", "protocol")).to_csv(index=False))
        for build in builds:
            a, b = (mix[(mix.backend == be) & (mix.protocol == build)] for be in ("cuda", "opencl"))
            if len(a) and len(b):
                _write(out / f"compare-{build}.csv", ptx.compare(a, b).to_csv(index=False))
    provenance = {
        "tool": "lassm measure ptx", "command": command, "git_sha": git_sha(),
        "written_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(), "python": platform.python_version(), "cuda_device": device, "arch": arch,
        "builds": records, "problems": problems}
    _write(out / "provenance.json", json.dumps(provenance, indent=2) + "\n")
    print(f"wrote {out}" + (f"; {len(problems)} part(s) missing, see above" if problems else ""), flush=True)
    return 2 if problems else 0


__all__ = ["Missing", "Skipped", "cuda_ptx", "dump", "opencl_ptx"]

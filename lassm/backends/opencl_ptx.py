# SPDX-License-Identifier: BSD-3-Clause
"""The OpenCL kernel's own PTX, launched by the CUDA driver, so that Nsight Compute can count it.

Nsight Compute 2025.3 profiles no OpenCL launch: under ``ncu`` the ``opencl`` backend runs and
ncu says "No kernels were profiled", with or without a kernel filter
(``data/results/nvidia-h100-80gb-hbm3/logs/opencl-ncu-*``). NVIDIA's OpenCL compiler emits PTX
(the program binary is PTX text), and the CUDA driver loads PTX from any compiler. This backend
builds ``portable.cl`` with NVIDIA's OpenCL exactly as :mod:`lassm.backends.opencl` does (same
options, same device), takes the binary, loads it with CuPy and launches it with the same
arguments and geometry. One line differs: the PTX reads the work-group offset from a
driver-defined register (``mov.b32 %r, %envreg0`` in ``get_group_id``) that NVIDIA's OpenCL
runtime sets and a CUDA launch does not; our launches have no offset, so :func:`cuda_ptx` makes
that read the constant 0. What runs is the driver's JIT of the OpenCL compiler's PTX: the code
whose instruction mix ``lassm.analysis.ptx`` reads, now under the profiler. Its outputs are checked
against the oracle like every backend's, and its kernel times sit beside the OpenCL queue's in
the campaign, so a difference between the two launch paths would show.

Only on an NVIDIA GPU whose OpenCL driver pyopencl finds (``available`` says why not).
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

from ..workloads.local_assembly import config
from ..workloads.local_assembly.result import SideResult
from . import clplan, opencl

PROTOCOLS = opencl.PROTOCOLS
DEFAULT_PROTOCOL = opencl.DEFAULT_PROTOCOL
DEFAULT_TEAM = opencl.DEFAULT_TEAM
_FUNCTIONS: dict[tuple, object] = {}


def available() -> tuple[bool, str]:
    """Whether CuPy with a CUDA device and NVIDIA's OpenCL driver are both here."""
    from . import cuda

    ok, why = cuda.available()
    if not ok:
        return False, why
    ok, cl_why = opencl.available()
    if not ok:
        return False, cl_why
    if "nvidia" not in opencl.device_name().lower():
        return False, f"the OpenCL device is {opencl.device_name()}, not an NVIDIA GPU: its binary is no PTX"
    return True, f"{cl_why}; PTX launched by CuPy"


def device_name() -> str:
    """The GPU's name, so that these runs are filed with its CUDA and OpenCL runs."""
    return opencl.device_name()


def device_kind() -> str:
    """Always a GPU (:func:`available` refuses anything else)."""
    return "gpu"


def ptx(options: tuple[str, ...]) -> str:
    """The PTX NVIDIA's OpenCL compiler emits for ``portable.cl`` built with ``options``."""
    binary = opencl.program(options).get_info(opencl.cl.program_info.BINARIES)[0]
    return bytes(binary).rstrip(b"\0").decode("ascii")


#: ``mov`` of a driver-defined environment register: the OpenCL runtime's work offsets.
_ENVREG = re.compile(r"\bmov\.(b32|u32|s32)(\s+%r\d+,\s*)%envreg\d+;")


def cuda_ptx(text: str) -> tuple[str, int]:
    """The OpenCL PTX with every read of an OpenCL environment register made the constant 0,
    and how many there were (launches here have no global offset, so 0 is what OpenCL passes).

    Raises
    ------
    ValueError
        When ``%envreg`` appears anywhere else, where a constant would not do.
    """
    patched, count = _ENVREG.subn(r"mov.\1\g<2>0;", text)
    if "%envreg" in patched:
        line = next(ln for ln in patched.splitlines() if "%envreg" in ln)
        raise ValueError(f"the OpenCL PTX reads an environment register in a way not patched: {line.strip()}")
    return patched, count


def _function(options: tuple[str, ...]):
    """The kernel of that PTX, loaded into the current CUDA context (memoized)."""
    import cupy

    key = (cupy.cuda.Device().id, options)
    if key not in _FUNCTIONS:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="lassm-clptx-") as tmp:
            path = Path(tmp) / "portable.ptx"
            path.write_text(cuda_ptx(ptx(options))[0])
            # CuPy loads the file at the first get_function: while it is still there.
            _FUNCTIONS[key] = cupy.RawModule(path=str(path)).get_function(opencl.ENTRY)
    return _FUNCTIONS[key]


def extend_side(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                params: config.Params, protocol: str = DEFAULT_PROTOCOL, team: int = DEFAULT_TEAM,
                max_bytes: int | None = None, bin_counts: np.ndarray | None = None) -> SideResult:
    """Walks one side as :func:`lassm.backends.opencl.extend_side` does, launched through CUDA.

    Parameters and result as there (64-bit keys and the double-precision vote, as NVIDIA's
    OpenCL builds them); ``kernel_seconds`` sums CUDA event times of the launches.
    """
    import cupy

    dev = opencl._device()
    n = clplan.check_inputs(ctg_seqs, ctg_off, depths, reads, run_mask, protocol)
    team = int(team)
    if not 1 <= team <= 1024:
        raise ValueError(f"team {team} must lie in 1..1024")
    use_fp64 = clplan.choose_fp64(dev.fp64, None, dev.name)
    key64 = clplan.choose_key64(dev.key64, None, len(reads.seqs), dev.name)
    max_walk = int(params.max_walk)
    out = SideResult.empty(n, max_walk)
    run_mask = np.ascontiguousarray(run_mask, dtype=np.bool_)
    options = opencl.build_options(protocol, team, key64, use_fp64, max_walk, params.qual_offset)
    t0 = time.perf_counter()
    kern = _function(options)
    build_seconds = time.perf_counter() - t0
    key_bytes = 8 if key64 else 4
    free, total = cupy.cuda.runtime.memGetInfo()
    budget = int(max_bytes) if max_bytes is not None else int(min(free, total * opencl.MEMORY_FRACTION))
    plan = clplan.plan(reads, run_mask, bin_counts, max_walk, key_bytes, budget)
    out.extra = {"backend": "opencl-ptx", "device": dev.device.name.strip(), "driver": str(dev.device.driver_version),
                 "pyopencl": opencl.cl.VERSION_TEXT, "cupy": cupy.__version__, "team": team, "warp_size": team,
                 "protocol": protocol, "key_bits": 8 * key_bytes, "fp64": use_fp64, "options": list(options),
                 "build_seconds": build_seconds, "budget_bytes": budget, "launches": [], "mem_high_water_bytes": 0}
    if not plan.launches:
        return out

    def device_copy(arr: np.ndarray):
        arr = np.ascontiguousarray(arr)
        return cupy.asarray(arr) if arr.nbytes else cupy.zeros(1, dtype=np.uint8)

    inputs = [device_copy(a) for a in clplan.input_arrays(ctg_seqs, ctg_off, depths, reads)]
    results = clplan.output_arrays(out)
    outputs = [device_copy(a) for a in results]
    scratch = [cupy.empty(max(nb, 1), dtype=np.uint8) for nb in plan.scratch_bytes(key_bytes, max_walk)]
    events = []
    for label, idx, number in plan.launches:
        ends = [device_copy(a) for a in plan.ends(idx)]
        gsize, lsize = opencl.launch_geometry(len(idx), team)
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        kern((gsize // lsize,), (lsize,), (*inputs, ends[0], np.int32(len(idx)), ends[1], *scratch,
                                         np.int32(params.k), *outputs))
        end.record()
        events.append((start, end, ends))
        out.extra["launches"].append({"bin": label, "slice": number, "contigs": int(len(idx)),
                                      "slots": int(plan.slots[idx].sum()), "bytes": int(plan.nbytes[idx].sum()),
                                      "global": gsize, "local": lsize})
    cupy.cuda.Device().synchronize()
    for arr, buf in zip(results, outputs):
        if arr.nbytes:
            arr[...] = buf.get()
    for rec, (start, end, _) in zip(out.extra["launches"], events):
        rec["seconds"] = cupy.cuda.get_elapsed_time(start, end) / 1000.0
    out.kernel_seconds = float(sum(rec["seconds"] for rec in out.extra["launches"]))
    out.extra["timer"] = "CUDA events"
    out.extra["mem_high_water_bytes"] = int(sum(b.nbytes for b in inputs + outputs + scratch))
    return out

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
that read the constant 0 (and a read of the work-group count, ``%nctaid``). What runs is the driver's JIT of the OpenCL compiler's PTX: the code
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

PROTOCOLS = opencl.PROTOCOLS  # portable.cl's four protocols and fast.cl
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
    name = opencl.device_name()
    if "nvidia" not in name.lower():
        return False, f"the OpenCL device is {name}, not an NVIDIA GPU: its binary is no PTX"
    return True, f"{cl_why}; PTX launched by CuPy"


def device_name() -> str:
    """The GPU's name, so that these runs are filed with its CUDA and OpenCL runs."""
    return opencl.device_name()


def device_kind() -> str:
    """Always a GPU (:func:`available` refuses anything else)."""
    return "gpu"


def ptx(options: tuple[str, ...], kernel: str = opencl.KERNEL) -> str:
    """The PTX NVIDIA's OpenCL compiler emits for ``kernel`` (``portable.cl`` or ``fast.cl``) built
    with ``options``."""
    binary = opencl.program(options, kernel).get_info(opencl.cl.program_info.BINARIES)[0]
    return bytes(binary).rstrip(b"\0").decode("ascii")


#: ``mov`` of a driver-defined environment register: how NVIDIA's OpenCL passes its NDRange.
_ENVREG = re.compile(r"\bmov\.(b32|u32|s32)(\s+%r\d+,\s*)%envreg(\d+);")
#: What each register holds, as the compiler's uses show (``get_group_id(d)`` adds ``envreg<d>`` to
#: ``%ctaid``; ``get_global_id(d)`` adds ``envreg<3+d>``; ``get_global_size(d)`` multiplies
#: ``envreg<6+d>`` by ``%ntid``): the work-group and global offsets, 0 in a launch without either,
#: and the work-groups per dimension, which one CUDA launch of the whole range has in ``%nctaid``.
_ENVREG_VALUE = {0: "0", 1: "0", 2: "0", 3: "0", 4: "0", 5: "0", 6: "%nctaid.x", 7: "%nctaid.y", 8: "%nctaid.z"}


def cuda_ptx(text: str) -> tuple[str, int]:
    """The OpenCL PTX with every read of an OpenCL environment register replaced by what it holds in
    a CUDA launch of the whole range (:data:`_ENVREG_VALUE`), and how many there were.

    Raises
    ------
    ValueError
        When ``%envreg`` appears anywhere else, or a register whose meaning is not known.
    """
    def value(m: re.Match) -> str:
        reg = int(m.group(3))
        if reg not in _ENVREG_VALUE:
            raise ValueError(f"the OpenCL PTX reads %envreg{reg}, whose meaning is not known: {m.group(0)}")
        kind = "u32" if _ENVREG_VALUE[reg].startswith("%") else m.group(1)
        return f"mov.{kind}{m.group(2)}{_ENVREG_VALUE[reg]};"

    patched, count = _ENVREG.subn(value, text)
    if "%envreg" in patched:
        line = next(ln for ln in patched.splitlines() if "%envreg" in ln)
        raise ValueError(f"the OpenCL PTX reads an environment register in a way not patched: {line.strip()}")
    return patched, count


def load(text: str, entry: str):
    """``entry`` of an OpenCL program binary's PTX ``text``, patched by :func:`cuda_ptx` and loaded
    into the current CUDA context by CuPy."""
    import tempfile

    import cupy

    with tempfile.TemporaryDirectory(prefix="lassm-clptx-") as tmp:
        path = Path(tmp) / "kernel.ptx"
        path.write_text(cuda_ptx(text)[0])
        # CuPy loads the file at the first get_function: while it is still there.
        return cupy.RawModule(path=str(path)).get_function(entry)


def _function(options: tuple[str, ...], kernel: str = opencl.KERNEL):
    """The kernel of that PTX, loaded into the current CUDA context (memoized)."""
    import cupy

    key = (cupy.cuda.Device().id, options, kernel)
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = load(ptx(options, kernel), opencl.ENTRY)
    return _FUNCTIONS[key]


def extend_side(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                params: config.Params, protocol: str = DEFAULT_PROTOCOL, team: int = DEFAULT_TEAM,
                max_bytes: int | None = None, bin_counts: np.ndarray | None = None,
                block_team: int = opencl.DEFAULT_BLOCK_TEAM) -> SideResult:
    """Walks one side as :func:`lassm.backends.opencl.extend_side` does, launched through CUDA.

    Parameters and result as there (64-bit keys and the double-precision vote, as NVIDIA's
    OpenCL builds them); ``kernel_seconds`` sums CUDA event times of the launches.
    """
    import cupy

    if protocol == clplan.FAST:
        return _extend_fast(ctg_seqs, ctg_off, depths, reads, run_mask, params, int(team), int(block_team),
                            max_bytes, bin_counts)
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
    budget = _budget(max_bytes)
    plan = clplan.plan(reads, run_mask, bin_counts, max_walk, key_bytes, budget)
    out.extra = {"backend": "opencl-ptx", "device": dev.device.name.strip(), "driver": str(dev.device.driver_version),
                 "pyopencl": opencl.cl.VERSION_TEXT, "cupy": cupy.__version__, "team": team, "warp_size": team,
                 "protocol": protocol, "key_bits": 8 * key_bytes, "fp64": use_fp64, "options": list(options),
                 "build_seconds": build_seconds, "budget_bytes": budget, "launches": [], "mem_high_water_bytes": 0}
    if not plan.launches:
        return out

    inputs = [_device_copy(a) for a in clplan.input_arrays(ctg_seqs, ctg_off, depths, reads)]
    results = clplan.output_arrays(out)
    outputs = [_device_copy(a) for a in results]
    scratch = [cupy.empty(max(nb, 1), dtype=np.uint8) for nb in plan.scratch_bytes(key_bytes, max_walk)]
    events = []
    for label, idx, number in plan.launches:
        ends = [_device_copy(a) for a in plan.ends(idx)]
        gsize, lsize = opencl.launch_geometry(len(idx), team)
        events.append(_timed_launch(kern, gsize // lsize, lsize, (*inputs, ends[0], np.int32(len(idx)), ends[1],
                                                                 *scratch, np.int32(params.k), *outputs), ends))
        out.extra["launches"].append({"bin": label, "slice": number, "contigs": int(len(idx)),
                                      "slots": int(plan.slots[idx].sum()), "bytes": int(plan.nbytes[idx].sum()),
                                      "global": gsize, "local": lsize})
    return _finish(out, results, outputs, events, inputs + outputs + scratch)


def _device_copy(arr: np.ndarray):
    """A CuPy copy of ``arr``, at least one byte (an empty array has no pointer to pass)."""
    import cupy

    arr = np.ascontiguousarray(arr)
    return cupy.asarray(arr) if arr.nbytes else cupy.zeros(1, dtype=np.uint8)


def _budget(max_bytes: int | None) -> int:
    """Device bytes one launch's workspace may use: ``max_bytes``, else the opencl backend's share."""
    import cupy

    if max_bytes is not None:
        return int(max_bytes)
    free, total = cupy.cuda.runtime.memGetInfo()
    return int(min(free, total * opencl.MEMORY_FRACTION))


def _timed_launch(kern, groups: int, width: int, args: tuple, alive: list) -> tuple:
    """Launches ``groups`` blocks of ``width`` threads between two CUDA events; returns the events
    and ``alive`` (the launch's own buffers, kept until the device has run it)."""
    import cupy

    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    kern((groups,), (width,), args)
    end.record()
    return start, end, alive


def _finish(out: SideResult, results: list, outputs: list, events: list, buffers: list) -> SideResult:
    """Waits for the launches, copies the outputs back into ``out`` and records each launch's time."""
    import cupy

    cupy.cuda.Device().synchronize()
    for arr, buf in zip(results, outputs):
        if arr.nbytes:
            arr[...] = buf.get()
    for rec, (start, end, _) in zip(out.extra["launches"], events):
        rec["seconds"] = cupy.cuda.get_elapsed_time(start, end) / 1000.0
    out.kernel_seconds = float(sum(rec["seconds"] for rec in out.extra["launches"]))
    out.extra["timer"] = "CUDA events"
    out.extra["mem_high_water_bytes"] = int(sum(b.nbytes for b in buffers))
    return out


def _extend_fast(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                 params: config.Params, team: int, block_team: int, max_bytes: int | None,
                 bin_counts: np.ndarray | None) -> SideResult:
    """``fast.cl`` as :func:`lassm.backends.opencl._extend_fast` runs it (same plan, same two
    launch widths per slice, keys zeroed per slice), its PTX launched through CUDA."""
    import cupy

    dev = opencl._device()
    clplan.check_fast(dev.key64, None, int(params.max_walk), dev.name)
    use_fp64 = clplan.choose_fp64(dev.fp64, None, dev.name)
    max_walk = int(params.max_walk)
    out = SideResult.empty(len(ctg_off) - 1, max_walk)
    budget = _budget(max_bytes)
    plan = clplan.fast_plan(reads, run_mask, bin_counts, budget, wide_teams=block_team != team)
    widths = sorted({team} | ({block_team} if any(wide for _, wide in plan.slices) else set()))
    opts = {w: opencl.build_options(clplan.FAST, w, True, use_fp64, max_walk, params.qual_offset) for w in widths}
    t0 = time.perf_counter()
    kernels = {w: _function(o, opencl.FAST_KERNEL) for w, o in opts.items()}
    out.extra = {"backend": "opencl-ptx", "device": dev.device.name.strip(), "driver": str(dev.device.driver_version),
                 "pyopencl": opencl.cl.VERSION_TEXT, "cupy": cupy.__version__, "team": team, "block_team": block_team,
                 "warp_size": team, "protocol": clplan.FAST, "key_bits": 64, "fp64": use_fp64,
                 "options": list(opts[team]), "build_seconds": time.perf_counter() - t0, "budget_bytes": budget,
                 "launches": [], "mem_high_water_bytes": 0}
    if not plan.slices:
        return out
    host_in = clplan.input_arrays(ctg_seqs, ctg_off, depths, reads)
    host_in[3] = clplan.padded_reads(reads)  # fast.cl loads words past a k-mer's end
    inputs = [_device_copy(a) for a in host_in]
    results = clplan.output_arrays(out)
    outputs = [_device_copy(a) for a in results]
    slots = plan.most_slots()
    keys = cupy.zeros(max(slots, 1), dtype=np.uint64)
    votes = cupy.empty(max(32 * slots, 32), dtype=np.uint8)
    events = []
    for number, (idx, n_wide) in enumerate(plan.slices):
        ends = [_device_copy(a) for a in plan.ends(idx)]
        keys[: max(int(plan.slots[idx].sum()), 1)] = 0  # epoch 0: every slot empty
        for first, stop, width in ((0, n_wide, block_team), (n_wide, len(idx), team)):
            if stop <= first:
                continue
            events.append(_timed_launch(kernels[width], stop - first, width,
                                        (*inputs, ends[0], np.int32(stop), np.int32(first), ends[1], keys, votes,
                                         np.int32(params.k), *outputs), ends))
            out.extra["launches"].append({"bin": "all", "slice": number, "contigs": stop - first,
                                          "block_teams": stop - first if first < n_wide else 0,
                                          "slots": int(plan.slots[idx[first:stop]].sum()),
                                          "bytes": int(plan.nbytes[idx[first:stop]].sum()),
                                          "global": (stop - first) * width, "local": width})
    return _finish(out, results, outputs, events, inputs + outputs + [keys, votes])


def one_launch(protocol: str) -> bool:
    """Whether ``protocol`` walks both sides at once, as on the opencl backend: ``fast`` does."""
    return opencl.one_launch(protocol)


def extend_sides(right_ctgs: np.ndarray, left_ctgs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray,
                 right_reads, left_reads, run_mask: np.ndarray, params: config.Params, protocol: str = clplan.FAST,
                 **options) -> tuple[SideResult, SideResult]:
    """Both sides of every contig at once, as :func:`lassm.backends.opencl.extend_sides`."""
    return clplan.both_sides(extend_side, right_ctgs, left_ctgs, ctg_off, depths, right_reads, left_reads, run_mask,
                             params, protocol=protocol, **options)

# SPDX-License-Identifier: BSD-3-Clause
"""The Intel backend: the OpenCL C kernel ``kernels/local_assembly/opencl/faithful.cl`` run through dpctl.

dpctl (the SYCL runtime's Python face) builds the OpenCL C source for one device and launches it
on an in-order queue with USM device buffers. On a machine without an Intel GPU, Intel's OpenCL
CPU driver from PyPI (``intel-opencl-rt``) runs the same kernel, sub-groups included: that is how
CI checks this backend bit for bit against the numba oracle.

Layout (the GPU design): one sub-group per contig end (one per work-group by default); contig ends
are binned by their read count (1-9, >= 10; no reads on either side: not launched), each bin is a
launch, sliced to fit the device memory budget. Protocol ``fast`` builds ``fast_subgroup.cl``
instead (book/fast-kernel.md): both sides and every bin at once, heaviest ends first, one
sub-group per work-group.

Traps handled here, found while setting this up:

- the ``.icd`` file that ``intel-opencl-rt`` installs names a path from its build machine, so the
  ICD loader finds no Intel CPU driver: before dpctl loads, ``OCL_ICD_FILENAMES`` is pointed at
  the environment's own ``lib/libintelocl.so`` (set ``LASSM_SYCL_KEEP_ICD=1`` to leave it alone);
- another OpenCL CPU driver (Debian's PoCL) may be listed first and has no USM: devices are
  chosen by capability (USM device allocations), Intel's first, never by list position;
- dpctl's default queue is out of order: the queue here is created ``in_order``;
- ``cl_khr_subgroups`` is only defined with ``-cl-std=CL3.0``, which every build passes;
- dpctl (0.22) builds OpenCL C source only for the OpenCL backend, not for Level Zero: an Intel
  GPU is therefore run through its OpenCL driver (``opencl:gpu``), never ``level_zero:gpu``.
- importing dpctl turns off :mod:`subprocess`'s vfork for the whole process (its
  ``_init_helper`` sets ``subprocess._USE_VFORK = False``, for Intel's debugger), so every later
  ``subprocess.run`` that cannot take ``posix_spawn`` (the default ``close_fds=True``) becomes a
  real ``fork()`` of a process full of runtime threads: each one ran the TBB thread pool's
  pre-fork handler, which printed "Unable to join threads to shut down before fork()".
  :func:`_import_dpctl` puts the setting back as it found it: a vfork'ed child only ``exec``s,
  touching neither the driver nor any thread pool.
"""
from __future__ import annotations

import ctypes
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ..workloads.local_assembly import config
from ..errors import BackendUnavailable
from ..paths import kernel_source
from ..workloads.local_assembly.result import SideResult
from . import clplan, icd, launch

PROTOCOL_MACROS = clplan.PROTOCOL_MACROS
#: What this backend builds: the four protocols of ``faithful.cl``, and ``fast`` (``fast_subgroup.cl``).
PROTOCOLS = clplan.PROTOCOLS + (clplan.FAST,)
DEFAULT_PROTOCOL = clplan.DEFAULT_PROTOCOL
KERNEL = "local_assembly/opencl/faithful.cl"
FAST_KERNEL = "local_assembly/opencl/fast_subgroup.cl"
#: Sub-group width of ``fast`` unless told otherwise (where the device has it; else its first).
DEFAULT_FAST_SUBGROUP = 16
ENTRY = "iterative_walks_kernel"
INSTALL = "pip install 'lassm[intel]'"
#: Environment variable: a dpctl filter string naming the device (e.g. ``opencl:cpu:0``).
DEVICE_ENV = "LASSM_SYCL_DEVICE"
#: Share of the device's global memory one extend_side call may use by default.
MEMORY_FRACTION = 0.25
#: Sub-groups (contig ends) per work-group by default.
DEFAULT_BLOCK_SUBGROUPS = 1
SLOT_VALUE_BYTES = clplan.SLOT_VALUE_BYTES
VISITED_BYTES = clplan.VISITED_BYTES


def _point_icd_loader_at_this_environment() -> None:
    """Name Intel's OpenCL CPU driver of this environment to the ICD loader, before dpctl loads."""
    if "dpctl" in sys.modules or os.environ.get("LASSM_SYCL_KEEP_ICD", "") not in ("", "0"):
        return
    lib = icd.env_intel_driver()
    if lib is not None:
        current = [p for p in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if p]
        if str(lib) not in current:
            os.environ["OCL_ICD_FILENAMES"] = ":".join(current + [str(lib)])


def _import_dpctl() -> tuple[object, object, object]:
    """dpctl, its memory and program modules, with :mod:`subprocess`'s process-wide choice of
    vfork left as it was before dpctl's import switched it off (see the traps above)."""
    import subprocess

    first = "dpctl" not in sys.modules
    before = (getattr(subprocess, "_USE_VFORK", None), getattr(subprocess, "_USE_POSIX_SPAWN", None))
    try:
        import dpctl as core
        import dpctl.memory as memory
        import dpctl.program as program_module
    finally:
        if first:
            for name, value in zip(("_USE_VFORK", "_USE_POSIX_SPAWN"), before):
                if value is not None:
                    setattr(subprocess, name, value)
    return core, memory, program_module


_point_icd_loader_at_this_environment()
try:
    dpctl, dpmem, dpprog = _import_dpctl()
except ImportError as _exc:  # the registry turns this into a clean "install with" message
    dpctl = None
    _IMPORT_ERROR = f"dpctl is not installed ({_exc}); install it with: {INSTALL}"
else:
    _IMPORT_ERROR = ""


# ---------------------------------------------------------------------------------------------
# Device, queue and program


@dataclass
class _Device:
    """One chosen device with its in-order queue and the capabilities the build depends on."""

    device: object
    queue: object
    key64: bool
    fp64: bool
    subgroup_sizes: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.device.name.strip()} ({self.device.filter_string})"


_DEVICE: _Device | None = None
_PROGRAMS: dict[tuple, object] = {}


def _has_usm(dev) -> bool:
    try:
        return bool(dev.has_aspect_usm_device_allocations)
    except Exception:  # a driver that cannot answer cannot run us either
        return False


def _candidates() -> list:
    """Usable devices, best first: Intel GPUs (through OpenCL), then OpenCL CPUs, Intel's first."""
    chosen = os.environ.get(DEVICE_ENV, "").strip()
    if chosen:
        return [dpctl.SyclDevice(chosen)]
    out = []
    for kind in ("gpu", "cpu"):
        try:
            devices = dpctl.get_devices(backend="opencl", device_type=kind)
        except Exception:
            devices = []
        usable = [d for d in devices if _has_usm(d)]
        usable.sort(key=lambda d: "intel" not in d.sycl_platform.vendor.lower())
        out += usable
    return out


def _device() -> _Device:
    """The device this backend runs on (chosen once per process)."""
    global _DEVICE
    if _DEVICE is None:
        if dpctl is None:
            raise BackendUnavailable(_IMPORT_ERROR)
        try:
            devices = _candidates()
        except Exception as exc:
            raise BackendUnavailable(f"{DEVICE_ENV}: {exc}") from None
        if not devices:
            raise BackendUnavailable(_no_device_message())
        dev = devices[0]
        queue = dpctl.SyclQueue(dev, property=["in_order", "enable_profiling"]
                                if dev.has_aspect_queue_profiling else ["in_order"])
        _DEVICE = _Device(dev, queue, key64=bool(dev.has_aspect_atomic64), fp64=bool(dev.has_aspect_fp64),
                          subgroup_sizes=tuple(int(s) for s in dev.sub_group_sizes))
    return _DEVICE


def _no_device_message() -> str:
    seen = ", ".join(f"{d.filter_string} {d.name.strip()}" for d in dpctl.get_devices()) or "none"
    msg = (f"no OpenCL device with USM answers (devices seen: {seen}). Intel's OpenCL CPU runtime comes "
           f"with {INSTALL}; if it is installed, set OCL_ICD_FILENAMES to its libintelocl.so")
    if any(d.backend.name == "level_zero" for d in dpctl.get_devices()):
        msg += ("; an Intel GPU answers through Level Zero only, where dpctl cannot build OpenCL C: "
                "install its OpenCL driver too (Debian: intel-opencl-icd)")
    return msg


def available() -> tuple[bool, str]:
    """Whether dpctl and an OpenCL device with USM are here, and which device."""
    try:
        dev = _device()
    except BackendUnavailable as exc:
        return False, str(exc)
    return True, f"dpctl {dpctl.__version__}, {dev.name}, driver {dev.device.driver_version}"


def device_name() -> str:
    """Name and filter string of the device the backend runs on."""
    return _device().name


def device_kind() -> str:
    """``gpu`` or ``cpu``: on a CPU-only machine this backend answers through the OpenCL CPU driver,
    which checks the kernel but is no GPU (callers choosing a "best" backend should know)."""
    return "gpu" if _device().device.is_gpu else "cpu"


def subgroup_sizes() -> tuple[int, ...]:
    """The sub-group widths the device can build the kernel for (``--subgroup`` is one of them)."""
    return _device().subgroup_sizes


def build_options(protocol: str, subgroup: int, key64: bool, fp64: bool, max_walk: int, qual_offset: int,
                  test_kernels: bool = False) -> tuple[str, ...]:
    """The build options of one kernel variant: every knob is a ``-D`` of the kernel source.

    Parameters
    ----------
    protocol : a key of :data:`PROTOCOL_MACROS`.
    subgroup : required sub-group width, 0 for the device's choice.
    key64, fp64 : 64-bit keys; the vote in double precision.
    max_walk, qual_offset : the run parameters compiled in.
    test_kernels : also build ``set_ext_kernel`` (the tests use it).

    Returns
    -------
    tuple of option strings; part of the program memo key.
    """
    return ("-cl-std=CL3.0",) + clplan.defines(protocol, f"-DLASSM_SUBGROUP={int(subgroup)}", key64, fp64,
                                               max_walk, qual_offset, test_kernels)


def include_options() -> tuple[str, ...]:
    """``-I`` of the kernel's folder (:func:`lassm.backends.clplan.include_options`)."""
    return clplan.include_options(KERNEL)


def program(options: tuple[str, ...], kernel: str = KERNEL):
    """The kernel source (``faithful.cl`` or ``fast_subgroup.cl``) built with ``options`` for this
    backend's device (memoized).

    Raises
    ------
    BackendUnavailable
        When the device's compiler rejects the source; the message holds the options.
    """
    dev = _device()
    key = (dev.device.filter_string, kernel, options)
    if key not in _PROGRAMS:
        src = kernel_source(kernel).read_text(encoding="utf-8")
        try:
            _PROGRAMS[key] = dpprog.create_program_from_source(dev.queue, src, " ".join(options + include_options()))
        except dpprog.SyclProgramCompilationError as exc:
            raise BackendUnavailable(f"{kernel} does not build on {dev.name} with {' '.join(options)}: {exc}") from None
    return _PROGRAMS[key]


def launch_geometry(n_ends: int, block_subgroups: int, width: int) -> tuple[int, int]:
    """Global and local work sizes: one sub-group of ``width`` lanes per contig end.

    The shape comes from :func:`lassm.backends.launch.geometry`, as for CUDA and HIP: a work-group
    is a block, a sub-group a warp.
    """
    (blocks,), (threads,) = launch.geometry(n_ends, block_subgroups, width)
    return blocks * threads, threads


workspace_bytes = clplan.workspace_bytes


# ---------------------------------------------------------------------------------------------
# Launch


def _upload(queue, arr: np.ndarray):
    """A USM device copy of ``arr`` (at least one byte, so that empty arrays have a pointer)."""
    arr = np.ascontiguousarray(arr)
    mem = dpmem.MemoryUSMDevice(max(arr.nbytes, 1), queue=queue)
    if arr.nbytes:
        mem.copy_from_host(arr.view(np.uint8).reshape(-1))
    return mem


def _download(mem, out: np.ndarray) -> None:
    if out.nbytes:
        mem.copy_to_host(out.view(np.uint8).reshape(-1))


def _finish(out: SideResult, q, t0: float, events: list, results: list, outputs: list, resident: int) -> None:
    """Waits for the queue, copies the outputs back into ``out`` and records each launch's event
    time (the wall time since ``t0`` where the queue has no profiling) and the device bytes in use."""
    q.wait()
    wall = time.perf_counter() - t0
    for arr, mem in zip(results, outputs):
        _download(mem, arr)
    if q.has_enable_profiling:
        for rec, ev in zip(out.extra["launches"], events):
            rec["seconds"] = (ev.profiling_info_end - ev.profiling_info_start) * 1e-9
        out.kernel_seconds = float(sum(rec["seconds"] for rec in out.extra["launches"]))
        out.extra["timer"] = "event profiling"
    else:
        out.kernel_seconds, out.extra["timer"] = wall, "wall clock"
    out.extra["wall_seconds"] = wall
    out.extra["mem_high_water_bytes"] = int(resident)


def extend_side(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                params: config.Params, protocol: str = DEFAULT_PROTOCOL, subgroup: int | None = None,
                block_subgroups: int = DEFAULT_BLOCK_SUBGROUPS, max_bytes: int | None = None,
                bin_counts: np.ndarray | None = None, fp64: bool | None = None,
                key_bits: int | None = None) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set, on the SYCL device.

    Parameters
    ----------
    ctg_seqs, ctg_off : oriented contig bases (uint8) and int64 offsets.
    depths : float64 contig depths (the kernel uses ``int(depth)``).
    reads : the side's :class:`~lassm.workloads.local_assembly.dataset.Reads`.
    run_mask : bool per contig; the others keep an empty walk (bin 0 is not launched).
    params : start k, walk limit, quality offset.
    protocol : collision protocol of the table inserts, one of :data:`PROTOCOLS`.
    subgroup : sub-group width, one of the device's ``sub_group_sizes`` (built with
        ``intel_reqd_sub_group_size``); None: the device's choice, read back from the kernel.
    block_subgroups : sub-groups (contig ends) per work-group.
    max_bytes : device bytes the table workspace of one launch may use (default: a share of the
        device memory); small values force slicing.
    bin_counts : read count per contig that picks its bin and table size; MetaHipMer uses the
        larger side's count. Default: this side's count.
    fp64 : vote in double precision (None: when the device has fp64) or in exact integers.
    key_bits : 64 (CAS on 64-bit keys) or 32; None: 64 where the device has 64-bit atomics.

    Returns
    -------
    SideResult
        ``kernel_seconds`` sums the launches' profiled times (wall clock without profiling);
        ``extra`` records device, driver, sub-group width, protocol, build options and launches.
    """
    dev = _device()
    n = clplan.check_inputs(ctg_seqs, ctg_off, depths, reads, run_mask, protocol, PROTOCOLS)
    if subgroup is not None and int(subgroup) not in dev.subgroup_sizes:
        raise ValueError(f"sub-group width {subgroup} is not one of {dev.name}'s {list(dev.subgroup_sizes)}")
    if int(block_subgroups) < 1:
        raise ValueError(f"block_subgroups must be positive, not {block_subgroups}")
    if protocol == clplan.FAST:
        if int(block_subgroups) != 1:
            raise ValueError("protocol fast runs one sub-group per work-group: block_subgroups must be 1")
        return _extend_fast(ctg_seqs, ctg_off, depths, reads, run_mask, params, subgroup, max_bytes, bin_counts,
                            fp64, key_bits)
    use_fp64 = clplan.choose_fp64(dev.fp64, fp64, dev.name)
    key64 = clplan.choose_key64(dev.key64, key_bits, len(reads.seqs), dev.name)

    max_walk = int(params.max_walk)
    out = SideResult.empty(n, max_walk)
    run_mask = np.ascontiguousarray(run_mask, dtype=np.bool_)
    options = build_options(protocol, subgroup or 0, key64, use_fp64, max_walk, params.qual_offset)
    t0 = time.perf_counter()
    kernel = program(options).get_sycl_kernel(ENTRY)
    build_seconds = time.perf_counter() - t0
    width = int(subgroup) if subgroup else int(kernel.max_sub_group_size)

    key_bytes = 8 if key64 else 4
    if max_bytes is None:
        budget = int(min(int(dev.device.global_mem_size) * MEMORY_FRACTION, int(dev.device.max_mem_alloc_size)))
    else:
        budget = int(max_bytes)
    plan = clplan.plan(reads, run_mask, bin_counts, max_walk, key_bytes, budget)
    out.extra = {"backend": "sycl", "device": dev.name, "driver": str(dev.device.driver_version),
                 "dpctl": dpctl.__version__, "subgroup": width, "warp_size": width,
                 "block_subgroups": int(block_subgroups), "protocol": protocol, "key_bits": 8 * key_bytes,
                 "fp64": use_fp64, "options": list(options), "build_seconds": build_seconds,
                 "budget_bytes": budget, "launches": [], "mem_high_water_bytes": 0}
    if not plan.launches:
        return out

    q = dev.queue
    inputs = [_upload(q, a) for a in clplan.input_arrays(ctg_seqs, ctg_off, depths, reads)]
    results = clplan.output_arrays(out)
    outputs = [_upload(q, a) for a in results]
    # One workspace, sized for the largest launch, reused by every launch (the queue is in order).
    scratch = [dpmem.MemoryUSMDevice(max(nb, 1), queue=q) for nb in plan.scratch_bytes(key_bytes, max_walk)]
    resident = sum(m.nbytes for m in inputs + outputs + scratch)

    events, per_launch = [], []
    t0 = time.perf_counter()
    for label, idx, number in plan.launches:
        ends = [_upload(q, a) for a in plan.ends(idx)]
        per_launch.append(ends)  # alive until the queue has run
        gsize, lsize = launch_geometry(len(idx), int(block_subgroups), width)
        args = inputs + [ends[0], ctypes.c_int32(len(idx)), ends[1]] + scratch + [
            ctypes.c_int32(int(params.k))] + outputs
        events.append(q.submit_async(kernel, args, [gsize], [lsize]))
        out.extra["launches"].append({"bin": label, "slice": number, "contigs": int(len(idx)),
                                      "slots": int(plan.slots[idx].sum()), "bytes": int(plan.nbytes[idx].sum()),
                                      "global": gsize, "local": lsize})
    _finish(out, q, t0, events, results, outputs, resident)
    return out


def _extend_fast(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads, run_mask: np.ndarray,
                 params: config.Params, subgroup: int | None, max_bytes: int | None, bin_counts: np.ndarray | None,
                 fp64: bool | None, key_bits: int | None) -> SideResult:
    """:func:`extend_side` for ``fast_subgroup.cl``: per slice of the plan (:func:`clplan.fast_plan`,
    no wide teams), the keys zeroed, then one launch of one sub-group per end."""
    dev = _device()
    clplan.check_fast(dev.key64, key_bits, int(params.max_walk), dev.name)
    width = int(subgroup) if subgroup else (DEFAULT_FAST_SUBGROUP if DEFAULT_FAST_SUBGROUP in dev.subgroup_sizes
                                            else int(dev.subgroup_sizes[0]))
    use_fp64 = clplan.choose_fp64(dev.fp64, fp64, dev.name)
    max_walk = int(params.max_walk)
    out = SideResult.empty(len(ctg_off) - 1, max_walk)
    options = build_options(clplan.FAST, width, True, use_fp64, max_walk, params.qual_offset)
    t0 = time.perf_counter()
    kernel = program(options, FAST_KERNEL).get_sycl_kernel(ENTRY)
    budget = int(min(int(dev.device.global_mem_size) * MEMORY_FRACTION, int(dev.device.max_mem_alloc_size))
                 if max_bytes is None else max_bytes)
    plan = clplan.fast_plan(reads, run_mask, bin_counts, budget, wide_teams=False)
    out.extra = {"backend": "sycl", "device": dev.name, "driver": str(dev.device.driver_version),
                 "dpctl": dpctl.__version__, "subgroup": width, "warp_size": width, "block_subgroups": 1,
                 "protocol": clplan.FAST, "key_bits": 64, "fp64": use_fp64, "options": list(options),
                 "build_seconds": time.perf_counter() - t0, "budget_bytes": budget, "launches": [],
                 "mem_high_water_bytes": 0}
    if not plan.slices:
        return out
    q = dev.queue
    host_in = clplan.input_arrays(ctg_seqs, ctg_off, depths, reads)
    host_in[3] = clplan.padded_reads(reads)  # fast's word loads run past a k-mer's end
    inputs = [_upload(q, a) for a in host_in]
    results = clplan.output_arrays(out)
    outputs = [_upload(q, a) for a in results]
    slots = plan.most_slots()
    keys, votes = dpmem.MemoryUSMDevice(8 * slots, queue=q), dpmem.MemoryUSMDevice(32 * slots, queue=q)
    events, alive = [], []
    t0 = time.perf_counter()
    for number, (idx, _) in enumerate(plan.slices):
        ends = [_upload(q, a) for a in plan.ends(idx)]
        alive.append(ends)  # alive until the queue has run
        q.wait()  # the previous slice is done with the table
        keys.memset(0)  # epoch 0: every slot empty
        args = inputs + [ends[0], ctypes.c_int32(len(idx)), ctypes.c_int32(0), ends[1], keys, votes,
                         ctypes.c_int32(int(params.k))] + outputs
        events.append(q.submit_async(kernel, args, [len(idx) * width], [width]))
        out.extra["launches"].append({"bin": "all", "slice": number, "contigs": int(len(idx)),
                                      "slots": int(plan.slots[idx].sum()), "bytes": int(plan.nbytes[idx].sum()),
                                      "global": len(idx) * width, "local": width})
    _finish(out, q, t0, events, results, outputs, sum(m.nbytes for m in inputs + outputs + [keys, votes]))
    return out


def one_launch(protocol: str) -> bool:
    """Whether ``protocol`` walks both sides at once (:func:`extend_sides`): ``fast`` does."""
    return protocol == clplan.FAST


def extend_sides(right_ctgs: np.ndarray, left_ctgs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray,
                 right_reads, left_reads, run_mask: np.ndarray, params: config.Params, protocol: str = clplan.FAST,
                 **options) -> tuple[SideResult, SideResult]:
    """Both sides of every contig at once (fast's one launch ordered by work, :func:`clplan.both_sides`): same
    parameters as :func:`extend_side`; returns ``(right, left)``."""
    return clplan.both_sides(extend_side, right_ctgs, left_ctgs, ctg_off, depths, right_reads, left_reads, run_mask,
                             params, protocol=protocol, **options)


def vote(votes: np.ndarray, depths: np.ndarray, fp64: bool | None = None) -> np.ndarray:
    """The kernel's ``set_ext`` on many vote vectors, so that the vote can be checked on its own.

    Parameters
    ----------
    votes : uint32, ``(n, 8)``: votes of A C G T (q >= MIN_QUAL), then high-quality votes.
    depths : int64, ``n``: ``int(depth)`` of each.
    fp64 : double-precision vote (None: when the device has fp64) or the exact integer one.

    Returns
    -------
    uint8 array of extensions: a base, ``X`` or ``F``.
    """
    dev = _device()
    votes = np.ascontiguousarray(votes, dtype=np.uint32).reshape(-1, 8)
    depths = np.ascontiguousarray(depths, dtype=np.int64)
    if len(depths) != len(votes):
        raise ValueError(f"{len(votes)} vote vectors but {len(depths)} depths")
    use_fp64 = dev.fp64 if fp64 is None else bool(fp64)
    options = build_options(DEFAULT_PROTOCOL, 0, False, use_fp64, config.DEFAULT_MAX_WALK,
                            config.DEFAULT_QUAL_OFFSET, test_kernels=True)
    kernel = program(options).get_sycl_kernel("set_ext_kernel")
    out = np.zeros(len(votes), dtype=np.uint8)
    if len(votes):
        q = dev.queue
        bufs = [_upload(q, votes.reshape(-1)), _upload(q, depths), _upload(q, out)]
        local = 64
        q.submit_async(kernel, bufs + [ctypes.c_int32(len(votes))], [launch.ceil_div(len(votes), local) * local],
                       [local]).wait()
        _download(bufs[2], out)
    return out

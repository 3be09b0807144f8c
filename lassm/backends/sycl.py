# SPDX-License-Identifier: BSD-3-Clause
"""The Intel backend: the OpenCL C kernel ``kernels/local_assembly/opencl/faithful.cl`` run through dpctl.

dpctl builds the source for one device and launches it on an in-order queue with USM device
buffers; Intel's OpenCL CPU driver from PyPI runs it in CI against the oracle. One sub-group per
contig end, ends binned by read count (1-9, >= 10), each bin a launch sliced to the memory
budget. Protocol ``fast`` builds ``fast_subgroup.cl``: both sides and all bins at once.

What the setup works around:

- ``intel-opencl-rt``'s ``.icd`` names a wrong path: ``OCL_ICD_FILENAMES`` points at the
  environment's ``lib/libintelocl.so`` (``LASSM_SYCL_KEEP_ICD=1`` leaves it alone);
- devices are chosen by capability (USM device allocations), Intel's first, not list position;
- the queue is created ``in_order`` (dpctl's default is not);
- every build passes ``-cl-std=CL3.0``, which ``cl_khr_subgroups`` needs;
- dpctl builds OpenCL C only for the OpenCL backend, so an Intel GPU runs as ``opencl:gpu``;
- importing dpctl turns off subprocess's vfork, so later forks would trip TBB's pre-fork
  handler: :func:`_import_dpctl` restores the setting.
"""
from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import settings
from ..errors import BackendUnavailable
from ..paths import kernel_source
from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import clhost, clplan, icd, launch
from .sides import Choices, Side

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
MEMORY_FRACTION = clhost.MEMORY_FRACTION
#: Sub-groups (contig ends) per work-group by default.
DEFAULT_BLOCK_SUBGROUPS = 1


def _point_icd_loader_at_this_environment() -> None:
    """Name Intel's OpenCL CPU driver of this environment to the ICD loader, before dpctl loads."""
    if "dpctl" in sys.modules or settings.value("LASSM_SYCL_KEEP_ICD"):
        return
    lib = icd.env_intel_driver()
    if lib is not None:
        current = [p for p in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if p]
        if str(lib) not in current:
            os.environ["OCL_ICD_FILENAMES"] = ":".join(current + [str(lib)])


def _import_dpctl() -> tuple[ModuleType, ModuleType, ModuleType]:
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
    if not TYPE_CHECKING:  # the type checker reads dpctl's modules
        dpctl = None
    _IMPORT_ERROR = f"dpctl is not installed ({_exc}); install it with: {INSTALL}"
else:
    _IMPORT_ERROR = ""


# ---------------------------------------------------------------------------------------------
# Device, queue and program


@dataclass
class _Device(clhost.Runtime):
    """One chosen device with its in-order queue and the capabilities the build depends on: the
    runtime calls of the shared host (:class:`lassm.backends.clhost.Runtime`) in dpctl."""

    device: Any  # dpctl's SyclDevice and SyclQueue (dpctl has no type information)
    queue: Any
    key64: bool
    fp64: bool
    subgroup_sizes: tuple[int, ...]
    backend = "sycl"

    @property
    def name(self) -> str:
        return f"{self.device.name.strip()} ({self.device.filter_string})"

    @property
    def profiling(self) -> bool:
        return bool(self.queue.has_enable_profiling)

    def upload(self, arr: np.ndarray):
        return _upload(self.queue, arr)

    def alloc(self, nbytes: int):
        return dpmem.MemoryUSMDevice(max(int(nbytes), 1), queue=self.queue)

    def int32(self, value: int):
        return ctypes.c_int32(value)

    def launch(self, kernel, args: list, gsize: int, lsize: int):
        return self.queue.submit_async(kernel, args, [gsize], [lsize])

    def zero(self, buf, nbytes: int) -> None:
        self.queue.wait()  # the previous slice is done with the table
        buf.memset(0)

    def wait(self) -> None:
        self.queue.wait()

    def download(self, buf, arr: np.ndarray) -> None:
        _download(buf, arr)

    def event_seconds(self, event) -> float:
        return (event.profiling_info_end - event.profiling_info_start) * 1e-9


_DEVICE: _Device | None = None
_PROGRAMS: dict[tuple, Any] = {}


def _has_usm(dev) -> bool:
    try:
        return bool(dev.has_aspect_usm_device_allocations)
    except Exception:  # a driver that cannot answer cannot run us either
        return False


def _candidates() -> list:
    """Usable devices, best first: Intel GPUs (through OpenCL), then OpenCL CPUs, Intel's first."""
    chosen = (settings.value(DEVICE_ENV) or "").strip()
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

    ``subgroup``: the required sub-group width, 0 for the device's choice. The others are
    :func:`lassm.backends.clplan.defines`'s; the options are part of the program memo key."""
    return ("-cl-std=CL3.0",) + clplan.defines(protocol, f"-DLASSM_SUBGROUP={int(subgroup)}", key64, fp64,
                                               max_walk, qual_offset, test_kernels)


def include_options() -> tuple[str, ...]:
    """``-I`` of the kernel's folder (:func:`lassm.backends.clplan.include_options`)."""
    return clplan.include_options(KERNEL)


def program(options: tuple[str, ...], kernel: str = KERNEL):
    """The kernel source built with ``options`` for this backend's device (memoized); raises
    BackendUnavailable with the options when the compiler rejects it."""
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
    """Global and local work sizes, one sub-group of ``width`` lanes per contig end, shaped by
    :func:`lassm.backends.launch.geometry` (a work-group is a block, a sub-group a warp)."""
    (blocks,), (threads,) = launch.geometry(n_ends, block_subgroups, width)
    return blocks * threads, threads


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


def extend_side(side: Side, protocol: str = DEFAULT_PROTOCOL, subgroup: int | None = None,
                block_subgroups: int = DEFAULT_BLOCK_SUBGROUPS, max_bytes: int | None = None,
                fp64: bool | None = None, key_bits: int | None = None) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set, on the SYCL device.

    Takes and returns what every OpenCL C host does (:class:`~lassm.backends.sides.Choices`,
    :mod:`lassm.backends.clhost`), plus its lanes: ``subgroup``, one of the device's
    ``sub_group_sizes`` (None: the device's choice, read back), and ``block_subgroups``, contig ends
    per work-group."""
    dev = _device()
    clplan.check_inputs(side.ctg_seqs, side.ctg_off, side.depths, side.reads, side.run_mask, protocol, PROTOCOLS)
    side, params = replace(side, run_mask=np.ascontiguousarray(side.run_mask, dtype=np.bool_)), side.params
    choices = Choices(protocol, max_bytes, fp64, key_bits)
    if subgroup is not None and int(subgroup) not in dev.subgroup_sizes:
        raise ValueError(f"sub-group width {subgroup} is not one of {dev.name}'s {list(dev.subgroup_sizes)}")
    blocks = int(block_subgroups)
    if blocks < 1:
        raise ValueError(f"block_subgroups must be positive, not {block_subgroups}")
    if protocol == clplan.FAST:
        if blocks != 1:
            raise ValueError("protocol fast runs one sub-group per work-group: block_subgroups must be 1")
        width = int(subgroup) if subgroup else (DEFAULT_FAST_SUBGROUP if DEFAULT_FAST_SUBGROUP in dev.subgroup_sizes
                                                else int(dev.subgroup_sizes[0]))

        def fast(lanes: int, use_fp64: bool):
            options = build_options(clplan.FAST, lanes, True, use_fp64, int(params.max_walk), params.qual_offset)
            return options, program(options, FAST_KERNEL).get_sycl_kernel(ENTRY)

        lanes = SideFigures(dpctl=dpctl.__version__, subgroup=width, warp_size=width, block_subgroups=1)
        return clhost.extend_fast(dev, side, choices, (width, None), fast, lanes)

    def build(key64: bool, use_fp64: bool):
        options = build_options(protocol, subgroup or 0, key64, use_fp64, int(params.max_walk), params.qual_offset)
        kernel = program(options).get_sycl_kernel(ENTRY)
        return options, kernel, int(subgroup) if subgroup else int(kernel.max_sub_group_size)

    return clhost.extend_bins(dev, side, choices, build,
                              lambda width: (SideFigures(dpctl=dpctl.__version__, subgroup=width, warp_size=width,
                                                          block_subgroups=blocks), (blocks, width)))


#: Whether a protocol walks both sides at once (``fast``), and the call that does.
one_launch = clplan.one_launch
extend_sides = clplan.sides_of(extend_side)


def vote(votes: np.ndarray, depths: np.ndarray, fp64: bool | None = None) -> np.ndarray:
    """The kernel's ``set_ext`` on many vote vectors (:func:`lassm.backends.clhost.vote`)."""
    dev = _device()
    return clhost.vote(dev, votes, depths, fp64,
                       (build_options, 0, lambda options: program(options).get_sycl_kernel("set_ext_kernel")))

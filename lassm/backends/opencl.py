# SPDX-License-Identifier: BSD-3-Clause
"""The portable OpenCL backend: ``kernels/local_assembly/opencl/portable.cl`` run through pyopencl.

``portable.cl`` is OpenCL C 1.2 without sub-groups (a contig end's lanes are a work-group of
``team`` items), so it builds on NVIDIA's OpenCL, PoCL and Intel's CPU driver (CI's oracle
check); host preparation is :mod:`.clplan`'s, and ``fast`` builds ``fast.cl``
(:func:`extend_sides`). pyopencl's bundled ICD loader reads only ``/etc/OpenCL/vendors``, so a
temporary vendors folder names :func:`.icd.driver_libraries` while it starts
(:func:`loader_libraries`). Builds pass ``-cl-std=CL1.2`` and OpenCL 1.2 atomics
(``LASSM_C11_ATOMICS=0``), all NVIDIA's compiler reads.
"""
from __future__ import annotations

import functools
import os
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import settings
from ..errors import BackendUnavailable
from ..paths import kernel_source
from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import clhost, clplan, icd, launch
from .sides import Choices, Side

#: What this backend builds: the four protocols of ``portable.cl``, and ``fast`` (``fast.cl``).
PROTOCOLS = clplan.PROTOCOLS + (clplan.FAST,)
DEFAULT_PROTOCOL = clplan.DEFAULT_PROTOCOL
KERNEL = "local_assembly/opencl/portable.cl"
FAST_KERNEL = "local_assembly/opencl/fast.cl"
ENTRY = "iterative_walks_kernel"
INSTALL = "pip install 'lassm[opencl]'"
#: Environment variable: a case-insensitive substring of "<platform> <device>" naming the device
#: (e.g. ``NVIDIA``, ``Intel``, ``Portable Computing Language``), or a short name (``pocl``).
DEVICE_ENV = "LASSM_OPENCL_DEVICE"
#: Work-items per contig end (``LASSM_TEAM``) by default: a warp on NVIDIA.
DEFAULT_TEAM = 32
#: Work-items of the wide teams ``fast`` gives its heaviest ends: the CUDA host's block of four warps.
DEFAULT_BLOCK_TEAM = 128
#: Share of the device's global memory one extend_side call may use by default.
MEMORY_FRACTION = clhost.MEMORY_FRACTION
#: The OpenCL C the kernel is written in.
CL_STD = "-cl-std=CL1.2"

try:
    import pyopencl as cl
except ImportError as _exc:  # the registry turns this into a clean "install with" message
    if not TYPE_CHECKING:  # the type checker reads pyopencl's types
        cl = None
    _IMPORT_ERROR = f"pyopencl is not installed ({_exc}); install it with: {INSTALL}"
else:
    _IMPORT_ERROR = ""


# ---------------------------------------------------------------------------------------------
# Platforms: the ICD loader


#: The driver libraries :func:`_platforms` named to pyopencl's loader (empty when it named none).
_LOADER_LIBRARIES: list[str] = []


def loader_libraries() -> list[str]:
    """The driver libraries this backend named to the ICD loader when it read the platforms;
    empty where the user's ``OCL_ICD_VENDORS`` or the system's loader decided."""
    return list(_LOADER_LIBRARIES)


def _bundled_loader() -> bool:
    """Whether pyopencl carries its own ICD loader (its PyPI wheels do)."""
    return any((Path(cl.__file__).parent / ".libs").glob("libOpenCL*"))


def _platforms() -> list:
    """The OpenCL platforms, the loader started with every driver of :func:`.icd.driver_libraries`
    (unless the user set ``OCL_ICD_VENDORS`` or pyopencl uses the system's loader)."""
    _LOADER_LIBRARIES.clear()
    if os.environ.get("OCL_ICD_VENDORS") or not _bundled_loader():
        return cl.get_platforms()
    with tempfile.TemporaryDirectory(prefix="lassm-icd-") as folder:
        _LOADER_LIBRARIES.extend(icd.driver_libraries())
        for i, lib in enumerate(_LOADER_LIBRARIES):
            Path(folder, f"{i:02d}.icd").write_text(lib + "\n")
        os.environ["OCL_ICD_VENDORS"] = folder
        try:
            return cl.get_platforms()  # the loader reads the folder once, here
        except cl.Error:
            return []
        finally:
            del os.environ["OCL_ICD_VENDORS"]


# ---------------------------------------------------------------------------------------------
# Device, queue and program


@dataclass
class _Device(clhost.Runtime):
    """One chosen device with its in-order profiling queue and what the build depends on: the
    runtime calls of the shared host (:class:`lassm.backends.clhost.Runtime`) in pyopencl."""

    device: cl.Device
    context: cl.Context
    queue: cl.CommandQueue
    key64: bool
    fp64: bool
    backend = "opencl"

    @property
    def name(self) -> str:
        return f"{self.device.name.strip()} ({self.device.platform.name.strip()})"

    def upload(self, arr: np.ndarray):
        return _buffer(self.context, arr)

    def alloc(self, nbytes: int):
        return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, max(int(nbytes), 1))

    def size(self, buf) -> int:
        return buf.size

    def launch(self, kernel, args: list, gsize: int, lsize: int):
        kernel.set_args(*args)
        return cl.enqueue_nd_range_kernel(self.queue, kernel, (gsize,), (lsize,))

    def zero(self, buf, nbytes: int) -> None:
        cl.enqueue_fill_buffer(self.queue, buf, np.uint64(0), 0, nbytes)

    def wait(self) -> None:
        self.queue.finish()

    def download(self, buf, arr: np.ndarray) -> None:
        if arr.nbytes:
            cl.enqueue_copy(self.queue, arr, buf)

    def event_seconds(self, event) -> float:
        return (event.profile.end - event.profile.start) * 1e-9


_DEVICES: dict[str, _Device] = {}
_PLATFORMS: list | None = None


#: PoCL's platform name, which does not say "PoCL".
POCL_PLATFORM = "portable computing language"
#: Short names ``LASSM_OPENCL_DEVICE`` takes besides a piece of "<platform> <device>", each for a
#: piece of the platform name: an implementation's usual name where its platform name lacks it.
SHORT_NAMES: dict[str, str] = {"pocl": POCL_PLATFORM}


def is_pocl(dev) -> bool:
    """Whether ``dev`` is PoCL's (Debian's ``pocl-opencl-icd`` or ``pocl-binary-distribution``)."""
    return POCL_PLATFORM in dev.platform.name.lower()


def devices() -> list:
    """Every OpenCL device, GPUs first (in platform order), then the others, PoCL's last: without
    ``LASSM_OPENCL_DEVICE`` a CPU run stays on Intel's driver, where the campaign's CPU records
    were made, when PoCL is installed beside it."""
    global _PLATFORMS
    if _PLATFORMS is None:
        _PLATFORMS = _platforms()
    found = []
    for platform in _PLATFORMS:
        try:
            found += platform.get_devices()
        except cl.Error:
            continue
    return sorted(found, key=lambda d: (not d.type & cl.device_type.GPU, is_pocl(d)))


def _label(dev) -> str:
    return f"{dev.platform.name.strip()} {dev.name.strip()}"


def names(chosen: str, dev) -> bool:
    """Whether ``LASSM_OPENCL_DEVICE``'s value ``chosen`` names ``dev``: a case-insensitive piece of
    "<platform> <device>", or a key of :data:`SHORT_NAMES` (``pocl``). Empty names every device."""
    label = _label(dev).lower()
    want = chosen.strip().lower()
    return want in label or (want in SHORT_NAMES and SHORT_NAMES[want] in label)


def _device() -> _Device:
    """The device this backend runs on: the first that ``LASSM_OPENCL_DEVICE`` names, else the first
    GPU, else the first device (chosen once per value of the variable)."""
    if cl is None:
        raise BackendUnavailable(_IMPORT_ERROR)
    chosen = (settings.value(DEVICE_ENV) or "").strip()
    if chosen not in _DEVICES:
        try:
            found = devices()
        except Exception as exc:
            raise BackendUnavailable(f"OpenCL: {exc}") from None
        named = [d for d in found if names(chosen, d)]
        if not named:
            seen = "; ".join(_label(d) for d in found) or "none"
            want = f" whose platform or name holds {chosen!r} ({DEVICE_ENV})" if chosen else ""
            drivers = ", ".join(loader_libraries()) or "those of OCL_ICD_VENDORS or /etc/OpenCL/vendors"
            raise BackendUnavailable(
                f"no OpenCL device{want} answers (devices seen: {seen}; drivers named to the loader: {drivers}). "
                f"A GPU needs its vendor's OpenCL driver: an .icd in /etc/OpenCL/vendors, or the library in "
                f"OCL_ICD_FILENAMES (NVIDIA's {icd.NVIDIA_OPENCL} is found on LD_LIBRARY_PATH, in the loader "
                f"cache and in the driver's folders); for a CPU, PoCL (Debian's pocl-opencl-icd, which make deps "
                f"installs, or pip install pocl-binary-distribution) or Intel's driver (pip install 'lassm[intel]')")
        dev = named[0]
        ext = dev.extensions.split()
        ctx = cl.Context([dev])
        queue = cl.CommandQueue(ctx, dev, properties=cl.command_queue_properties.PROFILING_ENABLE)
        _DEVICES[chosen] = _Device(dev, ctx, queue, key64="cl_khr_int64_base_atomics" in ext,
                                   fp64="cl_khr_fp64" in ext or bool(getattr(dev, "double_fp_config", 0)))
    return _DEVICES[chosen]


def available() -> tuple[bool, str]:
    """Whether pyopencl and an OpenCL device are here, and which device."""
    try:
        dev = _device()
    except BackendUnavailable as exc:
        return False, str(exc)
    driver = f"PoCL {dev.device.driver_version}" if is_pocl(dev.device) else f"driver {dev.device.driver_version}"
    return True, f"pyopencl {cl.VERSION_TEXT}, {dev.name}, {driver}"


def device_name() -> str:
    """The device's own name, as its vendor's other runtimes say it (``NVIDIA H100 80GB HBM3``):
    a GPU's OpenCL runs are filed in the same results folder as its CUDA runs."""
    return _device().device.name.strip()


def device_kind() -> str:
    """``gpu`` or ``cpu`` (a CPU driver checks the kernel but is no GPU: not a "best" backend)."""
    return "gpu" if _device().device.type & cl.device_type.GPU else "cpu"


def build_options(protocol: str, team: int, key64: bool, fp64: bool, max_walk: int, qual_offset: int,
                  test_kernels: bool = False) -> tuple[str, ...]:
    """The build options of one kernel variant: OpenCL C 1.2 and every knob as a ``-D``.

    ``team``: work-items per contig end (``LASSM_TEAM``). The others are
    :func:`lassm.backends.clplan.defines`'s; the options are part of the program memo key."""
    return (CL_STD,) + clplan.defines(protocol, f"-DLASSM_TEAM={int(team)}", key64, fp64, max_walk,
                                      qual_offset, test_kernels)


def program(options: tuple[str, ...], kernel: str = KERNEL):
    """``kernel`` (``portable.cl`` or ``fast.cl``) built with ``options`` for this backend's device
    (memoized; :func:`built`)."""
    return built(kernel, options, clplan.include_options(kernel))


@functools.cache
def _pyopencl_headers_staged() -> None:
    """pyopencl adds ``-I <its package>/cl`` to every build's options, and PoCL's program cache keys
    on the options: each virtual environment, at its own path, would build every program again.
    The ``-I`` is pointed at a copy of that folder whose path is its contents' digest, as the
    kernels' own headers are (:func:`lassm.backends.headers.staged_folder`); left as it is where
    this pyopencl keeps it otherwise."""
    from .headers import staged_folder

    found = getattr(cl, "_DEFAULT_INCLUDE_OPTIONS", None)
    if not (isinstance(found, list) and len(found) == 2 and found[0] == "-I"):
        return
    folder = Path(found[1].strip('"'))
    if folder.is_dir():
        staged = str(staged_folder(folder, tree=True))
        found[1] = f'"{staged}"' if " " in staged else staged


#: Built programs by (context, kernel source, options): a program serves its own context's buffers only.
_BUILT: dict[tuple, cl.Program] = {}


def built(kernel: str, options: tuple[str, ...], hidden: tuple[str, ...] = ()):
    """The kernel source ``kernel`` (relative to the kernel folder) built with ``options`` and then
    ``hidden`` (options that neither key the memo nor appear in messages: an ``-I``) for this
    backend's device, memoized: the one place every OpenCL program here is built.

    Raises
    ------
    BackendUnavailable
        When the device's compiler rejects the source; the message holds the options and the log.
    """
    dev = _device()
    key = (dev.context.int_ptr, kernel, options)
    if key not in _BUILT:
        _pyopencl_headers_staged()
        src = kernel_source(kernel).read_text(encoding="utf-8")
        try:
            with warnings.catch_warnings():  # a build log that is no error (Intel's "Compilation done")
                warnings.simplefilter("ignore", cl.CompilerWarning)
                _BUILT[key] = cl.Program(dev.context, src).build(options=list(options + hidden))
        except cl.RuntimeError as exc:
            raise BackendUnavailable(f"{kernel} does not build on {dev.name} with {' '.join(options)}: {exc}") from None
    return _BUILT[key]


def launch_geometry(n_ends: int, team: int) -> tuple[int, int]:
    """Global and local work sizes: one work-group of ``team`` work-items per contig end."""
    (groups,), (items,) = launch.geometry(n_ends, 1, team)
    return groups * items, items


# ---------------------------------------------------------------------------------------------
# Launch


def _buffer(ctx, arr: np.ndarray):
    """A device copy of ``arr`` (at least one byte, so that empty arrays have a buffer)."""
    arr = np.ascontiguousarray(arr)
    flags = cl.mem_flags.READ_WRITE
    if arr.nbytes:
        return cl.Buffer(ctx, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=arr)
    return cl.Buffer(ctx, flags, 1)


def extend_side(side: Side, protocol: str = DEFAULT_PROTOCOL, team: int = DEFAULT_TEAM,
                max_bytes: int | None = None, fp64: bool | None = None, key_bits: int | None = None,
                block_team: int = DEFAULT_BLOCK_TEAM) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set, on the OpenCL device.

    Takes and returns what every OpenCL C host does (:class:`~lassm.backends.sides.Choices`,
    :mod:`lassm.backends.clhost`), plus its lanes: ``team``, work-items per contig end and
    work-group (``LASSM_TEAM``; 1 to 64 for matchany), and for ``fast`` ``block_team``, the wide
    teams' work-items (equal to ``team``: none)."""
    dev = _device()
    clplan.check_inputs(side.ctg_seqs, side.ctg_off, side.depths, side.reads, side.run_mask, protocol, PROTOCOLS)
    side, params = replace(side, run_mask=np.ascontiguousarray(side.run_mask, dtype=np.bool_)), side.params
    choices = Choices(protocol, max_bytes, fp64, key_bits)
    team, block_team = int(team), int(block_team)
    for width in (team, block_team) if protocol == clplan.FAST else (team,):
        if not 1 <= width <= int(dev.device.max_work_group_size):
            raise ValueError(f"team {width} must lie in 1..{dev.device.max_work_group_size} "
                             f"({dev.name}'s largest work-group)")
        if protocol == clplan.FAST and is_pocl(dev.device) and clplan.pocl_replicates(width):
            raise ValueError(f"team {width}: PoCL builds a work-group this small by copying the kernel once per "
                             f"work-item, and fast.cl built so counts wrong insertions (PoCL 3.1); use a team of 1 "
                             f"or of {clplan.pocl_threshold() + 1} and more on PoCL")
    if protocol == clplan.FAST:
        def fast(width: int, use_fp64: bool):
            options = build_options(clplan.FAST, width, True, use_fp64, int(params.max_walk), params.qual_offset)
            return options, cl.Kernel(program(options, FAST_KERNEL), ENTRY)

        lanes = SideFigures(pyopencl=cl.VERSION_TEXT, team=team, block_team=block_team, warp_size=team)
        return clhost.extend_fast(dev, side, choices, (team, block_team), fast, lanes)
    if protocol == "matchany" and team > 64:
        raise ValueError(f"protocol matchany keeps a 64-bit lane mask: team {team} must be at most 64")

    def build(key64: bool, use_fp64: bool):
        options = build_options(protocol, team, key64, use_fp64, int(params.max_walk), params.qual_offset)
        return options, cl.Kernel(program(options), ENTRY), team

    return clhost.extend_bins(dev, side, choices, build,
                              lambda width: (SideFigures(pyopencl=cl.VERSION_TEXT, team=width, warp_size=width),
                                             (1, width)))


def vote(votes: np.ndarray, depths: np.ndarray, fp64: bool | None = None) -> np.ndarray:
    """The kernel's ``set_ext`` on many vote vectors (:func:`lassm.backends.clhost.vote`)."""
    dev = _device()
    return clhost.vote(dev, votes, depths, fp64,
                       (build_options, DEFAULT_TEAM, lambda options: cl.Kernel(program(options), "set_ext_kernel")))


#: Whether a protocol walks both sides at once (``fast``), and the call that does.
one_launch = clplan.one_launch
extend_sides = clplan.sides_of(extend_side)

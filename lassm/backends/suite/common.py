# SPDX-License-Identifier: BSD-3-Clause
"""What the suite's kernels share: a run's result, building a source with CuPy or pyopencl, timing.

Both models are timed alike, so their ratio is the models': ``seconds`` is the device span from
the first launch's start to the last one's end (CUDA events; OpenCL profiling counters),
``host_seconds`` the host's wall time to completion, ``launches`` the kernels run. Device, queue,
ICD workaround and CuPy probe are the local-assembly backends' (imported, not copied).
"""
from __future__ import annotations

import contextlib
import functools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

import numpy as np

from ...errors import BackendUnavailable

if TYPE_CHECKING:  # imported by the opencl backend when it runs
    import pyopencl
from ...paths import kernel_source

#: The programming models the suite runs on (one source each per kernel), and ``opencl-ptx``: the
#: OpenCL compiler's PTX launched by CUDA on one stream (NVIDIA only), which Nsight Compute counts
#: and which parts the OpenCL runtime's share of a gap from its compiler's.
BACKENDS: tuple[str, ...] = ("cuda", "opencl", "opencl-ptx")
#: The backends whose launches go through CUDA (CuPy), so through the same host code.
CUDA_LAUNCHED: tuple[str, ...] = ("cuda", "opencl-ptx")


@dataclass
class Run:
    """One timed run of one kernel variant: its output and its times."""

    kernel: str
    backend: str
    variant: str
    output: Any  # an array or the kernel's own record (cmap's); None: a LARGE_OUTPUT kernel's, left on the device
    seconds: float
    host_seconds: float
    launches: int
    device: str = ""
    driver: str = ""

    def read_back(self) -> np.ndarray:
        """Its output; refused for a run that left it on the device (a large output timed alone)."""
        if self.output is None:
            raise ValueError(f"{self.kernel} {self.backend} {self.variant}: the output stayed on the device")
        return self.output


class Refused(BackendUnavailable):
    """The device's runtime refuses what a variant asks of it (e.g. an out-of-order queue)."""


def available(backend: str) -> tuple[bool, str]:
    """Whether ``backend`` (``cuda`` or ``opencl``) can run the suite here, and why not."""
    from .. import cuda as cu
    from .. import opencl as ocl
    from .. import opencl_ptx

    if backend not in BACKENDS:
        return False, f"the suite runs on {', '.join(BACKENDS)}, not {backend!r}"
    return {"cuda": cu.available, "opencl": ocl.available, "opencl-ptx": opencl_ptx.available}[backend]()


def device(backend: str) -> tuple[str, str]:
    """(device name, driver version) of ``backend``'s device."""
    from .. import cuda as cu
    from .. import opencl as ocl

    if backend in CUDA_LAUNCHED:
        info = cu.device_info()
        return str(info["device"]), str(info.get("driver", ""))
    dev = ocl._device()
    return dev.device.name.strip(), str(dev.device.driver_version)


def is_gpu(backend: str) -> bool:
    """Whether ``backend`` runs on a GPU here (OpenCL may have found a CPU driver)."""
    from .. import opencl as ocl

    return backend in CUDA_LAUNCHED or ocl.device_kind() == "gpu"


#: Where the headers that a kernel's CUDA and OpenCL sources share lie (``#include "epistasis.h"``).
HEADER_DIR = "suite"


def include_options() -> tuple[str, ...]:
    """``-I`` of the shared headers' folder and their digest (:mod:`lassm.backends.headers`). Kept
    out of the kernels' ``build_options``, which runs record, so that no machine's path lands there."""
    from ..headers import digest_define, include_flag, staged_folder

    folder = kernel_source(HEADER_DIR)
    return include_flag(staged_folder(folder)), digest_define("LASSM_SUITE_HEADERS_SHA256", sorted(folder.glob("*.h")))


# --- CUDA ---------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _cuda_function(code: str, options: tuple[str, ...], entry: str):
    from .. import cuda as cu

    return cu._cupy().RawModule(code=code, options=options).get_function(entry)


def cuda_function(relpath: str, entry: str, options: Sequence[str] = ()):
    """``entry`` of ``kernels/<relpath>`` compiled by CuPy with ``options`` (once per source and options)."""
    return _cuda_function(kernel_source(relpath).read_text(encoding="utf-8"), (*options, *include_options()), entry)


_PTX_FUNCTIONS: dict[tuple, object] = {}


def opencl_ptx_function(relpath: str, entry: str, options: Sequence[str] = ()):
    """``entry`` of the PTX NVIDIA's OpenCL compiler made of ``kernels/<relpath>`` with ``options``,
    loaded by CuPy (:func:`lassm.backends.opencl_ptx.load`)."""
    from .. import cuda as cu
    from .. import opencl_ptx as clptx

    cupy = cu._cupy()
    key = (cupy.cuda.Device().id, relpath, tuple(options), entry)
    if key not in _PTX_FUNCTIONS:
        text = opencl_ptx(relpath, options)
        if text is None:
            raise BackendUnavailable("the OpenCL device is no NVIDIA GPU: its program binary is no PTX")
        _PTX_FUNCTIONS[key] = clptx.load(text, entry)
    return _PTX_FUNCTIONS[key]


def sources(stem: str, entry: str = "") -> tuple[str, str, str]:
    """``(CUDA source, OpenCL source, entry)`` of the suite's kernel ``stem``: every kernel keeps its
    two sources as ``suite/cuda/<stem>.cu`` and ``suite/opencl/<stem>.cl``; the entry is ``stem``
    unless named."""
    return f"suite/cuda/{stem}.cu", f"suite/opencl/{stem}.cl", entry or stem


def same_variants(options: dict[str, tuple[str, ...]]) -> dict[str, dict[str, tuple[str, ...]]]:
    """The variants of a kernel whose every model builds the same ones (``opencl-ptx`` builds what
    ``opencl`` builds): one copy of ``options`` per backend."""
    return {backend: dict(options) for backend in BACKENDS}


def files(mod, variant: str) -> tuple[str, str, str]:
    """(CUDA source, OpenCL source, entry) of a kernel module's ``variant``: the variant's own where
    it is a kernel of another shape (the module's ``OWN_SOURCES``), else the module's."""
    return getattr(mod, "OWN_SOURCES", {}).get(variant, (mod.CUDA_KERNEL, mod.OPENCL_KERNEL, mod.ENTRY))


def entries(mod) -> set[str]:
    """Every entry point a kernel module's variants launch."""
    own = {entry for _cu, _cl, entry in getattr(mod, "OWN_SOURCES", {}).values()}
    return own | set(getattr(mod, "ENTRIES", (mod.ENTRY,)))


def cuda_launched(backend: str, sources: tuple[str, str], entry: str, options: Sequence[str] = ()):
    """The CuPy function ``entry`` of a kernel's ``(CUDA source, OpenCL source)``: NVRTC's build of
    the first (``cuda``) or the OpenCL compiler's PTX of the second (``opencl-ptx``)."""
    if backend == "cuda":
        return cuda_function(sources[0], entry, options)
    return opencl_ptx_function(sources[1], entry, options)


def cuda_compile_ptx(relpath: str, options: Sequence[str] = (), arch: str = "compute_90") -> tuple[str, str]:
    """The source compiled to PTX by NVRTC alone, with the backend's options: ``(ptx, log)``."""
    from .. import nvrtc

    path = kernel_source(relpath)
    return nvrtc.compile_ptx(path.read_text(encoding="utf-8"),
                             [*options, *include_options(), f"--gpu-architecture={arch}"],
                             name=path.name)


_PROFILED = {"on": False}


@contextlib.contextmanager
def profiled():
    """Within it, :func:`cuda_time` opens the profiler's range around its launches
    (``cudaProfilerStart``/``Stop``): under ``ncu --profile-from-start off`` only the timed launches,
    a library's own included, are counted, not the set-up's."""
    _PROFILED["on"] = True
    try:
        yield
    finally:
        _PROFILED["on"] = False


def _profiler(cupy, start: bool) -> None:
    runtime = cupy.cuda.runtime
    if hasattr(runtime, "profilerStart"):
        (runtime.profilerStart if start else runtime.profilerStop)()
    else:  # older CuPy
        (cupy.cuda.profiler.start if start else cupy.cuda.profiler.stop)()


#: A one-thread kernel that holds the stream until the host opens it (or ``limit_ns`` passes), so
#: that the launches queued behind it run back to back: the span between the events then holds the
#: device's work, not the host's enqueueing (OpenCL's profiling counters start at the first
#: kernel likewise).
_GATE = r"""
extern "C" __global__ void lassm_gate(volatile int *open, const unsigned long long limit_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (*open == 0 && now - start < limit_ns);
}
"""
#: The gate opens by itself after this long: launches that take the host longer to enqueue (or
#: that the runtime's queue cannot hold) are timed with the host's gaps, as without a gate.
GATE_LIMIT_NS = 200_000_000
_GATES: dict[int, tuple] = {}


def _gate(cupy):
    """(the gate kernel, its flag, a non-blocking stream to open it from) of the current device."""
    dev = cupy.cuda.Device().id
    if dev not in _GATES:
        fn = cupy.RawModule(code=_GATE).get_function("lassm_gate")
        _GATES[dev] = (fn, cupy.zeros(1, dtype=cupy.int32), cupy.cuda.Stream(non_blocking=True))
    return _GATES[dev]


def cuda_time(launch: Callable[[], int], gate: bool = True) -> tuple[float, float, int]:
    """Runs ``launch`` (it enqueues its kernels and returns how many) between two CUDA events:
    (device span, host wall time to completion, launches). With ``gate`` (not under the profiler,
    which serializes launches), the launches queue behind :data:`_GATE` and run once all are
    enqueued; without it the span also holds the time the device waited for the host."""
    from .. import cuda as cu

    cupy = cu._cupy()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    gated = gate and not _PROFILED["on"]
    if gated:
        fn, flag, side = _gate(cupy)
        flag.fill(0)
    cupy.cuda.runtime.deviceSynchronize()
    if _PROFILED["on"]:
        _profiler(cupy, start=True)
    t0 = time.perf_counter()
    if gated:
        fn((1,), (1,), (flag, np.uint64(GATE_LIMIT_NS)))
    start.record()
    launches = launch()
    end.record()
    if gated:
        cupy.cuda.runtime.memsetAsync(flag.data.ptr, 1, flag.nbytes, side.ptr)
    end.synchronize()
    host = time.perf_counter() - t0
    if _PROFILED["on"]:
        _profiler(cupy, start=False)
    return cupy.cuda.get_elapsed_time(start, end) * 1e-3, host, int(launches)


# --- OpenCL -------------------------------------------------------------------------------------

_QUEUES: dict[tuple, object] = {}


def opencl_kernel_program(relpath: str, options: Sequence[str] = ()):
    """``kernels/<relpath>`` built once for the OpenCL backend's device (OpenCL C 1.2 and ``options``);
    raises BackendUnavailable with the options and log when the compiler refuses it."""
    from .. import opencl as ocl

    return ocl.built(relpath, (ocl.CL_STD, *options, *include_options()))


_KERNELS: dict[tuple, object] = {}


def opencl_kernel(relpath: str, entry: str, options: Sequence[str] = ()):
    """``entry`` of :func:`opencl_kernel_program`'s build, one kernel object per build and entry
    (as CUDA's functions are kept, :func:`cuda_function`): a driver may set a kernel object up at
    its first enqueue, which a run's later launches would otherwise wait on inside the span."""
    from .. import opencl as ocl

    program = opencl_kernel_program(relpath, options)
    key = (program.int_ptr, entry)
    if key not in _KERNELS:
        _KERNELS[key] = ocl.cl.Kernel(program, entry)
    return _KERNELS[key]


def opencl_ptx(relpath: str, options: Sequence[str] = ()) -> str | None:
    """The program binary NVIDIA's OpenCL compiler made of the source (PTX text), or None on another
    vendor's device (whose binary is no PTX)."""
    from .. import opencl as ocl

    dev = ocl._device()
    if "nvidia" not in dev.device.platform.name.lower():
        return None
    binary = opencl_kernel_program(relpath, options).get_info(ocl.cl.program_info.BINARIES)[0]
    return bytes(binary).decode("utf-8", errors="replace").rstrip("\0")


def opencl_queue(out_of_order: bool = False):
    """The backend's profiling queue, or an out-of-order one on the same context (once per context);
    raises Refused, in the runtime's words, when the device refuses out-of-order execution."""
    from .. import opencl as ocl

    dev = ocl._device()
    if not out_of_order:
        return dev.queue
    key = (dev.context.int_ptr, "out-of-order")
    if key not in _QUEUES:
        props = ocl.cl.command_queue_properties
        try:
            both = props.PROFILING_ENABLE | props.OUT_OF_ORDER_EXEC_MODE_ENABLE  # an int: pyopencl's flags OR'ed
            _QUEUES[key] = ocl.cl.CommandQueue(dev.context, dev.device, properties=cast("pyopencl.command_queue_properties", both))
        except ocl.cl.Error as exc:
            raise Refused(f"{dev.name} refuses an out-of-order queue: {exc}") from None
    return _QUEUES[key]


def opencl_launching(relpath: str, entry: str, options: Sequence[str] = ()):
    """``(pyopencl, the kernel entry built with options, the profiling queue)``: what an OpenCL
    run of a kernel starts from."""
    from .. import opencl as ocl

    return ocl.cl, opencl_kernel(relpath, entry, options), opencl_queue()


def opencl_input(queue, host: np.ndarray):
    """A read-only buffer on ``queue``'s context holding a copy of ``host``: every kernel's inputs."""
    from .. import opencl as ocl

    mf = ocl.cl.mem_flags
    return ocl.cl.Buffer(queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host)


def opencl_time(queue, enqueue: Callable[[], Sequence], resident: Sequence = ()) -> tuple[float, float, int]:
    """Runs ``enqueue`` (which enqueues kernels on ``queue`` and returns their events) once the queue is
    idle and waits: returns (device span, host wall time, launches).

    ``resident`` buffers are moved to the device first, since a driver may allocate or copy a buffer
    only at its first use, which would then fall inside the span."""
    from .. import opencl as ocl

    if resident:
        ocl.cl.enqueue_migrate_mem_objects(queue, list(resident))
    queue.finish()
    t0 = time.perf_counter()
    events = list(enqueue())
    ocl.cl.wait_for_events(events)
    host = time.perf_counter() - t0
    return opencl_span(events), host, len(events)


def opencl_span(events: Sequence) -> float:
    """Seconds from the first event's start to the last one's end (profiling counters, ns)."""
    first = min(e.profile.start for e in events)
    last = max(e.profile.end for e in events)
    return (last - first) * 1e-9


def round_up(n: int, to: int) -> int:
    """``n`` rounded up to a multiple of ``to`` (OpenCL 1.2's global sizes must be)."""
    return -(-int(n) // int(to)) * int(to)


def unchecked_run(mod, backend: str, inp, variant: str) -> Run:
    """A run whose output nobody reads (a warm-up, a timed run before the checked one, a profiled
    one): a kernel module with ``LARGE_OUTPUT`` leaves it on the device, so runs that never look at
    it do not pay the copy back."""
    if getattr(mod, "LARGE_OUTPUT", False):
        return mod.run(backend, inp, variant, fetch=False)
    return mod.run(backend, inp, variant)



def exact_check(output: np.ndarray, ref: np.ndarray) -> tuple[bool, float]:
    """(every element equal to the reference's, the number that differ): an integer kernel's check."""
    if output.shape != ref.shape:
        return False, float("inf")
    differ = int(np.count_nonzero(output != ref))
    return differ == 0, float(differ)


__all__ = ["BACKENDS", "CUDA_LAUNCHED", "Refused", "Run", "unchecked_run", "available", "exact_check", "cuda_compile_ptx", "cuda_function",
           "cuda_launched", "cuda_time", "device", "entries", "files", "is_gpu", "opencl_input", "opencl_kernel", "opencl_launching",
           "opencl_kernel_program", "opencl_ptx", "opencl_ptx_function", "opencl_queue", "opencl_span", "opencl_time",
           "profiled", "round_up", "same_variants", "sources"]

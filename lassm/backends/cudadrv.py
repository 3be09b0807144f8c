# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA driver API through ctypes: the few calls one kernel launch needs, without CuPy.

Kernels come from NVRTC as cubins cached on disk (:func:`module_image`), so a warm command neither
imports CuPy nor compiles. The objects mimic the part of CuPy's interface
:func:`lassm.backends.cuda_slice.run_slice` uses, so one host routine drives either runtime.
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .. import paths

#: ``cuDeviceGetAttribute`` codes (cuda.h's ``CUdevice_attribute``).
_ATTR_WARP_SIZE, _ATTR_MULTIPROCESSORS, _ATTR_CC_MAJOR, _ATTR_CC_MINOR = 10, 16, 75, 76
#: ``cuFuncSetAttribute``'s ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``.
_FUNC_MAX_DYNAMIC_SHARED = 8
#: The cubins' cache folder under :func:`lassm.paths.cache_dir`.
CACHE_FOLDER = "cubin"


class DriverError(RuntimeError):
    """A CUDA driver call failed; the message names the call and the driver's error."""


_P = ctypes.POINTER
_VOIDP, _DPTR, _SIZE, _UINT, _INT = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int
#: Every entry point used, with its C parameter types: without them ctypes passes a Python int as
#: a 32-bit ``int``, and a size_t above 2 GiB arrives cut (a 2.3 GB table came out a few bytes).
_SIGNATURES: dict[str, tuple] = {
    "cuInit": (_UINT,),
    "cuGetErrorName": (_INT, _P(ctypes.c_char_p)),
    "cuDeviceGetCount": (_P(_INT),),
    "cuDeviceGet": (_P(_INT), _INT),
    "cuDeviceGetName": (ctypes.c_char_p, _INT, _INT),
    "cuDeviceGetAttribute": (_P(_INT), _INT, _INT),
    "cuDriverGetVersion": (_P(_INT),),
    "cuDevicePrimaryCtxRetain": (_P(_VOIDP), _INT),
    "cuCtxSetCurrent": (_VOIDP,),
    "cuMemGetInfo_v2": (_P(_SIZE), _P(_SIZE)),
    "cuMemAlloc_v2": (_P(_DPTR), _SIZE),
    "cuMemFree_v2": (_DPTR,),
    "cuMemsetD8_v2": (_DPTR, ctypes.c_ubyte, _SIZE),
    "cuMemcpyHtoD_v2": (_DPTR, _VOIDP, _SIZE),
    "cuMemcpyDtoH_v2": (_VOIDP, _DPTR, _SIZE),
    "cuMemcpyDtoD_v2": (_DPTR, _DPTR, _SIZE),
    "cuEventCreate": (_P(_VOIDP), _UINT),
    "cuEventRecord": (_VOIDP, _VOIDP),
    "cuEventSynchronize": (_VOIDP,),
    "cuEventDestroy_v2": (_VOIDP,),
    "cuEventElapsedTime": (_P(ctypes.c_float), _VOIDP, _VOIDP),
    "cuModuleLoadData": (_P(_VOIDP), _VOIDP),
    "cuModuleGetFunction": (_P(_VOIDP), _VOIDP, ctypes.c_char_p),
    "cuFuncSetAttribute": (_VOIDP, _INT, _INT),
    "cuLaunchKernel": (_VOIDP, _UINT, _UINT, _UINT, _UINT, _UINT, _UINT, _UINT, _VOIDP, _P(_VOIDP), _P(_VOIDP)),
}


@functools.lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        raise DriverError(f"the NVIDIA driver's libcuda.so.1 is not here ({exc})") from None
    for name, argtypes in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = list(argtypes), ctypes.c_int
    return lib


def _check(status: int, what: str) -> None:
    if status != 0:
        name = ctypes.c_char_p()
        _lib().cuGetErrorName(status, ctypes.byref(name))
        raise DriverError(f"{what} failed: {(name.value or b'CUDA error').decode()} ({status})")


@dataclass(frozen=True)
class DeviceFacts:
    """What the driver says of the device: its name, compute capability, warp and SM count."""

    name: str
    compute_capability: str
    warp_size: int
    multiprocessors: int
    driver_api: int


class Context:
    """Device 0's primary context (``CUDA_VISIBLE_DEVICES`` picks the device, as for CuPy),
    made current in every thread that calls :meth:`current`."""

    def __init__(self) -> None:
        from . import cuinit

        cuinit.wait()  # the start ``lassm`` may have begun before its imports: these calls are then cheap
        lib = _lib()
        _check(lib.cuInit(0), "cuInit")
        count = ctypes.c_int()
        _check(lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
        if count.value < 1:
            raise DriverError("no CUDA device")
        self.device = ctypes.c_int()
        _check(lib.cuDeviceGet(ctypes.byref(self.device), 0), "cuDeviceGet")
        self.handle = ctypes.c_void_p()
        _check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.handle), self.device), "cuDevicePrimaryCtxRetain")
        self._local = threading.local()
        self.allocated = 0  # bytes held by live buffers: the high-water mark's source

    def current(self) -> "Context":
        """This context, made current in the calling thread (once per thread)."""
        if not getattr(self._local, "set", False):
            _check(_lib().cuCtxSetCurrent(self.handle), "cuCtxSetCurrent")
            self._local.set = True
        return self

    def _attribute(self, code: int) -> int:
        value = ctypes.c_int()
        _check(_lib().cuDeviceGetAttribute(ctypes.byref(value), code, self.device), "cuDeviceGetAttribute")
        return value.value

    @functools.cached_property
    def facts(self) -> DeviceFacts:
        name = ctypes.create_string_buffer(256)
        _check(_lib().cuDeviceGetName(name, 256, self.device), "cuDeviceGetName")
        version = ctypes.c_int()
        _check(_lib().cuDriverGetVersion(ctypes.byref(version)), "cuDriverGetVersion")
        return DeviceFacts(name.value.decode(), f"{self._attribute(_ATTR_CC_MAJOR)}{self._attribute(_ATTR_CC_MINOR)}",
                           self._attribute(_ATTR_WARP_SIZE), self._attribute(_ATTR_MULTIPROCESSORS), version.value)

    def mem_get_info(self) -> tuple[int, int]:
        """(free, total) device bytes."""
        self.current()
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        _check(_lib().cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), "cuMemGetInfo")
        return free.value, total.value


_CONTEXT: Context | None = None
_CONTEXT_LOCK = threading.Lock()


def context() -> Context:
    """The process's context, made on first use and current in the calling thread."""
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            _CONTEXT = Context()
    return _CONTEXT.current()


def available() -> tuple[bool, str]:
    """Whether the driver answers with a device (no runtime library, no CuPy)."""
    try:
        facts = context().facts
    except DriverError as exc:
        return False, str(exc)
    return True, f"{facts.name}, warp {facts.warp_size}, driver API {facts.driver_api}"


class _Flags:
    c_contiguous = True


class Buffer:
    """Device memory holding ``size`` items of ``dtype``; freed when dropped."""

    flags = _Flags()

    def __len__(self) -> int:
        return self.size

    def __init__(self, size: int, dtype: Any) -> None:
        self.dtype, self.size = np.dtype(dtype), int(size)
        self.nbytes = self.size * self.dtype.itemsize
        self._ctx = context()
        self.ptr = ctypes.c_uint64(0)
        _check(_lib().cuMemAlloc_v2(ctypes.byref(self.ptr), max(self.nbytes, 1)), f"cuMemAlloc ({self.nbytes} bytes)")
        self._ctx.allocated += self.nbytes

    def __del__(self) -> None:
        if getattr(self, "ptr", None) is not None and self.ptr.value:
            try:
                _lib().cuMemFree_v2(self.ptr)
            except Exception:  # at interpreter exit the driver may be gone already
                pass
            self._ctx.allocated -= self.nbytes
            self.ptr = ctypes.c_uint64(0)  # freed: no device address


def empty(size: int, dtype: Any) -> Buffer:
    """Uninitialised device memory (CuPy's ``empty``)."""
    return Buffer(size, dtype)


def zeros(size: int, dtype: Any) -> Buffer:
    """Zeroed device memory (CuPy's ``zeros``)."""
    buf = Buffer(size, dtype)
    if buf.nbytes:
        _check(_lib().cuMemsetD8_v2(buf.ptr, 0, buf.nbytes), "cuMemsetD8")
    return buf


def asarray(host: np.ndarray | Buffer) -> Buffer:
    """A device copy of a host array (CuPy's ``asarray``), C order; a device buffer is itself."""
    if isinstance(host, Buffer):
        return host
    host = np.ascontiguousarray(host)
    buf = Buffer(host.size, host.dtype)
    if buf.nbytes:
        _check(_lib().cuMemcpyHtoD_v2(buf.ptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(buf.nbytes)),
               "cuMemcpyHtoD")
    return buf


def copy_in(buf: Buffer, host: np.ndarray) -> None:
    """Copies a host array into the head of a device buffer of its type (CuPy's ``buf[:n].set``)."""
    host = np.ascontiguousarray(host, dtype=buf.dtype)
    if host.size > buf.size:
        raise ValueError(f"copy_in: {host.size} items into a buffer of {buf.size}")
    if host.nbytes:
        _check(_lib().cuMemcpyHtoD_v2(buf.ptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(host.nbytes)),
               "cuMemcpyHtoD")


def empty_like(buf: Buffer) -> Buffer:
    """Uninitialised device memory of ``buf``'s size and type (CuPy's ``empty_like``)."""
    return Buffer(buf.size, buf.dtype)


def concatenate(bufs: Sequence[Buffer]) -> Buffer:
    """One device buffer holding ``bufs`` one after another (of one type), copied on the device."""
    out = Buffer(sum(b.size for b in bufs), bufs[0].dtype)
    at = out.ptr.value
    for b in bufs:
        if b.dtype != out.dtype:
            raise TypeError(f"concatenate: {b.dtype} after {out.dtype}")
        if b.nbytes:
            _check(_lib().cuMemcpyDtoD_v2(ctypes.c_uint64(at), b.ptr, ctypes.c_size_t(b.nbytes)), "cuMemcpyDtoD")
        at += b.nbytes
    return out


def asnumpy(buf: Buffer) -> np.ndarray:
    """A host copy of a device buffer (CuPy's ``asnumpy``)."""
    host = np.empty(buf.size, dtype=buf.dtype)
    if buf.nbytes:
        context()
        _check(_lib().cuMemcpyDtoH_v2(host.ctypes.data_as(ctypes.c_void_p), buf.ptr, ctypes.c_size_t(buf.nbytes)),
               "cuMemcpyDtoH")
    return host


class Event:
    """A CUDA event on the default stream (CuPy's ``cuda.Event``)."""

    def __init__(self) -> None:
        context()
        self.handle = ctypes.c_void_p()
        _check(_lib().cuEventCreate(ctypes.byref(self.handle), 0), "cuEventCreate")

    def record(self) -> None:
        _check(_lib().cuEventRecord(self.handle, None), "cuEventRecord")

    def synchronize(self) -> None:
        _check(_lib().cuEventSynchronize(self.handle), "cuEventSynchronize")

    def __del__(self) -> None:
        if getattr(self, "handle", None):
            _lib().cuEventDestroy_v2(self.handle)
            self.handle = ctypes.c_void_p()  # destroyed: a null handle


def elapsed_ms(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events (CuPy's ``get_elapsed_time``)."""
    ms = ctypes.c_float()
    _check(_lib().cuEventElapsedTime(ctypes.byref(ms), start.handle, end.handle), "cuEventElapsedTime")
    return float(ms.value)


class _Pool:
    """CuPy's memory pool's one figure the backend records: the bytes held now."""

    @staticmethod
    def used_bytes() -> int:
        return context().allocated

    @staticmethod
    def free_bytes() -> int:
        return 0  # no pool: freed buffers go back to the driver at once


def get_default_memory_pool() -> _Pool:
    return _Pool()


def mem_get_info() -> tuple[int, int]:
    """(free, total) device bytes (CuPy's ``cuda.runtime.memGetInfo``)."""
    return context().mem_get_info()


_SCALARS = {np.dtype(np.int32): ctypes.c_int32, np.dtype(np.int64): ctypes.c_int64,
            np.dtype(np.uint32): ctypes.c_uint32, np.dtype(np.uint64): ctypes.c_uint64,
            np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
            np.dtype(np.uint8): ctypes.c_uint8}


def _argument(value: Any) -> Any:
    if isinstance(value, Buffer):
        return ctypes.c_uint64(value.ptr.value)
    if isinstance(value, np.generic) and value.dtype in _SCALARS:
        return _SCALARS[value.dtype](value.item())
    raise TypeError(f"a kernel argument must be a device Buffer or a sized NumPy scalar, not {type(value).__name__}")


class _CudaNamespace:
    """``cupy.cuda``'s names the backend uses: ``Event`` and ``get_elapsed_time``."""

    Event = Event
    get_elapsed_time = staticmethod(elapsed_ms)


#: So that host code written against CuPy's ``cupy.cuda.Event()`` reads the same with this module.
cuda = _CudaNamespace()


class Function:
    """One kernel of a loaded module, called as CuPy's ``RawKernel``: ``f(grid, block, args, shared_mem=)``."""

    def __init__(self, module: "Module", name: str) -> None:
        self._module = module  # kept alive with the function
        self.handle = ctypes.c_void_p()
        _check(_lib().cuModuleGetFunction(ctypes.byref(self.handle), module.handle, name.encode()),
               f"cuModuleGetFunction {name}")
        self.name = name
        self._max_shared = 48 * 1024

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._max_shared

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes: int) -> None:
        _check(_lib().cuFuncSetAttribute(self.handle, _FUNC_MAX_DYNAMIC_SHARED, int(nbytes)),
               f"cuFuncSetAttribute (max dynamic shared memory {nbytes} bytes)")
        self._max_shared = int(nbytes)

    def __call__(self, grid: Sequence[int], block: Sequence[int], args: Sequence[Any], shared_mem: int = 0) -> None:
        context()
        values = [_argument(a) for a in args]
        params = (ctypes.c_void_p * max(len(values), 1))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p)
                                                           for v in values])
        g = (tuple(int(x) for x in grid) + (1, 1))[:3]
        b = (tuple(int(x) for x in block) + (1, 1))[:3]
        _check(_lib().cuLaunchKernel(self.handle, *g, *b, int(shared_mem), None,
                                     ctypes.cast(params, _P(_VOIDP)), None),
               f"cuLaunchKernel {self.name}")


class Module:
    """A cubin (or PTX) image loaded into the context."""

    def __init__(self, image: bytes) -> None:
        context()
        self.handle = ctypes.c_void_p()
        self._image = ctypes.create_string_buffer(image)  # PTX must end in a NUL byte
        _check(_lib().cuModuleLoadData(ctypes.byref(self.handle), ctypes.cast(self._image, _VOIDP)),
               "cuModuleLoadData")

    def get_function(self, name: str) -> Function:
        return Function(self, name)


def _cache_path(source: str, options: Sequence[str], arch: str) -> Path:
    """Where the cubin of ``source`` built with ``options`` for ``arch`` is kept."""
    key = hashlib.sha256("\0".join([source, *options, arch]).encode()).hexdigest()
    return Path(paths.cache_dir()) / CACHE_FOLDER / f"{key}.cubin"


def cached(source: str, options: Sequence[str], arch: str) -> bool:
    """Whether the cubin of ``source`` with ``options`` for ``arch`` is in the disk cache."""
    return _cache_path(source, options, arch).is_file()


def module_image(source: str, options: Sequence[str], name: str, arch: str) -> bytes:
    """The cubin of ``source`` built with ``options`` for ``arch`` (``sm_90``): from the disk cache
    (keyed by source, options, architecture and NVRTC's file), else compiled by NVRTC and kept
    there atomically. Raises FileNotFoundError without NVRTC on a cache miss."""
    from ..atomic import atomic_open
    from . import nvrtc

    path = _cache_path(source, options, arch)
    if path.is_file():
        return path.read_bytes()
    image, _log = nvrtc.compile_cubin(source, [*options, f"--gpu-architecture={arch}"], name=name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as fh:
        fh.write(image)
    return image


def prebuild(source: str, options: Sequence[str], name: str, arch: str | None = None) -> threading.Thread | None:
    """Builds ``source``'s cubin for ``arch`` (default: this device's) into the disk cache in a
    thread, unless it is there (NVRTC lets go of the GIL while it compiles). A failure is left for
    the load that needs the build to report; the process waits for the build at its exit."""
    arch = arch or f"sm_{context().facts.compute_capability}"
    if _cache_path(source, options, arch).is_file():
        return None

    def build() -> None:
        try:
            module_image(source, tuple(options), name, arch)
        except Exception:  # reported by the load that needs it
            pass

    thread = threading.Thread(target=build, name=f"lassm-prebuild-{name}", daemon=True)
    if not _PREBUILDS:
        atexit.register(join_prebuilds)
    _PREBUILDS.append(thread)
    thread.start()
    return thread


_PREBUILDS: list[threading.Thread] = []


def join_prebuilds() -> None:
    """At exit, the builds still running are waited for: a thread left inside NVRTC while the
    interpreter ends could take the process down with it."""
    for thread in _PREBUILDS:
        thread.join()


@functools.lru_cache(maxsize=None)
def load(source: str, options: tuple[str, ...], name: str, entry: str) -> Function:
    """The kernel ``entry`` of ``source``, built for this device (once per process)."""
    facts = context().facts
    return Module(module_image(source, options, name, f"sm_{facts.compute_capability}")).get_function(entry)


def cache_entries() -> list[Path]:
    """The cubins in the cache (for tests and ``--clean`` style tools)."""
    folder = Path(paths.cache_dir()) / CACHE_FOLDER
    return sorted(folder.glob("*.cubin")) if folder.is_dir() else []


__all__ = ["Buffer", "Context", "DeviceFacts", "DriverError", "Event", "Function", "Module", "asarray", "asnumpy",
           "available", "cache_entries", "cached", "concatenate", "context", "cuda", "elapsed_ms", "empty", "empty_like",
           "copy_in", "get_default_memory_pool", "join_prebuilds", "load", "mem_get_info", "module_image", "prebuild", "zeros"]

# SPDX-License-Identifier: BSD-3-Clause
"""OpenCL command buffers (``cl_khr_command_buffer``): many launches recorded once, enqueued as one.

OpenCL's counterpart of a CUDA graph. pyopencl does not wrap it, so it is reached through the
ICD loader (``clGetExtensionFunctionAddressForPlatform``) on pyopencl's queue and kernels: NDRange
launches chained by sync points, finalized, enqueued whole. A device without the extension
raises :class:`~lassm.backends.suite.common.Refused` with the reason.
"""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

from .common import Refused

EXTENSION = "cl_khr_command_buffer"
_VOID = ctypes.c_void_p
_SIZE = ctypes.c_size_t
_UINT = ctypes.c_uint32
_INT = ctypes.c_int32
#: (name, result, argument types) of the entry points used.
_ENTRIES: dict[str, tuple] = {
    "clCreateCommandBufferKHR": (_VOID, [_UINT, ctypes.POINTER(_VOID), _VOID, ctypes.POINTER(_INT)]),
    "clCommandNDRangeKernelKHR": (_INT, [_VOID, _VOID, _VOID, _VOID, _UINT, ctypes.POINTER(_SIZE), ctypes.POINTER(_SIZE),
                                         ctypes.POINTER(_SIZE), _UINT, ctypes.POINTER(_UINT), ctypes.POINTER(_UINT),
                                         _VOID]),
    "clFinalizeCommandBufferKHR": (_INT, [_VOID]),
    "clEnqueueCommandBufferKHR": (_INT, [_UINT, ctypes.POINTER(_VOID), _VOID, _UINT, _VOID, ctypes.POINTER(_VOID)]),
    "clReleaseCommandBufferKHR": (_INT, [_VOID]),
}


def _loader() -> ctypes.CDLL:
    """The ICD loader pyopencl has loaded (its wheel bundles one), else the system's."""
    import pyopencl  # noqa: F401  (loads it)

    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        for line in maps:
            path = line.split()[-1] if line.strip() else ""
            if "libOpenCL" in path:
                return ctypes.CDLL(path)
    return ctypes.CDLL("libOpenCL.so.1")


def missing(device) -> str | None:
    """Why ``device`` (a pyopencl device) cannot record command buffers, or None."""
    if EXTENSION not in device.extensions.split():
        return f"{device.name.strip()} offers no {EXTENSION} (its extensions: none of that name)"
    return None


class _Api:
    """The extension's entry points for one platform (each of :data:`_ENTRIES`, set by name)."""

    clCreateCommandBufferKHR: Callable[..., int | None]
    clCommandNDRangeKernelKHR: Callable[..., int]
    clFinalizeCommandBufferKHR: Callable[..., int]
    clEnqueueCommandBufferKHR: Callable[..., int]
    clReleaseCommandBufferKHR: Callable[..., int]

    def __init__(self, platform) -> None:
        lib = _loader()
        get = lib.clGetExtensionFunctionAddressForPlatform
        get.restype, get.argtypes = _VOID, [_VOID, ctypes.c_char_p]
        for name, (result, args) in _ENTRIES.items():
            address = get(_VOID(platform.int_ptr), name.encode())
            if not address:
                raise Refused(f"{platform.name.strip()}: {name} not found although {EXTENSION} is offered")
            setattr(self, name, ctypes.CFUNCTYPE(result, *args)(address))


def _check(code: int, what: str) -> None:
    if code != 0:
        raise Refused(f"{what} failed with OpenCL error {code}")


class Recording:
    """NDRange launches recorded on ``queue``, each after the one before; :meth:`enqueue` runs them all."""

    def __init__(self, queue) -> None:
        why = missing(queue.device)
        if why:
            raise Refused(why)
        self._api = _Api(queue.device.platform)
        self._queue = queue
        err = _INT(0)
        handle = _VOID(queue.int_ptr)
        self._buffer = self._api.clCreateCommandBufferKHR(1, ctypes.byref(handle), None, ctypes.byref(err))
        _check(err.value, "clCreateCommandBufferKHR")
        self._last: int | None = None
        self.launches = 0

    def launch(self, kernel, global_size: Sequence[int], local_size: Sequence[int]) -> None:
        """Records ``kernel`` with the arguments it has now (the extension captures them)."""
        dims = len(global_size)
        glob, loc = (_SIZE * dims)(*global_size), (_SIZE * dims)(*local_size)
        point = _UINT(0)
        wait = (_UINT * 1)(self._last) if self._last is not None else None
        _check(self._api.clCommandNDRangeKernelKHR(self._buffer, None, None, _VOID(kernel.int_ptr), dims, None, glob, loc,
                                                   0 if wait is None else 1, wait, ctypes.byref(point), None),
               "clCommandNDRangeKernelKHR")
        self._last = point.value
        self.launches += 1

    def finalize(self) -> Recording:
        """Ends the recording; it can then be enqueued any number of times."""
        _check(self._api.clFinalizeCommandBufferKHR(self._buffer), "clFinalizeCommandBufferKHR")
        return self

    def enqueue(self):
        """Every recorded launch, as one command on the queue: its pyopencl event."""
        import pyopencl as cl

        event = _VOID(0)
        handle = _VOID(self._queue.int_ptr)
        _check(self._api.clEnqueueCommandBufferKHR(1, ctypes.byref(handle), self._buffer, 0, None, ctypes.byref(event)),
               "clEnqueueCommandBufferKHR")
        return cl.Event.from_int_ptr(event.value, retain=False)

    def release(self) -> None:
        """Frees the recording."""
        if self._buffer:
            self._api.clReleaseCommandBufferKHR(self._buffer)
            self._buffer = None


__all__ = ["EXTENSION", "Recording", "missing"]

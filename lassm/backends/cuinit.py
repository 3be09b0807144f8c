# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA driver's start (``cuInit`` and the primary context), begun first thing in a thread.

It overlaps the command line's imports. Imports only ctypes, threading and :mod:`lassm.timeline`,
so it can run first (:mod:`lassm.__main__`). :class:`lassm.backends.cudadrv.Context` waits for it;
a failure here costs only time, and is reported there.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Sequence

from .. import timeline

_THREAD: threading.Thread | None = None

#: The driver's hardware work queues per context (CUDA's default: 8). ``lassm`` launches on one
#: stream, so one queue serves it, and a context with one is quicker to make and to tear down:
#: on the H100 node 0.18 s instead of 0.22 s to make and 0.06 s instead of 0.12 s for the
#: process to end. A value the user set is kept.
CONNECTIONS_ENV = "CUDA_DEVICE_MAX_CONNECTIONS"


def _start() -> None:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        if lib.cuInit(0) != 0:
            return
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if lib.cuDeviceGet(ctypes.byref(device), 0) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
            timeline.mark("driver")
    except OSError:  # no driver here: the backend's probe says so
        pass


def one_shot(argv: Sequence[str]) -> bool:
    """Whether ``lassm argv`` is ``extend`` or ``xdrop align`` run in this process, not on a Dask
    cluster (whose workers start their own driver, and whose client closes at exit)."""
    args = list(argv)
    if not (args[:1] == ["extend"] or args[:2] == ["xdrop", "align"]):
        return False
    return not any(a == "--cluster" or a.startswith("--cluster=") for a in args)


def wanted(argv: Sequence[str]) -> bool:
    """Whether ``lassm argv`` will use the CUDA driver in this process: a :func:`one_shot`
    command with ``--backend cuda`` (not on a cluster: a driver started before the cluster forks
    its processes is one they must not inherit), unless CuPy is asked for."""
    args = list(argv)
    # read here, raw (lassm.settings checks it once the command line starts): nothing more is imported yet
    if not one_shot(args) or os.environ.get("LASSM_CUDA_RUNTIME", "").strip().lower() == "cupy":
        return False
    return any(a == "--backend=cuda" or (a == "--backend" and b == "cuda") for a, b in zip(args, args[1:] + [""]))


def start_early(argv: Sequence[str]) -> bool:
    """Starts the driver in a daemon thread when :func:`wanted`, with one work queue
    (:data:`CONNECTIONS_ENV`) unless the environment names a number; returns whether it did."""
    global _THREAD
    if _THREAD is not None or not wanted(argv):
        return False
    os.environ.setdefault(CONNECTIONS_ENV, "1")  # read by cuInit, in this process only
    _THREAD = threading.Thread(target=_start, name="lassm-cuinit", daemon=True)
    _THREAD.start()
    return True


def wait() -> None:
    """Waits for the early start, if one was begun."""
    if _THREAD is not None:
        _THREAD.join()

# SPDX-License-Identifier: BSD-3-Clause
"""The device lock: a point's timed runs hold the device they time, or say they shared it.

:func:`hold_device` holds an exclusive ``flock`` named for the device (:func:`device_identity`)
around a point's runs, waiting up to :data:`DEVICE_WAIT_SECONDS` (``LASSM_DEVICE_WAIT``); past
that, the point is timed anyway and recorded ``shared_device``, which the book leaves out. Lock
files live in a per-user runtime folder (:func:`lock_dir`), since a results folder may be shared
by hosts; so another user's runs go unseen.
"""
from __future__ import annotations

from .. import settings

import contextlib
import fcntl
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

#: Seconds a point waits for a device another process holds before timing it anyway, marked shared.
DEVICE_WAIT_SECONDS = 600.0
#: Environment variable that replaces :data:`DEVICE_WAIT_SECONDS` (tests use a short wait).
WAIT_ENV = "LASSM_DEVICE_WAIT"
#: Environment variable naming the folder of the lock files instead of :func:`lock_dir`'s default.
LOCK_DIR_ENV = "LASSM_LOCK_DIR"
#: Seconds between two tries of a held lock: short, so a waiter takes the lock in the gap between
#: the holder's points (its record being written) rather than the holder taking it straight back.
POLL_SECONDS = 0.01
#: Environment variables that choose which GPU is device 0 of a process, per runtime.
VISIBLE_ENV: tuple[str, ...] = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                "GPU_DEVICE_ORDINAL", "ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR")


@dataclass
class Hold:
    """What :func:`hold_device` got: ``shared`` when the lock could not be taken, and the wait."""

    device: str
    shared: bool = False
    waited_seconds: float = 0.0


def wait_seconds() -> float:
    """:data:`DEVICE_WAIT_SECONDS`, or ``LASSM_DEVICE_WAIT`` where set (seconds, not negative)."""
    seconds = settings.value(WAIT_ENV)
    return DEVICE_WAIT_SECONDS if seconds is None else seconds


def lock_dir() -> Path:
    """``LASSM_LOCK_DIR``, else ``$XDG_RUNTIME_DIR/lassm-devices``, else ``<tmp>/lassm-devices-<uid>``.

    A folder of this host and this user: never the results tree, which other hosts may share."""
    named = settings.value(LOCK_DIR_ENV)
    if named is not None:
        folder = named
    elif os.environ.get("XDG_RUNTIME_DIR") and os.access(os.environ["XDG_RUNTIME_DIR"], os.W_OK):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "lassm-devices"
    else:
        folder = Path(tempfile.gettempdir()) / f"lassm-devices-{os.getuid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def _selected_gpu() -> str:
    """Which GPU the runtimes take as device 0: the first entry of the first visible-devices
    variable set (an index or a UUID), ``0`` where none is set."""
    for name in VISIBLE_ENV:
        value = os.environ.get(name, "").strip()
        if value:
            return f"{name.lower()}-{value.split(',')[0]}"
    return "0"


def device_identity(backend: str) -> str:
    """The lock's name for the device ``backend`` runs on here: the CPU's model for the CPU (and a
    backend on a CPU driver), else the GPU's name and which GPU of the host it is.

    Why the index too: two campaigns on two GPUs of one model do not share a device."""
    from ..paths import slug
    from .devices import cpu_model, device_kind

    if backend == "cpu" or device_kind(backend) == "cpu":
        return "cpu-" + slug(cpu_model())
    from .. import backends

    try:
        name = getattr(backends.get(backend), "device_name", lambda: "")() or backend
    except Exception:  # noqa: BLE001 - the run itself will say why the backend cannot run
        name = backend
    return f"gpu-{slug(name)}-{slug(_selected_gpu())}"


def lock_path(device: str) -> Path:
    """The lock file of ``device`` (a :func:`device_identity`)."""
    return lock_dir() / f"{device}.lock"


@contextlib.contextmanager
def hold_device(device: str, wait: float | None = None) -> Iterator[Hold]:
    """Holds the exclusive lock of ``device`` (a :func:`device_identity`) for the block, waiting up to
    ``wait`` seconds (default :func:`wait_seconds`).

    The block runs either way; the yielded :class:`Hold` says ``shared`` when another process kept
    the lock. The lock file is kept, since unlinking would let a waiter lock a replaced name."""
    wait = wait_seconds() if wait is None else max(0.0, float(wait))
    hold = Hold(device)
    fd = os.open(lock_path(device), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        start = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - start >= wait:
                    hold.shared = True
                    break
                time.sleep(POLL_SECONDS)
        hold.waited_seconds = time.monotonic() - start
        yield hold
    finally:
        os.close(fd)  # releases the lock, where it was taken


__all__ = ["DEVICE_WAIT_SECONDS", "Hold", "LOCK_DIR_ENV", "WAIT_ENV", "device_identity", "hold_device",
           "lock_dir", "lock_path", "wait_seconds"]

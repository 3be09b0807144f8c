# SPDX-License-Identifier: BSD-3-Clause
"""What a run says of the device it ran on: the CPU's model, and whether a backend ran on a GPU or a
CPU here. Apart from the records so that the device lock, which the records take, names devices
the same way without importing them."""
from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU's model name, as ``/proc/cpuinfo`` gives it (else the platform's words)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_kind(backend: str) -> str:
    """``cpu`` or ``gpu``: what ``backend`` ran on here (OpenCL and SYCL may have found a CPU driver)."""
    if backend == "cpu":
        return "cpu"
    from .. import backends

    try:
        return str(getattr(backends.get(backend), "device_kind", lambda: "gpu")())
    except Exception:  # noqa: BLE001 - a backend that cannot say is read from the device name later
        return ""


__all__ = ["cpu_model", "device_kind"]

# SPDX-License-Identifier: BSD-3-Clause
"""Backend registry: every backend module has the same ``extend_side`` signature.

A backend whose runtime or device is missing resolves to a stub raising
:class:`~lassm.errors.BackendUnavailable` that names what to install, never an import crash.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import BackendUnavailable, LassmError

#: name -> (module, pip extra that provides its runtime), in order of preference for "best".
BACKENDS: dict[str, tuple[str, str]] = {
    "cuda": ("lassm.backends.cuda", "cuda12 or cuda13"),
    "hip": ("lassm.backends.hip", "rocm"),
    "sycl": ("lassm.backends.sycl", "intel"),
    "opencl": ("lassm.backends.opencl", "opencl"),
    "opencl-ptx": ("lassm.backends.opencl_ptx", "opencl"),
    "hip-cpu": ("lassm.backends.hip_cpu", "cpu"),
    "cpu": ("lassm.backends.cpu", "cpu"),
}


def load(registry: dict[str, tuple[str, str]], name: str, what: str, missing: str) -> ModuleType:
    """The module ``registry`` names for ``name``, imported and asked whether it can run here (both
    registries resolve this way); else raises BackendUnavailable, ``what`` naming the kind and
    ``missing`` (``{}``: the registry's second field) what to install."""
    if name not in registry:
        raise BackendUnavailable(f"unknown {what} {name!r}; choose one of {', '.join(registry)}")
    module_name, needs = registry[name]
    try:
        mod = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendUnavailable(f"{what} {name!r} is not installed ({exc}); {missing.format(needs)}") from None
    ok, why = mod.available()
    if not ok:
        raise BackendUnavailable(f"{what} {name!r} cannot run here: {why}")
    return mod


def get(name: str) -> ModuleType:
    """Returns the backend module ``name``; raises BackendUnavailable when it cannot run here."""
    return load(BACKENDS, name, "backend", "install it with: pip install 'lassm[{}]'")


#: Where each backend's builds are listed (the module and its name for them), the same list as
#: the backend module's ``PROTOCOLS`` (a test checks): the OpenCL and SYCL modules import pyopencl
#: and dpctl with themselves, which checking ``--protocol`` should not pay (0.1 s or more).
PROTOCOL_LISTS: dict[str, tuple[str, str]] = {
    "cuda": ("lassm.backends.nvrtc", "BUILDS"),
    "hip": ("lassm.backends.hip", "PROTOCOLS"),
    "sycl": ("lassm.backends.clplan", "BUILD_MACROS"),
    "opencl": ("lassm.backends.clplan", "BUILD_MACROS"),
    "opencl-ptx": ("lassm.backends.clplan", "BUILD_MACROS"),
    "hip-cpu": ("lassm.backends.hip_cpu", "PROTOCOLS"),
}


def protocols(name: str) -> tuple[str, ...]:
    """The insert protocols (and builds) of backend ``name``, default first; ``("none",)`` for the CPU.

    Read from :data:`PROTOCOL_LISTS`, which import without any runtime, so a command line is checked
    fast and also where the backend is missing."""
    if name not in BACKENDS:
        raise BackendUnavailable(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "cpu":
        return ("none",)
    module, attribute = PROTOCOL_LISTS[name]
    return tuple(getattr(importlib.import_module(module), attribute))


def all_protocols() -> tuple[str, ...]:
    """Every protocol name some backend builds, in backend order, each once."""
    return tuple(dict.fromkeys(p for name in BACKENDS for p in protocols(name)))


def check_protocol(backend: str, protocol: str, option: str = "--protocol") -> None:
    """Refuses a ``protocol`` that ``backend`` does not build, listing those it does; ``option``
    names the command-line option in the message."""
    builds = protocols(backend)
    if protocol not in builds:
        raise LassmError(f"{option} {protocol}: the {backend} backend does not build it; "
                         f"it builds {', '.join(builds)}")


def status() -> dict[str, tuple[bool, str]]:
    """Whether each backend can run on this machine, and why (not)."""
    out = {}
    for name in BACKENDS:
        try:
            mod = get(name)
            out[name] = mod.available()
        except BackendUnavailable as exc:
            out[name] = (False, str(exc))
    return out


def best() -> str:
    """The most capable backend present: a GPU one when a GPU answers, else ``cpu`` (a GPU-style
    backend on a CPU device is not "best": the numba oracle is the CPU backend)."""
    for name in BACKENDS:
        if name == "cpu":
            continue
        try:
            mod = get(name)
        except BackendUnavailable:
            continue
        if getattr(mod, "device_kind", lambda: "gpu")() != "cpu":
            return name
    return "cpu"

# SPDX-License-Identifier: BSD-3-Clause
"""The OpenCL kernel's own PTX, launched by the CUDA driver, so that Nsight Compute can count it.

Nsight Compute profiles no OpenCL launch. NVIDIA's OpenCL program binary is PTX, so this backend
builds ``portable.cl`` as :mod:`lassm.backends.opencl` does, loads the PTX with CuPy and launches
it with the same arguments and geometry. The one change: reads of driver-set registers
(``%envreg``, ``%nctaid``), which a CUDA launch does not set, become constants
(:func:`cuda_ptx`). Outputs are checked against the oracle like every backend's. Only on an NVIDIA
GPU whose OpenCL driver pyopencl finds.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import clhost, clplan, opencl
from .sides import Choices, Side

PROTOCOLS = opencl.PROTOCOLS  # portable.cl's four protocols and fast.cl
DEFAULT_PROTOCOL = opencl.DEFAULT_PROTOCOL
DEFAULT_TEAM = opencl.DEFAULT_TEAM
_FUNCTIONS: dict[tuple, object] = {}


def available() -> tuple[bool, str]:
    """Whether CuPy with a CUDA device and NVIDIA's OpenCL driver are both here."""
    from . import cuda

    ok, why = cuda.available()
    if not ok:
        return False, why
    ok, cl_why = opencl.available()
    if not ok:
        return False, cl_why
    name = opencl.device_name()
    if "nvidia" not in name.lower():
        return False, f"the OpenCL device is {name}, not an NVIDIA GPU: its binary is no PTX"
    return True, f"{cl_why}; PTX launched by CuPy"


def device_name() -> str:
    """The GPU's name, so that these runs are filed with its CUDA and OpenCL runs."""
    return opencl.device_name()


def device_kind() -> str:
    """Always a GPU (:func:`available` refuses anything else)."""
    return "gpu"


def ptx(options: tuple[str, ...], kernel: str = opencl.KERNEL) -> str:
    """The PTX NVIDIA's OpenCL compiler emits for ``kernel`` (``portable.cl`` or ``fast.cl``) built
    with ``options``."""
    binary = opencl.program(options, kernel).get_info(opencl.cl.program_info.BINARIES)[0]
    return bytes(binary).rstrip(b"\0").decode("ascii")


#: ``mov`` of a driver-defined environment register: how NVIDIA's OpenCL passes its NDRange.
_ENVREG = re.compile(r"\bmov\.(b32|u32|s32)(\s+%r\d+,\s*)%envreg(\d+);")
#: What each register holds, as the compiler's uses show (``get_group_id(d)`` adds ``envreg<d>`` to
#: ``%ctaid``; ``get_global_id(d)`` adds ``envreg<3+d>``; ``get_global_size(d)`` multiplies
#: ``envreg<6+d>`` by ``%ntid``): the work-group and global offsets, 0 in a launch without either,
#: and the work-groups per dimension, which one CUDA launch of the whole range has in ``%nctaid``.
_ENVREG_VALUE = {0: "0", 1: "0", 2: "0", 3: "0", 4: "0", 5: "0", 6: "%nctaid.x", 7: "%nctaid.y", 8: "%nctaid.z"}


def cuda_ptx(text: str) -> tuple[str, int]:
    """The OpenCL PTX with each read of an environment register replaced by its value in a CUDA
    launch of the whole range (:data:`_ENVREG_VALUE`), and the count; raises ValueError for
    ``%envreg`` elsewhere or an unknown register."""
    def value(m: re.Match) -> str:
        reg = int(m.group(3))
        if reg not in _ENVREG_VALUE:
            raise ValueError(f"the OpenCL PTX reads %envreg{reg}, whose meaning is not known: {m.group(0)}")
        kind = "u32" if _ENVREG_VALUE[reg].startswith("%") else m.group(1)
        return f"mov.{kind}{m.group(2)}{_ENVREG_VALUE[reg]};"

    patched, count = _ENVREG.subn(value, text)
    if "%envreg" in patched:
        line = next(ln for ln in patched.splitlines() if "%envreg" in ln)
        raise ValueError(f"the OpenCL PTX reads an environment register in a way not patched: {line.strip()}")
    return patched, count


def load(text: str, entry: str):
    """``entry`` of an OpenCL program binary's PTX ``text``, patched by :func:`cuda_ptx` and loaded
    into the current CUDA context by CuPy."""
    import tempfile

    import cupy

    with tempfile.TemporaryDirectory(prefix="lassm-clptx-") as tmp:
        path = Path(tmp) / "kernel.ptx"
        path.write_text(cuda_ptx(text)[0])
        # CuPy loads the file at the first get_function: while it is still there.
        return cupy.RawModule(path=str(path)).get_function(entry)


def _function(options: tuple[str, ...], kernel: str = opencl.KERNEL):
    """The kernel of that PTX, loaded into the current CUDA context (memoized)."""
    import cupy

    key = (cupy.cuda.Device().id, options, kernel)
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = load(ptx(options, kernel), opencl.ENTRY)
    return _FUNCTIONS[key]


class _Cuda(clhost.Runtime):
    """The shared host's runtime calls (:class:`lassm.backends.clhost.Runtime`) in CuPy, on the
    GPU whose OpenCL driver built the program (``device``: pyopencl's, for its facts)."""

    backend = "opencl-ptx"
    timer = "CUDA events"

    def __init__(self, opencl_device) -> None:
        self.device, self.key64, self.fp64 = opencl_device.device, opencl_device.key64, opencl_device.fp64

    @property
    def name(self) -> str:
        return self.device.name.strip()

    def memory(self) -> tuple[int, int]:
        """(total, free): the budget is :data:`lassm.backends.clhost.MEMORY_FRACTION` of the total, at
        most what is free."""
        import cupy

        free, total = cupy.cuda.runtime.memGetInfo()
        return int(total), int(free)

    def upload(self, arr: np.ndarray):
        import cupy

        arr = np.ascontiguousarray(arr)
        return cupy.asarray(arr) if arr.nbytes else cupy.zeros(1, dtype=np.uint8)

    def alloc(self, nbytes: int):
        import cupy

        return cupy.empty(max(int(nbytes), 1), dtype=np.uint8)

    def launch(self, kernel, args: list, gsize: int, lsize: int):
        """``gsize // lsize`` blocks of ``lsize`` threads between two CUDA events."""
        import cupy

        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        kernel((gsize // lsize,), (lsize,), tuple(args))
        end.record()
        return start, end

    def zero(self, buf, nbytes: int) -> None:
        buf[:nbytes] = 0

    def wait(self) -> None:
        import cupy

        cupy.cuda.Device().synchronize()

    def download(self, buf, arr: np.ndarray) -> None:
        if arr.nbytes:
            arr[...] = buf.get()

    def event_seconds(self, event) -> float:
        import cupy

        return cupy.cuda.get_elapsed_time(*event) / 1000.0


def extend_side(side: Side, protocol: str = DEFAULT_PROTOCOL, team: int = DEFAULT_TEAM,
                max_bytes: int | None = None, block_team: int = opencl.DEFAULT_BLOCK_TEAM) -> SideResult:
    """Walks one side as :func:`lassm.backends.opencl.extend_side` does (64-bit keys, double-precision
    vote), launched through CUDA; ``kernel_seconds`` sums CUDA event times."""
    import cupy

    rt = _Cuda(opencl._device())
    given, params = side, side.params
    side = replace(side, run_mask=np.ascontiguousarray(side.run_mask, dtype=np.bool_))
    choices = Choices(protocol, max_bytes)
    team, block_team = int(team), int(block_team)
    versions = SideFigures(pyopencl=opencl.cl.VERSION_TEXT, cupy=cupy.__version__)
    if protocol == clplan.FAST:
        def fast(width: int, use_fp64: bool):
            options = opencl.build_options(clplan.FAST, width, True, use_fp64, int(params.max_walk),
                                           params.qual_offset)
            return options, _function(options, opencl.FAST_KERNEL)

        lanes = replace(versions, team=team, block_team=block_team, warp_size=team)
        return clhost.extend_fast(rt, side, choices, (team, block_team), fast, lanes)
    clplan.check_inputs(given.ctg_seqs, given.ctg_off, given.depths, given.reads, given.run_mask, protocol)
    if not 1 <= team <= 1024:
        raise ValueError(f"team {team} must lie in 1..1024")

    def build(key64: bool, use_fp64: bool):
        options = opencl.build_options(protocol, team, key64, use_fp64, int(params.max_walk), params.qual_offset)
        return options, _function(options), team

    return clhost.extend_bins(rt, side, choices, build,
                              lambda width: (replace(versions, team=width, warp_size=width), (1, width)))


#: Whether a protocol walks both sides at once (``fast``, as on the opencl backend), and the call that does.
one_launch = clplan.one_launch
extend_sides = clplan.sides_of(extend_side)

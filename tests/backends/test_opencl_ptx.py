# SPDX-License-Identifier: BSD-3-Clause
"""The OpenCL compiler's PTX launched through CUDA (backend ``opencl-ptx``) against the oracle.

It needs an NVIDIA GPU with CuPy and NVIDIA's OpenCL driver (installed with the GPU driver; the
backend finds it, :mod:`lassm.backends.icd`); elsewhere every test but the first skips with the reason.
"""
from __future__ import annotations

import pytest

from lassm import Params, backends, extend, paths
from lassm.backends import opencl_ptx
from lassm.workloads.local_assembly import formats
from lassm.workloads.local_assembly.generate import generate

OK, WHY = opencl_ptx.available()
needs_it = pytest.mark.skipif(not OK, reason=f"needs CuPy, an NVIDIA GPU and its OpenCL driver: {WHY}")


def test_unavailable_is_one_clear_line() -> None:
    if OK:
        pytest.skip("the backend runs here")
    with pytest.raises(backends.BackendUnavailable, match="opencl-ptx"):
        backends.get("opencl-ptx")


@needs_it
def test_the_binary_is_ptx() -> None:
    from lassm.backends import opencl

    text = opencl_ptx.ptx(opencl.build_options("casptr", 32, True, True, 300, 33))
    assert ".entry iterative_walks_kernel" in text and ".target sm_" in text


@needs_it
@pytest.mark.parametrize("protocol", opencl_ptx.PROTOCOLS)
@pytest.mark.parametrize("k", [21, 33, 55, 77])
def test_equals_the_oracle(protocol: str, k: int) -> None:
    ds = generate(k, 0.05, 0)
    want = extend(ds, Params(k=k), backend="cpu")
    got = extend(ds, Params(k=k), backend="opencl-ptx", protocol=protocol)
    assert got.compare(want) == [] and got.lines() == want.lines()


@needs_it
def test_the_sample_equals_the_oracle() -> None:
    ds = formats.read_dat(paths.sample("k77"))
    want = extend(ds, Params(k=77), backend="cpu")
    assert extend(ds, Params(k=77), backend="opencl-ptx").lines() == want.lines()


def test_envreg_reads_become_zero() -> None:
    text = "\tmov.u32 \t%r173, %ctaid.x;\n\tmov.b32 \t%r174, %envreg0;\n\tadd.s32 \t%r1, %r174, %r173;\n"
    patched, count = opencl_ptx.cuda_ptx(text)
    assert count == 1 and "mov.b32 \t%r174, 0;" in patched and "%ctaid.x" in patched
    assert opencl_ptx.cuda_ptx("add.s32 %r1, %r2, %r3;\n") == ("add.s32 %r1, %r2, %r3;\n", 0)
    with pytest.raises(ValueError, match="envreg"):
        opencl_ptx.cuda_ptx("add.s32 %r1, %envreg3, %r2;\n")


def test_the_global_size_register_becomes_the_launchs_block_count() -> None:
    """``get_global_size(0)`` is ``%envreg6 * %ntid.x`` in NVIDIA's OpenCL PTX: a grid-stride loop
    read as 0 would never end."""
    text = "\tmov.b32 \t%r12, %envreg6;\n\tmov.b32 \t%r6, %envreg3;\n\tmov.b32 \t%r7, %envreg8;\n"
    patched, count = opencl_ptx.cuda_ptx(text)
    assert count == 3
    assert patched == "\tmov.u32 \t%r12, %nctaid.x;\n\tmov.b32 \t%r6, 0;\n\tmov.u32 \t%r7, %nctaid.z;\n"
    with pytest.raises(ValueError, match="envreg9"):
        opencl_ptx.cuda_ptx("\tmov.b32 \t%r1, %envreg9;\n")


def test_launch_and_finish_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The launch bookkeeping shared by the faithful and the fast path, on a stand-in for CuPy:
    each launch between its two events, outputs copied back, times summed in milliseconds / 1000."""
    import sys
    import types

    import numpy as np

    from lassm.workloads.local_assembly.result import SideResult

    clock = iter(range(100))

    class Event:
        def record(self):
            self.t = next(clock)

    class Buf:
        def __init__(self, arr):
            self.arr, self.nbytes = arr, arr.nbytes

        def get(self):
            return self.arr

    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Event=Event, Device=lambda: types.SimpleNamespace(synchronize=lambda: None),
        get_elapsed_time=lambda a, b: float(b.t - a.t)))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    from lassm.backends import clhost
    from lassm.workloads.local_assembly.figures import SideFigures

    calls = []
    rt = opencl_ptx._Cuda(types.SimpleNamespace(device=None, key64=True, fp64=True))
    events = [rt.launch(lambda g, b, a: calls.append((g, b, a)), ["x"], 96, 32),
              rt.launch(lambda g, b, a: calls.append((g, b, a)), ["y"], 128, 128)]
    assert calls == [((3,), (32,), ("x",)), ((1,), (128,), ("y",))]
    out = SideResult.empty(2, 4)
    out.extra = SideFigures(launches=[{}, {}])
    result = np.zeros(2, dtype=np.int32)
    got = clhost.finish(rt, out, 0.0, events, [result], [Buf(np.array([7, 9], dtype=np.int32))], 16)
    assert result.tolist() == [7, 9] and [r["seconds"] for r in got.extra.launches] == [0.001, 0.001]
    assert got.extra.timer == "CUDA events"
    assert got.kernel_seconds == pytest.approx(0.002) and got.extra.mem_high_water_bytes == 16

# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA driver through ctypes (``lassm.backends.cudadrv``): its cubin cache, the runtime
choice, and, on a GPU, the driver path against CuPy's and a whole command that imports no CuPy.

The cache's tests need NVRTC only (no GPU): a cubin built once is read back from disk, and a
changed source is built again (the key covers it). On a GPU node the fast kernels' results on
the driver must equal CuPy's and the oracle's, byte for byte.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from lassm.backends import cuda, cuda_runtime, cudadrv, nvrtc
from lassm.backends.sides import Side
from lassm.paths import kernel_source
from lassm.errors import LassmError

needs_nvrtc = pytest.mark.skipif(nvrtc.find_library() is None, reason="NVRTC is not installed")
SEGMENTS = kernel_source("local_assembly/cuda/segments.cu").read_text()


@needs_nvrtc
def test_a_cubin_is_built_once_then_read_from_the_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path))
    first = cudadrv.module_image(SEGMENTS, ("--std=c++14",), "segments.cu", "sm_90")
    assert first[:4] == b"\x7fELF" and len(cudadrv.cache_entries()) == 1

    def no_compiler(*_a, **_k):
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "compile_cubin", no_compiler)
    assert cudadrv.module_image(SEGMENTS, ("--std=c++14",), "segments.cu", "sm_90") == first
    with pytest.raises(AssertionError, match="compiled again"):  # another source is another key
        cudadrv.module_image(SEGMENTS + "\n// changed\n", ("--std=c++14",), "segments.cu", "sm_90")
    with pytest.raises(AssertionError, match="compiled again"):  # another architecture too
        cudadrv.module_image(SEGMENTS, ("--std=c++14",), "segments.cu", "sm_80")


@needs_nvrtc
def test_a_prebuild_fills_the_cache_once(tmp_path, monkeypatch) -> None:
    """The build a later command needs is made beside this one: after it, the cubin is cached
    and a second prebuild starts nothing; a broken source leaves nothing and raises nowhere."""
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path))
    thread = cudadrv.prebuild(SEGMENTS, ("--std=c++14",), "segments.cu", arch="sm_90")
    assert thread is not None
    thread.join()
    assert len(cudadrv.cache_entries()) == 1
    assert cudadrv.prebuild(SEGMENTS, ("--std=c++14",), "segments.cu", arch="sm_90") is None
    broken = cudadrv.prebuild("not CUDA", (), "bad.cu", arch="sm_90")
    broken.join()
    assert len(cudadrv.cache_entries()) == 1


@needs_nvrtc
def test_a_broken_source_leaves_nothing_in_the_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path))
    with pytest.raises(nvrtc.NvrtcError):
        cudadrv.module_image("this is not CUDA", (), "bad.cu", "sm_90")
    assert cudadrv.cache_entries() == []


def test_the_runtime_follows_the_protocol_and_the_variable(monkeypatch) -> None:
    sentinel = object()
    monkeypatch.setattr(cuda_runtime, "cupy_module", lambda: sentinel)
    monkeypatch.setattr(cuda_runtime, "nvrtc_found", lambda: True)
    monkeypatch.delenv(cuda.RUNTIME_ENV, raising=False)
    assert cuda.runtime_for("fast") is cudadrv and cuda.runtime_for("casptr") is sentinel
    assert cuda.runtime_for("fast", hip=True) is sentinel
    monkeypatch.setenv(cuda.RUNTIME_ENV, "cupy")
    assert cuda.runtime_for("fast") is sentinel and cuda.lean_runtime() is sentinel
    monkeypatch.setenv(cuda.RUNTIME_ENV, "driver")
    assert cuda.runtime_for("casptr") is cudadrv
    monkeypatch.setenv(cuda.RUNTIME_ENV, "nvcc")
    with pytest.raises(LassmError, match="want driver or cupy"):
        cuda.runtime_for("fast")
    monkeypatch.delenv(cuda.RUNTIME_ENV)
    monkeypatch.setattr(cuda_runtime, "nvrtc_found", lambda: False)  # no NVRTC: no cubins, CuPy builds
    assert cuda.runtime_for("fast") is sentinel


@pytest.mark.parametrize("argv, wanted", [
    (["extend", "in.dat", "--backend", "cuda", "--protocol", "fast", "--out", "o"], True),
    (["extend", "in.dat", "--backend=cuda", "--out", "o"], True),
    (["xdrop", "align", "p.parquet", "--backend", "cuda", "--out", "o"], True),
    (["extend", "in.dat", "--backend", "cpu", "--out", "o"], False),
    (["extend", "in.dat", "--out", "cuda"], False),  # a file named cuda is no backend
    (["extend", "in.dat", "--backend", "cuda", "--cluster", "local-cuda:2", "--out", "o"], False),
    (["xdrop", "generate", "--backend", "cuda"], False),
    (["run", "--backend", "cuda"], False),
    ([], False),
])
def test_the_driver_starts_early_only_for_its_commands(argv, wanted, monkeypatch) -> None:
    from lassm.backends import cuinit

    monkeypatch.delenv(cuda.RUNTIME_ENV, raising=False)
    assert cuinit.wanted(argv) is wanted
    monkeypatch.setenv(cuda.RUNTIME_ENV, "cupy")
    assert cuinit.wanted(argv) is False


@pytest.mark.parametrize("preset, expect", [(None, "1"), ("4", "4")])
def test_an_early_start_asks_for_one_work_queue_unless_told(preset, expect, monkeypatch) -> None:
    """One stream, one hardware queue: set before cuInit in the command's process, and a number
    the user chose is kept. (The thread's driver calls fail quietly where there is no GPU.)"""
    from lassm.backends import cuinit

    monkeypatch.delenv(cuda.RUNTIME_ENV, raising=False)
    monkeypatch.setattr(cuinit, "_THREAD", None)
    if preset is None:
        monkeypatch.delenv(cuinit.CONNECTIONS_ENV, raising=False)
    else:
        monkeypatch.setenv(cuinit.CONNECTIONS_ENV, preset)
    assert cuinit.start_early(["extend", "in.dat", "--backend", "cuda", "--out", "o"]) is True
    cuinit.wait()
    assert os.environ[cuinit.CONNECTIONS_ENV] == expect
    monkeypatch.setattr(cuinit, "_THREAD", None)
    monkeypatch.delenv(cuinit.CONNECTIONS_ENV, raising=False)
    assert cuinit.start_early(["extend", "in.dat", "--out", "o"]) is False  # the CPU: the driver's queues untouched
    assert cuinit.CONNECTIONS_ENV not in os.environ


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed here")
def test_a_cupy_protocol_without_cupy_names_what_to_install() -> None:
    """The runtime is chosen before the probe runs: CuPy's absence must still come out as the
    probe's one line naming the package, not as an ImportError."""
    from lassm.errors import BackendUnavailable
    from lassm.workloads.local_assembly import datasets
    from lassm.workloads.local_assembly.config import Params

    ds, k = datasets.load("sample-k21")
    with pytest.raises(BackendUnavailable, match="CuPy is not installed.*pip install"):
        cuda.extend_side_gpu(Side(ds.seqs, ds.offsets, ds.depths, ds.right, ds.with_reads_mask(), Params(k=k)),
                             protocol="casptr")


def test_a_kernel_argument_must_have_a_size() -> None:
    with pytest.raises(TypeError, match="sized NumPy scalar"):
        cudadrv._argument(3)
    assert cudadrv._argument(np.int32(-2)).value == -2 and cudadrv._argument(np.float64(0.5)).value == 0.5


# ---------------------------------------------------------------- on a GPU

_OK, _WHY = cuda.available()


@pytest.mark.gpu
@pytest.mark.skipif(not _OK, reason=f"no CUDA device: {_WHY}")
def test_buffers_round_trip_and_segments_match_the_host() -> None:
    from lassm.backends import device_segments
    from lassm.runs.extend import revcomp_contigs
    from lassm.workloads.local_assembly import formats
    from lassm import paths

    host = np.arange(1000, dtype=np.int64) * 7 - 3
    assert np.array_equal(cudadrv.asnumpy(cudadrv.asarray(host)), host)
    assert not cudadrv.asnumpy(cudadrv.zeros(33, np.uint8)).any()
    both = cudadrv.asnumpy(cudadrv.concatenate([cudadrv.asarray(host[:10]), cudadrv.asarray(host[10:])]))
    assert np.array_equal(both, host)
    ds = formats.read_dataset(str(paths.sample("k77")))
    got = cudadrv.asnumpy(device_segments.revcomp(cudadrv.asarray(ds.seqs), ds.offsets, rt=cudadrv))
    assert np.array_equal(got, revcomp_contigs(ds))


@pytest.mark.gpu
@pytest.mark.skipif(not _OK, reason=f"no CUDA device: {_WHY}")
@pytest.mark.parametrize("protocol", ("fast", "casptr"))
def test_the_driver_equals_cupy(protocol: str, monkeypatch) -> None:
    from lassm import paths
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly import formats
    from lassm.workloads.local_assembly.config import Params

    ds = formats.read_dataset(str(paths.sample("k77")))
    runs = {}
    for runtime in ("driver", "cupy"):
        monkeypatch.setenv(cuda.RUNTIME_ENV, runtime)
        runs[runtime] = extend(ds, Params(k=77), backend="cuda", protocol=protocol)
    assert runs["driver"].right.extra.runtime_library == "driver"
    assert runs["cupy"].right.extra.runtime_library == "cupy"
    assert runs["driver"].compare(runs["cupy"]) == []
    assert extend(ds, Params(k=77), backend="cpu").compare(runs["driver"]) == []


@pytest.mark.gpu
@pytest.mark.skipif(not _OK, reason=f"no CUDA device: {_WHY}")
def test_a_fast_extend_imports_no_cupy(tmp_path) -> None:
    """The point of the driver path: ``lassm extend --protocol fast`` never imports CuPy."""
    from lassm import paths

    out = tmp_path / "out.txt"
    code = ("import sys; from lassm.cli import main; "
            f"rc = main(['extend', {str(paths.sample('k77'))!r}, '--k', '77', '--backend', 'cuda', '--protocol', 'fast', "
            f"'--out', {str(out)!r}]); print(rc, 'cupy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.split()[-2:] == ["0", "False"], (done.stdout + done.stderr)[-3000:]
    assert out.stat().st_size > 0

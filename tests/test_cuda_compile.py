# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA kernel compiles with NVRTC for every protocol and architecture, with no GPU.

Also covers the host side of the GPU backends that needs no device: launch geometry, binning,
slicing and gathering (:mod:`lassm.backends.launch`), and the clear refusal when CuPy is absent.
"""
from __future__ import annotations

import numpy as np
import pytest

from lassm import backends, nvrtc
from lassm.backends import launch
from lassm.errors import BackendUnavailable
from lassm.paths import kernel_source

needs_nvrtc = pytest.mark.skipif(
    nvrtc.find_library() is None,
    reason="NVRTC is not installed (pip install nvidia-cuda-nvrtc-cu12, part of the 'test' extra)",
)


@needs_nvrtc
@pytest.mark.parametrize("arch", nvrtc.ARCHS)
@pytest.mark.parametrize("protocol", list(nvrtc.BUILDS))
def test_kernel_compiles(arch: str, protocol: str) -> None:
    results = nvrtc.check_kernel(archs=[arch], protocols=[protocol], warp_sizes=(32,))
    assert len(results) == 1 and results[0].ptx_bytes > 0
    assert "warning" not in results[0].log.lower(), results[0].log


@needs_nvrtc
@pytest.mark.parametrize("protocol", ["casptr", "doneflag", "barrier", "fast"])
def test_kernel_compiles_for_64_lane_wavefronts(protocol: str) -> None:
    """The HIP build's 64-lane code path type-checks (NVRTC stands in for hipRTC here)."""
    results = nvrtc.check_kernel(archs=["compute_90"], protocols=[protocol], warp_sizes=(64,))
    assert len(results) == 1


@needs_nvrtc
@pytest.mark.parametrize("protocol", nvrtc.PUBLISHED)
def test_published_forms_compile(protocol: str) -> None:
    """The racy published forms build too (for the study of what the fixes cost)."""
    source = kernel_source(nvrtc.KERNEL).read_text()
    opts = list(nvrtc.kernel_options(protocol, 32, published=True)) + ["--gpu-architecture=compute_90"]
    ptx, _ = nvrtc.compile_ptx(source, opts)
    assert f".entry {nvrtc.ENTRY}" in ptx


@needs_nvrtc
@pytest.mark.parametrize("protocol", ["casptr", "barrier", "fast"])
def test_no_published_form(protocol: str) -> None:
    source = kernel_source(nvrtc.KERNEL).read_text()
    opts = list(nvrtc.kernel_options(protocol, 32)) + ["--gpu-architecture=compute_90", "-DLASSM_PUBLISHED=1"]
    with pytest.raises(nvrtc.NvrtcError, match="published"):
        nvrtc.compile_ptx(source, opts)
    with pytest.raises(ValueError, match="published"):
        nvrtc.kernel_options(protocol, 32, published=True)


@needs_nvrtc
def test_matchany_refuses_wide_warps() -> None:
    source = kernel_source(nvrtc.KERNEL).read_text()
    opts = list(nvrtc.kernel_options("matchany", 64)) + ["--gpu-architecture=compute_90", "-DLASSM_ALLOW_WIDE_WARP"]
    with pytest.raises(nvrtc.NvrtcError, match="match-any"):
        nvrtc.compile_ptx(source, opts)


@needs_nvrtc
def test_nvidia_refuses_wide_warps_by_default() -> None:
    source = kernel_source(nvrtc.KERNEL).read_text()
    opts = list(nvrtc.kernel_options("casptr", 64)) + ["--gpu-architecture=compute_90"]
    with pytest.raises(nvrtc.NvrtcError, match="32 lanes"):
        nvrtc.compile_ptx(source, opts)


@needs_nvrtc
def test_kernel_compiles_with_its_own_defaults() -> None:
    """No -D option at all: every knob has a default in the source."""
    ptx, _ = nvrtc.compile_ptx(kernel_source(nvrtc.KERNEL).read_text(), ["--gpu-architecture=compute_80"])
    assert f".entry {nvrtc.ENTRY}" in ptx


@needs_nvrtc
def test_fast_leaves_the_faithful_kernel_alone() -> None:
    """The fast variant lives behind its own protocol value: the faithful protocols' PTX does not
    contain its code, and fast's does not contain the per-k reset or vote scan."""
    source = kernel_source(nvrtc.KERNEL).read_text()
    from lassm.backends import cuda

    assert nvrtc.BUILDS["fast"] == "LASSM_PROTO_FAST" and "fast" not in nvrtc.PROTOCOLS
    assert "fast" in cuda.PROTOCOLS and "fast" in nvrtc.check_kernel.__defaults__[1]
    fast, _ = nvrtc.compile_ptx(source, list(nvrtc.kernel_options("fast", 32)) + ["--gpu-architecture=compute_90"])
    casptr, _ = nvrtc.compile_ptx(source, list(nvrtc.kernel_options("casptr", 32)) + ["--gpu-architecture=compute_90"])
    assert fast != casptr and "shfl.sync.bfly" in fast and "shfl.sync.bfly" not in casptr


def test_fast_table_slots() -> None:
    from lassm.backends import cuda

    slots = cuda.fast_table_slots(np.array([0, 1, 12, 3, 2**20], dtype=np.int64), 150)
    assert slots.tolist() == [1, 256, 2048, 512, 2**28]
    assert cuda.fast_table_slots(np.array([1, 2], dtype=np.int64), 128).tolist() == [128, 256]


def test_kernel_options() -> None:
    opts = nvrtc.kernel_options("doneflag", 64)
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_DONEFLAG" in opts and "-DWARP_SIZE=64" in opts
    assert "-DLASSM_MIN_VIABLE_DEPTH=0.2" in opts and "--std=c++17" in opts
    with pytest.raises(ValueError, match="unknown protocol"):
        nvrtc.kernel_options("spinlock", 32)


def test_slot_size_matches_kernel() -> None:
    source = kernel_source(nvrtc.KERNEL).read_text()
    assert f"#define LASSM_SLOT_BYTES {launch.SLOT_BYTES}" in source


# --- host side of the GPU backends -------------------------------------------------------------

def test_geometry() -> None:
    assert launch.geometry(10, 3, 32) == ((4,), (96,))
    assert launch.geometry(0, 4, 64) == ((1,), (256,))
    with pytest.raises(ValueError):
        launch.geometry(5, 0, 32)


def test_bins() -> None:
    counts = np.array([0, 1, 9, 10, 25, 0, 3], dtype=np.int64)
    mask = np.array([False, True, True, True, True, True, False])
    got = {label: idx.tolist() for label, idx in launch.bins(mask, counts)}
    assert got == {"1-9": [1, 2, 5], ">=10": [3, 4]}  # 5: reads on the other side only
    assert launch.bins(np.zeros(3, bool), np.ones(3, np.int64)) == []


def test_slices_cover_in_order_and_fit() -> None:
    rng = np.random.default_rng(7)
    nbytes = rng.integers(1, 1000, size=200).astype(np.int64)
    budget = 5000
    parts = launch.slices(nbytes, budget, fixed=100)
    assert parts[0][0] == 0 and parts[-1][1] == 200
    assert all(a < b for a, b in parts) and all(parts[i][1] == parts[i + 1][0] for i in range(len(parts) - 1))
    for a, b in parts:
        assert b - a == 1 or nbytes[a:b].sum() <= budget - 100
    assert launch.slices(np.array([10**9, 5], dtype=np.int64), 100) == [(0, 1), (1, 2)]
    assert launch.slices(np.array([], dtype=np.int64), 100) == []


def test_gather() -> None:
    buf = np.frombuffer(b"AAACCGTTTT", dtype=np.uint8)
    off = np.array([0, 3, 5, 6, 10], dtype=np.int64)
    out, new_off = launch.gather(buf, off, np.array([3, 0, 2], dtype=np.int64), pad=4)
    assert out.tobytes() == b"TTTTAAAG\0\0\0\0" and new_off.tolist() == [0, 4, 7, 8]
    ids, roff = launch.read_index(np.array([0, 2, 2, 5], dtype=np.int64), np.array([2, 0, 1], dtype=np.int64))
    assert ids.tolist() == [2, 3, 4, 0, 1] and roff.tolist() == [0, 3, 5, 5]


def test_table_never_fills() -> None:
    slots = launch.table_slots(np.array([0, 1, 12], dtype=np.int64), 150)
    assert slots.tolist() == [1, 150, 1800]
    assert launch.walk_stride(613) % 16 == 0 and launch.walk_stride(613) >= 613 + 121


def test_absent_gpu_backends_refuse_clearly() -> None:
    from lassm.backends import cuda, hip

    for mod, name in ((cuda, "cuda"), (hip, "hip")):
        ok, why = mod.available()
        if ok:
            continue
        assert why and ("CuPy" in why or "device" in why or "driver" in why), why
        with pytest.raises(BackendUnavailable, match=name):
            backends.get(name)

# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA kernel compiles for AMD GPUs with hipcc, for every protocol HIP builds, with no GPU.

hipcc (Debian 12: ``apt-get install hipcc``, HIP 5.2.3 with clang 15 and the ROCm device
libraries) compiles the device code only, to AMDGCN assembly, for CDNA (64-lane wavefronts) and
RDNA 2 (32 lanes); without hipcc every test that needs it is skipped with the install command.
"""
from __future__ import annotations

import re

import pytest

from lassm.backends import hipcc, nvrtc
from lassm.backends import hip

HIPCC = hipcc.find()
needs_hipcc = pytest.mark.skipif(
    HIPCC is None, reason="hipcc is not installed (Debian 12: apt-get install hipcc; or ROCm's /opt/rocm/bin)")


def _first_error(log: str) -> str:
    return next((line for line in log.splitlines() if "error:" in line), "")


def test_hip_protocols_agree() -> None:
    assert hipcc.HIP_PROTOCOLS == hip.PROTOCOLS
    assert set(hipcc.HIP_PROTOCOLS) == set(nvrtc.PROTOCOLS) - {"matchany"}


def test_options_reuse_the_backends_knobs() -> None:
    opts = hipcc.options("doneflag", "gfx90a")
    assert "--offload-arch=gfx90a" in opts and "--cuda-device-only" in opts
    assert set(nvrtc.kernel_options("doneflag", 64)) <= set(opts) and "-DWARP_SIZE=64" in opts
    assert "-DWARP_SIZE=32" in hipcc.options("casptr", "gfx1030")
    assert hipcc.environment()["HIP_PLATFORM"] == "amd"


def test_metadata_parser() -> None:
    asm = ('\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n\t.amdhsa_kernel iterative_walks_kernel\n'
           '    .name:           iterative_walks_kernel\n    .wavefront_size: 64\n')
    assert hipcc.kernel_metadata(asm) == {"target": "amdgcn-amd-amdhsa--gfx90a",
                                          "kernel": "iterative_walks_kernel", "wavefront_size": 64}


@needs_hipcc
@pytest.mark.parametrize("arch", list(hipcc.ARCHS))
@pytest.mark.parametrize("protocol", hipcc.HIP_PROTOCOLS)
def test_kernel_compiles(arch: str, protocol: str) -> None:
    (res,) = hipcc.check_kernel(archs=[arch], protocols=[protocol])
    assert res.wavefront_size == hipcc.ARCHS[arch] and res.asm_bytes > 0
    assert "warning" not in res.log.lower(), res.log


@needs_hipcc
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_matchany_stops_with_its_error(arch: str) -> None:
    with pytest.raises(hipcc.HipccError) as err:
        hipcc.compile_asm("matchany", arch)
    first = _first_error(str(err.value))
    assert "HIP has no match-any" in first, str(err.value)


@needs_hipcc
def test_wrong_warp_size_is_refused() -> None:
    """A WARP_SIZE that is not the target's wavefront width stops the build (it would give wrong votes)."""
    with pytest.raises(hipcc.HipccError) as err:
        hipcc.compile_asm("casptr", "gfx90a", warp_size=32)
    assert re.search(r"WARP_SIZE differs from the target's wavefront width", _first_error(str(err.value)))


@needs_hipcc
def test_published_doneflag_compiles() -> None:
    """The HIP port's own racy form builds for AMD too (for the study of what the fix costs)."""
    asm, _, _ = hipcc.compile_asm("doneflag", "gfx90a", extra=["-DLASSM_PUBLISHED=1"])
    assert hipcc.kernel_metadata(asm)["kernel"] == nvrtc.ENTRY


@needs_hipcc
def test_version() -> None:
    assert "HIP version" in hipcc.version()

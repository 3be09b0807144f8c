# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA kernels compile for AMD GPUs with hipcc, for every build HIP offers, with no GPU.

hipcc (Debian 12: ``apt-get install hipcc``, HIP 5.2.3 with clang 15 and the ROCm device
libraries) compiles the device code only, to AMDGCN assembly, for CDNA (64-lane wavefronts) and
RDNA 2 (32 lanes): the faithful protocols and ``fast`` with each of its ablation builds. Compiling
is all this shows; no AMD GPU has run them. Without hipcc every test that needs it is skipped with
the install command.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

import pytest

from lassm.backends import hipcc, nvrtc
from lassm.backends import hip
from lassm.backends.headers import folder_digest

from .. import compile_store

HIPCC = hipcc.find()
needs_hipcc = pytest.mark.skipif(
    HIPCC is None, reason="hipcc is not installed (Debian 12: apt-get install hipcc; or ROCm's /opt/rocm/bin)")


@pytest.fixture(autouse=True)
def hipcc_kept():
    """Each hipcc compile of this module runs once per compiler and sources, not once a run: kept
    in ``LASSM_CACHE/tests/hipcc`` (:mod:`tests.compile_store`) under the SHA-256 of hipcc's
    version lines, the command (the output's and the source's names, not their folders: a fresh
    clone finds what an earlier one kept) and every file of the kernel folder (the source and the
    headers it may include). Its compiles were a fifth of the suite's CPU time. (Set up per test,
    not per module: a module fixture would send the whole module to one worker,
    tests/conftest.py.)"""
    if HIPCC is None:
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hipcc, "_run", _kept(hipcc._run, _compiler(), compile_store.folder("hipcc")))
        yield


@functools.lru_cache(maxsize=1)
def _compiler() -> str:
    """Which hipcc, which clang behind it and which device libraries: hipcc's path and every line
    of its ``--version``, and each bitcode library's name, size and time (Debian's and ROCm's)."""
    out = subprocess.run([str(HIPCC), "--version"], capture_output=True, text=True, env=hipcc.environment(),
                         timeout=60, check=True)
    rocm = Path(os.environ.get("ROCM_PATH", "/opt/rocm"))
    libs = sorted({*Path("/usr/lib").glob("*/amdgcn/bitcode/*.bc"), *rocm.glob("amdgcn/bitcode/*.bc")})
    stats = "".join(f"{lib} {lib.stat().st_size} {lib.stat().st_mtime_ns}\n" for lib in libs)
    return f"{HIPCC.resolve()}\n{out.stdout}{out.stderr}{stats}"


def _kept(run, version: str, where: Path):
    """``hipcc._run`` that reads a kept compile, or runs ``run`` and keeps what it made."""
    def kept(cmd: list[str]) -> tuple[str, float]:
        out = Path(cmd[cmd.index("-o") + 1])

        def make() -> tuple[bytes, dict]:
            log, seconds = run(cmd)
            return out.read_bytes(), {"log": log, "seconds": seconds}

        data, facts = compile_store.kept(where, _compile_key(version, cmd, out), out.suffix, make)
        out.write_bytes(data)
        return str(facts.get("log", "")), float(facts.get("seconds", 0.0))

    return kept


def _compile_key(version: str, cmd: list[str], out: Path) -> str:
    """What decides a compile's output: the compiler, the command, the kernel folder's files. The
    output and the source count by name, not by path: the folder's digest holds the sources'
    bytes, and a fresh clone (another path) finds the compiles an earlier clone kept."""
    source = Path(next(word for word in cmd if word.endswith(".cu")))
    named = {str(out): out.name, str(source): source.name}
    return compile_store.key([version, *(named.get(word, word) for word in cmd), folder_digest(source.parent)])


def _first_error(log: str) -> str:
    return next((line for line in log.splitlines() if "error:" in line), "")


def test_hip_protocols_agree() -> None:
    assert hipcc.HIP_PROTOCOLS == hip.PROTOCOLS
    assert set(hipcc.HIP_PROTOCOLS) == set(nvrtc.BUILDS) - {"matchany"}
    assert {"fast", *nvrtc.VARIANTS} <= set(hip.PROTOCOLS)


def test_distinct_builds_cover_every_kernel_knob() -> None:
    """The compile check skips only builds whose options repeat another's (host-side ablations)."""
    builds = hipcc.kernel_builds()
    assert set(hip.PROTOCOLS) - set(builds) == {"fast-bins", "fast-warps", "fast-regs"}
    for ws in (32, 64):
        opts = {nvrtc.kernel_options(b, ws) for b in hip.PROTOCOLS}
        assert opts == {nvrtc.kernel_options(b, ws) for b in builds} and len(opts) == len(builds)


def test_hip_host_routes_fast_like_cuda() -> None:
    """fast walks both sides in one launch on HIP too; a protocol HIP lacks is refused before CuPy."""
    assert hip.one_launch("fast") and hip.one_launch("fast-tables")
    assert not hip.one_launch("fast-bins") and not hip.one_launch("casptr") and not hip.one_launch("matchany")
    with pytest.raises(ValueError, match="does not build on HIP"):
        hip.extend_sides(None, protocol="matchany")


def test_fast_shared_memory_follows_the_wavefront() -> None:
    """Team scratch for the warps the largest block holds; the per-warp buffers count wavefronts."""
    from lassm.backends import cuda, launch

    assert launch.team_scratch_bytes(32) == cuda.TEAM_SCRATCH_BYTES == 2048  # the CUDA launch, unchanged
    assert launch.team_scratch_bytes(64) == 1024 and launch.team_scratch_bytes(64, 16) == 1024
    per_warp = launch.walk_stride(613) + 2 * cuda.visited_slots(613)
    assert cuda.fast_shared_bytes(4, 613) == cuda.fast_shared_bytes(4, 613, warp_size=32) == 4 * per_warp + 2048
    assert cuda.fast_shared_bytes(4, 613, warp_size=64) == 4 * per_warp + 1024
    assert cuda.fast_shared_bytes(16, 613, False, 64) == 1024
    for warps, ws in ((17, 64), (33, 32), (0, 64)):
        with pytest.raises(ValueError, match="a block holds"):
            cuda.fast_shared_bytes(warps, 613, warp_size=ws)
    launch.require_shared(65536, 65536, 16, 613)
    with pytest.raises(ValueError, match="at most 65536"):
        launch.require_shared(65537, 65536, 16, 613)


def test_options_reuse_the_backends_knobs() -> None:
    opts = hipcc.options("doneflag", "gfx90a")
    assert "--offload-arch=gfx90a" in opts and "--cuda-device-only" in opts
    assert set(nvrtc.kernel_options("doneflag", 64)) <= set(opts) and "-DWARP_SIZE=64" in opts
    assert "-DWARP_SIZE=32" in hipcc.options("casptr", "gfx1030")
    assert hipcc.environment()["HIP_PLATFORM"] == "amd"


def _asm(wave: int, kernel: str = "iterative_walks_kernel") -> str:
    return (f'\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n\t.amdhsa_kernel {kernel}\n'
            f'    .name:           {kernel}\n    .wavefront_size: {wave}\n')


def test_metadata_parser() -> None:
    assert hipcc.kernel_metadata(_asm(64)) == {"target": "amdgcn-amd-amdhsa--gfx90a",
                                               "kernel": "iterative_walks_kernel", "wavefront_size": 64}


def test_check_refuses_a_wavefront_that_disagrees() -> None:
    """A build whose metadata gives another wavefront than its WARP_SIZE fails the check."""
    assert hipcc.verify(_asm(64), "gfx90a", "fast", 64)["wavefront_size"] == 64
    with pytest.raises(hipcc.HipccError, match="wavefront size 32 in the metadata, WARP_SIZE 64"):
        hipcc.verify(_asm(32), "gfx90a", "fast", 64)
    with pytest.raises(hipcc.HipccError, match="wavefront size 0"):
        hipcc.verify(_asm(32).replace(".wavefront_size", ".wave"), "gfx1030", "casptr", 32)  # none given
    with pytest.raises(hipcc.HipccError, match="no kernel"):
        hipcc.verify(_asm(64, "other_kernel"), "gfx90a", "fast", 64)


@needs_hipcc
@pytest.mark.parametrize("arch", list(hipcc.ARCHS))
@pytest.mark.parametrize("protocol", hipcc.kernel_builds())
def test_kernel_compiles(arch: str, protocol: str, ran_where) -> None:
    (res,) = hipcc.check_kernel(archs=[arch], protocols=[protocol])
    assert res.wavefront_size == hipcc.ARCHS[arch] and res.asm_bytes > 0
    assert "warning" not in res.log.lower(), res.log
    from lassm.book import ran_where as rw

    ran_where(rw.build_of("local-assembly", "hip", protocol), rw.COMPILE_ONLY)


@needs_hipcc
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_matchany_stops_with_its_error(arch: str) -> None:
    with pytest.raises(hipcc.HipccError) as err:
        hipcc.compile_asm("matchany", arch)
    first = _first_error(str(err.value))
    assert "HIP has no match-any" in first, str(err.value)


@needs_hipcc
@pytest.mark.parametrize("protocol, arch, warp_size", [("casptr", "gfx90a", 32), ("fast", "gfx90a", 32),
                                                       ("fast", "gfx1030", 64)])
def test_wrong_warp_size_is_refused(protocol: str, arch: str, warp_size: int) -> None:
    """A WARP_SIZE that is not the target's wavefront width stops the build (it would give wrong votes)."""
    with pytest.raises(hipcc.HipccError) as err:
        hipcc.compile_asm(protocol, arch, warp_size=warp_size)
    assert re.search(r"WARP_SIZE differs from the target's wavefront width", _first_error(str(err.value)))


@needs_hipcc
@pytest.mark.parametrize("protocol", ["casptr", "fast"])
@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030"])
def test_host_and_device_passes_compile(protocol: str, arch: str) -> None:
    """A whole hipcc compile, host pass included: clang's host pass defines __AMDGCN_WAVEFRONT_SIZE
    as 64 for every target, so the width guard must look at the device pass alone (gfx1030 is 32)."""
    log, _ = hipcc.compile_object(protocol, arch)
    assert "warning" not in log.lower(), log


@needs_hipcc
def test_published_doneflag_compiles() -> None:
    """The HIP port's own racy form builds for AMD too (for the study of what the fix costs)."""
    asm, _, _ = hipcc.compile_asm("doneflag", "gfx90a", extra=["-DLASSM_PUBLISHED=1"])
    assert hipcc.kernel_metadata(asm)["kernel"] == nvrtc.ENTRY


@needs_hipcc
def test_version() -> None:
    assert "HIP version" in hipcc.version()

# SPDX-License-Identifier: BSD-3-Clause
"""The kernel sources as files: each compiles alone, stays readable, and the faithful PTX holds.

``tests/fixtures/ptx_sha256.json`` records, per NVRTC version, the SHA-256 of the PTX of every
CUDA build (virtual architecture x protocol or fast variant x warp width, and the published
forms), taken from the single-file kernel before it was split into ``faithful.cu``, ``fast.cu``
and their headers. The split, and any later tidying, must leave those bytes alone: the study's
measurements were taken with that code. With another NVRTC the digest tests skip; record that
version's digests from a commit whose PTX is trusted with
``python -m tests.backends.test_kernel_sources --record`` (it refuses to overwrite a recorded version). A
new build (a variant added to ``lassm.backends.nvrtc.VARIANTS``) gets its digests, and only those,
from ``python -m tests.backends.test_kernel_sources --add``: a recorded digest is never rewritten.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from lassm.backends import nvrtc
from lassm.paths import kernel_dir, kernel_source

FIXTURE = Path(__file__).parent.parent / "fixtures" / "ptx_sha256.json"
#: Most lines one kernel source may have (each file readable next to the paper).
MAX_LINES = 700
#: Source suffixes under kernels/.
SUFFIXES = (".cu", ".cuh", ".cl", ".h")
#: The paper's steps and the function that carries each, per kernel file: the hash insert, the
#: vote, Algorithm 1, the walk (Algorithm 2). The k-shift is inline in the CUDA files (a device
#: function changes the faithful PTX) and a function in the OpenCL file.
PAPER_NAMES: dict[str, tuple[str, ...]] = {
    nvrtc.FAITHFUL_KERNEL: ("ht_insert", "set_ext", "count_mers", "walk_mers"),
    nvrtc.FAST_KERNEL: ("fast_insert", "set_ext", "fast_count_mers", "fast_walk"),
    "local_assembly/opencl/faithful.cl": ("ht_insert", "set_ext", "count_mers", "walk_mers", "k_shift"),
    "local_assembly/opencl/portable.cl": ("ht_insert", "set_ext", "count_mers", "walk_mers", "k_shift"),
    "local_assembly/opencl/fast.cl": ("fast_insert", "set_ext", "fast_count_mers", "fast_walk", "k_shift"),
    "local_assembly/opencl/fast_subgroup.cl": ("fast_insert", "set_ext", "fast_count_mers", "fast_walk", "k_shift"),
}

#: Each NVRTC compile once, kept between runs and clones (tests/conftest.py): this module and the
#: other compile tests ask for the same builds.
pytestmark = pytest.mark.usefixtures("nvrtc_compiled_once")

needs_nvrtc = pytest.mark.skipif(
    nvrtc.find_library() is None,
    reason="NVRTC is not installed (pip install nvidia-cuda-nvrtc-cu12, part of the 'test' extra)",
)


def _builds() -> list[tuple[str, str, int, bool]]:
    """Every (arch, build, warp width, published) the backends and the compile check build."""
    out = []
    for arch in nvrtc.ARCHS:
        for build in nvrtc.BUILDS:
            for ws in (32, 64):
                if ws != 32 and build == "matchany":
                    continue
                out.append((arch, build, ws, False))
                if build in nvrtc.PUBLISHED:
                    out.append((arch, build, ws, True))
    return out


def _key(arch: str, build: str, ws: int, published: bool) -> str:
    return f"{arch}/{build}/w{ws}" + ("/published" if published else "")


def _digest(arch: str, build: str, ws: int, published: bool, extra: tuple[str, ...] = ()) -> str:
    ptx, _ = nvrtc.compile_build(build, arch, ws, published=published, extra=extra)
    return hashlib.sha256(ptx.encode()).hexdigest()


def _recorded() -> dict[str, str]:
    """This NVRTC's recorded digests; skips (one line) when NVRTC is absent or has none."""
    if nvrtc.find_library() is None:
        pytest.skip("NVRTC is not installed")
    version = "%d.%d" % nvrtc.version()
    table = json.loads(FIXTURE.read_text()).get(version)
    if table is None:
        pytest.skip(f"no PTX digests recorded for NVRTC {version} in {FIXTURE.name}")
    return table


def _sources() -> list[Path]:
    return sorted(p for p in kernel_dir().rglob("*") if p.suffix in SUFFIXES)


def _rel(path: Path) -> str:
    return path.relative_to(kernel_dir()).as_posix()


@pytest.mark.parametrize("build", _builds(), ids=lambda b: _key(*b))
def test_ptx_is_the_recorded_one(build: tuple[str, str, int, bool]) -> None:
    """The faithful protocols' PTX is byte-identical to the recorded (pre-split) PTX; so is fast's."""
    recorded = _recorded()
    assert _digest(*build) == recorded[_key(*build)], f"{_key(*build)}: the PTX changed"


def test_every_build_has_a_recorded_digest() -> None:
    assert sorted(_recorded()) == sorted(_key(*b) for b in _builds())


@needs_nvrtc
def test_the_digest_notices_a_change() -> None:
    """The digests are not blind: one knob changed by one gives other PTX, faithful and fast alike."""
    recorded = _recorded()
    for build in (("compute_90", "casptr", 32, False), ("compute_90", "fast", 32, False)):
        assert _digest(*build, extra=("-DLASSM_SHIFT_SIZE=7",)) != recorded[_key(*build)]


def test_sources_are_where_the_backends_look() -> None:
    names = {_rel(p) for p in _sources()}
    assert {nvrtc.FAITHFUL_KERNEL, nvrtc.FAST_KERNEL, "local_assembly/opencl/faithful.cl"} <= names
    assert {nvrtc.kernel_file(b) for b in nvrtc.BUILDS} == {nvrtc.FAITHFUL_KERNEL, nvrtc.FAST_KERNEL}
    assert not (kernel_dir() / "cuda").exists() and not (kernel_dir() / "opencl").exists()


@pytest.mark.parametrize("path", _sources(), ids=_rel)
def test_source_is_short(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n < MAX_LINES, f"{_rel(path)} has {n} lines; split it below {MAX_LINES}"


@pytest.mark.parametrize("path", [p for p in _sources() if p.suffix in (".cuh", ".h")], ids=_rel)
def test_header_is_guarded_and_includes_nothing_outside(path: Path) -> None:
    """Headers carry an include guard and include only their neighbours (or the HIP runtime)."""
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^#ifndef (LASSM_\w+)\n#define \1$", text, re.M), f"{_rel(path)}: no include guard"
    for name in re.findall(r'^#include "([^"]+)"', text, re.M):
        assert (path.parent / name).is_file(), f"{_rel(path)} includes {name}, not beside it"


@pytest.mark.parametrize("kernel", sorted(PAPER_NAMES))
def test_paper_steps_are_named_functions(kernel: str) -> None:
    """Each paper step is a function under its name, defined in the kernel file or a header it
    includes (directly or through another header)."""
    path = kernel_source(kernel)
    text, seen, todo = "", set(), [path.name]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            body = (path.parent / name).read_text(encoding="utf-8")
            text += body
            todo += re.findall(r'^#include "([^"]+)"', body, re.M)
    for name in PAPER_NAMES[kernel]:
        assert re.search(rf"^[\w ]*\b{name}\(", text, re.M), f"{kernel}: no function {name}"


@needs_nvrtc
@pytest.mark.parametrize("kernel", [nvrtc.FAITHFUL_KERNEL, nvrtc.FAST_KERNEL])
def test_cuda_file_compiles_alone(kernel: str) -> None:
    """Each .cu file is a whole program: no -D at all, only where its headers are."""
    ptx, log = nvrtc.compile_ptx(kernel_source(kernel).read_text(), [*nvrtc.include_options(), "--gpu-architecture=compute_80"])
    assert f".entry {nvrtc.ENTRY}" in ptx and "warning" not in log.lower(), log


@pytest.mark.parametrize("kernel", ["local_assembly/opencl/faithful.cl", "local_assembly/opencl/fast_subgroup.cl"])
def test_opencl_file_compiles_alone(kernel: str) -> None:
    """faithful.cl and fast_subgroup.cl build with no -D at all, only where their headers are
    (Intel's OpenCL driver)."""
    from lassm.backends import sycl

    ok, why = sycl.available()
    if not ok:
        pytest.skip(f"needs dpctl and an OpenCL device: {why}")
    assert kernel in (sycl.KERNEL, sycl.FAST_KERNEL)
    program = sycl.program(("-cl-std=CL3.0",), kernel)
    assert program.has_sycl_kernel(sycl.ENTRY)


@pytest.mark.parametrize("kernel", ["local_assembly/opencl/portable.cl", "local_assembly/opencl/fast.cl"])
def test_portable_file_compiles_alone(kernel: str) -> None:
    """portable.cl and fast.cl build as OpenCL C 1.2 with no -D at all, on every OpenCL device
    pyopencl sees."""
    from lassm.backends import opencl

    ok, why = opencl.available()
    if not ok:
        pytest.skip(f"needs pyopencl and an OpenCL device: {why}")
    assert kernel in (opencl.KERNEL, opencl.FAST_KERNEL)
    for dev in opencl.devices():
        ctx = opencl.cl.Context([dev])
        src = kernel_source(kernel).read_text(encoding="utf-8")
        prg = opencl.cl.Program(ctx, src).build(options=[opencl.CL_STD, *opencl.clplan.include_options(kernel)])
        assert opencl.ENTRY in prg.kernel_names.split(";"), opencl._label(dev)


def _record() -> None:
    """Adds this NVRTC's digests to the fixture; never overwrites a recorded version."""
    table = json.loads(FIXTURE.read_text())
    version = "%d.%d" % nvrtc.version()
    if version in table:
        sys.exit(f"NVRTC {version} is recorded already; a changed PTX is a finding, not a fixture update")
    table[version] = {_key(*b): _digest(*b) for b in sorted(_builds())}
    FIXTURE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(table[version])} digests for NVRTC {version}")


def _add() -> None:
    """Adds this NVRTC's digests of the builds that have none (a new variant); leaves every
    recorded digest as it is."""
    table = json.loads(FIXTURE.read_text())
    version = "%d.%d" % nvrtc.version()
    if version not in table:
        sys.exit(f"NVRTC {version} has no digests yet: --record them")
    new = {_key(*b): _digest(*b) for b in sorted(_builds()) if _key(*b) not in table[version]}
    table[version] = dict(sorted({**table[version], **new}.items()))
    FIXTURE.write_text(json.dumps(table, indent=1) + "\n")  # the fixture's own order of versions
    print(f"added {len(new)} digests for NVRTC {version}: {', '.join(sorted(new)) or 'none'}")


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    _record()
if __name__ == "__main__" and sys.argv[1:] == ["--add"]:
    _add()

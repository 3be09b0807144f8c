# SPDX-License-Identifier: BSD-3-Clause
"""The book's table of what ran where: built from records and the test suite's notes, nothing typed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lassm.book import ran_where as rw


@pytest.mark.parametrize("kernel, backend, variant, build", [
    ("local-assembly", "cuda", "casptr", "la-cuda-faithful"),
    ("local-assembly", "hip-cpu", "fast", "la-cuda-fast"),
    ("local-assembly", "opencl-ptx", "fast-lanes", "la-opencl-fast"),
    ("local-assembly", "sycl", "barrier", "la-sycl-faithful"),
    ("local-assembly", "cpu", "none", None),
    ("xdrop", "opencl", "", "xdrop-opencl"),
    ("suite", "cuda", "tiles", "suite-cuda"),
    ("suite", "sycl", "x", None),
])
def test_each_backend_names_the_source_it_built(kernel: str, backend: str, variant: str, build: str | None) -> None:
    assert rw.build_of(kernel, backend, variant) == build


@pytest.mark.parametrize("backend, device, platform", [
    ("cuda", "NVIDIA H200", "NVIDIA GPU"),
    ("opencl", "NVIDIA H100 80GB HBM3 (NVIDIA CUDA)", "NVIDIA OpenCL"),
    ("opencl", "AMD EPYC (Intel(R) OpenCL)", "Intel OpenCL (CPU)"),
    ("sycl", "AMD EPYC (opencl:cpu:0)", "Intel OpenCL (CPU)"),
    ("opencl", "cpu-haswell-AMD EPYC (Portable Computing Language)", "PoCL (CPU)"),
    ("hip-cpu", "HIP-CPU (wavefront 32)", "HIP-CPU wavefront 32"),
    ("hip-cpu", "HIP-CPU (wavefront 64)", "HIP-CPU wavefront 64"),
    ("hip", "AMD Instinct MI250X", "AMD GPU"),
    ("opencl", "Some Other Device", None),
])
def test_each_device_is_placed(backend: str, device: str, platform: str | None) -> None:
    assert rw.platform_of(backend, device) == platform


def test_the_table_reads_records_and_notes_and_says_never(tmp_path: Path) -> None:
    root = tmp_path / "results"
    point = root / "gpu-box" / "gen-k21__k21__cuda__fast"
    point.mkdir(parents=True)
    (point / "summary.json").write_text(json.dumps({"backend": "cuda", "protocol": "fast", "device": "NVIDIA H200",
                                                    "matches_cpu": True}))
    differs = root / "gpu-box" / "gen-k21__k21__cuda__casptr"
    differs.mkdir()
    (differs / "summary.json").write_text(json.dumps({"backend": "cuda", "protocol": "casptr",
                                                      "device": "NVIDIA H200", "matches_cpu": False}))
    (root / "gpu-box" / "xdrop").mkdir()
    (root / "gpu-box" / "xdrop" / "times.csv").write_text(
        "backend,device,matches_oracle\nopencl,NVIDIA H200 (NVIDIA CUDA),True\ncpu,Xeon,True\n")
    notes: dict = {}
    rw.note(notes, "la-cuda-faithful", rw.COMPILE_ONLY, "tests/backends/test_hip_compile.py::a")
    rw.note(notes, "xdrop-cuda", "HIP-CPU wavefront 64", "tests/backends/test_hip_cpu.py::b")
    path = rw.write_notes(notes, tmp_path / "ran.json")
    t = rw.table(root, path).set_index("build")
    label = dict(rw.BUILDS)
    assert t.loc[label["la-cuda-fast"], "NVIDIA GPU"] == "records: H200"
    assert t.loc[label["la-cuda-faithful"], "NVIDIA GPU"] == ""  # its output differed: no evidence
    assert t.loc[label["la-cuda-faithful"], "status"] == "compiled only"
    assert t.loc[label["xdrop-opencl"], "NVIDIA OpenCL"] == "records: H200"
    assert t.loc[label["xdrop-cuda"], "HIP-CPU wavefront 64"] == "tests (1)"
    assert t.loc[label["suite-cuda"], "status"] == "never"
    assert list(t.columns) == [*rw.PLATFORMS, "status"]


def test_a_note_with_an_unknown_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown build"):
        rw.note({}, "la-cuda-fastest", "NVIDIA GPU", "t")
    with pytest.raises(ValueError, match="platform"):
        rw.note({}, "la-cuda-fast", "Intel GPU", "t")


def test_the_fixture_keeps_a_passing_tests_note(ran_where, request) -> None:
    """This test's own note: what the session writes at its end (checked by the next test's
    reading of the pending notes; here only that an unknown name fails at once)."""
    ran_where("la-opencl-fast", None)  # a device without a column: nothing noted
    with pytest.raises(ValueError):
        ran_where("nonesuch", "NVIDIA GPU")

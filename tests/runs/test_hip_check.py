# SPDX-License-Identifier: BSD-3-Clause
"""The AMD reader's path, dry: what ``lassm run`` plans and checks on an AMD GPU, on a machine without one.

A stand-in ``rocminfo`` on PATH (a script printing what the real one prints for an MI250X, or an
RDNA card) stands for the GPU: the dry run must plan the hip backend with the gfx target and the
wavefront it builds for, though no HIP runtime can run here, and say that the builds are checked
against hip-cpu before they are timed. The check itself (:mod:`lassm.runs.hip_check`) runs for
real with hip-cpu standing for the GPU's output, once the same and once with a walk changed, and
``lassm run`` is shown to make it before it times anything. (`make extras` picking the rocm extra
for the same stand-in: ``tests/whole/test_extras.py``.)
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, extend, paths
from lassm.backends import hip, hip_cpu_build, rocminfo
from lassm.campaign import assembly_plan as la_plan
from lassm.campaign.part import Ask
from lassm.cli import main
from lassm.errors import LassmError
from lassm.runs import hip_check
from lassm.workloads.local_assembly import formats

from .. import helpers

needs_no_hip = pytest.mark.skipif(la_plan.is_gpu("hip") or la_plan.is_gpu("cuda"),
                                  reason="a GPU backend runs here: the plan takes it, not the MI250X it is shown")
OK, WHY = hip_cpu_build.available()
needs_hip_cpu = pytest.mark.skipif(not OK, reason=f"needs the hip-cpu backend: {WHY}")


@pytest.fixture
def mi250x(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in rocminfo for an MI250X first on PATH; results into a temporary folder."""
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_MI250X)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_GIT_SHA", "test-sha")
    return tmp_path


# --------------------------------------------------------------------------- rocminfo

def test_rocminfo_names_the_gpus_their_target_and_wavefront() -> None:
    """The agents' own lines, not the CPU agent's nor the ISA's ``Name:``; sizes as ``64(0x40)``."""
    mi = rocminfo.Agent("gfx90a", "AMD Instinct MI250X", 64, 110)
    assert rocminfo.parse(helpers.ROCMINFO_MI250X) == [mi, mi]
    assert mi.describe() == "gfx90a (AMD Instinct MI250X, 110 compute units), wavefront 64"
    assert rocminfo.parse(helpers.ROCMINFO_RX6800) == [rocminfo.Agent("gfx1030", "AMD Radeon RX 6800", 32, 60)]
    assert rocminfo.parse(helpers.ROCMINFO_NO_GPU) == []
    no_marketing = helpers.ROCMINFO_RX6800.replace("Marketing Name:          AMD Radeon RX 6800", "Marketing Name:")
    assert rocminfo.parse(no_marketing)[0].describe() == "gfx1030 (60 compute units), wavefront 32"


def test_rocminfo_on_path_and_one_that_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helpers.stand_in(tmp_path / "gpu", "rocminfo", helpers.ROCMINFO_RX6800)
    helpers.stand_in(tmp_path / "none", "rocminfo", helpers.ROCMINFO_NO_GPU, rc=1)
    monkeypatch.setenv("PATH", str(tmp_path / "gpu"))
    assert [a.arch for a in rocminfo.gpus()] == ["gfx1030"]
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    assert rocminfo.gpus() == []
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert rocminfo.gpus() == []


# --------------------------------------------------------------------------- the dry run

@needs_no_hip
@pytest.mark.parametrize("hip_cpu_here", [True, False], ids=["hip-cpu-here", "no-hip-cpu"])
def test_dry_run_plans_hip_for_the_mi250x(mi250x: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture, hip_cpu_here: bool) -> None:
    """No HIP runtime here, yet the dry run plans hip for gfx90a at wavefront 64, says the check
    against hip-cpu comes first (or why it cannot be made), and that a real run leaves hip out."""
    monkeypatch.setattr(hip_cpu_build, "available", lambda: (hip_cpu_here, "" if hip_cpu_here else "no g++ here"))
    assert main(["run", "--kernel", "local-assembly", "--dry-run", "--datasets", "sample-k77"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("hip "))
    assert out[at].split(None, 1)[1] == ", ".join(la_plan.timed_protocols("hip"))
    assert out[at + 1].strip() == ("builds for gfx90a (AMD Instinct MI250X, 110 compute units), wavefront 64 "
                                   "(WARP_SIZE; from rocminfo)")
    if hip_cpu_here:
        assert out[at + 2].strip() == (
            "hip check: before the first point is timed, casptr, doneflag, barrier, fast on sample-k77 against "
            "hip-cpu at wavefront 64, once per device and kernel sources (hip-check.json)")
    else:
        assert out[at + 2].strip() == "hip check: not made here, hip-cpu cannot run (no g++ here)"
    assert out[at + 3].strip().startswith("cannot run here: CuPy") and "leaves hip out" in out[at + 3]
    assert "timing    1 warm-up + 3 to 5 timed runs" in "\n".join(out)  # a GPU's repeats, not the CPU's
    assert not (mi250x / "results").exists()


@needs_no_hip
def test_dry_run_of_an_rdna_card_and_the_whole_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    """At wavefront 32, doneflag cannot be checked on hip-cpu, and the dry run says so; the whole
    run's dry run (every part) plans hip the same way, and ``--backends hip`` is taken."""
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_RX6800)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(hip_cpu_build, "available", lambda: (True, ""))
    assert main(["run", "--dry-run", "--backends", "hip,cpu", "--datasets", "sample-k77"]) == 0
    text = capsys.readouterr().out
    assert "builds for gfx1030 (AMD Radeon RX 6800, 60 compute units), wavefront 32" in text
    assert ("casptr, barrier, fast on sample-k77 against hip-cpu at wavefront 32, once per device and kernel "
            "sources (hip-check.json); doneflag not (hip-cpu cannot run it at wavefront 32)") in text


@needs_no_hip
def test_without_the_stand_in_hip_is_neither_planned_nor_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture) -> None:
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_NO_GPU, rc=1)  # Debian's, without a GPU
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    assert main(["run", "--kernel", "local-assembly", "--dry-run", "--datasets", "sample-k77"]) == 0
    assert not any(line.startswith("hip") for line in capsys.readouterr().out.splitlines())
    assert main(["run", "--dry-run", "--backends", "hip,cpu", "--datasets", "sample-k77"]) == 2
    assert "backend 'hip' cannot run here" in capsys.readouterr().err


@needs_no_hip
def test_a_real_run_leaves_hip_out_and_names_the_gpu(mi250x: Path) -> None:
    """Without --dry-run hip is not planned (it cannot run), and the lacks line names what rocminfo saw."""
    found, lacks = la_plan.present_backends()
    assert "hip" not in found and la_plan.make_plan(Ask(quick=True)).unrun == {}
    assert "(rocminfo lists gfx90a (AMD Instinct MI250X, 110 compute units), wavefront 64)" in lacks[0]
    dry = la_plan.make_plan(Ask(quick=True, dry=True))
    assert dry.backends[0] == "hip" and "CuPy" in dry.unrun["hip"] and dry.targets["hip"]["wavefront"] == 64
    assert "targets" not in dry.as_dict() and "unrun" not in dry.as_dict()  # campaign.json: what was measured
    assert hip.target() == (rocminfo.Agent("gfx90a", "AMD Instinct MI250X", 64, 110), "rocminfo")


# --------------------------------------------------------------------------- the check

@functools.lru_cache(maxsize=None)
def _slice():
    """(dataset, k): every 40th contig of the sample with reads, and its two heaviest (fast's block teams)."""
    ds = formats.read_dat(paths.sample("k77"), name="sample-k77-slice")
    has = np.flatnonzero((ds.left.counts > 0) | (ds.right.counts > 0))
    heavy = np.argsort(ds.left.counts + ds.right.counts)[-2:]
    return ds.subset(np.union1d(has[::40], heavy)), 77


def _changed(ext, contig: int = 0):
    """``ext`` with one base of one right walk changed: what a GPU that computes wrongly gives."""
    right = dataclasses.replace(ext.right, walks=ext.right.walks.copy(), walk_len=ext.right.walk_len.copy())
    i = int(np.flatnonzero(right.walk_len > 0)[contig])
    at = int(right.offsets[i]) if right.offsets is not None else i * right.max_walk
    right.walks[at] = ord("A") if right.walks[at] != ord("A") else ord("C")
    return dataclasses.replace(ext, right=right)


class GPU:
    """Stands for the AMD GPU: ``hip`` runs on hip-cpu at ``wavefront`` (changed where ``wrong``); counts runs."""

    def __init__(self, wavefront: int = 64, wrong: tuple[str, ...] = ()) -> None:
        self.wavefront, self.wrong, self.runs = wavefront, wrong, []

    def __call__(self, ds, params, backend: str, protocol: str = "", **options):
        self.runs.append((backend, protocol, options.get("warp_size")))
        if backend == "hip":
            got = extend(ds, params, backend="hip-cpu", protocol=protocol, warp_size=self.wavefront)
            return _changed(got) if protocol in self.wrong else got
        return extend(ds, params, backend=backend, protocol=protocol, **options)


def test_differences_names_what_differs() -> None:
    ds = helpers.random_dataset(3)
    one = extend(ds, Params(k=21), backend="cpu")
    assert hip_check.differences(one, extend(ds, Params(k=21), backend="cpu")) == []
    assert hip_check.differences(_changed(one, 1), one) == [f"right walks (1 contigs, first at "
                                                           f"[{int(np.flatnonzero(one.right.walk_len > 0)[1])}])"]
    shorter = dataclasses.replace(one, right=dataclasses.replace(one.right, walk_len=one.right.walk_len - 1))
    assert hip_check.differences(shorter, one)[0].startswith("right walk_len (")
    other = extend(ds.subset(np.arange(5)), Params(k=21), backend="cpu")
    assert hip_check.differences(other, one) == [f"not the same contigs (5 and {ds.n_contigs})"]


@needs_hip_cpu
def test_the_check_passes_is_recorded_and_made_once(tmp_path: Path) -> None:
    folder, gpu, said = tmp_path / "amd-instinct-mi250x", GPU(), []
    record = hip_check.before_timing(("casptr", "fast"), folder, "AMD Instinct MI250X", 64, data=_slice(), run=gpu,
                                     say=said.append)
    assert gpu.runs == [("hip", "casptr", None), ("hip-cpu", "casptr", 64), ("hip", "fast", None),
                        ("hip-cpu", "fast", 64)]
    assert {p: r["status"] for p, r in record["protocols"].items()} == {"casptr": "same", "fast": "same"}
    on_disk = json.loads((folder / hip_check.CHECK_FILE).read_text())
    assert on_disk == record and on_disk["device"] == "AMD Instinct MI250X" and on_disk["wavefront"] == 64
    assert on_disk["hip_cpu"] == hip_cpu_build.HIP_CPU.label and len(on_disk["kernels"]) == 64
    assert said[-1] == "hip check: fast: the same as hip-cpu"

    gpu.runs.clear()
    hip_check.before_timing(("casptr", "fast"), folder, "AMD Instinct MI250X", 64, data=_slice(), run=gpu,
                            say=said.append)
    assert gpu.runs == [] and said[-1].startswith("hip check: passed before (")
    hip_check.before_timing(("casptr", "fast", "barrier"), folder, "AMD Instinct MI250X", 64, data=_slice(),
                            run=gpu, say=said.append)
    assert gpu.runs == [("hip", "barrier", None), ("hip-cpu", "barrier", 64)]  # only the build not checked yet
    assert set(hip_check.read(folder)["protocols"]) == {"casptr", "fast", "barrier"}


@needs_hip_cpu
def test_a_build_that_differs_stops_the_run_and_is_checked_again(tmp_path: Path) -> None:
    folder = tmp_path / "amd"
    with pytest.raises(LassmError, match=r"hip check: on sample-k77-slice, hip's output on AMD Instinct MI250X "
                                         r"differs from hip-cpu's at wavefront 64 for fast \(fast: right walks "
                                         r"\(1 contigs.*nothing was timed"):
        hip_check.before_timing(("casptr", "fast"), folder, "AMD Instinct MI250X", 64, data=_slice(),
                                run=GPU(wrong=("fast",)), say=lambda line: None)
    record = hip_check.read(folder)
    assert {p: r["status"] for p, r in record["protocols"].items()} == {"casptr": "same", "fast": "differs"}
    again = GPU()
    hip_check.before_timing(("casptr", "fast"), folder, "AMD Instinct MI250X", 64, data=_slice(), run=again,
                            say=lambda line: None)
    assert again.runs == [("hip", "fast", None), ("hip-cpu", "fast", 64)]
    assert hip_check.read(folder)["protocols"]["fast"]["status"] == "same"


@needs_hip_cpu
def test_at_wavefront_32_doneflag_is_not_checked_and_another_device_checks_again(tmp_path: Path) -> None:
    folder, gpu = tmp_path / "rdna", GPU(wavefront=32)
    hip_check.before_timing(("casptr", "doneflag"), folder, "AMD Radeon RX 6800", 32, data=_slice(), run=gpu,
                            say=lambda line: None)
    record = hip_check.read(folder)
    assert record["protocols"]["casptr"]["status"] == "same" and gpu.runs[-1] == ("hip-cpu", "casptr", 32)
    assert record["protocols"]["doneflag"]["status"] == "not checked"
    assert "hip-cpu cannot run it at wavefront 32: doneflag's probe loop ends on __all" in \
        record["protocols"]["doneflag"]["why"]
    gpu.runs.clear()
    hip_check.before_timing(("casptr",), folder, "AMD Radeon RX 7900 XTX", 32, data=_slice(), run=gpu,
                            say=lambda line: None)
    assert gpu.runs == [("hip", "casptr", None), ("hip-cpu", "casptr", 32)]  # a record is one device's


def test_without_hip_cpu_the_check_is_not_made_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hip_cpu_build, "available", lambda: (False, "TBB's headers are missing"))
    said: list[str] = []

    def never(*_args, **_kw):
        raise AssertionError("no build runs where hip-cpu cannot")

    assert hip_check.before_timing(("casptr",), tmp_path, "AMD Instinct MI250X", 64, run=never,
                                   say=said.append) is None
    assert said == ["hip check: not made, hip-cpu cannot run here (TBB's headers are missing); each point is still "
                    "checked against the CPU oracle"]
    assert not (tmp_path / hip_check.CHECK_FILE).exists()


# --------------------------------------------------------------------------- lassm run makes it first

@pytest.mark.parametrize("kernel", [["--kernel", "local-assembly"], []], ids=["local-assembly", "whole"])
def test_lassm_run_checks_hip_before_it_times_anything(kernel: list[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the plan times hip, ``lassm run`` calls the check with hip's builds, the machine's folder
    and the target's wavefront before the campaign; a check that fails ends the run there."""
    from lassm import campaign
    from lassm.campaign import whole
    from lassm.campaign.assembly_run import Outcome

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    amd = la_plan.Plan(datasets=("sample-k21",), backends=("hip", "cpu"),
                       protocols={"hip": ("casptr", "fast"), "cpu": ("none",)}, repeats=1, warmup=0, profile=False,
                       ceilings=False, targets={"hip": {"arch": "gfx90a", "device": "AMD Instinct MI250X",
                                                        "wavefront": 64, "compute_units": 110, "source": "rocminfo"}})
    calls: list[tuple] = []
    monkeypatch.setattr(campaign, "make_plan", lambda *a, **k: amd)
    monkeypatch.setattr(whole, "make_whole_plan",
                        lambda *a, **k: whole.WholePlan({"local-assembly": amd}))
    monkeypatch.setattr(campaign, "run_campaign", lambda *a, **k: calls.append(("timed",)) or Outcome(rows=[]))
    monkeypatch.setattr(campaign, "report", lambda outcome: None)
    monkeypatch.setattr(whole, "run_whole", lambda *a, **k: calls.append(("timed",)) or whole.WholeOutcome())
    monkeypatch.setattr(hip_check, "before_timing", lambda protocols, folder, device, wavefront, say:
                        calls.append(("checked", tuple(protocols), folder, device, wavefront)))
    command = ["run", *kernel, "--backends", "cpu", "--machine", "amd-box", "--quiet"]
    assert main(command) == 0
    assert calls == [("checked", ("casptr", "fast"), tmp_path / "results" / "amd-box", "AMD Instinct MI250X", 64),
                     ("timed",)]

    def differs(*_a, **_k):
        raise LassmError("hip check: differs; nothing was timed")

    calls.clear()
    monkeypatch.setattr(hip_check, "before_timing", differs)
    assert main(command) == 2 and calls == []

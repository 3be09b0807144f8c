# SPDX-License-Identifier: BSD-3-Clause
"""The campaign (``lassm run``): its plan, ``--dry-run``, a tiny real campaign, resume and a kill.

The real campaigns run the CPU backend on small datasets into a temporary results root
(``LASSM_RESULTS``), so they touch nothing under ``data/``. The GPU steps are checked where a
machine without a GPU can check them: a missing Nsight Compute, and a fake ``ncu`` that answers
``ERR_NVGPUCTRPERM`` as a driver that refuses counters does.
"""
from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths
from lassm.campaign import FULL_DATASETS, QUICK_DATASETS, make_plan, assembly_plan, steps
from lassm.campaign.part import Ask
from lassm.campaign.assembly_run import CAMPAIGN_FILE, CAMPAIGN_KEYS, ROW_KEYS
from lassm.campaign.runs_account import RUNS_FILE
from lassm.cli import main
from lassm.runs.account import read_entries
from lassm.runs.host import HOST_FILE, host_id
from lassm.runs.records import default_machine
from lassm.workloads.local_assembly import datasets

MACHINE = "box"
#: Two small datasets: the one-contig sample and a small generated one.
TINY = "sample-k21,gen-k21-s0.02"
#: The original programs (run where a CUDA GPU and nvcc are) are kept out: these tests read the
#: local-assembly records and accounts, the same on every machine.
RUN = ["run", "--machine", MACHINE, "--backends", "cpu", "--no-originals", "--datasets", TINY, "--repeats", "3",
       "--warmup", "1", "--quiet"]
POINTS = {"sample-k21__k21__cpu__none", "gen-k21-s0-02__k21__cpu__none"}


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_GIT_SHA", "test-sha")
    return tmp_path / "results"


def _account(results: Path) -> dict:
    """The newest entry of the folder's account: what the last run wrote."""
    return read_entries(results / MACHINE / CAMPAIGN_FILE)[-1]


def _summary(results: Path, run_id: str) -> dict:
    return json.loads((results / MACHINE / run_id / "summary.json").read_text())


# --- the plan ------------------------------------------------------------------------------------

def test_full_plan_on_a_cuda_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembly_plan, "is_gpu", lambda backend: backend == "cuda")
    p = make_plan(Ask(backends=["cuda", "cpu"]))
    assert p.datasets == FULL_DATASETS
    assert {"sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77", "sample-k77x20"} <= set(p.datasets)
    assert {f"real-mock5-k{k}" for k in (21, 33, 55, 77)} <= set(p.datasets)
    assert p.protocols["cuda"] == ("casptr", "matchany", "doneflag", "barrier", "fast")
    assert p.protocols["cpu"] == ("none",)
    assert (p.repeats, p.warmup, p.profile, p.ceilings) == (5, 1, True, True)
    points = p.points()
    assert len(points) == len(FULL_DATASETS) * 6
    assert [pt[2] for pt in points[:6]] == ["cpu"] + ["cuda"] * 5, "the oracle runs first for each dataset"
    assert [pt[0] for pt in points[::6]] == list(FULL_DATASETS), "one dataset at a time"
    profiled = p.profiled("cuda")
    assert {(d, pr) for d, _, pr in profiled} == {(d, pr) for d in assembly_plan.PROFILED_DATASETS for pr in ("casptr", "fast")}
    assert p.profiled("cpu") == []


def test_plan_datasets_exist() -> None:
    """Every dataset of the full plan loads by name: the mock5 set is committed, the others generated."""
    for name in FULL_DATASETS:
        assert datasets.check_name(name) == name


def test_quick_plan_and_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembly_plan, "is_gpu", lambda backend: backend == "sycl")  # an Intel GPU: every protocol
    q = make_plan(Ask(quick=True, backends=["sycl", "cpu"]))
    assert q.datasets == QUICK_DATASETS == ("sample-k77",)
    assert not q.profile and not q.ceilings
    assert q.protocols["sycl"] == ("casptr", "matchany", "doneflag", "barrier", "fast")
    p = make_plan(Ask(backends=["cuda", "cpu"], protocols=["casptr", "fast-bins"], repeats=2, warmup=0, ks=[21, 33],
                      profile=False))
    assert p.protocols["cuda"] == ("casptr", "fast-bins"), "an ablation build is timed when asked by name"
    assert (p.repeats, p.warmup, p.ks, p.profile) == (2, 0, (21, 33), False)
    assert p.profiled("cuda") == []
    assert len(p.points()) == len(FULL_DATASETS) * 2 * 3


@pytest.mark.parametrize("on_gpu", [True, False], ids=["intel-gpu", "cpu-driver"])
def test_without_a_gpu_points_are_timed_once_and_sycl_skips_the_scale_point(on_gpu: bool,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembly_plan, "is_gpu", lambda backend: on_gpu and backend == "sycl")
    p = make_plan(Ask(backends=["sycl", "cpu"]))
    assert p.repeats == (assembly_plan.REPEATS if on_gpu else assembly_plan.NO_GPU_REPEATS) and p.warmup == assembly_plan.WARMUP
    assert p.skip == ({} if on_gpu else {"sycl": ("sample-k77x20",)})
    on_sycl = {pt[0] for pt in p.points() if pt[2] == "sycl"}
    assert ("sample-k77x20" in on_sycl) is on_gpu
    assert {pt[0] for pt in p.points() if pt[2] == "cpu"} == set(FULL_DATASETS), "the oracle runs everything"
    assert make_plan(Ask(backends=["sycl", "cpu"], repeats=4)).repeats == 4


@pytest.mark.parametrize("on_gpu", [True, False], ids=["intel-gpu", "cpu-driver"])
def test_without_a_gpu_the_portable_backends_time_the_two_variants_the_chapters_compare(
        on_gpu: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """On a CPU box the three other insert protocols were 54 of a CPU box's 100 points."""
    from lassm.book.across import VARIANTS
    from lassm.campaign.assembly_run import describe

    monkeypatch.setattr(assembly_plan, "is_gpu", lambda backend: on_gpu and backend == "sycl")
    every = ("casptr", "matchany", "doneflag", "barrier", "fast")
    p = make_plan(Ask(backends=["sycl", "opencl", "cpu"]))
    assert assembly_plan.NO_GPU_PROTOCOLS == VARIANTS == ("casptr", "fast")
    assert p.protocols["sycl"] == (every if on_gpu else assembly_plan.NO_GPU_PROTOCOLS)
    assert p.protocols["opencl"] == (assembly_plan.timed_protocols("opencl") if on_gpu else
                                     tuple(x for x in assembly_plan.timed_protocols("opencl") if x in assembly_plan.NO_GPU_PROTOCOLS))
    assert p.protocols["cpu"] == ("none",)
    assert ("the two variants the chapters compare" in describe(p)) is not on_gpu
    asked = make_plan(Ask(backends=["sycl", "cpu"], protocols=["casptr", "barrier"]))
    assert asked.protocols["sycl"] == ("casptr", "barrier"), "--protocols still names any protocol"
    assert "the two variants" not in describe(asked)


@pytest.mark.parametrize("on_gpu", [True, False], ids=["nvidia-opencl", "cpu-driver"])
def test_opencl_skips_the_scale_point_on_a_cpu_only(on_gpu: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assembly_plan, "is_gpu", lambda backend: on_gpu and backend.startswith("opencl"))
    p = make_plan(Ask(backends=["opencl", "cpu"]))
    assert p.skip == ({} if on_gpu else {"opencl": ("sample-k77x20",)})
    assert ("sample-k77x20" in {pt[0] for pt in p.points() if pt[2] == "opencl"}) is on_gpu


def test_present_backends_prefers_cuda_and_adds_sycl(monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm import backends

    def fake_get(name: str):
        if name in ("cuda", "hip", "sycl", "opencl", "opencl-ptx"):
            return object()
        raise AssertionError(name)

    monkeypatch.setattr(backends, "get", fake_get)
    assert assembly_plan.present_backends() == (["cuda", "sycl", "opencl", "opencl-ptx", "cpu"], [])

    def none_get(name: str):
        raise backends.BackendUnavailable(f"backend {name!r} cannot run here: no {name} in this test")

    monkeypatch.setattr(backends, "get", none_get)
    found, lacks = assembly_plan.present_backends()
    assert found == ["cpu"]
    assert lacks == ["gpu: no CUDA or HIP backend can run here (cuda: no cuda in this test; hip: no hip in this test)",
                     "sycl: cannot run here: no sycl in this test", "opencl: cannot run here: no opencl in this test",
                     "opencl-ptx: cannot run here: no opencl-ptx in this test"]


def test_dry_run_prints_the_plan_and_runs_nothing(results: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["run", "--kernel", "local-assembly", "--dry-run", "--backends", "cpu", "--datasets", TINY,
                 "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    assert "sample-k21, gen-k21-s0.02" in out and "1 warm-up + 2 timed runs" in out
    assert out.strip().splitlines()[-3] == "2 points"  # then its estimated time (tests/campaign/test_estimate.py)
    assert out.strip().splitlines()[-2].startswith("estimate  ")
    # then the folder it writes, and why it starts fresh there
    assert out.strip().splitlines()[-1] == (f"== records of this host ({host_id()[:8]}): {results / default_machine()}/ "
                                            f"starts fresh: nothing is recorded there yet")
    assert not results.exists()


# --- a tiny campaign on the CPU backend ------------------------------------------------------------

def test_tiny_campaign_records_repeats_and_its_account(results: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(RUN) == 0
    err = capsys.readouterr().err
    assert "lacks:" in err and "counters: " in err
    folder = results / MACHINE
    assert {p.name for p in folder.iterdir()} == POINTS | {CAMPAIGN_FILE, RUNS_FILE, HOST_FILE}
    for run_id in POINTS:
        s = _summary(results, run_id)
        assert s["repeats"] == 3 and s["warmup"] == 1 and len(s["kernel_seconds_runs"]) == 3
        assert s["kernel_seconds"] == statistics.median(s["kernel_seconds_runs"])
        assert s["matches_cpu"] is True
    acc = _account(results)
    assert set(CAMPAIGN_KEYS) <= set(acc)
    assert acc["machine"] == MACHINE and acc["git_sha"] == "test-sha"
    assert acc["plan"]["datasets"] == TINY.split(",") and acc["plan"]["backends"] == ["cpu"]
    assert (acc["plan"]["repeats"], acc["plan"]["warmup"]) == (3, 1)
    assert {"lassm", "python", "numpy", "numba"} <= set(acc["versions"])
    assert acc["device"] and "sweep" in acc["steps"]
    assert [set(r) for r in acc["rows"]] == [set(ROW_KEYS)] * 2
    assert all(r["status"] == "ok" and r["matches_oracle"] is True and r["kernel_seconds"] > 0 for r in acc["rows"])
    counters = [line for line in acc["lacks"] if line.startswith("counters: ")]
    assert len(counters) == 1, acc["lacks"]
    assert any(line.startswith("ceilings: ") for line in acc["lacks"])


def test_resume_skips_recorded_points_and_force_runs_them(results: Path) -> None:
    assert main(RUN) == 0
    created = {rid: _summary(results, rid)["created"] for rid in POINTS}
    times = {rid: _summary(results, rid)["kernel_seconds"] for rid in POINTS}
    assert main(RUN) == 0
    acc = _account(results)
    assert [r["status"] for r in acc["rows"]] == ["skipped (recorded)"] * 2
    assert {r["run_id"]: r["kernel_seconds"] for r in acc["rows"]} == times, "rows read the recorded figures"
    assert {rid: _summary(results, rid)["created"] for rid in POINTS} == created
    assert main([*RUN, "--force", "--repeats", "2"]) == 0
    assert [r["status"] for r in _account(results)["rows"]] == ["ok"] * 2
    assert all(_summary(results, rid)["repeats"] == 2 for rid in POINTS)


def test_a_rerun_keeps_the_account_of_the_run_that_measured(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run over a complete folder adds its own entry, all skipped, and changes no earlier
    one; the chapter attributes the points to the run that measured them, not to the re-run."""
    from lassm.book import machine_chapter, machine_records, machines, models

    assert main(RUN) == 0
    path = results / MACHINE / CAMPAIGN_FILE
    (first,) = read_entries(path)
    monkeypatch.setenv("LASSM_GIT_SHA", "rerun-sha")
    assert main([*RUN, "--repeats", "2"]) == 0
    entries = read_entries(path)
    assert len(entries) == 2 and entries[0] == first, "the measuring run's entry is kept as it was"
    rerun = entries[1]
    assert [r["status"] for r in rerun["rows"]] == ["skipped (recorded)"] * 2
    assert rerun["git_sha"] == "rerun-sha" and rerun["plan"]["repeats"] == 2
    pts = machines.campaign_points(MACHINE)
    assert pts["entry"].tolist() == [0, 0] and set(pts["git_sha"]) == {"test-sha"}
    assert set(pts["status"]) == {"ok"} and set(pts["created"]) == {first["created"]}
    runs = machine_records.campaign_runs(MACHINE)
    assert runs["points measured"].tolist() == [2, 0] and runs["points skipped"].tolist() == [0, 2]
    assert runs["commit"].tolist() == ["test-sha", "rerun-sha"]
    table = machine_records.campaign_table(MACHINE)
    assert table["measured by run"].tolist() == [1, 1] and set(table["commit"]) == {"test-sha"}
    fact = machine_chapter.facts(MACHINE)["mc_campaign"]
    assert "3 timed repeats" in fact and "at commit test-sha" in fact and "rerun-sha" not in fact
    assert fact.endswith("(1 other run of `lassm run` measured none of these points)")
    assert set(models.campaign_times(MACHINE)["git_sha"]) == {"test-sha"}


def test_quick_campaign_without_a_profiler_says_so(results: Path) -> None:
    assert main(["run", "--quick", "--machine", MACHINE, "--backends", "cpu", "--datasets", "sample-k21",
                 "--repeats", "1", "--quiet"]) == 0
    acc = _account(results)
    assert acc["plan"]["profile"] is False and acc["plan"]["ceilings"] is False
    assert any(line.startswith("counters: ") for line in acc["lacks"])


def test_a_gpu_folder_runs_the_steps_and_records_what_they_lack(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring of the GPU steps, with the CPU backend standing in for a GPU one."""
    from lassm.campaign import assembly_run

    called = []
    monkeypatch.setattr(assembly_run, "is_gpu", lambda backend: True)
    monkeypatch.setattr(steps, "counters", lambda b, m, pts, force=False, **_: called.append(("counters", b, m, pts)) or
                        ["counters: refused in this test"])
    monkeypatch.setattr(steps, "ceilings", lambda b, m, force=False, command="": called.append(("ceilings", b, m)) or [])
    monkeypatch.setattr(steps, "metrics", lambda m: called.append(("metrics", m)) or ["metrics: not derived in this test"])
    p = make_plan(Ask(backends=["cpu"], datasets=["sample-k21"], repeats=1, warmup=0))
    out = assembly_run.run_campaign(p, machine=MACHINE, progress=False)
    assert [c[0] for c in called] == ["counters", "ceilings", "metrics"]
    acc = _account(results)
    assert acc["lacks"][-2:] == ["counters: refused in this test", "metrics: not derived in this test"]
    assert set(acc["steps"]) == {"sweep", "counters", "ceilings", "metrics"}
    assert out.lacks[MACHINE] == acc["lacks"] and not out.failed
    called.clear()
    assembly_run.run_campaign(make_plan(Ask(backends=["cpu"], datasets=["sample-k21"], profile=False, ceilings=False)),
                     machine=MACHINE, progress=False)
    assert [c[0] for c in called] == ["metrics"]
    assert {"counters: not collected (--no-profile or --quick)",
            "ceilings: not measured (--no-ceilings or --quick)"} <= set(_account(results)["lacks"])


def test_the_folder_steps_run_once_after_every_backends_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two GPU backends in one folder (cuda and opencl-ptx): both are counted, then the ceilings
    are measured once through the first (the one with microbenchmarks), then the metrics."""
    from lassm.campaign import assembly_run

    called = []
    monkeypatch.setattr(steps, "counters", lambda b, m, pts, force=False, **_: called.append(("counters", b)) or [])
    monkeypatch.setattr(steps, "ceilings", lambda b, m, force=False, command="": called.append(("ceilings", b)) or [])
    monkeypatch.setattr(steps, "metrics", lambda m: called.append(("metrics", m)) or [])
    p = make_plan(Ask(backends=["cpu"], datasets=["sample-k21"]))
    timing: dict = {}
    shared = assembly_run.FolderSteps(p, MACHINE, False, "", print, timing)
    assembly_run._gpu_steps(shared, "cuda", machine_steps=None)
    assembly_run._gpu_steps(shared, "opencl-ptx", machine_steps="cuda")
    assert called == [("counters", "cuda"), ("counters", "opencl-ptx"), ("ceilings", "cuda"), ("metrics", MACHINE)]


#: Runs ``lassm`` with ``MODULE.NAME`` replaced by a SIGKILL of the process itself, on its Nth call.
KILLER = """
import importlib, os, signal, sys
module, name, nth = sys.argv[1], sys.argv[2], int(sys.argv[3])
mod = importlib.import_module(module)
real, calls = getattr(mod, name), []
def dying(*a, **k):
    calls.append(1)
    if len(calls) == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*a, **k)
setattr(mod, name, dying)
from lassm.cli import main
sys.exit(main(sys.argv[4:]))
"""


def _lassm(args: list[str], results: Path, kill_at: str | None = None, nth: int = 1) -> subprocess.CompletedProcess:
    env = {**os.environ, "LASSM_RESULTS": str(results), "LASSM_GIT_SHA": "test-sha", "PYTHONPATH": str(paths.REPO)}
    cmd = [sys.executable, "-m", "lassm.cli", *args]
    if kill_at:
        module, name = kill_at.rsplit(".", 1)
        cmd = [sys.executable, "-c", KILLER, module, name, str(nth), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("kill_at, nth, recorded", [
    ("lassm.runs.records.write_record", 2, {"sample-k21__k21__cpu__none"}),  # while running the second point
    ("lassm.campaign.assembly_run._write", 1, POINTS),                           # while writing campaign.json
], ids=["second-point", "account"])
def test_a_killed_campaign_loses_nothing_and_a_rerun_completes_it(tmp_path: Path, kill_at: str, nth: int,
                                                                   recorded: set[str]) -> None:
    results = tmp_path / "results"
    res = _lassm(RUN, results, kill_at, nth)
    assert res.returncode == -signal.SIGKILL, res.stderr
    folder = results / MACHINE
    assert {p.name for p in folder.iterdir() if not p.name.startswith(".")} == recorded | {HOST_FILE}
    assert not (folder / CAMPAIGN_FILE).exists()
    created = {rid: json.loads((folder / rid / "summary.json").read_text())["created"] for rid in recorded}
    res = _lassm(RUN, results)
    assert res.returncode == 0, res.stderr
    (acc,) = read_entries(folder / CAMPAIGN_FILE)  # the killed run wrote no entry
    status = {r["run_id"]: r["status"] for r in acc["rows"]}
    assert status == {rid: "skipped (recorded)" if rid in recorded else "ok" for rid in POINTS}
    assert {rid: json.loads((folder / rid / "summary.json").read_text())["created"] for rid in recorded} == created
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")], "no temporary left after the rerun"


# --- the GPU steps, where no GPU is ---------------------------------------------------------------

def test_counters_without_ncu_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(steps, "NCU_FALLBACK", tmp_path / "no-ncu")
    lines = steps.counters("cuda", "gpu-box", [("sample-k21", None, "casptr"), ("sample-k21", None, "fast")])
    assert len(lines) == 1 and lines[0].startswith("counters: ncu not found") and "Nsight Compute" in lines[0]


def test_counters_refused_by_the_driver_is_one_line(results: Path, tmp_path: Path) -> None:
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\n"
                    'if [ "$1" = "--version" ]; then echo "NVIDIA (R) Nsight Compute Command Line Profiler"; '
                    'echo "Version 2099.1.0.0 (build 1)"; exit 0; fi\n'
                    'echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU '
                    'Performance Counters on the target device 0."\nexit 1\n')
    fake.chmod(0o755)
    lines = steps.counters("cuda", "gpu-box", [("sample-k21", None, "casptr"), ("sample-k21", None, "fast")],
                           ncu=str(fake), timeout=60)
    assert len(lines) == 1, lines
    assert "ERR_NVGPUCTRPERM" in lines[0] and "NVreg_RestrictProfilingToAdminUsers=0" in lines[0]
    assert not list((results / "gpu-box").rglob("*.csv")), "no counter file from a refused run"


def test_counters_with_a_profiler_write_raw_files_and_skip_them_after(results: Path, tmp_path: Path) -> None:
    """A stand-in ncu that writes, where it is told, a measured H200 CSV twice, each copy ended by the
    boundary kernel's row: one profiled process for both points (their ``lassm extend`` commands run
    in it), one raw file per point, labelled."""
    import csv

    from lassm.analysis.counters import ncu_batch, ncu

    fixture = (paths.REPO / "tests" / "fixtures" / "counters" / "ncu_raw_h200_lassm_k77_casptr_measured.csv")
    lines, at, header = ncu.lines_and_header(fixture)
    cut = dict(zip(header, next(csv.reader([lines[-1]]))), **{"Kernel Name": ncu_batch.BOUNDARY})
    boundary = ",".join(f'"{cut[c]}"' for c in header)
    session = tmp_path / "session.csv"
    session.write_text("\n".join([*lines, boundary, *lines[at + 2:], boundary]) + "\n")
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\n"
                    'if [ "$1" = "--version" ]; then echo "Version 2025.3.1.0 (build 1)"; exit 0; fi\n'
                    f'echo "$@" >> "{tmp_path}/calls"\n'
                    f'while [ $# -gt 0 ]; do if [ "$1" = "--log-file" ]; then cp "{session}" "$2"; fi; shift; done\n')
    fake.chmod(0o755)
    points = [("sample-k21", None, "casptr"), ("sample-k21", None, "fast")]
    assert steps.counters("cuda", "gpu-box", points, ncu=str(fake)) == []
    want = ncu.read_raw(fixture)[0].drop(columns="ID")
    for proto in ("casptr", "fast"):
        raw = steps.counter_file("gpu-box", "sample-k21", 21, "cuda", proto)
        meta = json.loads(raw.with_name(raw.name + ".meta.json").read_text())
        assert (meta["dataset"], meta["k"], meta["protocol"], meta["tool_version"]) == ("sample-k21", 21, proto, "2025.3.1.0")
        target = meta["command"][meta["command"].index("--") + 1:]
        assert target[1:3] == ["-m", "lassm.cli.profiled"]
        commands = json.loads(target[3])
        assert [c[:2] for c in commands] == [["extend", c[1]] for c in commands] and len(commands) == 2
        assert [c[c.index("--protocol") + 1] for c in commands] == ["casptr", "fast"]
        assert ncu.read_raw(raw)[0].drop(columns="ID").equals(want)
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 1 and ncu_batch.BOUNDARY in calls[0], "one session, its filter letting the boundary through"
    assert steps.counters("cuda", "gpu-box", points, ncu=str(fake)) == []
    assert len((tmp_path / "calls").read_text().splitlines()) == 1, "counted points are skipped"


def test_the_commands_of_one_session_run_in_turn_each_ended_by_the_boundary(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """lassm.cli.profiled: each argument list is run by lassm's own main, in order; one
    that fails is named in the status file and the next still runs; the boundary follows each."""
    from lassm import cli
    from lassm.analysis.counters import ncu_batch
    from lassm.cli import profiled as commands

    ran: list[list[str]] = []
    cuts: list[int] = []
    monkeypatch.setattr(cli, "main", lambda argv: ran.append(argv) or (2 if argv[0] == "bad" else 0))
    monkeypatch.setattr(ncu_batch, "boundary", lambda profiled_range=False: cuts.append(len(ran)))
    status = tmp_path / "status.json"
    assert commands.main([json.dumps([["extend", "a"], ["bad"], ["extend", "b"]]), str(status)]) == 0
    assert ran == [["extend", "a"], ["bad"], ["extend", "b"]] and cuts == [1, 2, 3]
    assert list(json.loads(status.read_text())) == ["1"] and "exited 2" in json.loads(status.read_text())["1"]
    target = ncu_batch.commands_target([["py", "-m", "lassm", "extend", "a"], ["py", "-m", "lassm.cli", "xdrop", "b"]])
    assert target[1:3] == ["-m", ncu_batch.COMMANDS_MODULE] and json.loads(target[3]) == [["extend", "a"], ["xdrop", "b"]]
    with pytest.raises(ValueError, match="not a lassm command"):
        ncu_batch.commands_target([["ht_loc", "x.dat", "77"]])


@pytest.mark.parametrize("backend, tool", [("hip", "rocprofv3"), ("sycl", "unitrace")])
def test_other_vendors_profilers_are_named(backend: str, tool: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert steps.counters(backend, "gpu-box", [("sample-k21", None, "casptr")]) == [
        f"counters: {tool} not found; {steps.PROFILERS[backend][1]}"]


def test_ceilings_and_metrics_say_what_they_lack(results: Path) -> None:
    assert steps.ceilings("hip", "gpu-box") == ["ceilings: the microbenchmarks (lassm.analysis.machine) run on CUDA only; none for hip"]
    assert steps.metrics("gpu-box") == ["metrics: not derived: gpu-box has no counters and no ceilings"]
    assert not (results / "gpu-box").exists()


def test_the_data_contract_documents_campaign_json() -> None:
    from lassm.campaign.assembly_run import CAMPAIGN_KEYS, ROW_KEYS

    text = (paths.REPO / "book" / "data-contract.md").read_text(encoding="utf-8")
    section = text.split("## Campaign account: `campaign.json`", 1)[1].split("\n## ", 1)[0]
    documented = [line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")]
    assert documented == list(CAMPAIGN_KEYS)
    rows_line = next(line for line in section.splitlines() if line.startswith("| `rows`"))
    assert all(f"`{key}`" in rows_line for key in ROW_KEYS)

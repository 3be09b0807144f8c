# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run --dry-run``'s estimated time per part (:mod:`lassm.campaign.estimate`), from small
synthetic accounts under ``LASSM_RESULTS``: the machine's own first, else the nearest device's,
else a plain "none"; points already recorded are not counted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lassm.campaign import estimate
from lassm.campaign.part import Where, Work
from lassm.campaign.assembly_plan import Plan
from lassm.campaign.whole import part
from lassm.campaign.xdrop_plan import XdropPlan
from lassm.cli import main
from lassm.runs.host import host_id

from ..helpers import whole_record


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-one")
    monkeypatch.delenv("LASSM_MACHINE", raising=False)
    (tmp_path / "results").mkdir()
    return tmp_path / "results"


def _account(folder: Path, name: str, *entries: dict) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"entries": list(entries)}))


def _local_entry(seconds: float, statuses: list[str], datasets: list[str] | None = None, **plan) -> dict:
    names = datasets or [f"gen-k{21 + i}" for i in range(len(statuses))]
    return {"seconds": seconds, "plan": {"repeats": 1, "warmup": 0, **plan},
            "rows": [{"dataset": d, "backend": "cpu", "status": s} for d, s in zip(names, statuses)]}


def _xdrop_entry(seconds: float, n: int, pairs: int = 200) -> dict:
    return {"seconds": seconds, "plan": {"sizes": {"xdrop-sim-200": pairs}},
            "rows": [{"dataset": "xdrop-sim-200", "xdrop": 10, "backend": "cpu", "status": "ok"}] * n}


def _xdrop_plan(xdrops=(10, 20)) -> XdropPlan:
    return XdropPlan(datasets=("xdrop-sim-200",), xdrops=tuple(xdrops), backends=("cpu",), sizes={"xdrop-sim-200": 200})


# --- the rate of one account --------------------------------------------------------------------

def test_a_rate_pools_the_runs_that_measured_and_leaves_out_those_that_skipped(results: Path) -> None:
    _account(results / "box", "campaign.json",
             _local_entry(30.0, ["ok", "ok", "failed: no"]),
             _local_entry(50.0, ["skipped (recorded)"] * 3),  # its seconds measured nothing
             _local_entry(10.0, ["MISMATCH"]))
    got = estimate.rate("local-assembly", results / "box")
    assert (got.seconds, got.units, got.runs) == (40.0, 3.0, 2)
    assert estimate.rate("local-assembly", results / "nowhere") is None
    _account(results / "idle", "campaign.json", _local_entry(50.0, ["skipped (recorded)"]))
    assert estimate.rate("local-assembly", results / "idle") is None


def test_a_replicated_point_weighs_its_runs_and_a_split_sweep_counts_the_whole_plan(results: Path) -> None:
    """A ``x20`` point is 20 times a point's runs; a GPU run's CPU folder holds a few rows of a
    sweep whose seconds cover the plan's every point."""
    one = _local_entry(10.0, ["ok", "ok"], datasets=["sample-k21", "sample-k21x20"])
    assert estimate.entry_units("local-assembly", one) == 21.0
    split = _local_entry(100.0, ["ok"], datasets=["gen-k21"])
    split["plan"].update(datasets=["gen-k21", "gen-k33"], backends=["cuda", "cpu"],
                         protocols={"cuda": ["casptr", "fast"], "cpu": ["none"]})
    assert estimate.entry_units("local-assembly", split) == 6.0  # 2 datasets x 3 builds, all measured
    assert estimate.entry_units("xdrop", _xdrop_entry(9.0, 3, pairs=200)) == 600.0


# --- the nearest device -------------------------------------------------------------------------

def test_the_nearest_device_is_of_the_same_kind_and_model_line(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for name in ("nvidia-h100-80gb-hbm3", "nvidia-a100", "nvidia-h200-x2", "cpu-amd-epyc", "cpu-intel-xeon", "box"):
        (root / name).mkdir(parents=True)
    got = [p.name for p in estimate.candidates("nvidia-h200", "nvidia-h200", "gpu", [root])]
    assert got == ["nvidia-h200", "nvidia-h200-x2", "nvidia-h100-80gb-hbm3", "nvidia-a100"]
    cpu = [p.name for p in estimate.candidates("laptop", "cpu-intel-xeon", "cpu", [root])]
    assert cpu == ["laptop", "cpu-intel-xeon", "cpu-amd-epyc"]  # this device's own folder first
    assert estimate.kind_of("cpu-amd-epyc") == "cpu" and estimate.kind_of("nvidia-h200") == "gpu"
    assert estimate.kind_of("box") is None
    (root / "nvidia-hgx-b200").mkdir()  # another line of the same vendor: after the H100
    got = [p.name for p in estimate.candidates("nvidia-h200", "nvidia-h200", "gpu", [root])]
    assert got.index("nvidia-h100-80gb-hbm3") < got.index("nvidia-hgx-b200") < got.index("nvidia-a100")


# --- one part's estimate ------------------------------------------------------------------------

def test_the_own_account_wins_else_the_nearest_devices_else_none(results: Path) -> None:
    kw = dict(device_name="nvidia-h200", kind="gpu", roots=[results])
    _account(results / "nvidia-h100-80gb-hbm3", "xdrop/campaign.json", _xdrop_entry(40.0, 2))  # 400 pairs
    near = estimate.estimate_part("xdrop", _xdrop_plan(), target="nvidia-h200", **kw)
    assert near.work == Work(points=2, total=2, units=400.0)
    assert near.seconds == pytest.approx(40.0) and not near.own
    assert "the nearest device's account" in near.line() and "nvidia-h100-80gb-hbm3/xdrop/campaign.json" in near.line()
    _account(results / "nvidia-h200", "xdrop/campaign.json", _xdrop_entry(4.0, 4))  # 800 pairs in 4 s
    own = estimate.estimate_part("xdrop", _xdrop_plan(), target="nvidia-h200", **kw)
    assert own.own and own.seconds == pytest.approx(2.0) and "this machine's account" in own.line()
    cpu = estimate.estimate_part("xdrop", _xdrop_plan(), target="cpu-amd-epyc", device_name="cpu-amd-epyc",
                                 kind="cpu", roots=[results])  # a GPU's numbers never price a CPU
    assert cpu.rate is None and cpu.seconds is None
    assert cpu.line() == ("estimate  none: neither cpu-amd-epyc's accounts nor another cpu device's measured "
                          "this part")


def test_points_already_recorded_are_not_counted(results: Path) -> None:
    plan = Plan(datasets=("sample-k21", "sample-k77"), backends=("cpu",), protocols={"cpu": ("none",)},
                repeats=2, warmup=1)
    local = part("local-assembly")

    def work(force: bool = False) -> Work:
        return local.work(plan, Where("box", "sha-one", force, "box"))

    assert work() == Work(2, 2, 6.0)
    record = results / "box" / "sample-k21__k21__cpu__none"
    whole_record(record, "sample-k21", 21)
    assert work() == Work(1, 2, 3.0)
    assert work(force=True) == Work(2, 2, 6.0)  # --force measures it again
    (record / "summary.json").write_text("{}")  # a damaged record is measured again
    assert work() == Work(2, 2, 6.0)
    whole_record(record, "sample-k21", 21)
    whole_record(record.parent / "sample-k77__k77__cpu__none", "sample-k77", 77)
    done = estimate.estimate_part("local-assembly", plan, target="box", device_name="box", kind="cpu",
                                  machine="box", roots=[results])
    assert done.seconds == 0.0 and done.line().startswith("estimate  nothing to measure: 2 of 2 points recorded")


def test_the_total_adds_the_parts_and_names_those_without_an_estimate() -> None:
    rate = estimate.Rate(60.0, 1.0, 1, Path("a"))
    parts = {"local-assembly": estimate.Estimate("local-assembly", Work(2, 2, 2.0), rate),
             "suite": estimate.Estimate("suite", Work(3, 3, 3.0), None)}
    assert estimate.total_line(parts, {"local-assembly": "local assembly", "suite": "the suite"}) == (
        "== estimated total: about 2 min 00 s (local assembly 2 min 00 s; not counted, nothing to estimate "
        "from: the suite)")
    assert estimate.duration(4000) == "1 h 06 min" and estimate.duration(0.2) == "under 1 s"


# --- the command --------------------------------------------------------------------------------

def test_dry_run_prints_each_parts_estimate_and_the_total(results: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.runs.host import claim

    claim(results / "box" / "campaign.json")  # this host's folder: the run resumes there
    _account(results / "box", "campaign.json", _local_entry(8.0, ["ok", "ok", "ok", "ok"]))  # 2 s a run
    _account(results / "box", "xdrop/campaign.json",
             {"seconds": 10.0, "plan": {"sizes": {"xdrop-short-5": 5}},
              "rows": [{"dataset": "xdrop-short-5", "backend": "cpu", "status": "ok"}] * 2})  # 1 s a pair
    argv = ["run", "--dry-run", "--machine", "box", "--backends", "cpu", "--datasets", "sample-k21,xdrop-short-5",
            "--xdrops", "10", "--repeats", "1", "--warmup", "0", "--no-originals"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "1 points\nestimate  about 2 s for 1 of 1 points, at the pace of this machine's account" in out
    assert "box/campaign.json (8 s over 1 run that measured)" in out
    assert "estimate  about 5 s for 1 of 1 points" in out and "box/xdrop/campaign.json" in out
    assert "\n== estimated total: about 7 s (local assembly 2 s, X-drop 5 s)\n== records of this host" in out
    assert out.rstrip().splitlines()[-1].endswith(f"{results / 'box'}/ resumes: host.json names this host ({host_id()[:8]})")
    _account(results / "box", "runs.json", {"seconds": 754.0, "created": "2026-11-29T00:00:00+00:00",
                                            "parts": {"local-assembly": {"seconds": 700.0, "measured": 4, "skipped": 0}}})
    assert main(argv) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-2].endswith(
        "   a whole run from scratch took 12 min 34 s here (" + str(results / "box" / "runs.json") + ", 2026-11-29)")
    assert main(["run", "--kernel", "local-assembly", "--dry-run", "--machine", "box", "--backends", "cpu",
                 "--datasets", "sample-k21", "--repeats", "1", "--warmup", "0"]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-2].startswith("estimate  about 2 s for 1 of 1 points")


def test_dry_run_says_plainly_when_nothing_prices_a_part(results: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(estimate, "default_roots", lambda: [results])  # no committed folder either
    assert main(["run", "--kernel", "local-assembly", "--dry-run", "--machine", "cpu-nowhere", "--backends", "cpu",
                 "--datasets", "sample-k21"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-2] == ("estimate  none: neither cpu-nowhere's accounts nor another cpu device's "
                                             "measured this part")
    assert out.rstrip().splitlines()[-1].endswith("cpu-nowhere/ starts fresh: nothing is recorded there yet")

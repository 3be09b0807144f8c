# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run`` is a loop over an ordered list of parts (:mod:`lassm.campaign.part`): a toy part
added to the list is planned, described, estimated, run, reported and accounted like the four
real ones, and one left out by its needs is one line in each place."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from lassm import paths
from lassm.campaign import estimate, runs_account, whole
from lassm.campaign.outcome import PartOutcome
from lassm.campaign.part import Ask, How, LeftOut, Part, Where, Work
from lassm.runs.account import ACCOUNTS
from lassm.cli import main
from lassm.runs.host import claim


@dataclass(frozen=True)
class ToyPlan:
    items: tuple[str, ...]
    backends: tuple[str, ...] = ("cpu",)


class Toy(Part):
    """Counts to three: a part with an account of its own, two items of which one is recorded."""

    key, label, account = "toy", "a toy part", "toy/campaign.json"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def needs(self, ask: Ask, planned: dict) -> LeftOut | None:
        if "local-assembly" not in planned:
            return LeftOut("no local-assembly plan to follow", lacks=("toy: not run here",))
        return None

    def plan(self, ask: Ask, planned: dict) -> ToyPlan:
        self.calls.append("plan")
        return ToyPlan(items=("one", "two"))

    def describe(self, plan: ToyPlan) -> str:
        return f"items     {', '.join(plan.items)}"

    def work(self, plan: ToyPlan, where: Where) -> Work:
        self.calls.append(f"work {where.folder}")
        return Work(points=1, total=len(plan.items), units=1.0)

    def run(self, plan: ToyPlan, how: How) -> PartOutcome:
        self.calls.append(f"run {how.machine}")
        return PartOutcome(rows=[{"status": "ok"}, {"status": "skipped (recorded)"}])

    def report(self, outcome: PartOutcome, say) -> None:
        self.calls.append("report")


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-toy")
    return tmp_path / "results"


def test_a_toy_part_is_planned_estimated_run_and_accounted(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toy = Toy()
    parts = (whole.part("local-assembly"), toy)
    monkeypatch.setattr(whole, "PARTS", parts)  # the estimate finds the toy by its key
    ask = Ask(True, backends=["cpu"], datasets=["sample-k21"], repeats=1, warmup=0, profile=False, ceilings=False)
    plan = whole.make_whole_plan(ask, parts)
    assert plan.of("toy") == ToyPlan(items=("one", "two")) and plan.left_out == {}
    assert "== a toy part\nitems     one, two" in whole.describe_whole(plan)
    claim(results / "box" / "toy")  # this host's folder, with an earlier run's pace: 10 s for 2 points
    (results / "box" / "toy").mkdir(parents=True)
    (results / "box" / "toy" / "campaign.json").write_text(json.dumps(
        {"entries": [{"seconds": 10.0, "plan": {}, "rows": [{"status": "ok"}, {"status": "ok"}]}]}))
    notes, total = estimate.dry_run(plan, machine="box", roots=[results])
    assert notes["toy"].startswith("estimate  about 5 s for 1 of 2 points, at the pace of this machine's account")
    assert "a toy part 5 s" in total
    outcome = whole.run_whole(plan, How(machine="box", progress=False))
    assert toy.calls == ["plan", "work box", "run box", "report"]
    assert outcome.outcomes["toy"].rows[0]["status"] == "ok" and not outcome.failed
    (entry,) = runs_account.read(paths.results_dir("box"))
    assert entry["parts"]["toy"] == {"seconds": entry["parts"]["toy"]["seconds"], "measured": 1, "skipped": 1,
                                     "failed": 0}
    assert entry["parts"]["local-assembly"]["measured"] == 1


def test_a_part_its_needs_leave_out_is_one_line_everywhere(results: Path) -> None:
    toy = Toy()
    parts = (whole.part("xdrop"), toy)
    plan = whole.make_whole_plan(Ask(True, backends=["cpu"], datasets=["xdrop-short-5"], xdrops=[10], repeats=1,
                                     warmup=0, profile=False), parts)
    assert plan.of("toy") is None and toy.calls == []
    assert plan.left_out == {"toy": "no local-assembly plan to follow"} and plan.lacks == ["toy: not run here"]
    assert whole.describe_whole(plan).endswith("== a toy part: left out: no local-assembly plan to follow")
    plan.only("xdrop")
    assert plan.left_out["toy"] == "--kernel xdrop"


def test_the_command_line_names_the_parts_in_their_order(capsys: pytest.CaptureFixture) -> None:
    assert main(["run", "--kernel", "nope"]) == 2
    assert "choose one of local-assembly, xdrop, suite, originals" in capsys.readouterr().err
    assert [p.account for p in whole.PARTS] == ["campaign.json", "xdrop/campaign.json", "suite/campaign.json",
                                                "originals.json"]
    assert whole.accounts() == (*(p.account for p in whole.PARTS), "runs.json") == ACCOUNTS

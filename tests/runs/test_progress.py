# SPDX-License-Identifier: BSD-3-Clause
"""What ``lassm run`` shows while it runs (:mod:`lassm.runs.progress`): on a terminal a live bar per
task; elsewhere (a CI log) plain lines with the points done of the total, the time spent and left,
said when a task starts, now and then, and when it ends; nothing under ``--quiet``."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from lassm.runs import progress, sweep

from ..helpers import whole_record


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_say_points_done_of_the_total_now_and_then() -> None:
    out, clock = io.StringIO(), Clock()
    bar = progress.LineProgress(file=out, interval=30.0, get_time=clock)
    with bar:
        task = bar.add_task("sweep", total=10)
        for _ in range(9):
            clock.now += 5.0
            bar.advance(task)
        clock.now += 5.0
        bar.update(task, advance=1)
    lines = out.getvalue().splitlines()
    assert lines[0] == "sweep: 0/10 points (0%), 0:00:00 elapsed, ETA ?"
    assert lines[1] == "sweep: 6/10 points (60%), 0:00:30 elapsed, ETA 0:00:20"  # 30 s after the first
    assert lines[-1] == "sweep: 10/10 points (100%), 0:00:50 elapsed, done"
    assert len(lines) == 3


def test_a_task_counting_runs_shows_its_points() -> None:
    """The sweep's bar counts runs (its ETA weighs a x20 point right) and says points."""
    out, clock = io.StringIO(), Clock()
    bar = progress.LineProgress(file=out, interval=0.0, get_time=clock)
    task = bar.add_task("sweep", total=42, points=0, points_total=2)
    clock.now = 2.0
    bar.update(task, advance=21, points=1)
    assert out.getvalue().splitlines()[1] == "sweep: 1/2 points (50%), 0:00:02 elapsed, ETA 0:00:02"


def test_a_step_is_a_task_that_ends_whatever_it_did() -> None:
    out = io.StringIO()
    bar = progress.LineProgress(file=out, interval=3600.0)
    counting = progress.Step(bar, "counters (cuda)", 4)
    counting.advance()
    counting.end()  # given up after one point: the task still ends
    progress.Step(bar, "nothing", 0)
    progress.Step(bar, "ceilings", unit="step").end()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("counters (cuda): 0/4 points (0%)")
    assert lines[1].startswith("counters (cuda): 4/4 points (100%)") and lines[1].endswith("done")
    assert lines[2].startswith("nothing: 0/0 points") and lines[2].endswith("done")
    assert lines[3].startswith("ceilings: 0/1 step (0%)") and lines[4].startswith("ceilings: 1/1 step (100%)")


def test_a_terminal_gets_a_live_bar_a_log_gets_lines_quiet_gets_nothing() -> None:
    assert type(progress.bar(True, file=Terminal())) is not progress.LineProgress
    assert isinstance(progress.bar(True, file=io.StringIO()), progress.LineProgress)
    quiet = progress.bar(False)
    assert quiet.disable and not isinstance(quiet, progress.LineProgress)


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_GIT_SHA", "test")
    return tmp_path


def test_the_sweep_says_its_points_on_standard_error_when_it_is_no_terminal(results: Path,
                                                                           capsys: pytest.CaptureFixture) -> None:
    whole_record(results / "box" / "sample-k21__k21__cpu__none", "sample-k21", 21)  # skipped, no kernel runs
    twice = sweep.Choice(backends=["cpu"], datasets=["sample-k21", "sample-k21"])
    rows = sweep.main_job(machine="box", points=twice, progress=True)
    assert [r["status"] for r in rows] == ["skipped (recorded)"] * 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "sweep: 0/2 points (0%), 0:00:00 elapsed, ETA ?"
    assert err[-1].startswith("sweep sample-k21 k=- cpu/none: 2/2 points (100%), ") and err[-1].endswith(", done")
    sweep.main_job(machine="box", points=sweep.Choice(backends=["cpu"], datasets=["sample-k21"]), progress=False)
    assert capsys.readouterr().err == ""

# SPDX-License-Identifier: BSD-3-Clause
"""The ``lassm`` process (:mod:`lassm.__main__`): a finished ``extend`` leaves without the
interpreter's clean-up, yet its output, its streams and its exit code are all there; and the
stamps of :mod:`lassm.timeline` say when each step happened."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from lassm import paths, timeline
from lassm.__main__ import leaves_early


def _lassm(args: list[str], **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "lassm", *args], cwd=paths.REPO, capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)


@pytest.mark.parametrize("argv, early", [
    (["extend", "in.dat", "--out", "o.txt"], True),
    (["xdrop", "align", "p.parquet", "--out", "o.tsv"], True),
    (["extend", "in.dat", "--cluster", "slurm", "--out", "o.txt"], False),
    (["extend", "in.dat", "--cluster=local:2", "--out", "o.txt"], False),
    (["run", "--kernel", "xdrop"], False),
    (["xdrop", "generate", "--out", "p.parquet"], False),
    ([], False),
])
def test_only_one_shot_commands_leave_early(argv: list[str], early: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDA_INJECTION64_PATH", raising=False)
    assert leaves_early(argv) is early
    monkeypatch.setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libinjection.so")  # under Nsight: never
    assert leaves_early(argv) is False


def test_a_command_that_leaves_early_keeps_its_output_and_messages(tmp_path: Path) -> None:
    """The same file as the in-process command, the closing line on stderr, exit 0, and the
    timeline's steps in order, ``exit`` last."""
    pytest.importorskip("numba")
    from lassm.cli import main

    src = paths.sample("k77")
    mine, theirs, stamps = tmp_path / "entry.txt", tmp_path / "inproc.txt", tmp_path / "timeline.txt"
    assert main(["extend", str(src), "--k", "77", "--out", str(theirs)]) == 0
    started = time.monotonic_ns()
    res = _lassm(["extend", str(src), "--k", "77", "--out", str(mine)], LASSM_TIMELINE=str(stamps))
    ended = time.monotonic_ns()
    assert res.returncode == 0, res.stderr
    assert mine.read_bytes() == theirs.read_bytes()
    assert res.stderr.startswith("extended 3296 contigs with cpu at k = 77"), res.stderr
    steps = [step for _, step in timeline.read(str(stamps))]
    assert steps[0] == "interpreter" and steps[-1] == "exit", steps
    assert steps.index("read") < steps.index("extended") < steps.index("written") < steps.index("exit")
    at = timeline.offsets(started, timeline.read(str(stamps)), ended)
    assert 0 < at["interpreter"] < at["read"] < at["written"] <= at["exit"] <= at["gone"]


def test_a_failing_command_still_exits_2_with_its_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.dat"
    bad.write_text("7 ACGTNNNN\n")
    res = _lassm(["extend", str(bad), "--k", "21", "--out", str(tmp_path / "o.txt")])
    assert res.returncode == 2
    assert res.stderr.startswith("lassm: error: ") and res.stderr.count("\n") == 1, res.stderr
    assert not (tmp_path / "o.txt").exists()


def test_no_timeline_is_written_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(timeline.ENV, raising=False)
    timeline.mark("nothing")  # unset: no file anywhere, no error
    assert not timeline.enabled()


def test_median_offsets_keep_the_steps_every_run_has() -> None:
    runs = [timeline.offsets(0, [(1_000_000, "a"), (3_000_000, "b"), (5_000_000, "b")], 9_000_000),
            timeline.offsets(0, [(2_000_000, "a"), (4_000_000, "b"), (4_500_000, "build")], 7_000_000),
            timeline.offsets(0, [(3_000_000, "a"), (8_000_000, "b")], 10_000_000)]
    assert runs[0]["b"] == 3.0  # the first of two stamps
    assert timeline.median_offsets(runs) == [("a", 2.0), ("b", 4.0), ("gone", 9.0)]

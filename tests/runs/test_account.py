# SPDX-License-Identifier: BSD-3-Clause
"""lassm.runs.account: a campaign account file keeps every run's entry, read in either format,
appended under a lock, and each point attributed to the run that measured it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lassm import paths
from lassm.errors import LassmError
from lassm.runs import account
from lassm.runs.account import ENTRIES, SKIPPED


def _row(dataset: str, status: str, seconds: float | None = 1.0) -> dict:
    return {"dataset": dataset, "k": 21, "backend": "cpu", "protocol": "none", "status": status,
            "kernel_seconds": seconds}


def test_a_file_of_one_account_reads_as_one_entry(tmp_path: Path) -> None:
    """The format before entries: one account at the top level."""
    path = tmp_path / "campaign.json"
    old = {"git_sha": "abc", "seconds": 132.9, "command": "lassm run --force", "rows": [_row("d1", "ok")]}
    path.write_text(json.dumps(old))
    assert account.read_entries(path) == [old]
    account.append_entry(path, {"git_sha": "def", "rows": [_row("d1", SKIPPED)]})
    data = json.loads(path.read_text())
    assert list(data) == [ENTRIES] and data[ENTRIES][0] == old and data[ENTRIES][1]["git_sha"] == "def"
    assert account.latest(account.read_entries(path))["git_sha"] == "def"


def test_missing_and_bad_files(tmp_path: Path) -> None:
    assert account.read_entries(tmp_path / "absent.json") == [] and account.latest([]) is None
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LassmError, match="not JSON"):
        account.read_entries(bad)
    bad.write_text(json.dumps({ENTRIES: {"not": "a list"}}))
    with pytest.raises(LassmError, match="neither"):
        account.read_entries(bad)


def test_append_leaves_only_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m" / "campaign.json"
    for n in range(3):
        account.append_entry(path, {"n": n})
    assert [e["n"] for e in account.read_entries(path)] == [0, 1, 2]
    assert [p.name for p in path.parent.iterdir()] == ["campaign.json"], "no lock file or temporary left"


def test_each_point_is_the_newest_run_that_measured_it() -> None:
    entries = [
        {"rows": [_row("d1", "ok", 1.0), _row("d2", "ok", 2.0), _row("d3", SKIPPED, 3.0)]},
        {"rows": [_row("d1", SKIPPED, 1.0), _row("d2", SKIPPED, 2.0), _row("d3", SKIPPED, 3.0)]},
        {"rows": [_row("d1", SKIPPED, 1.0), _row("d2", "ok", 2.5), _row("d4", "failed: boom", None)]},
    ]
    got = {r["dataset"]: (r["entry"], r["status"], r["kernel_seconds"]) for r in account.measured_by(entries)}
    assert got == {"d1": (0, "ok", 1.0), "d2": (2, "ok", 2.5), "d3": (None, SKIPPED, 3.0),
                   "d4": (2, "failed: boom", None)}
    assert [r["dataset"] for r in account.measured_by(entries)] == ["d1", "d2", "d3", "d4"]
    xdrop = [{"rows": [{"dataset": "s", "xdrop": 5, "backend": "cpu", "status": "ok"},
                       {"dataset": "s", "xdrop": 9, "backend": "cpu", "status": "ok"}]},
             {"rows": [{"dataset": "s", "xdrop": 5, "backend": "cpu", "status": "ok"}]}]
    by = account.measured_by(xdrop, key=("dataset", "xdrop", "backend"))
    assert [(r["xdrop"], r["entry"]) for r in by] == [(5, 1), (9, 0)]


#: Appends 20 entries from one process, once both writers are ready; ``read_entries`` is slowed so
#: that the read-modify-write windows of two writers overlap; argv[4] == "0" drops the lock.
WRITER = """
import contextlib, os, sys, time
from pathlib import Path
from lassm.runs import account
path, writer, folder, locked = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4] == "1"
real = account.read_entries
def slow(p):
    entries = real(p)
    time.sleep(0.01)
    return entries
account.read_entries = slow
if not locked:
    account.locked = lambda p: contextlib.nullcontext()
(folder / f"ready-{writer}").touch()
while not (folder / "go").exists():
    time.sleep(0.001)
for n in range(20):
    account.append_entry(path, {"writer": writer, "n": n})
"""


def _two_writers(tmp_path: Path, locked: bool) -> list[dict]:
    path = tmp_path / "m" / "campaign.json"
    env = {**os.environ, "PYTHONPATH": str(paths.REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), w, str(tmp_path), "1" if locked else "0"],
                              env=env) for w in ("a", "b")]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{w}").exists() for w in ("a", "b")):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "a writer did not start"
        time.sleep(0.01)
    (tmp_path / "go").touch()
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    return account.read_entries(path)


def test_two_processes_appending_at_once_keep_every_entry(tmp_path: Path) -> None:
    entries = _two_writers(tmp_path, locked=True)
    assert len(entries) == 40
    for w in ("a", "b"):
        assert [e["n"] for e in entries if e["writer"] == w] == list(range(20))
    assert [p.name for p in (tmp_path / "m").iterdir()] == ["campaign.json"]


def test_without_the_lock_the_same_writers_lose_entries(tmp_path: Path) -> None:
    """The check above can fail: the same two writers, the lock dropped, overwrite each other."""
    assert len(_two_writers(tmp_path, locked=False)) < 40

# SPDX-License-Identifier: BSD-3-Clause
"""SIGKILL at any point: only whole records and outputs are visible, and a re-run completes them.

Real ``lassm`` processes are killed: some kill themselves at a chosen point of a write (the
function about to run is replaced by ``os.kill(os.getpid(), SIGKILL)``), one is killed from
outside at a few moments of a sweep. What may be left is listed in ``book/promises.md``.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lassm.workloads.local_assembly import formats
from lassm import paths
from lassm.runs import results
from lassm.campaign import CAMPAIGN_FILE
from lassm.campaign.runs_account import RUNS_FILE
from lassm.errors import LassmError
from lassm.runs.host import HOST_FILE
from lassm.runs.records import SUMMARY_KEYS

#: Runs ``lassm`` with ``MODULE.NAME`` replaced by a SIGKILL of the process itself.
KILLER = """
import os, signal, sys
import importlib
module, name = sys.argv[1], sys.argv[2]
setattr(importlib.import_module(module), name, lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL))
from lassm.cli import main
sys.exit(main(sys.argv[3:]))
"""

#: The local-assembly records alone: the original programs (run where a CUDA GPU and nvcc are)
#: are kept out so that every machine kills the same writes.
RUN = ["run", "--machine", "box", "--backends", "cpu", "--no-originals", "--quiet"]


@pytest.fixture(autouse=True)
def _results_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process reads the records where the killed ones write them."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))


def _env(results_root: Path) -> dict[str, str]:
    return {**os.environ, "LASSM_RESULTS": str(results_root), "PYTHONPATH": str(paths.REPO)}


def _lassm(args: list[str], root: Path, kill_at: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lassm.cli", *args]
    if kill_at:
        module, name = kill_at.rsplit(".", 1)
        cmd = [sys.executable, "-c", KILLER, module, name, *args]
    return subprocess.run(cmd, env=_env(root), capture_output=True, text=True, timeout=300)


#: The folder's account files and its host's fingerprint beside its record folders.
ACCOUNTS = (CAMPAIGN_FILE, RUNS_FILE, HOST_FILE)


def whole_records(machine_dir: Path, run_ids: set[str], clean: bool = False) -> set[str]:
    """Checks that every visible entry is a whole record and every hidden one a temporary of a
    known run id or of the campaign's account (none at all with ``clean``); returns the run ids
    recorded."""
    done = set()
    for entry in machine_dir.iterdir():
        if entry.name in ACCOUNTS:  # the campaign's and the whole runs' accounts of the folder, whole JSON
            assert isinstance(json.loads(entry.read_text()), dict)
            continue
        if entry.name.startswith("."):
            assert not clean, f"left behind: {entry.name}"
            if any(entry.name.startswith(f".{name}.") for name in ACCOUNTS):  # a lock or temporary, killed mid-append
                continue
            assert any(entry.name.startswith(f".{rid}.") for rid in run_ids), f"unexpected {entry.name}"
            continue
        summary = json.loads((entry / "summary.json").read_text())
        assert set(SUMMARY_KEYS) <= set(summary) and summary["run_id"] == entry.name
        ends = pq.read_table(entry / "ends.parquet")
        assert ends.num_rows == 2 * summary["contigs"]
        done.add(entry.name)
    assert done <= run_ids
    listed = set(results.load_records("box")["run_id"]) if done else set()
    assert listed == done, "readers list whole records only"
    return done


@pytest.mark.parametrize("kill_at", ["lassm.runs.records._write_tables", "lassm.runs.records.publish"])
def test_run_killed_while_writing_a_record(kill_at: str, tmp_path: Path) -> None:
    rid = "sample-k21__k21__cpu__none"
    res = _lassm([*RUN, "--datasets", "sample-k21"], tmp_path, kill_at)
    assert res.returncode == -signal.SIGKILL, res.stderr
    box = tmp_path / "box"
    assert whole_records(box, {rid}) == set()
    assert [p.name for p in box.iterdir() if p.name.startswith(f".{rid}.")], "the killed write is hidden"
    with pytest.raises(LassmError):
        results.load_records("box")
    assert _lassm([*RUN, "--datasets", "sample-k21"], tmp_path).returncode == 0  # the re-run completes it
    assert whole_records(box, {rid}, clean=True) == {rid}


def test_forced_rerun_killed_between_old_and_new(tmp_path: Path) -> None:
    """Killed after the old record was moved aside: the point is unrecorded until a re-run."""
    rid = "sample-k21__k21__cpu__none"
    assert _lassm([*RUN, "--datasets", "sample-k21"], tmp_path).returncode == 0
    res = _lassm([*RUN, "--datasets", "sample-k21", "--force"], tmp_path, "lassm.runs.records.publish")
    assert res.returncode == -signal.SIGKILL, res.stderr
    box = tmp_path / "box"
    assert whole_records(box, {rid}) == set()
    old = box / f".{rid}.old"
    assert (old / "summary.json").is_file(), "the previous record is kept whole, hidden"
    assert _lassm([*RUN, "--datasets", "sample-k21"], tmp_path).returncode == 0
    assert whole_records(box, {rid}, clean=True) == {rid}


def test_extend_killed_before_the_rename_keeps_the_old_output(tmp_path: Path) -> None:
    out = tmp_path / "out" / "ext.txt"
    out.parent.mkdir()
    out.write_text("old\n")
    args = ["extend", str(paths.sample("k21")), "--k", "21", "--out", str(out)]
    res = _lassm(args, tmp_path, "lassm.atomic.publish")
    assert res.returncode == -signal.SIGKILL, res.stderr
    assert out.read_text() == "old\n"
    left = [p.name for p in out.parent.iterdir() if p != out]
    assert all(re.fullmatch(r"\.ext\.txt\..+\.tmp", n) for n in left) and left, left
    assert _lassm(args, tmp_path).returncode == 0
    assert formats.read_extended(out) == formats.read_extended(paths.sample_reference("k21"))
    assert [p.name for p in out.parent.iterdir()] == ["ext.txt"], "the re-run removes the dead temporary"


def test_sweep_killed_from_outside_then_completed(tmp_path: Path) -> None:
    """``kill -9`` from outside when the n-th new name shows in the results folder (a record's
    temporary folder mid-write, or a record just renamed into place), n = 1, 2, 3, 4; only whole
    records are ever visible, and a last run completes the sweep and clears what the kills left."""
    names = ["sample-k21", "sample-k77", "sample-k21x2"]
    rids = {"sample-k21__k21__cpu__none", "sample-k77__k77__cpu__none", "sample-k21x2__k21__cpu__none"}
    args = [sys.executable, "-m", "lassm.cli", *RUN, "--datasets", ",".join(names)]
    box = tmp_path / "box"
    kills = 0
    for n in (1, 2, 3, 4):
        seen = set(os.listdir(box)) if box.exists() else set()
        new: set[str] = set()
        proc = subprocess.Popen(args, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            new |= (set(os.listdir(box)) if box.exists() else set()) - seen
            if len(new) >= n:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.001)
        kills += proc.wait(timeout=300) == -signal.SIGKILL
        if box.exists():
            whole_records(box, rids)
        if proc.returncode == 0:
            break
    assert kills >= 2
    assert _lassm([*RUN, "--datasets", ",".join(names)], tmp_path).returncode == 0
    assert whole_records(box, rids, clean=True) == rids


def test_only_dead_writers_temporaries_are_removed(tmp_path: Path) -> None:
    """A live writer's temporary (this process), another host's, and other names are kept."""
    from lassm import atomic

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = atomic.temp_prefix("x").split(".")[2].rsplit("-", 1)[0]
    names = {
        "dead": f".r.{host}-{dead.pid}.abcd_123",
        "dead file": f".r.{host}-{dead.pid}.abcd_124.tmp",
        "live": f"{atomic.temp_prefix('r')}abcd_125",
        "other host": f".r.elsewhere-{dead.pid}.abcd_126",
        "other name": f".r.{host}-{dead.pid}.abcd_127.{host}-1.qwertyui.tmp",
        "record": "r",
    }
    for key, name in names.items():
        (tmp_path / name).mkdir() if "file" not in key else (tmp_path / name).write_text("")
    removed = {p.name for p in atomic.remove_stale(tmp_path, "r")}
    assert removed == {names["dead"], names["dead file"]}
    assert sorted(os.listdir(tmp_path)) == sorted(n for k, n in names.items() if not k.startswith("dead"))

# SPDX-License-Identifier: BSD-3-Clause
"""Honest timings under contention: a point timed while another process holds its device says so.

The failure this guards against: two campaigns on one machine timed their points at once, each
point took two to four times its time alone, and the records said nothing. Now a point's runs
hold the device's lock (:func:`lassm.runs.device_lock.hold_device`); one that could not take it
within the wait (``LASSM_DEVICE_WAIT``) is timed anyway and recorded ``shared_device``.

Real processes here: a holder takes the CPU's lock with the function the campaign uses, and a
point runs through :func:`lassm.runs.point.run_one`, the code path of ``lassm run``, in another.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lassm import paths

#: Takes the CPU's device lock as a campaign does, prints ``held``, keeps it until a line on stdin.
HOLDER = """
import sys
from lassm.runs.device_lock import device_identity, hold_device
with hold_device(device_identity("cpu"), wait=0) as hold:
    print("shared" if hold.shared else "held", flush=True)
    sys.stdin.readline()
"""

#: Loads the smallest dataset and compiles the CPU kernel (numba) first, so that ``ready``
#: is printed just before the point asks for the lock; then runs and records the point.
POINT = """
import sys
from pathlib import Path
from lassm.runs.extend import extend
from lassm.runs.point import run_one
from lassm.runs.records import RunOptions
from lassm.workloads.local_assembly import datasets
from lassm.workloads.local_assembly.config import Params
ds, k = datasets.load("sample-k21")
extend(ds, Params(k=k), backend="cpu")
print("ready", flush=True)
run_one("sample-k21", k, "cpu", "none", "contention-test", ds=ds, run=RunOptions(root=Path(sys.argv[1]), repeats=2))
"""

RUN_ID = "sample-k21__k21__cpu__none"


def _env(tmp_path: Path, wait: float) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(paths.REPO), "LASSM_LOCK_DIR": str(tmp_path / "locks"),
            "LASSM_DEVICE_WAIT": str(wait), "LASSM_RESULTS": str(tmp_path / "results")}


def _start(script: str, env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _line(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline().strip()
    if not line:
        proc.wait(timeout=30)
        pytest.fail(f"process exited ({proc.returncode}) before its first line: {proc.stderr.read()[-3000:]}")
    return line


#: How long the holder keeps the lock once the point waits for it: the least wait the point records.
HELD_SECONDS = 0.5
#: The longest a point may take from its ``ready`` line to opening the lock file (its data are
#: loaded and its kernel compiled by then): a bound for a hung point, not a wait.
OPEN_BOUND_SECONDS = 60


def _wait_until_it_opens(proc: subprocess.Popen, lock: Path) -> None:
    """Returns once ``proc`` holds ``lock`` open (its wait for the lock has begun: the device lock
    opens the file before its first try), so that the test releases the lock after a wait of
    the point's, whatever the box's load made of the time before it."""
    fds = Path(f"/proc/{proc.pid}/fd")
    deadline = time.monotonic() + OPEN_BOUND_SECONDS
    lock = lock.resolve()
    while not any(_points_at(fd, lock) for fd in fds.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the point never opened the device's lock"
        time.sleep(0.01)


def _points_at(fd: Path, target: Path) -> bool:
    try:
        return Path(os.readlink(fd)) == target
    except OSError:  # the descriptor closed meanwhile
        return False


def _finish(proc: subprocess.Popen) -> None:
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]


def _record(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "records" / RUN_ID / "summary.json").read_text())


@pytest.fixture
def holder(tmp_path: Path):
    """Starts a process holding the CPU's device lock; yields it (a line on its stdin releases)."""
    proc = _start(HOLDER, _env(tmp_path, 0))
    try:
        assert _line(proc) == "held"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def test_a_point_timed_while_another_process_holds_the_device_is_marked_shared(tmp_path: Path, holder) -> None:
    point = _start(POINT, _env(tmp_path, 0.5), str(tmp_path / "records"))
    _finish(point)
    assert holder.poll() is None, "the holder kept the lock for the whole point"
    rec = _record(tmp_path)
    assert rec["shared_device"] is True
    assert rec["device_wait_seconds"] >= 0.45, "it waited the whole wait before timing anyway"
    holder.stdin.write("release\n")
    holder.stdin.flush()
    _finish(holder)


def test_a_point_alone_on_its_device_is_not_shared(tmp_path: Path) -> None:
    point = _start(POINT, _env(tmp_path, 0.5), str(tmp_path / "records"))
    _finish(point)
    rec = _record(tmp_path)
    assert rec["shared_device"] is False and rec["device_wait_seconds"] < 0.45
    locks = list((tmp_path / "locks").iterdir())
    assert len(locks) == 1 and locks[0].name.startswith("cpu-") and locks[0].suffix == ".lock", locks
    assert not list((tmp_path / "records").rglob("*.lock")), "no device lock file in the results tree"


def test_a_point_waits_for_a_holder_that_lets_go_in_time_and_is_not_shared(tmp_path: Path, holder) -> None:
    point = _start(POINT, _env(tmp_path, 60), str(tmp_path / "records"))
    try:
        assert _line(point) == "ready"
        _wait_until_it_opens(point, next((tmp_path / "locks").glob("*.lock")))
        time.sleep(HELD_SECONDS)  # the point is waiting for the lock now: the wait it records
        assert point.poll() is None, "the point did not run while the device was held"
        holder.stdin.write("release\n")
        holder.stdin.flush()
        _finish(holder)
        _finish(point)
    finally:
        if point.poll() is None:
            point.kill()
            point.wait(timeout=30)
    rec = _record(tmp_path)
    assert rec["shared_device"] is False
    assert HELD_SECONDS <= rec["device_wait_seconds"] < 60, "it waited for the holder, then took the lock"


def test_the_book_leaves_shared_points_out_of_its_times_and_counts_them(tmp_path: Path, monkeypatch) -> None:
    """A record marked shared is out of the machine's times (the figures' source) and named in its
    ``lacks`` lines; an older record without the field reads as not shared."""
    from lassm.book import machines
    from lassm.runs.point import run_one

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_LOCK_DIR", str(tmp_path / "locks"))
    folder, _ = run_one("sample-k21", None, "cpu", "none", "m")
    old = json.loads((folder / "summary.json").read_text())
    for key in ("shared_device", "device_wait_seconds"):
        old.pop(key)
    (folder / "summary.json").write_text(json.dumps(old))
    shared = folder.with_name("sample-k21x2__k21__cpu__none")
    shared.mkdir()
    (shared / "summary.json").write_text(json.dumps({**old, "dataset": "sample-k21x2", "shared_device": True}))
    recs = machines.records("m").set_index("dataset")
    assert recs.loc["sample-k21", "shared_device"] == False and recs.loc["sample-k21x2", "shared_device"] == True  # noqa: E712
    assert machines.times("m")["dataset"].tolist() == ["sample-k21"]
    assert any(line.startswith("1 record timed while another process held the device") for line in machines.lacks("m"))

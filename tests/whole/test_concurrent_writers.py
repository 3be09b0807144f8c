# SPDX-License-Identifier: BSD-3-Clause
"""Two runs writing one machine folder at once: each finishes cleanly and nothing is lost.

The failure this guards against: two ``lassm run`` on one folder (say the CPU and the OpenCL
backends' campaigns) record the same point; the second finds no record, measures, and by the time
it renames its folder into place the first's is there: ``os.replace`` cannot replace a non-empty
folder, and the point was reported ``failed: OSError: [Errno 39] Directory not empty`` while its
record was whole. Real processes race here, started together; unlocked, the same writers fail
(checked below), so the checks can fail.
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
from lassm.runs import account, tables
from lassm.runs.account import SKIPPED
from lassm.runs.host import HOST_FILE

#: Writes one record ``n`` times (``replace``, as ``--force`` does) once every writer is ready;
#: argv[5] == "0" drops the record's lock. The rename into place is slowed by a millisecond, as
#: on a loaded machine, so that one writer's check-and-rename overlaps another's. Prints the
#: errors it met, one per line.
WRITER = """
import contextlib, sys, time
from pathlib import Path
from lassm.runs import records
from lassm.runs.extend import extend
from lassm.workloads.local_assembly import datasets
from lassm.workloads.local_assembly.config import Params
root, me, folder, n, locked = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
if not locked:
    records.locked = lambda p: contextlib.nullcontext()
publish = records.publish
def slow(*args, **kwargs):
    time.sleep(0.001)
    return publish(*args, **kwargs)
records.publish = slow
ds, k = datasets.load("sample-k21")
ext = extend(ds, Params(k=k), backend="cpu")
summary = records.summarize(ext, "sample-k21", True, "test", machine="m")
(folder / f"ready-{me}").touch()
while not (folder / "go").exists():
    time.sleep(0.001)
for i in range(n):
    try:
        records.write_record({**summary, "writer": me, "i": i}, ext, root=root)
    except OSError as exc:
        print(f"{type(exc).__name__}: {exc}", flush=True)
"""

RUN_ID = "sample-k21__k21__cpu__none"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(paths.REPO)}


def _together(tmp_path: Path, argv: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Starts the writers, lets them go at once when all are ready; their outputs."""
    procs = [subprocess.Popen(args, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for args in argv]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < len(procs):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs), \
            [p.communicate() for p in procs if p.poll() is not None]
        time.sleep(0.01)
    (tmp_path / "go").touch()
    out = []
    for args, p in zip(argv, procs):
        stdout, stderr = p.communicate(timeout=300)
        out.append(subprocess.CompletedProcess(args, p.returncode, stdout, stderr))
    return out


def _write_at_once(tmp_path: Path, locked: bool, writers: int = 3, n: int = 25) -> tuple[list[str], Path]:
    root = tmp_path / "m"
    root.mkdir()
    done = _together(tmp_path, [[sys.executable, "-c", WRITER, str(root), str(w), str(tmp_path), str(n),
                                 "1" if locked else "0"] for w in range(writers)])
    assert [d.returncode for d in done] == [0] * writers, [d.stderr for d in done]
    return [line for d in done for line in d.stdout.splitlines()], root


def test_writers_of_one_record_take_turns(tmp_path: Path) -> None:
    errors, root = _write_at_once(tmp_path, locked=True)
    assert errors == []
    assert sorted(p.name for p in root.iterdir()) == [RUN_ID], "no temporary, aside copy or lock left"
    summary = json.loads((root / RUN_ID / "summary.json").read_text())
    assert summary["run_id"] == RUN_ID and summary["i"] == 24  # a writer's last write stands, whole
    assert (root / RUN_ID / "ends.parquet").is_file()


def test_without_the_lock_the_same_writers_fail(tmp_path: Path) -> None:
    """The check above can fail: the same writers, the lock dropped, meet ``Directory not empty``.
    The race needs the writers to overlap, which a loaded machine may not let them do in one
    round: up to four rounds, the first that meets the error ends the test."""
    seen: list[str] = []
    for round_ in range(4):
        folder = tmp_path / f"round-{round_}"
        folder.mkdir()
        errors, _ = _write_at_once(folder, locked=False)
        seen += errors
        if any("Directory not empty" in e or "No such file" in e for e in errors):
            return
    pytest.fail(f"four rounds of unlocked writers met no race: {seen}")


def test_a_point_recorded_meanwhile_counts_as_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep (no ``force``) that finds, when it comes to write, the point recorded by another
    process since it looked keeps that record and reports the point recorded, not failed."""
    from lassm.runs import records, sweep

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    real = records.write_record
    other: list[Path] = []

    def other_first(summary, ext, root=None, run_id=None, replace=True):
        if not other:  # the other run's record lands between this run's check and its write
            other.append(real({**summary, "writer": "other"}, ext, root=root, run_id=run_id))
        return real(summary, ext, root=root, run_id=run_id, replace=replace)

    monkeypatch.setattr(records, "write_record", other_first)
    only = sweep.Choice(backends=["cpu"], datasets=["sample-k21"])
    rows = sweep.main_job(machine="m", points=only, progress=False)
    assert [r["status"] for r in rows] == [SKIPPED]
    assert json.loads((tmp_path / "m" / RUN_ID / "summary.json").read_text())["writer"] == "other"
    forced = sweep.main_job(machine="m", points=only, progress=False, options=sweep.SweepOptions(force=True))
    assert [r["status"] for r in forced] == ["ok"]  # --force replaces, as before
    assert "writer" not in json.loads((tmp_path / "m" / RUN_ID / "summary.json").read_text())


def test_a_killed_writers_lock_file_goes_with_the_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer killed holding a record's lock leaves its lock file (the kernel frees the lock);
    the next run, finding the point recorded, takes the lock and removes the file."""
    from lassm.runs import sweep

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    only = sweep.Choice(backends=["cpu"], datasets=["sample-k21"])
    assert [r["status"] for r in sweep.main_job(machine="m", points=only, progress=False)] == ["ok"]
    (tmp_path / "m" / f".{RUN_ID}.lock").touch()
    rows = sweep.main_job(machine="m", points=only, progress=False)
    assert [r["status"] for r in rows] == [SKIPPED]
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == sorted([RUN_ID, HOST_FILE])


#: Adds 15 rows of its own to one table (``tables.upsert``), once every writer is ready.
UPSERTER = """
import sys, time
from pathlib import Path
from lassm.runs import tables
path, me, folder = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
(folder / f"ready-{me}").touch()
while not (folder / "go").exists():
    time.sleep(0.001)
for i in range(15):
    tables.upsert(path, ("writer", "i"), ("writer", "i"), [{"writer": me, "i": i}])
"""


def test_two_runs_adding_rows_to_one_table_keep_both(tmp_path: Path) -> None:
    path = tmp_path / "t" / "times.csv"
    done = _together(tmp_path, [[sys.executable, "-c", UPSERTER, str(path), w, str(tmp_path)] for w in "ab"])
    assert [d.returncode for d in done] == [0, 0], [d.stderr for d in done]
    rows = tables.read_rows(path, ("writer", "i"))
    assert sorted((r["writer"], int(r["i"])) for r in rows) == [(w, i) for w in "ab" for i in range(15)]


@pytest.mark.slow
def test_two_campaigns_on_one_folder_both_finish_and_keep_their_accounts(tmp_path: Path) -> None:
    """Two ``lassm run`` at once on one machine folder, the cpu backend's campaign and the cpu and
    opencl one (where pyopencl runs) over the same two datasets, three times: both exit 0, every
    point is recorded once, whole, and ``campaign.json`` keeps both accounts."""
    from lassm import backends

    other = "cpu,opencl" if backends.status().get("opencl", (False,))[0] else "cpu"
    names = "sample-k21,sample-k21x2"
    for attempt in range(3):
        results = tmp_path / f"r{attempt}"
        env = {**_env(), "LASSM_RESULTS": str(results)}
        argv = [[sys.executable, "-m", "lassm.cli", "run", "--kernel", "local-assembly", "--machine", "shared",
                 "--datasets", names, "--backends", b, "--quiet"] for b in ("cpu", other)]
        procs = [subprocess.Popen(a, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for a in argv]
        outs = [p.communicate(timeout=600) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [o[1][-3000:] for o in outs]
        entries = account.read_entries(results / "shared" / "campaign.json")
        assert len(entries) == 2 and sorted(e["command"].split("--backends ")[1].split()[0] for e in entries) == \
            sorted(["cpu", other])
        for entry in entries:
            assert all(r["status"] in ("ok", SKIPPED) for r in entry["rows"]), entry["rows"]
        visible = sorted(p.name for p in (results / "shared").iterdir() if not p.name.startswith("."))
        hidden = [p.name for p in (results / "shared").iterdir() if p.name.startswith(".")]
        assert hidden == []
        assert {"sample-k21__k21__cpu__none", "sample-k21x2__k21__cpu__none"} <= set(visible)
        for name in visible:
            if name not in ("campaign.json", HOST_FILE):
                assert json.loads((results / "shared" / name / "summary.json").read_text())["run_id"] == name

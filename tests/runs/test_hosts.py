# SPDX-License-Identifier: BSD-3-Clause
"""Two hosts of one device model, and damaged records: a run counts as done only a whole record of
its own host, and never writes another host's folder.

The main job's local-assembly part runs the CPU backend on the one-contig sample ``sample-k21``
into a temporary results root, under a host fingerprint set by the test (the device model, this
box's CPU, stays the same). Nothing under ``data/`` is touched.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lassm.errors import LassmError
from lassm.runs import host, record_check, records, sweep
from lassm.runs.account import SKIPPED

POINT = "sample-k21__k21__cpu__none"


def _as_host(monkeypatch: pytest.MonkeyPatch, name: str) -> dict:
    """Makes this process the host ``name``: the same CPU model, another fingerprint."""
    real = host.fingerprint()
    facts = {**real, "machine_sha": name, "id": host._digest(name)}
    monkeypatch.setattr(host, "fingerprint", lambda: facts)
    return facts


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.delenv("LASSM_MACHINE", raising=False)  # the folder comes from the device and the host
    monkeypatch.setenv("LASSM_GIT_SHA", "test")
    return tmp_path


def _sweep(force: bool = False) -> list[dict]:
    return sweep.main_job(points=sweep.Choice(backends=["cpu"], datasets=["sample-k21"]), progress=False,
                          options=sweep.SweepOptions(force=force))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_hosts_of_one_model_get_two_sets_of_records(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = records.default_machine()  # this box's CPU model: no folder yet, so the model's own name
    first = _as_host(monkeypatch, "host-a")
    [row_a] = _sweep()
    assert row_a["status"] == "ok" and row_a["machine"] == model
    folder_a = results / model
    assert json.loads((folder_a / host.HOST_FILE).read_text())["id"] == first["id"]
    assert json.loads((folder_a / POINT / "summary.json").read_text())["host"]["id"] == first["id"]
    before = _files(folder_a)

    second = _as_host(monkeypatch, "host-b")
    [row_b] = _sweep()
    assert row_b["status"] == "ok", "another host's record of the same model was taken as done"
    assert row_b["machine"] == f"{model}{host.SEPARATOR}{second['id'][:host.SHORT]}"
    folder_b = results / row_b["machine"]
    assert json.loads((folder_b / POINT / "summary.json").read_text())["host"]["id"] == second["id"]
    assert _files(folder_a) == before, "the second host changed the first host's records"
    assert sorted(p.name for p in results.iterdir()) == sorted([model, row_b["machine"]])

    [again_b] = _sweep()  # each host resumes its own
    assert again_b["status"] == SKIPPED and again_b["machine"] == row_b["machine"]
    _as_host(monkeypatch, "host-a")
    [again_a] = _sweep()
    assert again_a["status"] == SKIPPED and again_a["machine"] == model
    assert _files(folder_a) == before


def test_the_book_shows_both_hosts_of_one_model(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import datetime, timezone

    from lassm.book import hosts, machine_chapter, machines

    model = records.default_machine()
    _as_host(monkeypatch, "host-a")
    _sweep()
    second = _as_host(monkeypatch, "host-b")
    [row] = _sweep()
    today = datetime.now(timezone.utc).date().isoformat()  # the records' date (a run across midnight aside)
    assert hosts.whose(row["machine"]) == f"here, {today}"
    assert hosts.whose(model).startswith("on host ") and hosts.whose(model).endswith(today)
    assert hosts.siblings(row["machine"]) == [model, row["machine"]]
    table = hosts.side_by_side(model)
    assert list(table.columns) == [*hosts.POINT, hosts.host_label(model), f"host {second['id'][:8]}", "spread %"]
    assert len(table) == 1 and table["spread %"].iloc[0] >= 0
    assert "2 hosts of its model are recorded" in machine_chapter.facts(model)["mc_hosts"]
    titles = machines.chapter_titles([model, row["machine"]])
    assert titles[row["machine"]] == f"{titles[model]}, host {second['id'][:8]}"


def test_a_folder_without_host_is_its_first_hosts(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records written before records named their host stay byte-identical; this host files beside them."""
    model = records.default_machine()
    old = results / model / POINT
    old.mkdir(parents=True)
    (old / "summary.json").write_text('{"backend": "cpu", "kernel_seconds": 1.0}\n')
    before = _files(results / model)
    me = _as_host(monkeypatch, "host-c")
    [row] = _sweep()
    assert row["status"] == "ok" and row["machine"] == f"{model}{host.SEPARATOR}{me['id'][:host.SHORT]}"
    assert _files(results / model) == before
    assert host.owner(results / model).state == "legacy"


def test_a_named_folder_of_another_host_is_refused(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_MACHINE", "shared")
    _as_host(monkeypatch, "host-a")
    assert _sweep()[0]["status"] == "ok"
    before = _files(results / "shared")
    _as_host(monkeypatch, "host-b")
    [row] = _sweep()
    assert row["status"].startswith("failed: ") and "not this host's folder" in row["status"]
    assert _files(results / "shared") == before
    from lassm.runs.preflight import check_results

    with pytest.raises(LassmError, match="not this host's folder"):
        check_results(["shared"])


def _damage_summary(text: str):
    def damage(record: Path) -> None:
        (record / "summary.json").write_text(text)
    return damage


def _cut_summary(record: Path) -> None:
    data = (record / "summary.json").read_bytes()
    (record / "summary.json").write_bytes(data[:len(data) // 2])


def _time(value):
    def damage(record: Path) -> None:
        summary = json.loads((record / "summary.json").read_text())
        summary["kernel_seconds"] = value
        (record / "summary.json").write_text(json.dumps(summary))
    return damage


def _garbage_ends(record: Path) -> None:
    (record / "ends.parquet").write_bytes(b"PAR1 this is no table PAR1")


def _no_ends(record: Path) -> None:
    (record / "ends.parquet").unlink()


DAMAGE = {"cut in half": (_cut_summary, "not a whole run record in summary.json"),
          "empty object": (_damage_summary("{}"), "lacks"),
          "a list": (_damage_summary("[]"), "not a run record in summary.json (a JSON list"),
          "not UTF-8": (lambda record: (record / "summary.json").write_bytes(b"\xff\xfe{}"), "not a whole run record"),
          "time as text": (_time("fast"), "not a time"), "negative time": (_time(-1.0), "not a time"),
          "garbage ends": (_garbage_ends, "ends.parquet does not read"),
          "no ends": (_no_ends, "no ends.parquet")}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_record_is_measured_again(results: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture, case: str) -> None:
    damage, words = DAMAGE[case]
    [row] = _sweep()
    record = results / row["machine"] / POINT
    assert record_check.problem(record) is None
    damage(record)
    found = record_check.problem(record)
    assert found and words in found
    capsys.readouterr()
    [again] = _sweep()
    assert again["status"] == "ok", f"a record with {case} was counted as done"
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "measuring it again" in line] == [f"{record}: {found}; measuring it again"]
    assert record_check.problem(record) is None


def test_another_hosts_record_is_not_done(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    [row] = _sweep()
    record = results / row["machine"] / POINT
    _as_host(monkeypatch, "host-z")
    assert "another host" in record_check.problem(record)


@pytest.mark.parametrize("seconds, host_of_row, done", [
    ("0.5", "mine", True), ("fast", "mine", False), ("", "mine", False), ("-1", "mine", False),
    ("nan", "mine", False), ("0.5", "other", False), ("0.5", "", False)])
def test_an_xdrop_row_counts_only_whole_and_of_this_host(seconds: str, host_of_row: str, done: bool) -> None:
    """An X-drop group is measured again where a row's time is no time, or the row is another host's
    (or names none: a table written before rows named their host)."""
    from lassm.campaign.xdrop_plan import XdropPlan
    from lassm.campaign.xdrop_run import groups_todo

    plan = XdropPlan(datasets=("xdrop-sim-200",), xdrops=(10,), backends=("cpu",), sizes={"xdrop-sim-200": 200})
    row = {"dataset": "xdrop-sim-200", "xdrop": "10", "scoring": "1,-1,-1", "backend": "cpu", "git_sha": "sha",
           "seconds": seconds, "host": {"mine": host.host_id(), "other": "0123456789abcdef", "": ""}[host_of_row]}
    assert groups_todo(plan, [row], "sha", force=False) == ({} if done else {"xdrop-sim-200": [10]})


def test_the_fingerprint_names_no_host_or_user() -> None:
    import getpass
    import socket

    facts = host.fingerprint()
    assert set(facts) == {"id", "cpu", "cpus", "gpus", "pci", "machine_sha", "driver"}
    text = json.dumps(facts)
    for name in {socket.gethostname(), getpass.getuser()}:
        assert len(name) < 4 or name not in text  # a name of a few letters may be part of a model's
    assert len(host.host_id()) == 16 and facts["cpus"] >= 1


def test_a_failed_runs_new_folder_with_only_its_host_goes(results: Path) -> None:
    """A failed run's new folder holding its host's fingerprint and an account of failures is no
    machine of the study: it goes, as one holding only the account does."""
    from lassm.runs.account import append_entry
    from lassm.runs.folders import dropped_unless_done

    with dropped_unless_done():
        append_entry(results / "fresh" / "campaign.json", {"rows": [{"status": "failed: no disk"}]})
        assert (results / "fresh" / host.HOST_FILE).is_file()
    assert not (results / "fresh").exists()
    with dropped_unless_done() as done:  # a run that measured keeps it
        append_entry(results / "kept" / "campaign.json", {"rows": []})
        done["ok"] = True
    assert (results / "kept" / host.HOST_FILE).is_file()

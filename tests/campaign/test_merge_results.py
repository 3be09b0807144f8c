# SPDX-License-Identifier: BSD-3-Clause
"""``lassm merge-results``: a from-scratch run's folder laid onto the committed one, nothing of the latter lost."""
from __future__ import annotations

import json
from pathlib import Path

from lassm import cli
from lassm.campaign.merge import merge
from lassm.runs import account, results, tables


def test_accounts_append_keyed_tables_upsert_and_the_rest_is_the_new_runs(tmp_path: Path) -> None:
    old, new = tmp_path / "committed", tmp_path / "fresh"
    cols, key = results.AGAINST_ORIGINAL_COLUMNS, results.AGAINST_ORIGINAL_KEY
    row = lambda d, p, sha: {"dataset": d, "k": "77", "program": p, "git_sha": sha}  # noqa: E731
    tables.write_rows(old / results.AGAINST_ORIGINAL_FILE, cols, [row("a", "x", "old"), row("b", "x", "old")])
    tables.write_rows(new / results.AGAINST_ORIGINAL_FILE, cols, [row("a", "x", "new")])
    account.append_entry(old / "campaign.json", {"git_sha": "old"})
    account.append_entry(new / "campaign.json", {"git_sha": "new"})
    account.append_entry(new / "runs.json", {"git_sha": "new", "seconds": 1.0})
    (old / "p1").mkdir()
    (old / "p1" / "summary.json").write_text('{"v": 1}')
    (old / "logs").mkdir()
    (old / "logs" / "kept.log").write_text("kept")
    (new / "p1").mkdir()
    (new / "p1" / "summary.json").write_text('{"v": 2}')
    said = merge(new, old)
    got = tables.read_rows(old / results.AGAINST_ORIGINAL_FILE, cols)
    assert sorted((r["dataset"], r["git_sha"]) for r in got) == [("a", "new"), ("b", "old")]
    assert [e["git_sha"] for e in account.read_entries(old / "campaign.json")] == ["old", "new"]
    assert [e["git_sha"] for e in account.read_entries(old / "runs.json")] == ["new"]
    assert json.loads((old / "p1" / "summary.json").read_text()) == {"v": 2}
    assert (old / "logs" / "kept.log").read_text() == "kept"
    assert "campaign.json: 1 entries appended" in said and "p1/summary.json: copied" in said


def test_the_command_line_merges_and_says_what_it_did(tmp_path: Path, capsys) -> None:
    old, new = tmp_path / "committed", tmp_path / "fresh"
    account.append_entry(old / "campaign.json", {"git_sha": "old"})
    account.append_entry(new / "campaign.json", {"git_sha": "new"})
    assert cli.main(["merge-results", str(new), str(old)]) == 0
    assert "campaign.json: 1 entries appended" in capsys.readouterr().out
    assert [e["git_sha"] for e in account.read_entries(old / "campaign.json")] == ["old", "new"]

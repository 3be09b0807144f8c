# SPDX-License-Identifier: BSD-3-Clause
"""``runs.json``: one entry per whole ``lassm run``."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm import paths
from lassm.campaign import runs_account
from lassm.campaign.part import Ask, How
from lassm.campaign.whole import make_whole_plan, run_whole


def test_a_whole_run_appends_one_entry_and_a_rerun_skips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-w")
    plan = make_whole_plan(Ask(True, backends=["cpu"], datasets=["sample-k77"], repeats=1, warmup=0, originals=False))
    run_whole(plan, How(machine="box", progress=False))
    run_whole(plan, How(machine="box", progress=False))
    entries = runs_account.read(paths.results_dir("box"))
    assert len(entries) == 2
    first, again = entries
    local = first["parts"]["local-assembly"]
    assert first["git_sha"] == "sha-w" and first["seconds"] >= local["seconds"] > 0
    assert local["measured"] >= 1 and local["skipped"] == 0 and local["failed"] == 0
    assert again["parts"]["local-assembly"]["measured"] == 0
    assert again["parts"]["local-assembly"]["skipped"] == local["measured"]
    assert set(first["parts"]) == {"local-assembly", "xdrop", "suite", "originals"}
    assert "left_out" in first["parts"]["originals"]
    # a run that left a part out is no run from scratch; one that measured every part is
    assert runs_account.from_scratch(entries) is None
    whole = {**first, "parts": {k: {"seconds": 1.0, "measured": 2, "skipped": 0, "failed": 0} for k in first["parts"]}}
    assert runs_account.from_scratch([whole, again]) is whole
    from lassm.book import machine_records

    shown = machine_records.whole_runs("box")
    assert list(shown.index) == ["newest", "from scratch"]
    assert shown.loc["newest", "local-assembly"].endswith("0 measured, %d skipped" % local["measured"])
    assert shown.loc["from scratch", "created"] == "none in this folder"


def test_counts_part_rows_by_status() -> None:
    class Part:
        rows = [{"status": "ok"}, {"status": "MISMATCH"}, {"status": "skipped (recorded)"},
                {"status": "refused: no queue"}, {"status": "failed: X"}]

    assert runs_account.counts(Part()) == {"measured": 2, "skipped": 1, "failed": 2}

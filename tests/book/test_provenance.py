# SPDX-License-Identifier: BSD-3-Clause
"""The provenance appendix: every record family of every folder, grouped by device, commit and the
program that wrote it, read from the records alone."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from lassm.book import provenance


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    box = tmp_path / "gpu-box"
    for i, (sha, cmd) in enumerate([("aaaaaaa111", "lassm run --originals x"), ("aaaaaaa111", "lassm run"),
                                    ("bbbbbbb222", "lassm bench --backend cuda --datasets gen-k21")]):
        rec = box / f"gen-k21__k21__cuda__p{i}"
        rec.mkdir(parents=True)
        (rec / "summary.json").write_text(json.dumps({"device": "GPU X (NVIDIA CUDA)", "git_sha": sha, "command": cmd,
                                                     "created": f"2026-11-2{i}T00:00:00+00:00"}))
    (box / "xdrop").mkdir()
    pd.DataFrame({"device": ["GPU X", "Host CPU"], "git_sha": ["ccccccc333"] * 2,
                  "command": ["lassm run --kernel xdrop --machine gpu-box"] * 2}).to_csv(box / "xdrop" / "times.csv",
                                                                                         index=False)
    (tmp_path / "empty").mkdir()
    return tmp_path


def test_rows_are_grouped_by_family_device_commit_and_program(root):
    t = provenance.table()
    assert list(t.columns) == list(provenance.COLUMNS)
    runs = t[t["records"] == "local-assembly runs"].set_index("commit")
    assert runs.loc["aaaaaaa", "rows"] == 2 and runs.loc["aaaaaaa", "command"] == "lassm run"
    assert runs.loc["aaaaaaa", "created"] == "2026-11-20 to 2026-11-21"
    assert runs.loc["bbbbbbb", "command"] == "lassm bench" and set(runs["device"]) == {"GPU X"}
    xd = t[t["records"] == "X-drop times"]
    assert sorted(xd["device"]) == ["GPU X", "Host CPU"] and set(xd["created"]) == {""}
    assert set(t["folder"]) == {"gpu-box"}, "a folder without records is no row"
    assert provenance.facts(t) == {"pv_folders": "1", "pv_commits": "3", "pv_rows": "5"}
    assert provenance.by_folder(t).iloc[0]["records"] == 2


@pytest.mark.parametrize("command,program", [
    ("NGPU=4 REPEAT=2 DATASET=gen-k21x20 bash tools/multigpu_campaign.sh", "bash tools/multigpu_campaign.sh"),
    ("lassm xdrop align xdrop-sim-20k.parquet --backend cuda", "lassm xdrop align"),
    ("demo xdrop-sim-100k.txt 17 20 1", "demo"), ("", "")])
def test_a_command_is_named_by_its_program(command, program):
    assert provenance.program(command) == program

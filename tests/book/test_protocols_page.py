# SPDX-License-Identifier: BSD-3-Clause
"""lassm.book.protocols: the protocols page's tables and numbers, from hand-made records."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm.book import protocols


def _race(tmp_path: Path) -> None:
    rows = ["machine,device,dataset,k,protocol,build,run,contig_ends,wrong_ends,kernel_seconds,git_sha"]
    for run in range(3):
        rows += [f"m,Test GPU,sample-k77x20,77,doneflag,fixed,{run},100,0,0.080,abcdef123",
                 f"m,Test GPU,sample-k77x20,77,doneflag,published,{run},100,40,0.100,abcdef123",
                 f"m,Test GPU,gen-k21,21,matchany,fixed,{run},50,0,0.011,abcdef123",
                 f"m,Test GPU,gen-k21,21,matchany,published,{run},50,{run},0.010,abcdef123"]
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "published-race.csv").write_text("\n".join(rows) + "\n")


def test_race_table_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    _race(tmp_path)
    t = protocols.race_table("m").set_index("dataset")
    assert t.loc["sample-k77x20", "fixed (ms)"] == 80.0 and t.loc["sample-k77x20", "as published (ms)"] == 100.0
    assert t.loc["sample-k77x20", "wrong contig ends, published (per run)"] == "40 in every run"
    assert t.loc["gen-k21", "wrong contig ends, published (per run)"] == "0, 1, 2"
    assert list(t.index) == ["sample-k77x20", "gen-k21"]  # the larger start k first


def test_facts_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    _race(tmp_path)
    f = protocols.facts("m")
    assert f["kp_device"] == "Test GPU" and f["kp_race_sha"] == "abcdef1" and f["kp_copies"] == "20"
    assert f["kp_saving"] == "-10% to 20%"  # 1 - 11/10 and 1 - 80/100
    assert f["kp_doneflag_per_copy"] == "2"  # 40 wrong ends over 20 copies
    assert f["kp_cpu_ms"] == protocols.NOT_MEASURED and f["kp_original_ms"] == protocols.NOT_MEASURED


def test_without_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    assert set(protocols.facts("m").values()) <= {protocols.NOT_MEASURED, "20"}
    assert "no published-race.csv" in protocols.race_table("m").iloc[0, 0]


def test_the_committed_page_quotes_the_committed_race() -> None:
    """The page's numbers are the records' (they were typed in once and drifted from them)."""
    t = protocols.race_table()
    done = t[(t["protocol"] == "`doneflag`") & (t["start k"] == 77)]
    assert len(done) == 1 and done["wrong contig ends, published (per run)"].iloc[0].endswith("in every run")
    assert protocols.facts()["kp_saving"] != protocols.NOT_MEASURED

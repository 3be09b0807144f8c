# SPDX-License-Identifier: BSD-3-Clause
"""lassm.runs.results.against_original: the side-by-side table, from a hand-made CSV (the runs that
write it: tests/test_originals.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm.runs import results


def test_ratios_per_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "against-original.csv").write_text(
        "dataset,k,program,whole_seconds,kernel_seconds,outputs_equal\n"
        "d,21,original ht_loc,2.0,0.10,True\nd,21,lassm extend fast,1.0,0.01,True\n"
        "e,77,original ht_loc,1.0,0.20,True\ne,77,lassm extend fast,4.0,0.05,False\n")
    t = results.against_original("m").set_index("dataset")
    assert t.loc["d", "whole_ratio"] == pytest.approx(0.5) and t.loc["d", "kernel_ratio"] == pytest.approx(0.1)
    assert t.loc["e", "whole_ratio"] == pytest.approx(4.0) and t.loc["e", "kernel_ratio"] == pytest.approx(0.25)
    assert bool(t.loc["d", "outputs_equal"]) and not bool(t.loc["e", "outputs_equal"])
    assert results.against_original("absent") is None


def test_the_walk_kernel_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "against-original.csv").write_text(
        "dataset,k,program,whole_seconds,kernel_seconds,walk_kernel_seconds,outputs_equal\n"
        "d,21,original ht_loc,2.0,0.10,0.10,True\nd,21,lassm extend fast,1.0,0.02,0.005,True\n")
    t = results.against_original("m").set_index("dataset")
    assert t.loc["d", "kernel_ratio"] == pytest.approx(0.2) and t.loc["d", "walk_kernel_ratio"] == pytest.approx(0.05)

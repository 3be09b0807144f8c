# SPDX-License-Identifier: BSD-3-Clause
"""lassm.runs.results.against_original: the side-by-side table, from a hand-made CSV."""
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


def test_ncu_table_parsed_with_the_walk_kernel_apart() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("against_original", Path(__file__).parents[1] / "tools" / "against_original.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    text = ('==PROF== Connected\n"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n'
            '"0","gather_segments","1,000"\n"1","iterative_walks_kernel","2,000,000"\n"2","revcomp_segments","500"\n')
    total, launches, walk = tool.parse_kernel_times(text)
    assert launches == 3 and total == pytest.approx(2.0015e-3) and walk == pytest.approx(2e-3)
    with pytest.raises(RuntimeError):
        tool.parse_kernel_times("==PROF== nothing\n")

# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop analysis (lassm.analysis.xdrop): records read and checked, measures computed by hand.

The records are the synthetic fixtures of tests/fixtures/xdrop (made-up numbers, README there);
every expected value below is worked out from them by hand, not by the code under test.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm.analysis import derive
from lassm.analysis.xdrop import measures, published, checked_records
from lassm.errors import LassmError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "xdrop" / "results"
MACHINE = "synthetic-gpu"


@pytest.fixture
def fixture_results(monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(FIXTURES))
    return FIXTURES


# --- records ----------------------------------------------------------------------------------

def test_machines_are_the_folders_with_xdrop_records(fixture_results):
    assert checked_records.machines() == [MACHINE]


def test_absent_records_read_as_empty_tables(tmp_path, monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "bare-machine").mkdir()
    assert checked_records.machines() == []
    for name in checked_records.FILES:
        df = checked_records.load("bare-machine", name)
        assert df.empty and set(checked_records.FILES[name][1]) <= set(df.columns)
    assert checked_records.load_all("times").empty


def _write(tmp_path: Path, name: str, text: str) -> Path:
    file = tmp_path / name
    file.write_text(text)
    return file


def test_a_bad_number_names_file_line_and_field(tmp_path):
    src = (FIXTURES / MACHINE / "xdrop" / "times.csv").read_text().splitlines()
    src[2] = src[2].replace(",0.5,0.6,", ",half,0.6,")
    file = _write(tmp_path, "times.csv", "\n".join(src) + "\n")
    with pytest.raises(LassmError, match=r"times\.csv:3: field seconds: 'half'"):
        checked_records.read(file, "times")


def test_a_missing_column_and_a_repeated_key_are_errors(tmp_path):
    src = (FIXTURES / MACHINE / "xdrop" / "against-logan.csv").read_text()
    no_col = _write(tmp_path, "a.csv", src.replace("kernel_seconds,", "kernel_secs,", 1))
    with pytest.raises(LassmError, match="kernel_seconds"):
        checked_records.read(no_col, "against")
    lines = src.splitlines()
    twice = _write(tmp_path, "b.csv", "\n".join(lines + [lines[1]]) + "\n")
    with pytest.raises(LassmError, match=r"b\.csv:6: a second row"):
        checked_records.read(twice, "against")


def test_two_schemes_empty_cells_and_unchecked_rows_read(tmp_path):
    """What the producer may write: a second scoring scheme, no cell count, an unchecked row."""
    src = (FIXTURES / MACHINE / "xdrop" / "times.csv").read_text().splitlines()
    other = [ln.replace('"1,-1,-1"', '"2,-3,-2"') for ln in src[1:]]
    other[0] = other[0].replace(",2000000000,200,True,", ",,,,")
    t = checked_records.read(_write(tmp_path, "times.csv", "\n".join(src + other) + "\n"), "times")
    assert len(t) == 14 and t["matches_oracle"].isna().sum() == 1
    g = measures.gcups(t.assign(machine=MACHINE)).set_index(["scoring", "xdrop", "backend"])
    assert np.isnan(g.loc[("2,-3,-2", 10, "cuda"), "gcups"])
    assert g.loc[("2,-3,-2", 10, "cuda"), "speedup_vs_seqan"] == pytest.approx(100.0)
    assert g.loc[("1,-1,-1", 10, "cuda"), "gcups"] == pytest.approx(200.0)


def test_matches_oracle_must_be_a_truth_value(tmp_path):
    src = (FIXTURES / MACHINE / "xdrop" / "times.csv").read_text().replace(",True,", ",maybe,", 1)
    with pytest.raises(LassmError, match=r":2: field matches_oracle"):
        checked_records.read(_write(tmp_path, "t.csv", src), "times")


# --- GCUPS and speed-ups --------------------------------------------------------------------

def test_gcups_and_speedups_by_hand(fixture_results):
    times = checked_records.load_all("times")
    before = times.copy()
    g = measures.gcups(times).set_index(["xdrop", "backend"])
    pd.testing.assert_frame_equal(times, before)  # input unchanged
    # X = 100: cells 8e9; cuda 0.04 s, cpu 2.0 s, seqan 8.0 s
    assert g.loc[(100, "cuda"), "gcups"] == pytest.approx(200.0)
    assert g.loc[(100, "cuda"), "speedup_vs_seqan"] == pytest.approx(200.0)
    assert g.loc[(100, "cuda"), "speedup_vs_cpu"] == pytest.approx(50.0)
    assert g.loc[(100, "cpu"), "speedup_vs_seqan"] == pytest.approx(4.0)
    assert g.loc[(100, "seqan"), "gcups"] == pytest.approx(1.0)
    # X = 10: whole-call times 1.0 / 0.02
    assert g.loc[(10, "cuda"), "wall_speedup_vs_seqan"] == pytest.approx(50.0)
    assert g.loc[(10, "cuda"), "speedup_vs_seqan"] == pytest.approx(100.0)


def test_speedup_without_its_baseline_is_nan():
    t = pd.DataFrame({"machine": ["m"], "dataset": ["d"], "xdrop": [5], "backend": ["cuda"], "seconds": [1.0],
                      "wall_seconds": [1.0], "cells": [1e9]})
    g = measures.gcups(t)
    assert np.isnan(g["speedup_vs_seqan"].iloc[0]) and g["gcups"].iloc[0] == pytest.approx(1.0)


def test_gcups_rejects_two_rows_for_one_key():
    t = pd.DataFrame({"machine": ["m", "m"], "dataset": ["d", "d"], "xdrop": [5, 5], "backend": ["cuda", "cuda"],
                      "seconds": [1.0, 2.0], "wall_seconds": [1.0, 2.0], "cells": [1e9, 1e9]})
    with pytest.raises(ValueError, match="two rows"):
        measures.gcups(t)


# --- the roofline ------------------------------------------------------------------------------

def test_counter_metrics_by_hand(fixture_results):
    ceilings = derive.load_ceilings(MACHINE)
    m = measures.counter_metrics(checked_records.load(MACHINE, "counters"), ceilings, checked_records.load(MACHINE, "times"))
    m = m.set_index(["xdrop", "program"])
    x10 = m.loc[(10, "lassm cuda")]
    assert x10["ii"] == pytest.approx(2e4)  # 2e10 ops / 1e6 B
    assert x10["gintops"] == pytest.approx(2000.0)
    assert x10["bound"] == "compute" and x10["attainable_gintops"] == pytest.approx(10000.0)
    assert x10["arch eff"] == pytest.approx(0.2)
    assert x10["predication_ratio"] == pytest.approx(0.75)  # 2.4e10 / (1e9 * 32)
    assert x10["warp_gips"] == pytest.approx(2000.0 / 32)
    assert x10["alg eff"] == pytest.approx(1.0) and x10["speedup"] == pytest.approx(5.0)
    x100 = m.loc[(100, "lassm cuda")]
    assert x100["alg eff"] == pytest.approx(0.5) and x100["arch eff"] == pytest.approx(0.5)
    assert x100["speedup"] == pytest.approx(4.0)
    logan = m.loc[(100, "LOGAN")]
    assert logan["alg eff"] == pytest.approx(2.5) and bool(logan["beyond_model"])
    assert np.isnan(logan["speedup"]) and logan["arch eff"] == pytest.approx(0.4)


def test_counter_metrics_without_times_has_no_algorithm_efficiency(fixture_results):
    m = measures.counter_metrics(checked_records.load(MACHINE, "counters"), derive.load_ceilings(MACHINE))
    assert "alg eff" not in m.columns and m["arch eff"].notna().all()


def test_the_potential_speedup_rule_is_shared_with_local_assembly():
    df = pd.DataFrame({"alg eff": [0.5, 2.0], "arch eff": [0.25, 0.5]})
    out = derive.potential_speedups(df).sort_values("alg eff")
    assert out["speedup"].iloc[0] == pytest.approx(8.0)
    assert np.isnan(out["speedup"].iloc[1]) and out["beyond_model"].tolist() == [False, True]


# --- against LOGAN -----------------------------------------------------------------------------

def test_against_logan_by_hand(fixture_results):
    a = measures.against_logan(checked_records.load_all("against")).set_index("xdrop")
    assert a.loc[10, "kernel_ratio"] == pytest.approx(1 / 3)
    assert bool(a.loc[10, "goal_met"]) and not bool(a.loc[100, "goal_met"])
    assert a.loc[100, "kernel_ratio"] == pytest.approx(1.2)
    assert a.loc[100, "whole_ratio"] == pytest.approx(2.0) and a.loc[100, "logan_gpu_s"] == pytest.approx(0.06)


def test_against_logan_leaves_out_a_point_with_one_program():
    rows = pd.DataFrame({"machine": ["m"], "dataset": ["d"], "n_pairs": [1], "xdrop": [5], "program": [measures.OURS],
                         "kernel_seconds": [1.0], "whole_seconds": [2.0], "logan_gpu_seconds": [np.nan]})
    assert measures.against_logan(rows).empty


# --- LOGAN's adapted ceiling ------------------------------------------------------------------

def test_adapted_ceiling_by_hand():
    # B = 2 blocks of T = 4 threads, C = 8 cores: widths 1, 2, 8 keep 2, 4, 8 cores busy
    assert measures.adapted_ceiling(100.0, [1, 2, 8], blocks=2, threads=4, cores=8) == pytest.approx(
        100.0 * (2 / 8 + 4 / 8 + 8 / 8) / 3)
    # a histogram counts each width as often as it says
    assert measures.adapted_ceiling(100.0, [1, 8], blocks=2, threads=4, cores=8, counts=[3, 1]) == pytest.approx(
        100.0 * (3 * 2 / 8 + 1.0) / 4)


def test_adapted_ceiling_is_the_peak_once_blocks_outnumber_cores():
    low, high = measures.adapted_ceiling_span(220.8, blocks=100_000, threads=128, cores=5120)
    assert low == high == pytest.approx(220.8)
    low, high = measures.adapted_ceiling_span(100.0, blocks=10, threads=4, cores=80)
    assert (low, high) == (pytest.approx(100.0 * 10 / 80), pytest.approx(100.0 * 40 / 80))


def test_adapted_ceiling_rejects_bad_input():
    with pytest.raises(ValueError):
        measures.adapted_ceiling(1.0, [], 1, 1, 1)
    with pytest.raises(ValueError):
        measures.adapted_ceiling(1.0, [-1], 1, 1, 1)
    with pytest.raises(ValueError):
        measures.adapted_ceiling(1.0, [1], 0, 1, 1)


# --- LOGAN's published numbers ------------------------------------------------------------------

def test_table2_speedups_are_quotients_of_the_printed_times():
    t2 = published.table2().set_index("xdrop")
    assert t2.loc[5000, "speedup_logan_1gpu"] == pytest.approx(176.6 / 26.7)
    assert t2.loc[10, "speedup_logan_multi"] == pytest.approx(5.1 / 1.9)
    assert t2.loc[5000, "speedup_logan_multi_high"] == pytest.approx(176.65 / 5.75)
    assert "Table II" in t2["source"].iloc[0]


def test_readme_differs_from_the_paper_in_three_cells():
    d = published.readme_differences()
    assert sorted(zip(d["table"], d["xdrop"], d["column"])) == [
        ("II", 20, "logan_multi"), ("II", 2500, "logan_multi"), ("III", 100, "ksw2")]


def test_headline_speedups_against_table2():
    h = published.headline_check().set_index("claim")
    one = h.loc["speedup_seqan_1gpu"]
    # Table II's largest 1-GPU quotient is X = 500's, 102.6 / 14.9 = 6.89, not the abstract's "up to 6.6x"
    assert one["table_best"] == pytest.approx(102.6 / 14.9) and one["best_xdrop"] == 500
    assert not bool(one["holds"])
    assert "5000" in one["matching_xdrop"].split(", ")  # 176.6 / 26.7 = 6.61
    six = h.loc["speedup_seqan_6gpu"]
    # 30.7x is above every quotient of printed times (at most 176.6 / 5.8 = 30.4) but within rounding
    assert six["table_best"] < 30.7 <= six["best_high"] and bool(six["holds"]) and six["best_xdrop"] == 5000


def test_v100_roofline_points_follow_the_script():
    pts = published.v100_roofline().set_index("xdrop")
    ints = 2973198816372 + 2979831484300
    dram = 32 * (1702953 + 1723845 + 1344888 + 1476188)
    assert pts.loc[100, "warp_ii"] == pytest.approx(ints / 32 / dram)
    assert pts.loc[100, "warp_gips"] == pytest.approx(ints / 32 / 1.70084 / 1e9)
    assert pts.loc[100, "gintops"] == pytest.approx(32 * pts.loc[100, "warp_gips"])
    assert list(pts.index) == [100, 500, 1000, 2500, 5000]
    assert (pts["predication_ratio"] <= 1).all()
    assert published.v100_roof()["peak"].iloc[0] == pytest.approx(220.8 * 32)

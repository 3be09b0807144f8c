# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop chapter's section on the kernel's layouts (lassm.book.xdrop_chapter's lanes functions): from
a synthetic ``lanes.csv`` and synthetic ``lassm cuda lanes=N`` counters (made-up numbers, written
with the producer's own table writer into a temporary results folder), without them, and on the
committed H100 table."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from .. import helpers
from lassm.backends.xdrop import xdrop_host
from lassm.book import xdrop_chapter, xdrop_common
from lassm.book import xdrop_lanes_section as book_lanes
from lassm.campaign import xdrop_lanes
from lassm.runs import xdrop_records as rec

from .test_xdrop_book import FIXTURES, MACHINE, NOTEBOOK, _glue_names

H100 = "nvidia-h100-80gb-hbm3"
COMMITTED = Path(__file__).resolve().parents[2] / "data" / "results" / H100 / "xdrop" / "lanes.csv"
DATASET = "fixture-pairs"

#: Made-up kernel seconds per (X, lanes). At X = 100, 8 lanes is the quickest but its result
#: differs from the block's: it must never be reported as the fastest, and has no speed-up.
SECONDS = {
    10: {0: 0.20, 8: 0.025, 16: 0.04, 32: 0.05},
    100: {0: 0.25, 8: 0.05, 16: 0.10, 32: 0.125},
    1000: {0: 0.40, 8: 1.60, 16: 1.00, 32: 0.32},
    5000: {0: 0.80, 8: 4.00, 16: 3.20, 32: 1.60},
}
DIFFERS = {(100, 8)}


def _lanes_rows(recorded_plan=lambda x: 0) -> list[dict]:
    """``lanes.csv`` rows of :data:`SECONDS`; ``planned`` as a stale plan ``recorded_plan`` recorded it."""
    rows = []
    for x, layouts in SECONDS.items():
        for lanes, seconds in layouts.items():
            rows.append({"machine": MACHINE, "device": "SYNTHETIC GPU (test fixture)", "driver": "none",
                         "dataset": DATASET, "n_pairs": 100, "xdrop": x, "lanes": lanes,
                         "planned": lanes == recorded_plan(x), "kernel_seconds": seconds, "repeats": 3,
                         "cells": 1000 * x, "gcups": 1000 * x / seconds / 1e9,
                         "equal_to_block": (x, lanes) not in DIFFERS, "git_sha": "0000000", "command": "synthetic"})
    return rows


def _counter_row(x: int, lanes: int, duration_s: float, warp_inst: float) -> dict:
    """A ``counters.csv`` row of one forced layout; the columns the comparison does not read are fillers."""
    return {"device": "SYNTHETIC GPU (test fixture)", "dataset": DATASET, "xdrop": x,
            "program": f"{book_lanes.LANES_PROGRAM}{lanes}", "simd_width": 32, "duration_s": duration_s,
            "int_lane_ops": 16 * warp_inst, "warp_inst": warp_inst, "thread_inst": 16 * warp_inst,
            "dram_read_bytes": 1e6, "dram_write_bytes": 1e5, "dram_bytes": 1.1e6, "l2_bytes": 1e7, "l1_bytes": 1e8,
            "launches": 1, "machine": MACHINE, "git_sha": "0000000", "command": "synthetic"}


#: X = 10: S = 0.2 / 0.025 = 8 = I 4 x R 2 (fewer instructions carry more);
#: X = 100: S = 0.25 / 0.10 = 2.5 = I 1.25 x R 2 (the issue rate carries more). 16 lanes is X = 100's plan.
COUNTERS = [(10, 0, 0.2, 4e9), (10, xdrop_host.lanes_for(10), 0.025, 1e9),
            (100, 0, 0.25, 5e9), (100, xdrop_host.lanes_for(100), 0.10, 4e9)]


@pytest.fixture
def lanes_results(tmp_path, monkeypatch):
    """The X-drop fixture folder with ``lanes.csv`` added."""
    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    helpers.this_hosts(tmp_path / MACHINE)
    rec.upsert(tmp_path / MACHINE / "xdrop" / rec.LANES_FILE, rec.LANES_COLUMNS, rec.LANES_KEY, _lanes_rows())
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    return tmp_path


def _add_counters(root: Path, rows) -> None:
    rec.upsert(root / MACHINE / "xdrop" / rec.COUNTERS_FILE, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY,
               [_counter_row(*r) for r in rows])


def test_the_plan_is_the_one_this_test_assumes():
    """The synthetic table's expectations below assume the plan's widths at X = 10, 100, 1000, 5000."""
    assert [xdrop_host.lanes_for(x) for x in SECONDS] == [8, 16, 32, 0]


def test_table_from_a_synthetic_ablation(lanes_results):
    t = book_lanes.lanes_table(MACHINE).set_index("X")
    assert list(t.index) == [10, 100, 1000, 5000]
    assert t.loc[10, "block (128 threads) [ms]"] == pytest.approx(200.0)
    assert t.loc[10, "fastest"] == "8 lanes" and t.loc[10, "fastest over block"] == pytest.approx(8.0)
    assert t.loc[1000, "fastest"] == "32 lanes" and t.loc[1000, "planned over block"] == pytest.approx(1.25)
    assert t.loc[5000, "fastest"] == "block (128 threads)" and t.loc[5000, "planned over block"] == pytest.approx(1.0)
    assert t.loc[100, "all equal"] == False and t.loc[10, "all equal"] == True  # noqa: E712 (numpy bools)


def test_a_layout_that_differs_is_never_the_fastest(lanes_results):
    long = book_lanes.lanes_long(MACHINE).set_index(["xdrop", "lanes"])
    assert not long.loc[(100, 8), "fastest"] and long.loc[(100, 16), "fastest"]  # 0.10 s, not 8 lanes' 0.05 s
    assert long.loc[(100, 8), "over_block"] != long.loc[(100, 8), "over_block"]  # NaN: a wrong answer has no speed-up
    pts = book_lanes.lanes_points(book_lanes.lanes_long(MACHINE)).set_index("xdrop")
    assert pts.loc[100, "fastest"] == "16 lanes" and pts.loc[100, "fastest over block"] == pytest.approx(2.5)
    assert xdrop_lanes.best(book_lanes.lanes_rows(MACHINE).to_dict("records"))[(DATASET, 100)] == 16
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_equal"] == "11 of 12"
    assert f["xd_lanes_equal_verdict"] == "did not always return the block layout's result"


def test_the_planned_layout_is_the_codes_plan_not_the_recorded_one(lanes_results, monkeypatch):
    """The table's ``planned`` column says the block everywhere (a stale plan); the book marks
    :func:`plan.lanes_for`'s layout, and follows the plan when the code's plan changes."""
    long = book_lanes.lanes_long(MACHINE)
    assert (long["planned"] == [xdrop_host.lanes_for(x) == n for x, n in zip(long["xdrop"], long["lanes"])]).all()
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_replanned"] == "3"  # X = 10, 100, 1000 recorded the block; the code plans lanes there
    assert f["xd_lanes_plan"] == book_lanes.plan_text()
    monkeypatch.setattr(xdrop_host, "LANES_BY_X", ((100, 32),))
    pts = book_lanes.lanes_points(book_lanes.lanes_long(MACHINE)).set_index("xdrop")
    assert list(pts["planned"]) == ["32 lanes", "32 lanes", "block (128 threads)", "block (128 threads)"]
    assert pts.loc[10, "planned over fastest"] == pytest.approx(2.0)  # 0.05 s against 8 lanes' 0.025 s
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_plan"] == "32 lanes up to X = 100, LOGAN's block above X = 100"
    assert f["xd_lanes_plan_fastest"] == "1 of 4" and f["xd_lanes_plan_gap"] == "100%"


def test_facts_from_the_synthetic_ablation_by_hand(lanes_results):
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_dataset"] == DATASET and f["xd_lanes_x_values"] == "10, 100, 1,000, 5,000"
    assert f["xd_lanes_small_x"] == "10" and f["xd_lanes_small_layout"] == "8 lanes"
    assert f["xd_lanes_small_block_ms"] == "200.0" and f["xd_lanes_small_planned_ms"] == "25.0"
    assert f["xd_lanes_small_speedup"] == "8.0"
    assert f["xd_lanes_speedup"] == "1.2 to 8.0"  # 0.4 / 0.32 at X = 1000, 0.25 / 0.10 = 2.5 between
    assert f["xd_lanes_win_x"] == "10 to 1,000" and f["xd_lanes_block_x"] == "5,000"
    assert f["xd_lanes_plan_fastest"] == "4 of 4" and f["xd_lanes_plan_gap"] == "0%"
    # 8 lanes beats the block at X = 10 only: at X = 100 it is quicker but wrong
    assert f["xd_lanes_8_wins_x"] == "10" and f["xd_lanes_8_worst"] == "5.0" and f["xd_lanes_8_worst_x"] == "5,000"
    assert f["xd_lanes_16_wins_x"] == "10 to 100" and f["xd_lanes_16_worst_x"] == "5,000"
    assert f["xd_lanes_32_wins_x"] == "10 to 1,000"


def test_x_text_lists_x_that_are_not_a_run():
    assert book_lanes._x_text([10, 1000], [10, 100, 1000]) == "10, 1,000"
    assert book_lanes._x_text([100, 1000], [10, 100, 1000]) == "100 to 1,000"
    assert book_lanes._x_text([], [10]) == "none"


def test_chart_marks_the_plan(lanes_results):
    pytest.importorskip("altair", reason="needs altair: pip install 'lassm[book]'")
    spec = book_lanes.lanes_chart(MACHINE).to_dict()
    assert len(spec["layer"]) == 3
    assert book_lanes.show_lanes(MACHINE).marks() > 0


def test_without_the_ablation_every_part_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "bare-gpu").mkdir()
    f = xdrop_chapter.facts("bare-gpu")
    for key in book_lanes.LANES_FACTS + ("xd_lanes_8_wins_x", "xd_lanes_ctr_speedup"):
        assert f[key] == xdrop_common.NOT_MEASURED, key
    assert f["xd_lanes_plan"] == book_lanes.plan_text()  # the plan is the code's, measured or not
    assert "no layouts' ablation" in book_lanes.lanes_table("bare-gpu").iloc[0, 0]
    assert book_lanes.show_lanes("bare-gpu").startswith(xdrop_common.NOT_MEASURED)
    assert book_lanes.lanes_chart("bare-gpu") is None and book_lanes.lanes_counters("bare-gpu").empty


def test_counters_not_measured_yet(lanes_results):
    """The fixture's counters have ``lassm cuda`` and ``LOGAN`` rows, none of a forced layout."""
    assert book_lanes.lanes_counters(MACHINE).empty
    assert xdrop_common.NOT_MEASURED in book_lanes.lanes_counters_table(MACHINE).iloc[0, 0]
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_ctr_sentence"].startswith("What the gain is made of is not measured yet")
    assert f["xd_lanes_ctr_speedup"] == xdrop_common.NOT_MEASURED


def test_counters_split_the_speed_up_into_instructions_and_issue_rate(lanes_results):
    _add_counters(lanes_results, COUNTERS)
    c = book_lanes.lanes_counters(MACHINE).set_index(["xdrop", "lanes"])
    assert c.loc[(10, 8), "speedup"] == pytest.approx(8.0)
    assert c.loc[(10, 8), "inst_factor"] == pytest.approx(4.0) and c.loc[(10, 8), "rate_factor"] == pytest.approx(2.0)
    assert c.loc[(100, 16), "inst_factor"] == pytest.approx(1.25)
    assert c.loc[(100, 16), "rate_factor"] == pytest.approx(2.0)
    assert c.loc[(10, 0), "speedup"] == pytest.approx(1.0) and c.loc[(10, 0), "active_lanes"] == pytest.approx(16.0)
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_lanes_ctr_x"] == "10, 100" and f["xd_lanes_ctr_speedup"] == "2.5 to 8.0"
    assert f["xd_lanes_ctr_inst"] == "1.2 to 4.0" and f["xd_lanes_ctr_rate"] == "2.0"
    sentence = f["xd_lanes_ctr_sentence"]
    assert "at X = 10 (8 lanes), 8.00 = 4.00 × 2.00; at X = 100 (16 lanes), 2.50 = 1.25 × 2.00." in sentence
    assert "Fewer instructions carry the larger part at X = 10, a higher issue rate at X = 100" in sentence
    # the other tables are untouched: the forced layouts are not "lassm cuda"
    assert f["xd_profiled"] == "2"


def test_counters_of_one_cause(lanes_results):
    _add_counters(lanes_results, COUNTERS[:2])
    assert "Fewer instructions carry the larger part of the gain at every profiled X" \
        in xdrop_chapter.facts(MACHINE)["xd_lanes_ctr_sentence"]


def test_counters_without_the_block_have_no_speed_up(lanes_results):
    _add_counters(lanes_results, COUNTERS[1:2])
    c = book_lanes.lanes_counters(MACHINE)
    assert len(c) == 1 and c["speedup"].isna().all()
    assert "no planned lanes layout beside the block" in xdrop_chapter.facts(MACHINE)["xd_lanes_ctr_sentence"]


def test_against_logan_sentence_follows_new_rows(tmp_path, monkeypatch):
    """LOGAN's comparison is quoted from the rows: rows measured again with the plan, here faster
    at every X, turn "at most LOGAN's time at 1 of 2" into "2 of 2" with no word of prose changed."""
    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    table = tmp_path / MACHINE / "xdrop" / rec.AGAINST_LOGAN_FILE
    rows = list(csv.DictReader(table.open()))
    ours = [dict(r, kernel_seconds=str(float(r["kernel_seconds"]) / 4), git_sha="1111111") for r in rows
            if r["program"] == "lassm xdrop align cuda"]
    rec.upsert(table, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, ours)
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_against_goal"] == "2 of 2" and f["xd_against_ratio"] == "0.08 to 0.30"  # 0.0025/0.03, 0.015/0.05


# --- the committed H100 table ----------------------------------------------------------------

def _committed() -> list[dict]:
    with COMMITTED.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def committed_results(monkeypatch):
    monkeypatch.delenv("LASSM_RESULTS", raising=False)
    return H100


def test_committed_table_read_by_the_chapter(committed_results):
    raw = _committed()
    pts = book_lanes.lanes_points(book_lanes.lanes_long(H100)).set_index("xdrop")
    assert sorted(pts.index) == sorted({int(r["xdrop"]) for r in raw})
    # the fastest layout is lassm.campaign.xdrop_lanes.best's on the file as csv reads it
    best = xdrop_lanes.best(raw)
    assert {x: int(n) for (_, x), n in best.items()} == {x: int(pts.loc[x, "fastest_lanes"]) for x in pts.index}
    assert all(pts.loc[x, "planned_lanes"] == xdrop_host.lanes_for(x) for x in pts.index)
    f = xdrop_chapter.facts(H100)
    lanes_runs = [r for r in raw if r["lanes"] != "0"]
    equal = sum(r["equal_to_block"] == "True" for r in lanes_runs)
    assert f["xd_lanes_equal"] == f"{equal} of {len(lanes_runs)}"
    small = min(int(r["xdrop"]) for r in raw)
    t = {int(r["lanes"]): float(r["kernel_seconds"]) for r in raw if int(r["xdrop"]) == small}
    assert f["xd_lanes_small_speedup"] == f"{t[0] / t[xdrop_host.lanes_for(small)]:.1f}"


def test_committed_table_the_plan_picks_the_fastest_layout(committed_results):
    """The plan was chosen from this table: at every measured X it is the fastest equal layout."""
    f = xdrop_chapter.facts(H100)
    n = len({r["xdrop"] for r in _committed()})
    assert f["xd_lanes_plan_fastest"] == f"{n} of {n}"


def test_committed_chapter_glues_every_name(committed_results):
    assert _glue_names() <= set(xdrop_chapter.facts(H100))


@pytest.mark.parametrize("with_counters", [False, True])
def test_chapter_executes_with_the_ablation(with_counters, lanes_results, tmp_path):
    papermill = pytest.importorskip("papermill", reason="needs papermill: pip install 'lassm[book]'")
    pytest.importorskip("ipykernel")
    if with_counters:
        _add_counters(lanes_results, COUNTERS)
    out = tmp_path / "xdrop-run.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters={"machine": MACHINE}, kernel_name="python3",
                               cwd=str(NOTEBOOK.parent), progress_bar=False, log_output=False)
    cells = json.loads(out.read_text())["cells"]
    errors = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    shown = {c["id"]: c for c in cells}
    chart = shown["xdrop-lanes-02"]["outputs"]
    assert any("image/svg+xml" in o.get("data", {}) for o in chart)
    html = [o.get("data", {}).get("text/html", "") for o in shown["xdrop-lanes-04"]["outputs"]]
    counters_html = "".join("".join(h) if isinstance(h, list) else h for h in html)  # nbformat may split lines
    assert ("warp GIPS" in counters_html) == with_counters

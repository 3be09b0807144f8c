# SPDX-License-Identifier: BSD-3-Clause
"""The layouts' ablation (``lassm.campaign.xdrop_lanes``): its rows, its comparison and its choice.

The CUDA kernel's layouts need a GPU (``tests/backends/test_xdrop_gpu.py`` checks each against the oracle
there); the ablation's own logic runs here on the numba oracle, through an ``align`` that takes a
``lanes=`` as the CUDA one does. The comparison can fail: a "layout" that runs another X gives
other ends, and its row must say so and never be chosen.
"""
from __future__ import annotations

import dataclasses

import pytest

from lassm.backends.xdrop import xdrop_cpu
from lassm.campaign import xdrop_lanes
from lassm.runs import xdrop_records as rec
from lassm.workloads.xdrop.scoring import Scoring

from .. import helpers


def _oracle(wrong_lanes: int | None = None):
    """The oracle as a layout-taking ``align``; ``wrong_lanes`` runs X + 5 instead (a broken layout)."""
    def align(pairs, scoring, lanes=0):
        run = dataclasses.replace(scoring, xdrop=scoring.xdrop + 5) if lanes == wrong_lanes else scoring
        res = xdrop_cpu.align(pairs, run)
        # a stand-in timer: more lanes, slower
        return dataclasses.replace(res, extra=dataclasses.replace(res.extra, kernel_seconds=0.001 * (1 + lanes)))
    return align


def test_rows_compare_every_layout_with_the_block() -> None:
    pairs = helpers.random_pairs(40, 3)
    got = xdrop_lanes.rows(_oracle(), pairs, "r40", Scoring(xdrop=10), repeats=2, context={"machine": "m"})
    assert [r["lanes"] for r in got] == list(xdrop_lanes.LAYOUTS)
    assert all(r["equal_to_block"] and r["machine"] == "m" and r["n_pairs"] == 40 for r in got)
    assert sum(r["planned"] for r in got) == 1 and got[0]["cells"] > 0
    assert set(got[0]) <= set(rec.LANES_COLUMNS)
    assert xdrop_lanes.best(got) == {("r40", 10): 0}


def test_a_layout_that_differs_is_recorded_and_never_chosen() -> None:
    pairs = helpers.random_pairs(40, 3)
    got = xdrop_lanes.rows(_oracle(wrong_lanes=0), pairs, "r40", Scoring(xdrop=3), layouts=(0, 8, 16))
    assert [r["equal_to_block"] for r in got] == [True, False, False]  # the reference itself is the odd one
    got = xdrop_lanes.rows(_oracle(wrong_lanes=8), pairs, "r40", Scoring(xdrop=3), layouts=(0, 8, 16))
    assert [r["equal_to_block"] for r in got] == [True, False, True]
    table = [{**r, "kernel_seconds": 1.0 if r["lanes"] else 2.0} for r in got]  # lanes 8 would be fastest...
    table[1]["kernel_seconds"] = 0.1
    assert xdrop_lanes.best(table) == {("r40", 3): 16}  # ...but it differs


def test_rows_refuse_a_plan_without_the_block_first() -> None:
    with pytest.raises(ValueError, match="start with 0"):
        xdrop_lanes.rows(_oracle(), helpers.random_pairs(4, 1), "r", Scoring(), layouts=(8, 0))


def test_the_plan_follows_the_committed_ablation() -> None:
    """X's plan (``plan.LANES_BY_X``) is chosen from the measured table: at every X measured on
    the H100, the planned layout is within 10 % of the fastest one that equals the block's."""
    from lassm.backends.xdrop import xdrop_host

    table = rec.read_rows(rec.folder("nvidia-h100-80gb-hbm3") / rec.LANES_FILE, rec.LANES_COLUMNS)
    assert table, "the H100's lanes.csv is committed"
    fastest = xdrop_lanes.best(table)
    times = {(r["dataset"], int(r["xdrop"]), int(r["lanes"])): float(r["kernel_seconds"]) for r in table}
    for (name, x), lanes in fastest.items():
        assert times[(name, x, xdrop_host.lanes_for(x))] <= 1.1 * times[(name, x, lanes)], (name, x, lanes)

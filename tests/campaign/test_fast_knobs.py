# SPDX-License-Identifier: BSD-3-Clause
"""``lassm measure fast-knobs`` (:mod:`lassm.campaign.fast_knobs`) without a GPU: the grid of
settings each build is timed at, the build each setting makes, the table against fast's, and the
modules' knobs put back after a run that fails."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm import cli
from lassm.backends import cuda, nvrtc
from lassm.campaign import fast_knobs
from lassm.campaign.fast_knobs import Knobs, Setting
from lassm.runs import tables
from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_KEY


def test_each_build_takes_the_knobs_it_has() -> None:
    knobs = Knobs(caps=(None, 40), steps=(0, 8), team_lanes=(0,), lane_walks=(4,), sort_max_k=(30, 121))
    fast = fast_knobs.settings("fast", knobs)
    assert len(fast) == 4 and {(s.cap, s.steps) for s in fast} == {(None, 0), (None, 8), (40, 0), (40, 8)}
    assert all(s.walks is None and s.sort_max_k is None and s.lanes == 0 for s in fast)
    assert {s.walks for s in fast_knobs.settings("fast-lanes8", knobs)} == {4}
    assert {s.sort_max_k for s in fast_knobs.settings("fast-sorted", knobs)} == {30, 121}
    assert fast_knobs.settings("casptr", knobs) == [Setting(("team", cuda.TEAM_MIN_BASES))]
    scale = fast_knobs.settings("fast", Knobs(caps=(None,), team_bases=(384,), scale_team_bases=(1536, 3072)))
    assert [s.team for s in scale] == [("scale-team", 1536), ("scale-team", 3072)]


def test_a_setting_makes_its_build() -> None:
    lanes8 = nvrtc.VARIANTS["fast-lanes8"]
    v = fast_knobs.variant(lanes8, Setting(("team", 1), cap=0, steps=3, lanes=0, walks=4, sort_max_k=30))
    assert v.lane_walks == 4 and v.team_lanes is None and v.max_registers is None and v.scale_registers is None
    assert "-DLASSM_FAST_LANE_WALKS=4" in v.defines and "-DLASSM_FAST_LANE_WALKS=8" not in v.defines
    assert {"-DLASSM_FAST_SCAN_STEPS=3", "-DLASSM_SORT_MAX_K=30"} <= set(v.defines)
    built = fast_knobs.variant(nvrtc.VARIANTS["fast"], Setting(("team", 1)))
    assert built == nvrtc.VARIANTS["fast"]
    assert fast_knobs.variant(nvrtc.VARIANTS["fast"], Setting(("team", 1), cap=40)).max_registers == 40


def test_the_table_sets_each_row_beside_fasts(tmp_path: Path) -> None:
    key = (None, None, ("team", 1536), None, None)
    rows = [{"protocol": "fast", "label": "a", "knobs": key, "ms": {"d": 2.0}, "equal": {"d": True}},
            {"protocol": "fast-spec", "label": "a", "knobs": key, "ms": {"d": 3.0}, "equal": {"d": False}}]
    csv = tmp_path / "against-original.csv"
    tables.upsert(csv, AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_KEY,
                  [{"dataset": "d", "k": 21, "program": "original ht_loc", "kernel_seconds": 0.004},
                   {"dataset": "d", "k": 21, "program": "lassm extend fast", "kernel_seconds": 0.001},
                   {"dataset": "e", "k": 21, "program": "original ht_loc", "kernel_seconds": None}])
    ht_loc = fast_knobs.ht_loc_seconds(csv)
    assert ht_loc == {"d": 0.004} and fast_knobs.ht_loc_seconds(None) == {}
    lines = fast_knobs.table(rows, ["d"], ht_loc).splitlines()
    assert "x1.000" in lines[2] and "=" in lines[2] and "0.500hl" in lines[2]
    assert "x1.500" in lines[3] and "DIFF" in lines[3] and "0.750hl" in lines[3]


def test_a_failed_run_puts_the_knobs_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm.runs import extend
    from lassm.workloads.local_assembly import datasets

    before, teams = dict(nvrtc.VARIANTS), (cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE)
    monkeypatch.setattr(datasets, "load", lambda name: (None, 21))
    monkeypatch.setattr(extend, "extend", lambda *a, **k: None)

    def kernel(proto, lanes, scaled=False):
        assert nvrtc.VARIANTS["fast"].max_registers == 40 and cuda.TEAM_MIN_BASES_SCALE == 99
        raise RuntimeError("no GPU in this test")

    monkeypatch.setattr(cuda, "kernel", kernel)
    with pytest.raises(RuntimeError, match="no GPU"):
        fast_knobs.explore(["d"], ["fast"], Knobs(caps=(40,), scale_team_bases=(99,)), 1)
    assert nvrtc.VARIANTS == before and (cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE) == teams


def test_the_command_hands_every_knob_on(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    seen = {}

    def explore(names, protocols, knobs, repeat):
        seen.update(names=names, protocols=protocols, knobs=knobs, repeat=repeat)
        return []

    monkeypatch.setattr(fast_knobs, "explore", explore)
    assert cli.main(["measure", "fast-knobs", "sample-k21", "gen-k21", "--caps", "built,40", "--protocols", "fast",
                     "--scale-team-bases", "3072", "--sort-max-k", "30,121", "--repeat", "2"]) == 0
    assert seen == {"names": ["sample-k21", "gen-k21"], "protocols": ["fast"], "repeat": 2,
                    "knobs": Knobs(caps=(None, 40), scale_team_bases=(3072,), sort_max_k=(30, 121))}
    assert "median kernel ms" in capsys.readouterr().out

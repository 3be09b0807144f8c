# SPDX-License-Identifier: BSD-3-Clause
"""lassm.book.best: efficiency against the best measured, the originals included, and the sentence
that says where an original is the fastest, from made-up rows."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from lassm.book import best


def _rows() -> pd.DataFrame:
    """Platform G: the original is the fastest on p1, our CUDA on p2 (the original ran there too);
    platform C: only ours, on p1."""
    rows = [("p1", "G", "CUDA", "cuda a", True, 4.0), ("p1", "G", "OpenCL", "opencl a", True, 8.0),
            ("p1", "G", "orig", "ORIG prog", False, 2.0), ("p2", "G", "CUDA", "cuda b", True, 1.0),
            ("p2", "G", "orig", "ORIG prog", False, 4.0), ("p1", "C", "OpenCL", "opencl a", True, 3.0)]
    return pd.DataFrame(rows, columns=list(best.COLUMNS))


def test_clock_takes_nsight_compute_where_it_is_recorded() -> None:
    assert best.clock(0.002, 0.003) == (0.002, best.NCU)
    for missing in ("", None, float("nan"), "nan", 0.0):
        assert best.clock(missing, 0.003) == (0.003, best.OWN)
    value, which = best.clock("", "")
    assert math.isnan(value) and which == best.OWN, "a row with no time at all has none"


def test_carried_keeps_the_same_clock_ratio() -> None:
    """Our build's time on its own clock over the ratio measured on the shared one."""
    assert best.carried(10.0, 2.0) == 5.0  # ours twice the original's time: the original takes 5 here
    anchor, ratio = 3.0, 0.25
    assert anchor / best.carried(anchor, ratio) == pytest.approx(ratio)


def test_efficiency_names_the_reference_and_whether_it_is_ours() -> None:
    e = best.efficiency(_rows()).set_index(["problem", "platform", "application"])
    assert e.loc[("p1", "G", "CUDA"), "app eff"] == 0.5 and e.loc[("p1", "G", "CUDA"), "reference"] == "ORIG prog"
    assert not e.loc[("p1", "G", "CUDA"), "reference_ours"]
    assert e.loc[("p2", "G", "orig"), "app eff"] == 0.25 and e.loc[("p2", "G", "orig"), "reference"] == "cuda b"
    assert e.loc[("p1", "C", "OpenCL"), "app eff"] == 1.0 and e.loc[("p1", "C", "OpenCL"), "reference_ours"]
    assert (e["app eff"] <= 1.0).all()
    assert best.efficiency(_rows().iloc[0:0]).empty


def test_portability_over_the_platforms_that_measured_a_problem() -> None:
    pp = best.portability(best.efficiency(_rows())).set_index(["problem", "application"])
    assert pp.loc[("p1", "OpenCL"), "PP"] == pytest.approx(2 / (1 / 0.25 + 1 / 1.0))
    # CUDA has no time on C: not measured there, so no PP (a missing point is no 0)
    assert math.isnan(pp.loc[("p1", "CUDA"), "PP"]) and pp.loc[("p1", "CUDA"), "ran on"] == "1 of 2"
    assert pp.loc[("p2", "CUDA"), "PP"] == 1.0 and pp.loc[("p2", "CUDA"), "ran on"] == "1 of 1"


def test_portability_is_zero_only_where_an_application_cannot_run() -> None:
    """C is a CPU: CUDA cannot run there (0); the original, a GPU program measured on G, is 0 too;
    OpenCL, which runs anywhere, keeps its mean; a measurement on a kind it "cannot" run on wins."""
    kinds = {"G": best.NVIDIA, "C": best.CPU}
    runs_on = {"CUDA": frozenset({best.NVIDIA}), "orig": frozenset({best.NVIDIA}), "OpenCL": frozenset({best.NVIDIA})}
    pp = best.portability(best.efficiency(_rows()), runs_on, kinds).set_index(["problem", "application"])
    assert pp.loc[("p1", "CUDA"), "PP"] == 0.0 and pp.loc[("p1", "orig"), "PP"] == 0.0
    assert pp.loc[("p1", "OpenCL"), "PP"] == pytest.approx(2 / (1 / 0.25 + 1 / 1.0))
    assert best.cannot_run({"CUDA": frozenset({best.NVIDIA})}, kinds) == {("CUDA", "C")}
    assert [best.platform_kind(d) for d in ("NVIDIA H200", "AMD EPYC", "AMD Instinct MI250X GCD",
                                            "Intel(R) Xeon(R) Processor")] == [best.NVIDIA, best.CPU, best.OTHER_GPU,
                                                                               best.CPU]


def test_verdict_says_where_an_original_is_the_fastest_and_where_ours_is() -> None:
    said = best.verdict(best.efficiency(_rows()), "problem")
    assert said.startswith("On the G, a program other than ours is the fastest measured for 1 of the 2 problems "
                           "(p1: ORIG prog), and our fastest build reaches 0.50 of its speed; ours is the fastest "
                           "measured for the other 1 problem (p2: cuda b); ORIG prog, measured at 1 of these, "
                           "reaches 0.25 of that speed.")
    assert "On the C, ours is the fastest measured for the one problem (p1: opencl a); no other program" in said
    s = best.summary(best.efficiency(_rows())).set_index(["platform", "problem"])
    assert math.isnan(s.loc[("C", "p1"), "others_best"]) and s.loc[("G", "p1"), "ours_best"] == 0.5
    assert best.verdict(best.efficiency(_rows().iloc[0:0])) == "Nothing was measured here to compare."


def test_many_problems_are_counted_per_reference() -> None:
    rows = pd.DataFrame([(f"x{i}", "G", "CUDA", "cuda a", True, 1.0) for i in range(8)], columns=list(best.COLUMNS))
    assert "for all 8 points (cuda a on each)" in best.verdict(best.efficiency(rows))
    rows.loc[rows.index[:3], "implementation"] = "cuda b"
    assert "(cuda b at 3 points; cuda a at 5 points)" in best.verdict(best.efficiency(rows))

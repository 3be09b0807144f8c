# SPDX-License-Identifier: BSD-3-Clause
"""Pennycook's PP as the book defines it: the size is part of the problem, a platform without a
measurement is "not measured" (0 only where the application cannot run), one reference rule in
every chapter, and no mean over two kinds of efficiency. Each test fails when a rule is broken."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm.analysis import portability
from lassm.book import across, best, models, plots

ROOT = Path(__file__).resolve().parents[2]


def _frame() -> pd.DataFrame:
    """Two applications, three platforms, every one measured: the case P3 and we must agree on."""
    return pd.DataFrame({"problem": ["p"] * 6, "platform": ["A", "B", "C"] * 2,
                         "application": ["x"] * 3 + ["y"] * 3,
                         "app eff": [1.0, 0.5, 0.25, 0.9, 0.9, 0.3], "arch eff": [0.4, 0.2, 0.1, 0.3, 0.3, 0.6]})


def test_pp_agrees_with_p3analysis_where_it_is_installed() -> None:
    p3 = pytest.importorskip("p3analysis.metrics")  # Intel's P3 Analysis Library: not on the index, so never vendored
    cannot = _frame()
    cannot.loc[(cannot["application"] == "y") & (cannot["platform"] == "C"), ["app eff", "arch eff"]] = 0.0
    for frame in (_frame(), cannot):  # every platform measured; one the application cannot run on (0)
        ours = portability.pp(frame).set_index("application")
        theirs = p3.pp(frame).set_index("application")
        for col in ("app pp", "arch pp"):
            assert ours[col].to_numpy() == pytest.approx(theirs.loc[ours.index, col].astype(float).to_numpy())


def test_pp_is_the_harmonic_mean_when_every_platform_is_measured() -> None:
    got = portability.pp(_frame()).set_index("application")
    assert got.loc["x", "app pp"] == pytest.approx(3 / (1 + 2 + 4))
    assert got.loc["y", "arch pp"] == pytest.approx(3 / (1 / 0.3 + 1 / 0.3 + 1 / 0.6))


def test_a_missing_platform_is_not_measured_and_cannot_run_is_zero() -> None:
    df = _frame()
    gap = df[~((df["application"] == "x") & (df["platform"] == "C"))]
    got = portability.pp(gap).set_index("application")
    assert math.isnan(got.loc["x", "app pp"]), "no measurement on C is no PP, never 0"
    assert portability.described(got.loc["x", "app pp"]) == portability.NOT_MEASURED
    assert got.loc["y", "app pp"] > 0
    no = portability.pp(gap, cannot_run={("x", "C")}).set_index("application")
    assert no.loc["x", "app pp"] == 0.0, "an application that cannot run on C is not portable to H"
    # a measurement shows it can run: a wrong "cannot run" never turns a measured value into 0
    wrong = portability.pp(df, cannot_run={("x", "C")}).set_index("application")
    assert wrong.loc["x", "app pp"] == pytest.approx(3 / 7)


def test_a_size_mixed_pool_is_split_into_one_problem_per_size() -> None:
    """A CPU's small inputs and a GPU's large ones of one kernel: two problems, never one mean
    whose CPU term is a free 1.0."""
    rows = pd.DataFrame({"problem": ["nw"] * 4, "size": ["cpu", "gpu", "gpu", "gpu"],
                         "platform": ["CPU", "G1", "G2", "G1"], "application": ["OpenCL"] * 3 + ["CUDA"],
                         "seconds": [1.0, 2.0, 4.0, 1.0]})
    rows = rows.assign(implementation=rows["application"], ours=True)
    got = best.portability(best.efficiency(rows))
    assert set(zip(got["size"], got["application"])) == {("cpu", "OpenCL"), ("gpu", "OpenCL"), ("gpu", "CUDA")}
    gpu = got[(got["size"] == "gpu") & (got["application"] == "OpenCL")]
    assert gpu["PP"].item() == pytest.approx(2 / (2 + 1)), "over the two GPUs only: 0.5 on G1, 1 on G2"
    assert gpu["ran on"].item() == "2 of 2"
    # without the size, the CPU joins the GPUs' problem and the mean changes: the rule matters
    pooled = best.portability(best.efficiency(rows.drop(columns="size"))).set_index("application")
    assert pooled.loc["OpenCL", "PP"] != pytest.approx(gpu["PP"].item())


def test_a_cascade_refuses_to_pool_two_sizes() -> None:
    df = pd.DataFrame({"platform": ["CPU", "G1"], "problem": ["nw", "nw"], "size": ["cpu", "gpu"],
                       "app eff": [1.0, 0.5]})
    with pytest.raises(ValueError, match="like problems only"):
        plots.cascade(df, "app eff", by="problem")
    assert len(plots.cascade(df.assign(problem=["nw cpu", "nw gpu"]), "app eff", by="problem")) == 2


def test_the_cross_machine_pp_never_averages_two_kinds_of_efficiency() -> None:
    for column, (eff, _text) in across.PP_DEFINITIONS.items():
        assert eff in portability.EFFICIENCY_COLUMNS and eff in column
        assert sum(kind in column for kind in portability.EFFICIENCY_COLUMNS) == 1
    rows = pd.DataFrame({"platform": ["A", "B"], "app eff": [0.5, 1.0], "arch eff": [0.1, np.nan]})
    with pytest.raises(ValueError, match="one kind"):
        across._pp(rows.assign(eff=[0.1, 1.0]), "eff", ["A", "B"])  # arch on A, app on B: no such mean
    assert math.isnan(across._pp(rows, "arch eff", ["A", "B"])), "B has no counters: not measured"


def test_the_published_ports_keep_cascade_panels_of_their_own() -> None:
    pts = pd.DataFrame({"platform": ["G"], "variant": ["casptr"], "dataset": ["gen-k21"], "arch eff": [0.1]})
    pub = pd.DataFrame({"platform": ["A100 (published)"], "variant": ["casptr"], "dataset": ["gen-k21"], "k": [21],
                        "arch eff": [0.5]})
    frame = across.cascade_frame(pts, pub)
    assert frame.groupby("dataset")["platform"].nunique().max() == 1
    assert set(frame["dataset"]) == {"gen-k21", across.published_problem(21)}


def test_cannot_run_follows_the_platform_kind() -> None:
    kinds = {"H100": best.NVIDIA, "EPYC": best.CPU}
    assert best.cannot_run({"CUDA": frozenset({best.NVIDIA}), "numba": frozenset({best.CPU})}, kinds) == \
        {("CUDA", "EPYC"), ("numba", "H100")}
    assert best.platform_kind("NVIDIA H100 80GB HBM3") == best.NVIDIA and best.platform_kind("AMD EPYC") == best.CPU


def test_the_reference_rule_is_stated_once_and_pointed_to() -> None:
    labels, pointers = 0, 0
    for path in [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("book/*.md"), *ROOT.glob("book/*.ipynb")]:
        text = path.read_text(encoding="utf-8")
        sources = "".join("".join(c["source"]) for c in json.loads(text)["cells"]) if path.suffix == ".ipynb" else text
        labels += sources.count("(pp-rules)=")
        pointers += sources.count("{ref}`pp-rules`")
    assert labels == 1 and pointers >= 4


def test_the_oracle_counts_alike_in_both_chapters() -> None:
    """The EPYC's casptr efficiency on each dataset is the same in the cross-machine chapter and in
    the programming-models one: one reference rule, the CPU oracle in it in both."""
    cpu = "cpu-amd-epyc"
    if not (ROOT / "data" / "results" / cpu / "campaign.json").is_file():
        pytest.skip("no CPU campaign in the records")
    pts = across.points()
    mine = pts[(pts["folder"] == cpu) & (pts["variant"] == "casptr") & pts["dataset"].isin(across.STUDY_DATASETS)]
    apps = {"OpenCL": ("opencl",), "sub-groups": ("sycl",)}
    table = models.portability({"CPU": cpu}, apps, "casptr", across.STUDY_DATASETS)
    per_dataset = table.groupby("dataset")["CPU app eff"].max()
    assert len(mine) == len(across.STUDY_DATASETS)
    for dataset, eff in mine.set_index("dataset")["app eff"].items():
        assert per_dataset[dataset] == pytest.approx(eff)
    assert (mine["reference"] == models.ORACLE_MODEL).any(), "the oracle is the fastest on the CPU somewhere"

# SPDX-License-Identifier: BSD-3-Clause
"""lassm.book.suite: the suite chapter's tables and sentences from a machine's suite records (the
committed H100 folder, copied and edited in a temporary results root), decided from the data."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from lassm.book import suite

H100 = Path(__file__).resolve().parent.parent / "data" / "results" / "nvidia-h100-80gb-hbm3" / "suite"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (H100 / "times.csv").is_file():
        pytest.skip("no committed H100 suite records")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    shutil.copytree(H100, tmp_path / "m" / "suite")
    return tmp_path / "m" / "suite"


def test_gaps_are_the_ported_and_best_ratios_of_the_records(root: Path) -> None:
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    g = suite.gaps("m").set_index("kernel")
    assert list(g.index) == list(suite.ORDER)
    for kernel, (cu, cl) in suite.PORTED.items():
        assert g.loc[kernel, "ported_ratio"] == pytest.approx(t[(kernel, "opencl", cl)] / t[(kernel, "cuda", cu)])
        best = t[kernel].groupby(level=0).min()
        assert g.loc[kernel, "best_ratio"] == pytest.approx(best["opencl"] / best["cuda"])
    assert g.loc["minkowski", "published"] == ">5" and g.loc["all_pairs", "published_ratio"] == 1.25


def test_a_cause_is_decided_from_the_counts(root: Path) -> None:
    """k5's cause shows while OpenCL's pow under fast math has no lg2; give it one and it does not."""
    c = suite.causes("m").set_index("kernel")
    assert c.loc["minkowski", "shows"] is True or bool(c.loc["minkowski", "shows"])
    mix = pd.read_csv(root / "ptx-mix.csv")
    fake = mix[(mix["kernel"] == "minkowski") & (mix["backend"] == "cuda") & (mix["variant"] == "powf-fast-math")
               & mix["opcode"].str.startswith("lg2")].assign(backend="opencl", variant="pow-fast-math")
    pd.concat([mix, fake]).to_csv(root / "ptx-mix.csv", index=False)
    assert not bool(suite.causes("m").set_index("kernel").loc["minkowski", "shows"])


def test_a_variant_that_differs_is_left_out_of_the_gaps_and_said(root: Path) -> None:
    t = pd.read_csv(root / "times.csv")
    t.loc[(t["kernel"] == "nw") & (t["backend"] == "opencl"), "matches_reference"] = False
    t.to_csv(root / "times.csv", index=False)
    assert "nw" not in set(suite.gaps("m")["kernel"])
    assert suite.facts("m")["su_all_match"] == "no: 2 variants differ"


def test_facts_without_records_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert suite.facts("nothing-here")["su_points"].startswith("none: no suite records")


def test_the_distribution_holds_every_kernel_with_both_models(root: Path) -> None:
    d = suite.distribution("m")
    assert set(d["kernel"]) == set(suite.ORDER)  # this copy holds the suite only
    assert (d["ratio"] > 0).all() and len(d) == 2 * len(suite.ORDER)
    e = suite.efficiency("m")
    assert ((e[["cuda", "opencl"]] <= 1.0) & (e[["cuda", "opencl"]] > 0)).all().all()
    assert (e[["cuda", "opencl"]].max(axis=1) == 1.0).all()


def test_the_originals_beside_ours(root: Path) -> None:
    """HeCBench's printed times beside our CUDA build of the variant it is set against."""
    from lassm.campaign.originals import hecbench
    from lassm.runs import tables

    base = {"machine": "m", "git_sha": "s"}
    hecbench.table("m").unlink(missing_ok=True)  # the copied folder's own programs' rows: this test writes its two
    tables.upsert(hecbench.table("m"), hecbench.COLUMNS, hecbench.KEY, [
        {**base, "kernel": "nw", "program": "nw-cuda", "seconds": 0.05, "verified": "PASS", "ours_variant": "stream"},
        {**base, "kernel": "minkowski", "program": "minkowski-cuda", "seconds": 0.004, "verified": "not checked",
         "ours_variant": "powf-fast-math"}])
    o = suite.originals("m").set_index("kernel")
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    assert o.loc["nw", "ours_over_original"] == pytest.approx(t[("nw", "cuda", "stream")] / 0.05)
    assert o.loc["minkowski", "verified"] == "not checked"
    assert suite.facts("m")["su_originals"].startswith("2 of HeCBench's programs ran here")

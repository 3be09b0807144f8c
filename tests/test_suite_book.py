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


def test_the_split_parts_each_gap_into_compiler_and_runtime(root: Path) -> None:
    """compiler = opencl-ptx / cuda, runtime = opencl / opencl-ptx, from the rows of SPLIT; a slower
    OpenCL queue moves only the runtime's share."""
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    s = suite.split("m").set_index("kernel")
    assert list(s.index) == list(suite.ORDER)
    for kernel, (cu, cl, px) in suite.SPLIT.items():
        assert s.loc[kernel, "compiler"] == pytest.approx(t[(kernel, "opencl-ptx", px)] / t[(kernel, "cuda", cu)])
        assert s.loc[kernel, "runtime"] == pytest.approx(t[(kernel, "opencl", cl)] / t[(kernel, "opencl-ptx", px)])
    times = pd.read_csv(root / "times.csv")
    times.loc[(times["kernel"] == "epistasis") & (times["backend"] == "opencl"), "seconds"] *= 3
    times.to_csv(root / "times.csv", index=False)
    again = suite.split("m").set_index("kernel")
    assert again.loc["epistasis", "runtime"] == pytest.approx(3 * s.loc["epistasis", "runtime"])
    assert again.loc["epistasis", "compiler"] == pytest.approx(s.loc["epistasis", "compiler"])


def test_every_counters_row_is_its_raw_file_summed(root: Path) -> None:
    """The committed counters table is what the raw Nsight Compute files say (no row typed in)."""
    from lassm.campaign import suite_counters

    rows = pd.read_csv(root / suite_counters.FILE)
    assert len(rows) and set(rows["backend"]) == set(suite_counters.BACKENDS)
    for r in rows.itertuples():
        raw = suite_counters.raw_file("m", r.kernel, r.backend, r.variant)
        again = suite_counters.row_from_raw(raw, kernel=r.kernel, backend=r.backend, variant=r.variant, size=r.size,
                                            machine=r.machine, git_sha=r.git_sha, command=r.command)
        for col in ("duration_s", "warp_inst", "dram_bytes", "l1_bytes", "int_lane_ops"):
            assert again[col] == pytest.approx(getattr(r, col)), (r.kernel, r.backend, r.variant, col)
        assert (again["launches"], again["library_launches"]) == (r.launches, r.library_launches)


def test_the_roofline_and_curands_launches_come_from_the_counters(root: Path) -> None:
    from lassm.campaign import suite_counters

    c = pd.read_csv(root / suite_counters.FILE)
    roof, points = suite.roofline_data("m")
    assert roof["peak"].iloc[0] == pytest.approx(c["peak_warp_inst_per_s"].max() / 1e9)
    assert len(points) == len(c) and (points["gintops"] <= roof["peak"].iloc[0]).all()
    lib = int(c.loc[(c["kernel"] == "cmap") & (c["variant"] == "curand"), "library_launches"].iloc[0])
    assert suite.curand_launches("m") == lib and suite.facts("m")["su_curand_launches"] == str(lib)
    c.loc[(c["kernel"] == "cmap") & (c["variant"] == "curand"), "library_launches"] = 0
    c.to_csv(root / suite_counters.FILE, index=False)
    assert bool(suite.causes("m").set_index("kernel").loc["cmap", "shows"]), "pyopencl's 1 launch > cuRAND's 0"


def test_the_originals_outputs_are_said_from_the_table(root: Path) -> None:
    o = suite.originals("m")
    assert set(o["output"].str.startswith("equal to ours")) == {True}
    table = pd.read_csv(root / "originals.csv")
    table.loc[table["kernel"] == "nw", "outputs_equal"] = False
    table.to_csv(root / "originals.csv", index=False)
    assert suite.originals("m").set_index("kernel").loc["nw", "output"].startswith("differs from ours")
    assert suite.facts("m")["su_originals_outputs"] == "3 of 4 programs' outputs equal ours on their own inputs"

# SPDX-License-Identifier: BSD-3-Clause
"""lassm.book.suite_chapter: the suite chapter's tables and sentences from a machine's suite records (the
committed H100 folder, copied and edited in a temporary results root), decided from the data."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from .. import helpers
from lassm.book import suite_chapter

H100 = Path(__file__).resolve().parents[2] / "data" / "results" / "nvidia-h100-80gb-hbm3" / "suite"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (H100 / "times.csv").is_file():
        pytest.skip("no committed H100 suite records")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    shutil.copytree(H100, tmp_path / "m" / "suite")
    helpers.this_hosts(tmp_path / "m")
    return tmp_path / "m" / "suite"


def test_gaps_are_the_ported_and_best_ratios_of_the_records(root: Path) -> None:
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    g = suite_chapter.gaps("m").set_index("kernel")
    assert list(g.index) == list(suite_chapter.ORDER)
    for kernel, (cu, cl) in suite_chapter.PORTED.items():
        assert g.loc[kernel, "ported_ratio"] == pytest.approx(t[(kernel, "opencl", cl)] / t[(kernel, "cuda", cu)])
        best = t[kernel].groupby(level=0).min()
        assert g.loc[kernel, "best_ratio"] == pytest.approx(best["opencl"] / best["cuda"])
    assert g.loc["minkowski", "published"] == ">5" and g.loc["all_pairs", "published_ratio"] == 1.25


def test_a_cause_is_decided_from_the_counts(root: Path) -> None:
    """k5's cause shows while OpenCL's pow under fast math has no lg2; give it one and it does not."""
    c = suite_chapter.causes("m").set_index("kernel")
    assert c.loc["minkowski", "shows"] is True or bool(c.loc["minkowski", "shows"])
    mix = pd.read_csv(root / "ptx-mix.csv")
    fake = mix[(mix["kernel"] == "minkowski") & (mix["backend"] == "cuda") & (mix["variant"] == "powf-fast-math")
               & mix["opcode"].str.startswith("lg2")].assign(backend="opencl", variant="pow-fast-math")
    pd.concat([mix, fake]).to_csv(root / "ptx-mix.csv", index=False)
    assert not bool(suite_chapter.causes("m").set_index("kernel").loc["minkowski", "shows"])


def test_a_variant_that_differs_is_left_out_of_the_gaps_and_said(root: Path) -> None:
    t = pd.read_csv(root / "times.csv")
    t.loc[(t["kernel"] == "nw") & (t["backend"] == "opencl"), "matches_reference"] = False
    t.to_csv(root / "times.csv", index=False)
    assert "nw" not in set(suite_chapter.gaps("m")["kernel"])
    assert suite_chapter.facts("m")["su_all_match"] == "no: 2 variants differ"
    t.loc[(t["kernel"] == "nw") & (t["backend"] == "opencl"), "matches_reference"] = True
    first = t.index[(t["kernel"] == "nw") & (t["backend"] == "opencl")][0]
    t.loc[first, "matches_reference"] = False
    t.to_csv(root / "times.csv", index=False)
    assert suite_chapter.facts("m")["su_all_match"] == "no: 1 variant differs"


def test_facts_without_records_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert suite_chapter.facts("nothing-here")["su_points"].startswith("none: no suite records")


def test_the_distribution_holds_every_kernel_with_both_models(root: Path) -> None:
    d = suite_chapter.distribution("m")
    assert set(d["kernel"]) == set(suite_chapter.ORDER)  # this copy holds the suite only
    assert (d["ratio"] > 0).all() and len(d) == 2 * len(suite_chapter.ORDER)
    e = suite_chapter.efficiency("m")
    assert ((e[["cuda", "opencl"]] <= 1.0) & (e[["cuda", "opencl"]] > 0)).all().all()
    assert (e[["cuda", "opencl", "original"]].max(axis=1) == 1.0).all(), "the reference's efficiency is 1"


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
    o = suite_chapter.originals("m").set_index("kernel")
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    assert o.loc["nw", "ours_over_original"] == pytest.approx(t[("nw", "cuda", "stream")] / 0.05)
    assert o.loc["minkowski", "verified"] == "not checked"
    assert suite_chapter.facts("m")["su_originals"].startswith("2 of HeCBench's programs ran here")


def test_the_split_parts_each_gap_into_compiler_and_runtime(root: Path) -> None:
    """compiler = opencl-ptx / cuda, runtime = opencl / opencl-ptx, from the rows of SPLIT; a slower
    OpenCL queue moves only the runtime's share."""
    t = pd.read_csv(root / "times.csv").set_index(["kernel", "backend", "variant"])["seconds"]
    s = suite_chapter.split("m").set_index("kernel")
    assert list(s.index) == list(suite_chapter.ORDER)
    for kernel, (cu, cl, px) in suite_chapter.SPLIT.items():
        assert s.loc[kernel, "compiler"] == pytest.approx(t[(kernel, "opencl-ptx", px)] / t[(kernel, "cuda", cu)])
        assert s.loc[kernel, "runtime"] == pytest.approx(t[(kernel, "opencl", cl)] / t[(kernel, "opencl-ptx", px)])
    times = pd.read_csv(root / "times.csv")
    times.loc[(times["kernel"] == "epistasis") & (times["backend"] == "opencl"), "seconds"] *= 3
    times.to_csv(root / "times.csv", index=False)
    again = suite_chapter.split("m").set_index("kernel")
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
    roof, points = suite_chapter.roofline_data("m")
    assert roof["peak"].iloc[0] == pytest.approx(c["peak_warp_inst_per_s"].max() / 1e9)
    assert len(points) == len(c) and (points["gintops"] <= roof["peak"].iloc[0]).all()
    lib = int(c.loc[(c["kernel"] == "cmap") & (c["variant"] == "curand"), "library_launches"].iloc[0])
    assert suite_chapter.curand_launches("m") == lib and suite_chapter.facts("m")["su_curand_launches"] == str(lib)
    c.loc[(c["kernel"] == "cmap") & (c["variant"] == "curand"), "library_launches"] = 0
    c.to_csv(root / suite_counters.FILE, index=False)
    assert bool(suite_chapter.causes("m").set_index("kernel").loc["cmap", "shows"]), "pyopencl's 1 launch > cuRAND's 0"


def test_the_originals_outputs_are_said_from_the_table(root: Path) -> None:
    o = suite_chapter.originals("m")
    assert set(o["output"].str.startswith("equal to ours")) == {True}
    table = pd.read_csv(root / "originals.csv")
    table.loc[table["kernel"] == "nw", "outputs_equal"] = False
    table.to_csv(root / "originals.csv", index=False)
    assert suite_chapter.originals("m").set_index("kernel").loc["nw", "output"].startswith("differs from ours")
    assert suite_chapter.facts("m")["su_originals_outputs"] == "3 of 4 programs' outputs equal ours on their own inputs"


def _ncu(root: Path, **seconds: float) -> None:
    """Give the copied originals.csv Nsight Compute times (``ncu_seconds``), per kernel; others blank."""
    o = pd.read_csv(root / "originals.csv")
    o["ncu_seconds"] = o["kernel"].map(seconds)
    o["ncu_kernels"] = "k"
    o.to_csv(root / "originals.csv", index=False)


def test_no_efficiency_above_one_and_cudas_is_the_originals_time_over_ours(root: Path) -> None:
    """On the committed records (whichever clock they hold) and with Nsight Compute times added:
    every efficiency in (0, 1], and where the original is the fastest CUDA's is its time over ours."""
    for _ in range(2):
        e = suite_chapter.efficiency("m").set_index("kernel")
        o = suite_chapter.originals("m").set_index("kernel")
        effs = e[["cuda", "opencl", "original"]]
        assert ((effs > 0) & (effs <= 1.0 + 1e-12) | effs.isna()).all().all()
        for kernel in o.index:
            assert e.loc[kernel, "cuda"] <= 1 / o.loc[kernel, "ours_over_original"] + 1e-12
            if o.loc[kernel, "ours_over_original"] > 1:
                assert e.loc[kernel, "reference"] == "HeCBench " + o.loc[kernel, "program"]
                assert e.loc[kernel, "cuda"] == pytest.approx(1 / o.loc[kernel, "ours_over_original"])
                assert e.loc[kernel, "original"] == 1.0
        c = pd.read_csv(root / "counters.csv")
        cuda = c[c["backend"] == "cuda"].set_index(["kernel", "variant"])["duration_s"]
        _ncu(root, nw=0.5 * cuda[("nw", "stream")], epistasis=2.0 * cuda[("epistasis", "auto")])


def test_the_ratio_is_on_nsight_computes_clock_where_both_have_it(root: Path) -> None:
    c = pd.read_csv(root / "counters.csv")
    cuda = c[c["backend"] == "cuda"].set_index(["kernel", "variant"])["duration_s"]
    _ncu(root, nw=0.5 * cuda[("nw", "stream")])
    o = suite_chapter.originals("m").set_index("kernel")
    assert o.loc["nw", "original_clock"] == "Nsight Compute" and o.loc["nw", "ratio_clock"] == "Nsight Compute"
    assert o.loc["nw", "ours_over_original"] == pytest.approx(2.0) == o.loc["nw", "ours_over_original_ncu"]
    assert o.loc["nw", "ours_ncu_ms"] == pytest.approx(cuda[("nw", "stream")] * 1e3)
    # a blank ncu_seconds (an older row) keeps the program's own time, against our events
    t = suite_chapter.times("m").set_index(["kernel", "backend", "variant"])["ms"]
    assert o.loc["minkowski", "original_clock"] == "the program's own"
    assert o.loc["minkowski", "ratio_clock"].startswith("events")
    assert pd.isna(o.loc["minkowski", "ours_over_original_ncu"])
    assert o.loc["minkowski", "ours_over_original"] == pytest.approx(
        t[("minkowski", "cuda", o.loc["minkowski", "ours_variant"])] / o.loc["minkowski", "original_ms"])
    e = suite_chapter.efficiency("m").set_index("kernel")
    assert e.loc["nw", "cuda"] == pytest.approx(0.5) and e.loc["nw", "reference"] == "HeCBench nw-cuda"
    assert e.loc["nw", "ratio_clock"] == "Nsight Compute"


def test_an_original_without_ours_profiled_is_set_against_our_events(root: Path) -> None:
    """ncu_seconds recorded but no counters row for our variant: the original's Nsight Compute
    time against our CUDA events, and the clock column says so."""
    (root / "counters.csv").unlink()
    _ncu(root, nw=0.001)
    o = suite_chapter.originals("m").set_index("kernel")
    assert o.loc["nw", "original_clock"] == "Nsight Compute" and pd.isna(o.loc["nw", "ours_ncu_ms"])
    assert o.loc["nw", "ratio_clock"] == "events (ours) over Nsight Compute (the original)"
    assert o.loc["nw", "ours_over_original"] == pytest.approx(o.loc["nw", "ours_ms"] / 1.0)


def test_ours_is_the_fastest_cuda_variant_and_a_faster_one_becomes_the_reference(root: Path) -> None:
    """A new CUDA variant (as ``tiles`` would be) faster than the original: it is ours in the
    originals' table and the reference of the efficiencies; one that differs from the reference never is."""
    t = pd.read_csv(root / "times.csv")
    nw = t[(t["kernel"] == "nw") & (t["backend"] == "cuda")].iloc[0]
    original = float(pd.read_csv(root / "originals.csv").set_index("kernel").loc["nw", "seconds"])
    fast = nw.copy()
    fast["variant"], fast["seconds"] = "tiles", original / 4
    wrong = nw.copy()
    wrong["variant"], wrong["seconds"], wrong["matches_reference"] = "broken", original / 8, False
    pd.concat([t, pd.DataFrame([fast, wrong])]).to_csv(root / "times.csv", index=False)
    o = suite_chapter.originals("m").set_index("kernel")
    assert o.loc["nw", "ours_variant"] == "tiles" and o.loc["nw", "ours_over_original"] == pytest.approx(0.25)
    e = suite_chapter.efficiency("m").set_index("kernel")
    assert e.loc["nw", "reference"] == "cuda tiles" and e.loc["nw", "cuda_variant"] == "tiles"
    assert e.loc["nw", "cuda"] == 1.0 and e.loc["nw", "original"] == pytest.approx(0.25)
    assert "nw: cuda tiles" in suite_chapter.facts("m")["su_reference"]


def test_the_chapter_says_where_an_original_is_the_fastest(root: Path) -> None:
    e = suite_chapter.efficiency("m")
    theirs = e[e["reference"].str.startswith("HeCBench ")]
    said = suite_chapter.facts("m")["su_reference"]
    if len(theirs):
        assert "a program other than ours is the fastest measured" in said
        for r in theirs.itertuples():
            assert f"{r.kernel}: {r.reference}" in said
    ours = e[~e["reference"].str.startswith("HeCBench ")]
    for r in ours.itertuples():
        assert f"{r.kernel}: {r.reference}" in said and "ours is the fastest measured" in said


def test_pp_over_platforms_is_zero_where_an_application_did_not_run(root: Path) -> None:
    """A second folder of another GPU without HeCBench's programs: their PP is 0; CUDA's is the
    harmonic mean of its two efficiencies."""
    other = root.parent.parent / "n" / "suite"
    shutil.copytree(root, other)
    (other / "originals.csv").unlink()
    t = pd.read_csv(other / "times.csv")
    t["device"] = "OTHER GPU"
    t.to_csv(other / "times.csv", index=False)
    assert suite_chapter.machines() == ["m", "n"]
    pp = suite_chapter.portability().set_index(["kernel", "application"])
    e = suite_chapter.efficiency("m").set_index("kernel")
    assert pp.loc[("nw", suite_chapter.ORIGINAL_APPLICATION), "PP"] == 0.0
    assert pp.loc[("nw", suite_chapter.ORIGINAL_APPLICATION), "ran on"] == "1 of 2"
    assert pp.loc[("nw", "CUDA"), "PP"] == pytest.approx(2 / (1 / e.loc["nw", "cuda"] + 1))  # 1 on the other GPU
    alone = suite_chapter.portability(["m"]).set_index(["kernel", "application"])
    assert alone.loc[("nw", "CUDA"), "PP"] == pytest.approx(e.loc["nw", "cuda"])


H200 = H100.parent.parent / "nvidia-h200" / "suite"


@pytest.mark.parametrize("records", [H100, H200], ids=["h100", "h200"])
def test_the_findings_are_retested_against_the_best_cuda(records: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Each finding: the same OpenCL build over the fastest CUDA can only be slower than over CUDA
    as ported; a verdict says "stands" exactly where the ported gap passes NO_GAP; the
    best-against-best split's parts multiply to the best ratio."""
    if not (records / "times.csv").is_file():
        pytest.skip(f"no committed suite records in {records}")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    shutil.copytree(records, tmp_path / "m" / "suite")
    f = suite_chapter.findings("m").set_index("kernel")
    assert list(f.index) == list(suite_chapter.ORDER)
    assert (f["against_best_cuda"] >= f["ported_ratio"] - 1e-12).all()
    for kernel, row in f.iterrows():
        assert row["verdict"].startswith("stands") == (row["ported_ratio"] > suite_chapter.NO_GAP), kernel
    g = suite_chapter.gaps("m").set_index("kernel")
    best = suite_chapter.split("m", suite_chapter.BEST_SPLIT).set_index("kernel")
    for kernel, row in best.iterrows():
        assert row["compiler"] * row["runtime"] == pytest.approx(row["gap"])
        if row["variants"].split(" / ")[0] == g.loc[kernel, "cuda_best"] and \
                row["variants"].split(" / ")[1] == g.loc[kernel, "opencl_best"]:
            assert row["gap"] == pytest.approx(g.loc[kernel, "best_ratio"])
    facts = suite_chapter.facts("m")
    assert all(facts[f"su_{k}_verdict"] == f.loc[k, "verdict"] for k in suite_chapter.ORDER)


def test_a_whole_program_time_is_not_set_beside_a_kernel_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cm-cuda prints only its whole processing time: without Nsight Compute's time of its kernels
    no ratio is drawn, and the clock says why."""
    if not (H200 / "times.csv").is_file():
        pytest.skip("no committed H200 suite records")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    shutil.copytree(H200, tmp_path / "m" / "suite")
    table = tmp_path / "m" / "suite" / "originals.csv"
    rows = pd.read_csv(table, keep_default_na=False)
    extra = rows.iloc[[0]].assign(kernel="cmap", program="cm-cuda", seconds=2.5, ncu_seconds="", ncu_kernels="",
                                  ncu_command="")
    pd.concat([rows[rows["kernel"] != "cmap"], extra]).to_csv(table, index=False)
    o = suite_chapter.originals("m").set_index("kernel")
    assert pd.isna(o.loc["cmap", "ours_over_original"]) and "whole processing" in o.loc["cmap", "original_clock"]
    assert o.loc["all_pairs", "ours_over_original"] < 1.0  # the others keep their ratios

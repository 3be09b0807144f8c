# SPDX-License-Identifier: BSD-3-Clause
"""lassm.book.models: ratios of one run, and PP over programming models x platforms, by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lassm.book import models
from lassm.errors import LassmError


def _campaign(root: Path, machine: str, rows: list[tuple]) -> None:
    folder = root / machine
    folder.mkdir(parents=True)
    account = {"git_sha": "abc", "created": "2026-11-25T00:00:00+00:00",
               "rows": [{"dataset": d, "k": k, "backend": b, "protocol": p, "status": s,
                         "kernel_seconds": ms / 1e3, "matches_oracle": True} for d, k, b, p, ms, s in rows]}
    (folder / "campaign.json").write_text(json.dumps(account))


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    _campaign(tmp_path, "gpu", [("d1", 21, "cuda", "casptr", 10.0, "ok"), ("d1", 21, "opencl", "casptr", 12.0, "ok"),
                                ("d1", 21, "cuda", "fast", 2.0, "ok"), ("d2", 33, "cuda", "casptr", 4.0, "ok"),
                                ("d2", 33, "opencl", "casptr", 3.0, "ok"), ("d1", 21, "opencl", "barrier", 1.0, "failed")])
    _campaign(tmp_path, "cpu", [("d1", 21, "cpu", "none", 100.0, "ok"), ("d1", 21, "opencl", "casptr", 50.0, "ok"),
                                ("d2", 33, "cpu", "none", 30.0, "ok"), ("d2", 33, "opencl", "casptr", 60.0, "ok")])
    return tmp_path


def test_ratios_are_of_one_campaign(results: Path) -> None:
    r = models.model_ratios(models.campaign_times("gpu"))
    assert list(r["dataset"]) == ["d1", "d2"] and list(r["protocol"]) == ["casptr", "casptr"]
    assert r["ratio"].round(6).tolist() == [1.2, 0.75] and r["both_match"].all()
    assert set(models.campaign_times("gpu")["git_sha"]) == {"abc"}
    assert "barrier" not in set(models.campaign_times("gpu")["protocol"]), "a failed point has no time"


def test_ratios_pair_points_of_the_run_that_measured_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A later run that measures one backend again is not set against an earlier run's other
    backend; a re-run that skips every point changes nothing."""
    from lassm.runs.account import append_entry

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    path = tmp_path / "m" / "campaign.json"

    def entry(sha: str, rows: list[tuple]) -> dict:
        return {"git_sha": sha, "created": f"2026-11-2{len(sha)}T00:00:00+00:00",
                "rows": [{"dataset": d, "k": 21, "backend": b, "protocol": "casptr", "status": st,
                          "kernel_seconds": ms / 1e3, "matches_oracle": True} for d, b, ms, st in rows]}

    skip = "skipped (recorded)"
    append_entry(path, entry("a", [("d1", "cuda", 10.0, "ok"), ("d1", "opencl", 12.0, "ok"),
                                   ("d2", "cuda", 4.0, "ok"), ("d2", "opencl", 3.0, "ok")]))
    append_entry(path, entry("bb", [("d1", "cuda", 10.0, skip), ("d1", "opencl", 24.0, "ok"),
                                    ("d2", "cuda", 4.0, skip), ("d2", "opencl", 3.0, skip)]))
    append_entry(path, entry("ccc", [("d1", "cuda", 10.0, skip), ("d1", "opencl", 24.0, skip),
                                     ("d2", "cuda", 4.0, skip), ("d2", "opencl", 3.0, skip)]))
    t = models.campaign_times("m").set_index(["dataset", "backend"])
    assert t.loc[("d1", "opencl"), ["kernel_ms", "git_sha"]].tolist() == [24.0, "bb"]
    assert set(t.drop(("d1", "opencl"))["git_sha"]) == {"a"}
    r = models.model_ratios(models.campaign_times("m"))
    assert r["dataset"].tolist() == ["d2"] and r["ratio"].round(6).tolist() == [0.75]
    assert models.facts(models.campaign_times("m"))["cm_sha"] == "a, bb"


def test_a_recorded_point_quotes_its_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make book's campaign skips committed points: their rows keep the record's time and commit."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    _campaign(tmp_path, "m", [("d1", 21, "cuda", "casptr", 10.0, "skipped (recorded)")])
    account = json.loads((tmp_path / "m" / "campaign.json").read_text())
    account["rows"][0]["run_id"] = "d1__k21__cuda__casptr"
    (tmp_path / "m" / "campaign.json").write_text(json.dumps(account))
    (tmp_path / "m" / "d1__k21__cuda__casptr").mkdir()
    (tmp_path / "m" / "d1__k21__cuda__casptr" / "summary.json").write_text(
        json.dumps({"git_sha": "feedbee", "created": "2026-01-02T00:00:00+00:00"}))
    t = models.campaign_times("m")
    assert t["kernel_ms"].tolist() == [10.0] and t["git_sha"].tolist() == ["feedbee"]
    assert models.facts(t)["cm_sha"] == "feedbee" and models.facts(t)["cm_when"] == "2026-01-02"


def test_pp_over_models_and_platforms(results: Path) -> None:
    pp = models.portability({"GPU": "gpu", "CPU": "cpu"},
                            {"CUDA": ("cuda",), "OpenCL": ("opencl",), "numba": ("cpu",)}, "casptr", ("d1", "d2"))
    got = {(r.dataset, r.model): round(r.PP, 6) for r in pp.itertuples()}
    # The reference is every build measured there, any variant, the oracle included: d1: GPU best 2
    # (CUDA fast: CUDA casptr 0.2, OpenCL 2/12); CPU best 50 (OpenCL 1, numba 0.5). d2: GPU best 3;
    # CPU best 30 (the oracle: OpenCL 0.5).
    assert got[("d1", "CUDA")] == 0.0 and got[("d1", "numba")] == 0.0, "each cannot run on the other platform"
    assert got[("d1", "OpenCL")] == round(2 / (12 / 2 + 1), 6)
    assert got[("d2", "OpenCL")] == round(2 / (1 + 2), 6)
    assert pp.loc[(pp["dataset"] == "d1") & (pp["model"] == "OpenCL"), "GPU app eff"].item() == pytest.approx(2 / 12)
    assert pp.loc[(pp["dataset"] == "d1") & (pp["model"] == "CUDA"), "GPU reference"].item() == "cuda fast"
    assert pp.loc[(pp["dataset"] == "d2") & (pp["model"] == "OpenCL"), "CPU reference"].item() == "numba"
    assert "cuda fast" not in set(pp["model"]), "a build that is only a reference is no row of the table"


def test_no_campaign_is_a_clear_error(results: Path) -> None:
    with pytest.raises(LassmError, match="no campaign"):
        models.campaign_times("nowhere")


def test_jin_vetter_checks_count_each_finding() -> None:
    import pandas as pd

    rows = [("cuda", "int64_addr", "", 1, 0, 10), ("opencl", "int64_addr", "", 1, 0, 15),
            ("cuda", "load", "global", 4, 64, 3), ("cuda", "load", "global", 1, 64, 5),
            ("opencl", "load", "global", 1, 64, 9), ("opencl", "load", "shared", 1, 64, 2),
            ("cuda", "conversion", "", 1, 0, 7), ("opencl", "conversion", "", 1, 0, 4)]
    mix = pd.DataFrame([{"backend": b, "protocol": "casptr", "category": c, "space": s, "vector": v,
                         "addr_bits": a, "count": n} for b, c, s, v, a, n in rows])
    got = models.jin_vetter_checks(mix).set_index("finding")
    assert got.loc["64-bit integer address arithmetic", ["cuda", "opencl", "recurs"]].tolist() == [10, 15, True]
    assert got.loc["shared memory addressed through 64-bit registers", ["cuda", "opencl"]].tolist() == [0, 2]
    assert got.loc["vector loads replaced by scalar ones", ["cuda", "opencl", "recurs"]].tolist() == [3, 0, True]
    assert got.loc["more instructions overall", ["cuda", "opencl"]].tolist() == [25, 30]
    assert not got.loc["type conversions (byte extraction)", "recurs"]


def test_counter_facts_are_spans_per_variant() -> None:
    import pandas as pd

    rows = [("d1", "casptr", "thread_inst", 1.2), ("d2", "casptr", "thread_inst", 1.5), ("d1", "casptr", "dram_bytes", 0.6),
            ("d1", "fast", "thread_inst", 1.3)]
    counters = pd.DataFrame([{"dataset": d, "k": 21, "protocol": p, "quantity": q, "ratio": r} for d, p, q, r in rows])
    got = models.counter_facts(counters)
    assert got["cm_casptr_inst"] == "1.20 to 1.50" and got["cm_casptr_dram"] == "0.60"
    assert got["cm_fast_inst"] == "1.30" and got["cm_fast_dram"] == "none measured"


def _against_original(root: Path, machine: str, rows: list[tuple[str, float, float]]) -> None:
    """``against-original.csv`` with ht_loc's and lassm extend's kernel seconds per dataset (Nsight Compute)."""
    import pandas as pd

    from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_FILE

    out = []
    for dataset, original, ours in rows:
        for program, seconds in (("original ht_loc", original), ("lassm extend fast", ours)):
            out.append({c: "" for c in AGAINST_ORIGINAL_COLUMNS} | {
                "machine": machine, "dataset": dataset, "k": 21, "program": program, "whole_seconds": 1.0,
                "kernel_seconds": seconds, "walk_kernel_seconds": seconds, "outputs_equal": True})
    pd.DataFrame(out, columns=list(AGAINST_ORIGINAL_COLUMNS)).to_csv(root / machine / AGAINST_ORIGINAL_FILE, index=False)


APPS = {"CUDA": ("cuda",), "OpenCL": ("opencl",), "numba": ("cpu",)}


def test_ht_loc_is_the_reference_where_it_is_the_fastest(results: Path) -> None:
    """d1: ht_loc takes a quarter of lassm extend's time side by side, so on the campaign's clock
    it takes a quarter of CUDA fast's 2 ms: every efficiency on the GPU is against its 0.5 ms, and
    CUDA fast's is ht_loc's time over ours. d2: no CUDA fast in the campaign, so ht_loc keeps its
    Nsight Compute 30 ms, and OpenCL stays the reference."""
    _against_original(results, "gpu", [("d1", 0.001, 0.004), ("d2", 0.030, 0.003)])
    times = models.original_times("gpu", ("d1", "d2")).set_index("dataset")
    assert times.loc["d1", "kernel_ms"] == pytest.approx(0.5) and times.loc["d1", "clock"].startswith("events")
    assert times.loc["d2", "kernel_ms"] == pytest.approx(30.0) and times.loc["d2", "clock"] == "Nsight Compute"
    plats = {"GPU": "gpu", "CPU": "cpu"}
    for variant, cuda_eff in (("casptr", 0.5 / 10), ("fast", 0.25)):
        pp = models.portability(plats, APPS, variant, ("d1", "d2")).set_index(["dataset", "model"])
        assert pp.loc[("d1", "CUDA"), "GPU app eff"] == pytest.approx(cuda_eff)
        assert pp.loc[("d1", "CUDA"), "GPU reference"] == models.ORIGINAL
        assert pp.loc[("d1", models.ORIGINAL), "GPU app eff"] == 1.0
        assert pp.loc[("d1", models.ORIGINAL), "PP"] == 0.0, "ht_loc ran on one platform of two"
        effs = pp.filter(like="app eff").stack().dropna()
        assert ((effs > 0) & (effs <= 1.0)).all()
    pp = models.portability(plats, APPS, "casptr", ("d1", "d2")).set_index(["dataset", "model"])
    assert pp.loc[("d2", "OpenCL"), "GPU reference"] == "OpenCL"
    assert pp.loc[("d2", models.ORIGINAL), "GPU app eff"] == pytest.approx(3.0 / 30.0)
    said = models.reference_sentence(plats, APPS, "casptr", ("d1", "d2"))
    assert said.startswith(f"On the GPU, a program other than ours is the fastest measured for 1 of the 2 datasets "
                           f"(d1: {models.ORIGINAL})")
    assert "ours is the fastest measured for the other 1 dataset (d2: OpenCL)" in said


def test_without_ht_loc_the_models_alone_make_the_reference(results: Path) -> None:
    pp = models.portability({"GPU": "gpu", "CPU": "cpu"}, APPS, "casptr", ("d1", "d2"))
    assert models.ORIGINAL not in set(pp["model"]) and models.original_times("gpu", ("d1",)).empty
    assert set(pp["GPU reference"]) == {"cuda fast", "OpenCL"}  # CUDA fast counts, whichever variant the table is of
    assert "no other program was measured" in models.reference_sentence({"GPU": "gpu"}, APPS, "casptr", ("d1",))

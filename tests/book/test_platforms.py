# SPDX-License-Identifier: BSD-3-Clause
"""A platform is a device, not a folder: two result folders of one GPU model are one platform of
the cross-machine chapter's H, pooled point by point (best time), each folder's times still shown.

The folders are the committed H100 records (``summary.json`` only), copied twice into a
temporary results root; the second copy's times are changed, so that the pooled platform must
take some points from each folder.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lassm.book import across, machines

H100 = Path(__file__).resolve().parents[2] / "data" / "results" / "nvidia-h100-80gb-hbm3"
DEVICE = "NVIDIA H100 80GB HBM3"
#: The second folder's time factor per dataset: faster on one, slower on another.
FACTOR = {"gen-k21": 0.5, "gen-k33": 2.0}


def _copy(root: Path, name: str, factor: dict[str, float], device: str | None = None) -> None:
    for summary in H100.glob("*/summary.json"):
        rec = json.loads(summary.read_text())
        f = factor.get(rec.get("dataset"), 1.0)
        if rec.get("kernel_seconds") is not None:
            rec["kernel_seconds"] *= f
        rec["kernel_seconds_runs"] = [v * f for v in rec.get("kernel_seconds_runs") or [] if v is not None]
        if device is not None:
            rec["device"] = device
        (root / name / summary.parent.name).mkdir(parents=True)
        (root / name / summary.parent.name / "summary.json").write_text(json.dumps(rec))


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    _copy(tmp_path, "h100-a", {})
    return tmp_path


def test_two_folders_of_one_device_are_one_platform(root: Path) -> None:
    _copy(root, "h100-b", FACTOR)
    plat = across.platforms()
    assert plat["platform"].tolist() == [DEVICE] and plat["folders"].tolist() == ["h100-a, h100-b"]
    H = list(plat.loc[plat["in_H"], "platform"])
    pts = across.points()
    assert H == [DEVICE] and set(pts["platform"]) == {DEVICE}
    assert set(across.portability(pts, H)["ran on"]) == {DEVICE}
    own = across.folder_points()
    assert set(own["folder"]) == {"h100-a", "h100-b"} and set(own["platform"]) == {DEVICE}
    key = ["variant", "dataset", "k"]
    best = own.groupby(key)["kernel_ms"].min()
    pooled = pts.set_index(key)
    assert pooled["kernel_ms"].to_dict() == best.loc[pooled.index].to_dict(), "the platform's time is the best folder's"
    assert set(pooled.loc[("casptr", "gen-k21"), "folder"]) == {"h100-b"}
    assert set(pooled.loc[("casptr", "gen-k33"), "folder"]) == {"h100-a"}
    wide = across.folder_table(own, ["gen-k21"])
    a, b = wide[(DEVICE, "h100-a")], wide[(DEVICE, "h100-b")]
    assert (b / a).round(9).eq(0.5).all(), "each folder's own times are shown beside the pooled ones"
    fact = across.facts(plat, pts, across.portability(pts, H))
    assert fact["ac_pooling"] == f"platforms are devices: 2 folders of the {DEVICE} (h100-a, h100-b) pooled, {machines.POOLING}"
    assert fact["ac_machines"] == "2" and fact["ac_platforms"] == "1" and fact["ac_H"] == DEVICE


def test_folders_of_two_devices_stay_two_platforms(root: Path) -> None:
    _copy(root, "h200-b", FACTOR, device="NVIDIA H200")
    plat = across.platforms()
    assert plat["platform"].tolist() == [DEVICE, "NVIDIA H200"] and plat["in_H"].all()
    pts = across.points()
    pp = across.portability(pts, list(plat["platform"])).set_index(["variant", "dataset"])
    assert pp.loc[("casptr", "gen-k21"), "ran on"] == f"{DEVICE}, NVIDIA H200"
    assert across.facts(plat, pts, pp.reset_index())["ac_pooling"].startswith("platforms are devices; each device")


def test_device_names_are_grouped_without_the_runtimes_tag() -> None:
    assert machines.device_key("NVIDIA H100 80GB HBM3 (NVIDIA CUDA)") == machines.device_key(" nvidia  H100 80GB hbm3")
    assert machines.device_label("AMD EPYC (Intel(R) OpenCL)") == "AMD EPYC"
    assert machines.device_label("Intel(R) Xeon(R) Processor") == "Intel(R) Xeon(R) Processor"
    assert machines.device_key("NVIDIA H100 80GB HBM3") != machines.device_key("NVIDIA H100 PCIe")


def _ht_loc(root: Path, folder: str, dataset: str, original_s: float, ours_s: float) -> None:
    """``against-original.csv`` of one dataset: ht_loc's and lassm extend's kernel seconds (Nsight Compute)."""
    import pandas as pd

    from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_FILE

    rows = [{c: "" for c in AGAINST_ORIGINAL_COLUMNS} | {"dataset": dataset, "k": 21, "program": program,
                                                         "whole_seconds": 1.0, "kernel_seconds": s,
                                                         "walk_kernel_seconds": s, "outputs_equal": True}
            for program, s in (("original ht_loc", original_s), ("lassm extend fast", ours_s))]
    pd.DataFrame(rows, columns=list(AGAINST_ORIGINAL_COLUMNS)).to_csv(root / folder / AGAINST_ORIGINAL_FILE, index=False)


def test_app_eff_is_against_the_fastest_measured_ht_loc_included(root: Path) -> None:
    """Without ht_loc the fastest build is the reference (some variant at 1); an ht_loc ten times
    faster than lassm extend beside it becomes gen-k21's reference, at a tenth of CUDA fast's time."""
    pts = across.points().set_index(["variant", "dataset"])
    assert not pts["reference"].eq("ht_loc (MetaHipMer's original)").any()
    assert pts.loc[("fast", "gen-k21"), "app eff"] <= 1.0
    refs = across.references()
    assert refs.groupby(["problem", "platform"])["app eff"].max().eq(1.0).all()
    _ht_loc(root, "h100-a", "gen-k21", 0.0001, 0.001)
    again = across.points().set_index(["variant", "dataset"])
    fast = across.references().set_index(["problem", "implementation"]).loc[("gen-k21", "cuda fast"), "seconds"]
    for variant in ("casptr", "fast"):
        row = again.loc[(variant, "gen-k21")]
        assert row["reference"] == "ht_loc (MetaHipMer's original)"
        assert row["app eff"] == pytest.approx(fast * 1e3 / 10 / row["kernel_ms"])
    others = again.drop(index="gen-k21", level="dataset")["reference"]
    assert set(others) == set(pts.drop(index="gen-k21", level="dataset")["reference"]), "ht_loc ran on gen-k21 only"
    plat = across.platforms()
    said = across.facts(plat, across.points(), across.portability(across.points(), [DEVICE]))["ac_reference"]
    assert said.startswith(f"On the {DEVICE}, a program other than ours is the fastest measured for 1 of the ")
    assert "gen-k21: ht_loc (MetaHipMer's original)" in said

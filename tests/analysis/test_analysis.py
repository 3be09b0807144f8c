# SPDX-License-Identifier: BSD-3-Clause
"""The committed H100 metrics are what the code derives from the committed raw counters."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm.analysis import derive as analysis
from lassm import paths
from lassm.errors import LassmError

H100 = "nvidia-h100-80gb-hbm3"


@pytest.fixture(scope="module")
def derived() -> pd.DataFrame:
    return analysis.machine_metrics(H100)


def test_every_profiled_point_is_there(derived: pd.DataFrame) -> None:
    points = set(zip(derived["dataset"], derived["k"], derived["protocol"]))
    for ds, k in (("sample-k77", 77), ("gen-k21", 21), ("gen-k33", 33), ("gen-k55", 55), ("gen-k77", 77)):
        for proto in ("casptr", "matchany", "doneflag", "barrier"):
            assert (ds, k, proto) in points
    faithful = derived[derived["protocol"].isin(["casptr", "matchany", "doneflag", "barrier", "fast-bins"])]
    assert (faithful["launches"] == 4).all()  # two bins x two sides
    from lassm.backends import cuda

    one = derived["protocol"].map(cuda.one_launch)
    assert one.any() and (derived.loc[one, "launches"] == 1).all()  # fast: both sides, every bin


def test_metrics_follow_their_definitions(derived: pd.DataFrame) -> None:
    assert np.allclose(derived["ii"], derived["int_lane_ops"] / derived["dram_bytes"])
    assert np.allclose(derived["gintops"], derived["int_lane_ops"] / derived["duration_s"] / 1e9)
    roof = np.minimum(derived["peak_gintops"], derived["bandwidth_gbs"] * derived["ii"])
    assert np.allclose(derived["arch eff"], derived["gintops"] / roof)
    assert ((derived["arch eff"] > 0) & (derived["arch eff"] <= 1)).all()
    within = ~derived["beyond_model"]
    assert (derived.loc[within, "alg eff"] <= 1).all() and (derived.loc[~within, "alg eff"] > 1).all()
    assert np.allclose(derived.loc[within, "speedup"], 1 / (derived.loc[within, "alg eff"] * derived.loc[within, "arch eff"]))
    assert derived.loc[~within, "speedup"].isna().all() and (~within).any()
    assert np.allclose(derived["x"], derived["alg eff"]) and np.allclose(derived["y"], derived["arch eff"])
    assert ((derived["predication_ratio"] > 1 / 32) & (derived["predication_ratio"] <= 1)).all()


def test_committed_csv_is_reproduced(derived: pd.DataFrame, tmp_path: Path) -> None:
    committed = pd.read_csv(paths.results_dir(H100) / "metrics.csv")
    again = pd.read_csv(analysis.write_metrics(H100, tmp_path / "m.csv"))
    pd.testing.assert_frame_equal(committed, again)


def test_missing_counters_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    with pytest.raises(LassmError, match="no cuda counter files"):
        analysis.machine_metrics("nowhere")


def test_each_backend_is_its_own_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An OpenCL file of a point the CUDA kernel also has stays out of the CUDA metrics."""
    import shutil

    from lassm.analysis import derive

    src = paths.results_dir(H100)
    dst = tmp_path / H100
    (dst / "counters").mkdir(parents=True)
    shutil.copy(src / "ceilings.json", dst / "ceilings.json")
    for f in (src / "counters").glob("ncu__gen-k21__k21__cuda__casptr.csv*"):
        shutil.copy(f, dst / "counters" / f.name)
        shutil.copy(f, dst / "counters" / f.name.replace("__cuda__", "__opencl__"))
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert derive.counter_backends(H100) == ["cuda", "opencl"]
    cuda, ocl = derive.machine_metrics(H100), derive.machine_metrics(H100, "opencl")
    assert len(cuda) == len(ocl) == 1 and cuda["launches"].item() == ocl["launches"].item()
    assert list(cuda["backend"]) == ["cuda"] and list(ocl["backend"]) == ["opencl"]
    derive.write_metrics(H100)
    assert (dst / "metrics-opencl.csv").is_file() and (dst / "metrics.csv").is_file()


def test_bytes_per_insertion_uses_the_runs_work(derived: pd.DataFrame) -> None:
    from lassm.workloads.local_assembly import formats, stats

    per = analysis.per_insertion(H100, derived)
    sample = per[per["dataset"] == "sample-k77"]
    start = stats.read_figures(formats.read_dat(paths.sample("k77")), 77)["hash_insertions"]
    assert (sample["hash_insertions"] == start).all()
    assert np.allclose(sample["bytes_per_insertion"], sample["dram_bytes"] / start)
    assert (per["insertions_all_k"] >= per["hash_insertions"]).all()


def test_ablation_costs_are_time_over_the_base() -> None:
    from lassm.runs import results

    bench = pd.DataFrame({"dataset": ["a", "a", "a", "b", "b", "a"],
                          "protocol": ["fast", "fast-x", "fast-y", "fast", "fast-x", "casptr"],
                          "kernel_ms": [2.0, 3.0, 1.0, 4.0, 8.0, 9.0]})
    cost = results.ablation_costs(bench, "fast", ["b", "a", "missing"])
    assert list(cost.columns) == ["b", "a"] and list(cost.index) == ["fast-x", "fast-y"]
    assert cost.loc["fast-x", "a"] == 1.5 and cost.loc["fast-x", "b"] == 2.0 and cost.loc["fast-y", "a"] == 0.5
    assert pd.isna(cost.loc["fast-y", "b"])  # not run there
    with pytest.raises(LassmError, match="no 'fast' benchmark"):
        results.ablation_costs(bench[bench["protocol"] != "fast"], "fast")


def test_against_published_is_strict_per_k() -> None:
    from lassm.runs import results

    published = pd.DataFrame({"k": [21, 21, 33], "x": [0.5, 0.2, 0.3], "y": [0.1, 0.14, 0.15]})
    ours = pd.DataFrame({"k": [33, 21], "x": [1.5, 0.5], "y": [0.02, 0.2], "beyond_model": [True, False]})
    v = results.against_published(ours, published).set_index("k")
    assert list(v.index) == [21, 33]
    assert not v.loc[21, "right of all"] and v.loc[21, "above all"]  # x ties the best: not strictly right
    assert v.loc[33, "right of all"] and not v.loc[33, "above all"] and v.loc[33, "beyond the model"]
    assert v.loc[21, "published y (max)"] == 0.14

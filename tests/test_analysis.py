# SPDX-License-Identifier: BSD-3-Clause
"""The committed H100 metrics are what the code derives from the committed raw counters."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm import analysis, paths
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
    with pytest.raises(LassmError, match="no counter files"):
        analysis.machine_metrics("nowhere")


def test_bytes_per_insertion_uses_the_runs_work(derived: pd.DataFrame) -> None:
    from lassm import formats, stats

    per = analysis.per_insertion(H100, derived)
    sample = per[per["dataset"] == "sample-k77"]
    start = stats.read_figures(formats.read_dat(paths.sample("k77")), 77)["hash_insertions"]
    assert (sample["hash_insertions"] == start).all()
    assert np.allclose(sample["bytes_per_insertion"], sample["dram_bytes"] / start)
    assert (per["insertions_all_k"] >= per["hash_insertions"]).all()

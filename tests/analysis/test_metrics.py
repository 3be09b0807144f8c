# SPDX-License-Identifier: BSD-3-Clause
"""lassm.analysis.metrics: formulas, input validation (ValueError/TypeError), inputs left unchanged.

The performance-portability checks re-derive P3's own test value (0.4878: the harmonic mean of
1.0, 0.8, 0.5, 1.0 and 0.2) without importing the P3 package.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lassm.analysis import metrics, portability


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"int_ops": [4.0e9, 2.0e9], "dram_bytes": [2.0e9, 4.0e9], "duration_s": [0.02, 0.01],
                         "peak_gintops": [1000.0, 1000.0], "bandwidth_gbs": [100.0, 1000.0]})


# ----------------------------------------------------------------------------------------------
# Every metric: new frame, input unchanged, validation


def _chain(df: pd.DataFrame) -> pd.DataFrame:
    df = metrics.intop_intensity(df)
    df = metrics.throughput(df)
    return metrics.architectural_efficiency(df)


METRIC_CASES = [
    (metrics.intop_intensity, lambda: _frame()),
    (metrics.throughput, lambda: _frame()),
    (metrics.attainable, lambda: metrics.intop_intensity(_frame())),
    (metrics.architectural_efficiency, lambda: metrics.throughput(metrics.intop_intensity(_frame()))),
    (metrics.algorithm_efficiency, lambda: pd.DataFrame({"ii": [1.0, 2.0], "ii_theoretical": [4.0, 4.0]})),
    (metrics.predication_ratio, lambda: pd.DataFrame({"thread_inst": [10.0], "warp_inst": [1.0], "simd_width": [32.0]})),
    (metrics.potential_speedup, lambda: pd.DataFrame({"alg eff": [0.5], "arch eff": [0.25]})),
    (lambda df: metrics.select_int_ops(df, "lanes"), lambda: pd.DataFrame({"int_lane_ops": [3.0, np.nan]})),
    (metrics.global_memory_pattern, lambda: pd.DataFrame({"global_ldst_inst": [8.0], "global_ldst_sectors": [32.0],
                                                          "duration_s": [1e-9]})),
    (portability.pp, lambda: pd.DataFrame({"problem": ["p", "p"], "platform": ["A", "B"], "application": ["a", "a"],
                                      "arch eff": [0.5, 0.25]})),
    (portability.application_efficiency, lambda: pd.DataFrame({"problem": ["p", "p"], "platform": ["A", "A"],
                                                          "application": ["a", "b"], "seconds": [2.0, 1.0]})),
]


@pytest.mark.parametrize("fn,make", METRIC_CASES)
def test_input_frame_is_unchanged_and_output_is_new(fn, make) -> None:
    df = make()
    before = df.copy(deep=True)
    out = fn(df)
    pd.testing.assert_frame_equal(df, before)
    assert out is not df
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(df, out)


@pytest.mark.parametrize("fn,make", METRIC_CASES)
def test_missing_columns_raise_value_error(fn, make) -> None:
    with pytest.raises(ValueError):
        fn(pd.DataFrame({"unrelated": [1.0]}))


@pytest.mark.parametrize("fn,column,make", [
    (metrics.intop_intensity, "int_ops", _frame),
    (metrics.throughput, "duration_s", _frame),
    (metrics.algorithm_efficiency, "ii", lambda: pd.DataFrame({"ii": [1.0], "ii_theoretical": [4.0]})),
    (portability.pp, "arch eff", lambda: pd.DataFrame({"problem": ["p"], "platform": ["A"], "application": ["a"],
                                                    "arch eff": [0.5]})),
    (metrics.potential_speedup, "alg eff", lambda: pd.DataFrame({"alg eff": [0.5], "arch eff": [0.5]})),
    (portability.application_efficiency, "seconds", lambda: pd.DataFrame({"problem": ["p"], "platform": ["A"],
                                                                      "application": ["a"], "seconds": [1.0]})),
])
def test_non_numeric_values_raise_type_error(fn, column, make) -> None:
    df = make().astype({column: "object"})
    df.loc[0, column] = "fast"
    with pytest.raises(TypeError):
        fn(df)


def test_range_checks() -> None:
    bad_bytes = _frame().assign(dram_bytes=[0.0, 1.0])
    with pytest.raises(ValueError, match="dram_bytes"):
        metrics.intop_intensity(bad_bytes)
    with pytest.raises(ValueError, match="int_ops"):
        metrics.intop_intensity(_frame().assign(int_ops=[-1.0, 1.0]))
    with pytest.raises(ValueError, match="duration_s"):
        metrics.throughput(_frame().assign(duration_s=[0.0, 1.0]))
    with pytest.raises(ValueError, match="ii_theoretical"):
        metrics.algorithm_efficiency(pd.DataFrame({"ii": [1.0], "ii_theoretical": [0.0]}))
    with pytest.raises(ValueError, match="arch eff"):  # efficiencies above 1 are not fractions
        metrics.potential_speedup(pd.DataFrame({"alg eff": [0.5], "arch eff": [1.5]}))
    with pytest.raises(ValueError, match="warp_inst"):
        metrics.predication_ratio(pd.DataFrame({"thread_inst": [1.0], "warp_inst": [100.0], "simd_width": [32.0]})
                                  .assign(thread_inst=[1.0e9]))
    with pytest.raises(ValueError, match="missing"):
        metrics.intop_intensity(_frame().assign(int_ops=[np.nan, 1.0]))


# ----------------------------------------------------------------------------------------------
# Formulas


def test_intensity_throughput_roofline_and_efficiency() -> None:
    out = _chain(_frame())
    assert out["ii"].tolist() == [2.0, 0.5]
    assert out["gintops"].tolist() == pytest.approx([200.0, 200.0])
    # row 0: min(1000, 100 * 2) = 200 (memory-bound); row 1: min(1000, 1000 * 0.5) = 500
    assert out["attainable_gintops"].tolist() == pytest.approx([200.0, 500.0])
    assert out["bound"].tolist() == ["memory", "memory"]
    assert out["balance"].tolist() == pytest.approx([10.0, 1.0])
    assert out["arch eff"].tolist() == pytest.approx([1.0, 0.4])


def test_compute_bound_point() -> None:
    df = pd.DataFrame({"ii": [50.0], "gintops": [250.0], "peak_gintops": [1000.0], "bandwidth_gbs": [100.0]})
    out = metrics.architectural_efficiency(df)
    assert out["bound"].iloc[0] == "compute"
    assert out["arch eff"].iloc[0] == pytest.approx(0.25)


def test_predication_ratio() -> None:
    df = pd.DataFrame({"thread_inst": [32.0, 1.0], "warp_inst": [1.0, 1.0], "simd_width": [32.0, 32.0]})
    assert metrics.predication_ratio(df)["predication_ratio"].tolist() == pytest.approx([1.0, 1 / 32])


def test_global_memory_pattern() -> None:
    out = metrics.global_memory_pattern(pd.DataFrame({"global_ldst_inst": [8.0], "global_ldst_sectors": [32.0],
                                                      "duration_s": [1e-9]}))
    assert out["ldst_intensity"].iloc[0] == 0.25 and out["ldst_gips"].iloc[0] == pytest.approx(8.0)
    with pytest.raises(ValueError):
        metrics.global_memory_pattern(pd.DataFrame({"global_ldst_inst": [8.0], "global_ldst_sectors": [0.0],
                                                    "duration_s": [1.0]}))


def test_select_int_ops_keeps_nan_for_the_other_convention() -> None:
    df = pd.DataFrame({"int_lane_ops": [5.0, np.nan], "int_simd_ops": [np.nan, 64.0]})
    lanes = metrics.select_int_ops(df, "lanes")
    simd = metrics.select_int_ops(df, "simd")
    assert lanes["int_ops"].iloc[0] == 5.0 and math.isnan(lanes["int_ops"].iloc[1])
    assert math.isnan(simd["int_ops"].iloc[0]) and simd["int_ops"].iloc[1] == 64.0
    with pytest.raises(ValueError):
        metrics.select_int_ops(df, "warps")


def test_murmurhash2_phases() -> None:
    # phase counts are parameters (the paper's come from data/paper-tables.csv in test_paper)
    ops = metrics.murmurhash2_intops([21, 33, 4, 3], init=1.0, per_block=10.0, cleanup=2.0)
    assert ops.tolist() == [1 + 10 * 5 + 2, 1 + 10 * 8 + 2, 1 + 10 + 2, 3.0]
    extra = metrics.murmurhash2_intops(21, init=0.0, per_block=0.0, cleanup=0.0, per_byte_extra=1.0, per_block_extra=1.0)
    assert extra.tolist() == [26.0]
    with pytest.raises(ValueError):
        metrics.murmurhash2_intops(0, init=1.0, per_block=1.0, cleanup=1.0)
    with pytest.raises(ValueError):
        metrics.murmurhash2_intops(5, init=-1.0, per_block=1.0, cleanup=1.0)


def test_theoretical_ii_formula() -> None:
    t = metrics.theoretical_ii([10], [100.0], b1=(2.0, 3.0), b2=(1.0, 5.0))
    row = t.iloc[0]
    assert (row["b1"], row["b2"]) == (23.0, 15.0)
    assert row["ops_per_loop"] == 200.0 and row["bytes_per_loop"] == 38.0
    assert row["ii"] == pytest.approx(200.0 / 38.0)
    t2 = metrics.theoretical_ii([10], [100.0], b1=(2.0, 3.0), b2=(1.0, 5.0), intop_2=[50.0])
    assert t2["ii"].iloc[0] == pytest.approx(150.0 / 38.0)
    with pytest.raises(ValueError):
        metrics.theoretical_ii([10, 11], [100.0], b1=(2.0, 3.0), b2=(1.0, 5.0))


def test_algorithm_efficiency() -> None:
    out = metrics.algorithm_efficiency(pd.DataFrame({"ii": [1.0, 8.0], "ii_theoretical": [4.0, 4.0]}))
    assert out["alg eff"].tolist() == [0.25, 2.0]  # above 1 is reported, not hidden


# ----------------------------------------------------------------------------------------------
# Performance portability (P3's words and test value)


def _p3_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "problem": ["test"] * 15,
        "platform": ["A", "B", "C", "D", "E"] * 3,
        "application": ["latest"] * 5 + ["best"] * 5 + ["dummy"] * 5,
        "fom": [25.0, 12.5, 25.0, 5.0, 5.0] + [25.0, 10.0, 12.5, 5.0, 1.0] + [25.0, 12.5, 25.0, None, 5.0],
        "app eff": [1.0, 0.8, 0.5, 1.0, 0.2] + [1.0] * 5 + [1.0, 0.8, 0.5, 0.0, 0.2],
        "arch eff": [0.0] * 15,
    })


def test_pp_rederives_p3_value_0_4878() -> None:
    expected = 5 / (1 / 1.0 + 1 / 0.8 + 1 / 0.5 + 1 / 1.0 + 1 / 0.2)
    assert round(expected, 4) == 0.4878
    out = portability.pp(_p3_frame())
    assert list(out.columns) == ["problem", "application", "app pp", "arch pp"]
    got = out.set_index("application")
    assert got.loc["latest", "app pp"] == pytest.approx(expected)
    assert round(got.loc["latest", "app pp"], 4) == 0.4878
    assert got.loc["best", "app pp"] == 1.0
    assert got.loc["dummy", "app pp"] == 0.0  # an efficiency of 0: did not run
    assert (got["arch pp"] == 0.0).all()


def test_pp_percentages_are_rejected() -> None:
    df = pd.DataFrame({"problem": ["t"], "platform": ["A"], "application": ["a"], "app eff": [50.0]})
    with pytest.raises(ValueError):
        portability.pp(df)
    with pytest.raises(ValueError):
        portability.pp(df.rename(columns={"app eff": "arch eff"}))
    with pytest.raises(ValueError):
        portability.pp(df.drop(columns=["app eff"]))  # no efficiency column at all


def test_pp_cannot_run_is_zero_and_not_measured_is_nan() -> None:
    df = pd.DataFrame({"problem": ["t", "t"], "platform": ["A", "B"], "application": ["a", "a"], "arch eff": [0.5, 0.5]})
    assert portability.pp(df)["arch pp"].iloc[0] == pytest.approx(0.5)
    # platform C is in H but has no row: not measured, so no PP
    assert np.isnan(portability.pp(df, platforms=["A", "B", "C"])["arch pp"].iloc[0])
    # ... unless the application cannot run there: P = 0
    assert portability.pp(df, platforms=["A", "B", "C"], cannot_run={("a", "C")})["arch pp"].iloc[0] == 0.0
    # a NaN efficiency is no measurement; an efficiency of 0 is "cannot run"
    assert np.isnan(portability.pp(df.assign(**{"arch eff": [0.5, np.nan]}))["arch pp"].iloc[0])
    assert portability.pp(df.assign(**{"arch eff": [0.5, 0.0]}))["arch pp"].iloc[0] == 0.0


def test_pp_duplicates_keep_the_best_efficiency() -> None:
    df = pd.DataFrame({"problem": ["t"] * 4, "platform": ["A", "A", "B", "B"], "application": ["latest"] * 4,
                       "fom": [float("nan"), 25.0, 1.0, 2.0], "app eff": [0.0, 1.0, 0.5, 1.0],
                       "arch eff": [0.0, 0.5, 0.25, 0.5]})
    out = portability.pp(df)
    assert out["app pp"].iloc[0] == 1.0 and out["arch pp"].iloc[0] == 0.5


def test_pp_single_record() -> None:
    df = pd.DataFrame({"problem": ["t"], "platform": ["A"], "application": ["latest"], "fom": [25.0],
                       "app eff": [0.2], "arch eff": [0.5]})
    out = portability.pp(df)
    assert out["app pp"].iloc[0] == 0.2 and out["arch pp"].iloc[0] == 0.5


def test_pp_is_harmonic_not_arithmetic() -> None:
    df = pd.DataFrame({"problem": ["t"] * 2, "platform": ["A", "B"], "application": ["a"] * 2, "alg eff": [0.9, 0.1]})
    got = portability.pp(df)["alg pp"].iloc[0]
    assert got == pytest.approx(0.18)
    assert got != pytest.approx(0.5)


def _implementations() -> pd.DataFrame:
    """Two platforms: on A an original (not ours) is the fastest, on B our CUDA build; OpenCL did not run on B."""
    return pd.DataFrame({"problem": ["t"] * 5, "platform": ["A", "A", "A", "B", "B"],
                         "application": ["CUDA", "OpenCL", "original", "CUDA", "OpenCL"],
                         "implementation": ["cuda tiles", "opencl rows", "HeCBench t-cuda", "cuda tiles", "opencl rows"],
                         "seconds": [4.0, 5.0, 2.0, 1.0, np.nan]})


def test_application_efficiency_takes_the_fastest_measured_originals_included() -> None:
    out = portability.application_efficiency(_implementations()).set_index(["platform", "application"])
    assert out.loc[("A", "CUDA"), "app eff"] == 0.5  # the original's 2 s over CUDA's 4 s
    assert out.loc[("A", "OpenCL"), "app eff"] == 0.4 and out.loc[("A", "original"), "app eff"] == 1.0
    assert set(out.loc["A", "reference"]) == {"HeCBench t-cuda"} and set(out.loc["B", "reference"]) == {"cuda tiles"}
    assert out.loc[("B", "CUDA"), "app eff"] == 1.0 and np.isnan(out.loc[("B", "OpenCL"), "app eff"])
    assert (out["app eff"].dropna() <= 1.0).all() and (out["app eff"].dropna() > 0).all()
    assert out.loc[("A", "CUDA"), "reference time"] == 2.0
    # without implementation names the application names the reference
    plain = portability.application_efficiency(_implementations().drop(columns=["implementation"]))
    assert set(plain.loc[plain["platform"] == "A", "reference"]) == {"original"}
    # a non-positive time is no time
    with pytest.raises(ValueError):
        portability.application_efficiency(_implementations().assign(seconds=[1.0, 0.0, 1.0, 1.0, 1.0]))


def test_pp_of_application_efficiencies_against_the_best_measured() -> None:
    eff = portability.application_efficiency(_implementations())
    got = portability.pp(eff[["problem", "platform", "application", "app eff"]]).set_index("application")["app pp"]
    assert got["CUDA"] == pytest.approx(2 / (1 / 0.5 + 1 / 1.0))
    assert np.isnan(got["OpenCL"]) and np.isnan(got["original"])  # neither measured on B
    both = portability.pp(eff[["problem", "platform", "application", "app eff"]], cannot_run={("original", "B")})
    assert both.set_index("application").loc["original", "app pp"] == 0.0  # it cannot run on B: not portable


# ----------------------------------------------------------------------------------------------
# Potential speedup


def test_potential_speedup_and_iso_curves() -> None:
    out = metrics.potential_speedup(pd.DataFrame({"alg eff": [0.5, 1.0], "arch eff": [0.25, 1.0]}))
    assert out["speedup"].tolist() == pytest.approx([8.0, 1.0])
    assert out["speedup_memory"].tolist() == pytest.approx([2.0, 1.0])
    assert out["speedup_compute"].tolist() == pytest.approx([4.0, 1.0])
    iso = metrics.iso_speedup_curves([2, 10], points=7)
    assert len(iso) == 14
    assert np.allclose(iso["x"] * iso["y"], 1.0 / iso["speedup"])
    assert iso["x"].min() == pytest.approx(0.1) and iso["x"].max() == pytest.approx(1.0)
    assert ((iso["y"] <= 1.0 + 1e-12) & (iso["y"] > 0)).all()
    with pytest.raises(ValueError):
        metrics.iso_speedup_curves([0.5])
    with pytest.raises(ValueError):
        metrics.potential_speedup(pd.DataFrame({"alg eff": [0.0], "arch eff": [0.5]}))


# ----------------------------------------------------------------------------------------------
# Roofline tables (no vendor in them) and the machine specs


def test_roof_lines_and_ridge() -> None:
    from lassm.analysis import roofline

    roofs = pd.DataFrame({"roof": ["R"], "peak": [1000.0], "bandwidth": [100.0]})
    before = roofs.copy()
    t = roofline.roof_lines(roofs, 0.1, 100.0)
    pd.testing.assert_frame_equal(roofs, before)
    assert list(t.columns) == list(roofline.TABLE_COLUMNS)
    assert t["x"].tolist() == [0.1, 10.0, 100.0] and t["y"].tolist() == [10.0, 1000.0, 1000.0]
    assert t["label"].tolist() == ["", "ridge", ""]
    with pytest.raises(ValueError):
        roofline.roof_lines(roofs, 10.0, 1.0)
    with pytest.raises(ValueError):
        roofline.roof_lines(roofs.assign(peak=[0.0]), 0.1, 1.0)


def test_memory_walls_match_the_instruction_roofline() -> None:
    from lassm.analysis import roofline

    w = roofline.memory_walls(32, 32).set_index("label")["x"]
    # Ding et al.: 1 (stride-0), 1/4 (unit stride, 32-bit), 1/8 (64-bit), 1/32 on a 32-wide warp
    assert w.tolist() == [1.0, 0.25, 0.125, 1 / 32]
    w64 = roofline.memory_walls(64, 64).set_index("label")["x"]
    assert w64["stride-1 (32-bit)"] == 0.25 and w64["one transaction per lane"] == 1 / 64
    with pytest.raises(ValueError):
        roofline.memory_walls(0, 32)


def test_roofline_table_from_machine_roofs_and_points() -> None:
    from lassm.analysis import machine, roofline

    roofs = machine.roofs(level="lane")
    points = pd.DataFrame({"label": ["k=21"], "ii": [0.83], "gintops": [177.0], "roof": ["A100-40GB"]})
    t = roofline.roofline_table(roofs, points, walls=roofline.memory_walls(32, 32))
    assert set(t["kind"]) == {"roof", "point", "wall"}
    assert set(t.loc[t["kind"] == "roof", "series"]) == set(roofs["roof"])
    a100 = t[(t["kind"] == "roof") & (t["series"] == "A100-40GB")]
    ridge = a100[a100["label"] == "ridge"]
    assert ridge["x"].iloc[0] == pytest.approx(108 * 64 * 1.41 / 1555)
    with pytest.raises(ValueError):
        roofline.roofline_table(roofs, points.assign(ii=[0.0]))


def test_speedup_table() -> None:
    from lassm.analysis import roofline

    pts = pd.DataFrame({"label": ["a"], "x": [0.5], "y": [0.25]})
    t = roofline.speedup_table(pts, speedups=[2, 8], n=5)
    assert set(t["kind"]) == {"iso", "point"} and len(t) == 11
    with pytest.raises(ValueError):
        roofline.speedup_table(pts.assign(x=[1.5]))


def test_machine_roofs_levels() -> None:
    from lassm.analysis import machine

    lane, issue = machine.roofs(level="lane"), machine.roofs(level="issue")
    assert (lane["peak"] > issue["peak"]).all()
    assert (lane["bandwidth"] == issue["bandwidth"]).all()
    with pytest.raises(ValueError):
        machine.roofs(level="warp")


def test_machine_import_needs_no_cupy_and_measurements_say_why(monkeypatch) -> None:
    import importlib
    import sys

    from lassm.errors import BackendUnavailable

    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    import lassm.analysis.machine as m

    m = importlib.reload(m)
    assert m.load_machines() is not None
    with pytest.raises(BackendUnavailable, match="CuPy"):
        m.measure_int32_throughput()
    with pytest.raises(BackendUnavailable, match="CuPy"):
        m.measure_hbm_bandwidth()


def _gpu_or_skip():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU")
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means no usable GPU here
        pytest.skip(f"no GPU: {exc}")
    return cp


@pytest.mark.gpu
def test_microbenchmarks_on_the_gpu() -> None:
    from lassm.analysis import machine

    _gpu_or_skip()
    r = machine.measure_int32_throughput(trips=512, repeats=2)
    lanes = r["multiprocessors"] * 64 * 2.5  # 64 lanes/SM at up to 2.5 GHz: an upper bound for an IMAD chain
    assert 0.1 * lanes / 4 < r["int32_gops"] < lanes
    mixed = machine.measure_int32_throughput(variant="mixed", trips=512, repeats=2)
    assert mixed["int32_gops"] > 0
    h = machine.measure_hbm_bandwidth(nbytes=1 << 28, repeats=3)
    assert 100.0 < h["hbm_gbs"] < 10000.0 and h["hbm_gbs"] == max(h["copy_kernel_gbs"], h["memcpy_gbs"])

# SPDX-License-Identifier: BSD-3-Clause
"""Every chart plots what its records say: one record per bar (never a sum the axis does not
name), values equal to the records', at most ten colours, no label cut short, and a width that fits
the book's text column. The charts are read back from their Vega-Lite specifications
(lassm.book.chart_audit) and from the SVG they render to."""
from __future__ import annotations

import re

import pandas as pd
import pytest

pytest.importorskip("altair", reason="needs altair: pip install 'lassm[book]'")
pytest.importorskip("vl_convert", reason="needs vl-convert-python: pip install 'lassm[book]'")

from lassm.book import across, chart_audit, machine_chapter as mc, machines as mach, plots  # noqa: E402
from lassm.runs import results  # noqa: E402

#: The widest chart the text column holds at a 1280 px window (the style sheet scales below that).
COLUMN_PX = 700


def _gpu_folders() -> list[str]:
    return [m for m in mach.chapter_machines() if not mc._generated(mc._kernel_rows(m)).empty]


def _bars(chart) -> pd.DataFrame:
    bars = [v for v in chart_audit.views(chart.spec) if v.mark == "bar"]
    assert len(bars) == 1, f"expected one bar layer, found {len(bars)}"
    return bars[0].rows


def _svg_width(chart) -> float:
    return float(re.search(r'width="([\d.]+)"', chart.svg).group(1))


def _legible(chart) -> None:
    assert "…" not in chart.svg, "a label or legend entry is cut short"
    assert _svg_width(chart) <= COLUMN_PX, f"{_svg_width(chart):.0f} px is wider than the text column"
    chart_audit.check(chart.spec)


# --- the rule itself ---------------------------------------------------------------------------

def test_two_rows_under_one_bar_are_refused():
    """The defect this guards against: three backends' rows under one (k, platform) bar, which
    Vega-Lite stacked into their sum."""
    rows = pd.DataFrame({"k": [21, 21, 21], "platform": ["NVIDIA H200, casptr"] * 3, "kernel_ms": [9.87, 10.98, 11.10]})
    with pytest.raises(chart_audit.ChartError, match="share a bar"):
        plots.to_svg(plots.kernel_times(rows))
    import altair as alt

    summed = alt.Chart(rows).mark_bar().encode(x="k:N", y="kernel_ms:Q", color="platform:N")
    with pytest.raises(chart_audit.ChartError, match="share a bar"):
        plots.to_svg(summed)


def test_eleven_colours_are_refused():
    rows = pd.DataFrame({"k": [21] * 11, "platform": [f"p{i}" for i in range(11)], "kernel_ms": range(11)})
    with pytest.raises(chart_audit.ChartError, match="at most 10"):
        plots.to_svg(plots.kernel_times(rows))


def test_one_row_per_bar_passes_and_reads_back():
    rows = pd.DataFrame({"k": [21, 21, 33], "platform": ["a", "b", "a"], "kernel_ms": [1.0, 2.0, 3.0]})
    chart = plots.to_svg(plots.kernel_times(rows))
    back = _bars(chart)
    assert sorted(back["kernel_ms"]) == [1.0, 2.0, 3.0]


# --- the machine chapters ----------------------------------------------------------------------

@pytest.mark.parametrize("machine", _gpu_folders())
def test_published_chart_bars_are_records(machine):
    """Fig. 5 style: each of our bars is one record of the folder, each published bar the paper's."""
    from lassm.analysis import paper

    chart = mc.published_chart(machine)
    bars = _bars(chart)
    assert not bars.duplicated(["k", "platform"]).any()
    t = mc._kernel_rows(machine)
    t = t[t["dataset"] == "gen-k" + t["k"].astype(str)]
    ours = bars[bars["source"] != "published"]
    assert len(ours)
    for bar in ours.itertuples():
        backend = bar.platform.split(", ")[-2]
        rec = t[(t["backend"] == backend) & (t["protocol"] == bar.source) & (t["k"].astype(str) == str(bar.k))]
        assert len(rec) == 1 and rec["kernel_ms"].iloc[0] == pytest.approx(bar.kernel_ms), bar
        if bar.platform.endswith("fastest faithful"):
            faithful = results.study_rows(t[(t["backend"] == backend) & (t["k"].astype(str) == str(bar.k))])
            assert bar.kernel_ms == pytest.approx(faithful["kernel_ms"].min())
    pub = paper.measured()
    for bar in bars[bars["source"] == "published"].itertuples():
        row = pub[(pub["machine"] + " (published)" == bar.platform) & (pub["k"].astype(str) == str(bar.k))]
        assert len(row) == 1 and row["duration_s"].iloc[0] * 1e3 == pytest.approx(bar.kernel_ms)
    _legible(chart)


@pytest.mark.parametrize("machine", _gpu_folders())
def test_time_chart_bars_are_records(machine):
    chart = mc.time_chart(machine)
    bars = _bars(chart)
    t = mc._kernel_rows(machine)
    assert not bars.duplicated(["dataset", "protocol", "backend"]).any()
    merged = bars.merge(t, on=["dataset", "backend", "protocol"], suffixes=("", "_record"))
    assert len(merged) == len(bars)
    assert (merged["kernel_ms"] - merged["kernel_ms_record"]).abs().max() == pytest.approx(0.0)
    _legible(chart)


@pytest.mark.parametrize("machine", [m for m in mach.chapter_machines() if mach.metrics(m) is not None])
def test_roofline_and_speedup_charts_are_legible(machine):
    for chart in (mc.roofline_chart(machine), mc.speedup_chart(machine)):
        if hasattr(chart, "spec"):
            _legible(chart)


@pytest.mark.parametrize("machine", [m for m in mach.chapter_machines() if mach.metrics(m) is not None])
def test_speedup_chart_draws_or_names_every_point(machine):
    """Fig. 16.4 drew 1 of the H200's 5 `fast` points and said nothing of the other 4 (their
    algorithm efficiency exceeds 1): every profiled point is drawn or named on the chart."""
    chart = mc.speedup_chart(machine)
    if not hasattr(chart, "spec"):
        return
    pts = mc.main_protocols(mc._metrics_points(machine))
    name = mach.device_label(mach.device(machine))
    drawn = {r["label"] for v in chart_audit.views(chart.spec) if "label" in v.rows.columns
             for r in v.rows.to_dict("records") if str(r.get("platform", "")).startswith(name + ", ")}
    title = chart.spec.get("title", {})
    named = " ".join(title.get("subtitle", [])) if isinstance(title, dict) else ""
    for r in pts.itertuples():
        assert r.label in drawn or f"{r.protocol} {r.dataset}" in named, f"{r.label}: neither drawn nor named"
    assert (f"{len(pts) - len(drawn)} of {len(pts)}" in named) == (len(drawn) < len(pts))


def test_cascade_labels_platforms_in_a_legend_not_beside_points():
    """The cascade printed each platform's name beside its point, and points that share a place
    printed their names over each other; now no text mark is drawn."""
    pts = across.points()
    sel = pts[pts["dataset"].isin(across.STUDY_DATASETS)]
    chart = across.cascade_chart(sel, across.published_points(), eff="arch eff", variant="casptr")
    marks = [v.mark for v in chart_audit.views(chart.spec)]
    assert "text" not in marks and "point" in marks
    _legible(chart)


def test_colours_are_counted_over_the_layers_that_share_a_scale():
    """Roofs and points shared one legend of 13 colours while each layer held at most ten."""
    roofs = pd.DataFrame({"roof": [f"roof {i}" for i in range(6)], "peak": [1000.0] * 6, "bandwidth": [100.0] * 6})
    pts = pd.DataFrame({"label": [f"p{i}" for i in range(6)], "ii": [1.0] * 6, "gintops": [10.0] * 6,
                        "roof": [f"point roof {i}" for i in range(6)]})
    with pytest.raises(chart_audit.ChartError, match="12 categories"):
        plots.to_svg(plots.roofline(roofs, pts, color="roof", shape=None))

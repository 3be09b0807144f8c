# SPDX-License-Identifier: BSD-3-Clause
"""One colour per protocol, backend and vendor across the book (lassm.book.palette).

The same protocol was orange in one chart and teal in the next: Vega-Lite colours values in the
order a chart meets them. These tests hold that every chart takes its colours from the palette:
the palette covers every name the registries know, a chart gets the palette's colours whatever
else it shows, a chart without them is refused, and no chart is rendered past the one gate.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from lassm.book import chart_audit, palette, plots

ROOT = Path(__file__).resolve().parents[2]


def _fills(svg: str) -> set[str]:
    return set(re.findall(r'fill="(#[0-9a-fA-F]{6})"', svg))


def test_palette_covers_every_protocol_backend_and_variant():
    from lassm.backends import BACKENDS, clplan, nvrtc
    from lassm.backends.xdrop import XDROP_BACKENDS

    assert set(clplan.BUILD_MACROS) | set(nvrtc.VARIANTS) | {"none"} <= set(palette.PROTOCOL_COLOURS)
    assert set(BACKENDS) | set(XDROP_BACKENDS) <= set(palette.BACKEND_COLOURS)
    for name, colours in palette.PALETTE.items():
        assert len(set(colours.values())) == len(colours), f"two {name}s share a colour"
        assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours.values())


def test_a_protocol_keeps_its_colour_whatever_else_the_chart_shows():
    alone = pd.DataFrame({"dataset": ["a", "b"], "protocol": ["matchany", "matchany"], "kernel_ms": [1.0, 2.0]})
    mixed = pd.DataFrame({"dataset": ["a", "a", "a"], "protocol": ["barrier", "casptr", "matchany"],
                          "kernel_ms": [1.0, 2.0, 3.0]})
    one = plots.to_svg(plots.kernel_times(alone, x="dataset", color="protocol"))
    three = plots.to_svg(plots.kernel_times(mixed, x="dataset", color="protocol"))
    matchany = palette.PROTOCOL_COLOURS["matchany"]
    assert matchany in _fills(one.svg) and matchany in _fills(three.svg)
    scale = next(palette.colour_encodings(three.spec))["scale"]
    assert scale["domain"] == ["casptr", "matchany", "barrier"]  # the palette's order, the legend's
    assert scale["range"] == [palette.PROTOCOL_COLOURS[p] for p in scale["domain"]]


def test_a_backend_keeps_its_colour_in_a_layered_chart():
    import altair as alt

    rows = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0], "backend": ["opencl", "cuda"]})
    layered = alt.layer(alt.Chart(rows).mark_line().encode(x="x:Q", y="y:Q", color="backend:N"),
                        alt.Chart(rows).mark_point().encode(x="x:Q", y="y:Q", color="backend:N"))
    spec = plots.book_spec(layered)
    scales = [e["scale"] for e in palette.colour_encodings(spec)]
    assert scales and all(s["domain"] == ["cuda", "opencl"] for s in scales)


def test_check_refuses_a_chart_off_the_palette():
    import altair as alt

    rows = pd.DataFrame({"k": ["21", "33"], "protocol": ["casptr", "fast"], "kernel_ms": [1.0, 2.0]})
    spec = alt.Chart(rows).mark_point().encode(x="k:N", y="kernel_ms:Q", color="protocol:N").to_dict()
    with pytest.raises(chart_audit.ChartError, match="palette"):
        chart_audit.check(spec)
    palette.with_palette(spec)
    chart_audit.check(spec)
    next(palette.colour_encodings(spec))["scale"]["range"].reverse()
    with pytest.raises(chart_audit.ChartError, match="not the palette's"):
        chart_audit.check(spec)


def test_a_name_without_a_colour_is_refused():
    rows = pd.DataFrame({"k": ["21"], "backend": ["fortran"], "kernel_ms": [1.0]})
    with pytest.raises(palette.PaletteError, match="fortran.*palette.py"):
        plots.to_svg(plots.kernel_times(rows, color="backend"))


def test_a_roofline_coloured_by_protocol_draws_its_roofs_grey():
    roofs = pd.DataFrame({"roof": ["measured"], "peak": [1000.0], "bandwidth": [100.0]})
    points = pd.DataFrame({"label": ["a", "b"], "ii": [1.0, 50.0], "gintops": [50.0, 800.0],
                           "protocol": ["casptr", "fast"], "k": [21, 21]})
    chart = plots.to_svg(plots.roofline(roofs, points, color="protocol"))
    fills = _fills(chart.svg)
    assert {palette.PROTOCOL_COLOURS["casptr"], palette.PROTOCOL_COLOURS["fast"]} <= fills
    assert re.search(rf'stroke="{palette.GREY}"', chart.svg), "the roof is not drawn grey"


def test_every_chart_is_rendered_through_the_one_gate():
    """Whatever imports vl-convert is plots.py (to_svg) or hands its chart to plots.book_spec (the
    interactive charts): a chart rendered elsewhere would skip the palette and the checks."""
    called = []
    for path in sorted((ROOT / "lassm").rglob("*.py")) + sorted(ROOT.glob("notebooks/*.ipynb")) \
            + sorted(ROOT.glob("book/*.ipynb")):
        text = path.read_text(encoding="utf-8")
        renders = re.search(r"vegalite_to_(svg|png|pdf|html)|vl_convert", text)
        if renders and path.name != "plots.py" and "book_spec(" not in text:
            called.append(path.relative_to(ROOT).as_posix())
    assert called == [], f"charts rendered past lassm.book.plots.book_spec: {called}"


def test_a_dash_legend_shows_its_dashes():
    """The X-drop chart's dataset legend drew 10 px symbols without a stroke: no dash showed."""
    import altair as alt

    rows = pd.DataFrame({"x": [1.0, 2.0, 1.0, 2.0], "y": [1.0, 2.0, 2.0, 3.0], "dataset": ["a", "a", "b", "b"],
                         "backend": ["cuda", "cuda", "cuda", "cuda"]})
    chart = plots.to_svg(alt.Chart(rows).mark_line(point=True).encode(
        x="x:Q", y="y:Q", color="backend:N", strokeDash=alt.StrokeDash("dataset:N", legend=palette.dash_legend())))
    legend = chart.svg[chart.svg.index("legend titled 'dataset'"):]
    samples = re.findall(r'role-legend-symbol"[^>]*><path [^>]*d="M(-?[\d.]+),0L([\d.]+),0"[^>]*stroke="black"', legend)
    assert len(samples) == 2 and all(float(b) - float(a) >= palette.DASH_SAMPLE_PX for a, b in samples)

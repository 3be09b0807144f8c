# SPDX-License-Identifier: BSD-3-Clause
"""The charts of lassm.book.plots build from small frames, render offline to SVG with marks, and hold
no ceiling as a literal."""
from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("altair", reason="needs altair: pip install 'lassm[book]'")
pytest.importorskip("vl_convert", reason="needs vl-convert-python: pip install 'lassm[book]'")

from lassm.book import interactive, plots  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def roofs():
    return pd.DataFrame({"roof": ["gpu-a", "gpu-b"], "peak": [1000.0, 4000.0], "bandwidth": [100.0, 800.0]})


@pytest.fixture
def points():
    return pd.DataFrame({"label": ["a21", "a77", "b21"], "ii": [0.5, 1.2, 0.8], "gintops": [40.0, 90.0, 300.0],
                         "roof": ["gpu-a", "gpu-a", "gpu-b"], "k": [21, 77, 21], "platform": ["A", "A", "B"],
                         "x": [0.2, 0.5, 0.1], "y": [0.1, 0.3, 0.05], "arch eff": [0.4, 0.3, 0.2]})


def _rendered(chart):
    out = plots.to_svg(chart, "test")
    assert out.svg.lstrip().startswith("<svg")
    assert out.marks() > 0
    assert "<path" in out.svg
    assert out._repr_html_().startswith("<figure")
    assert "<script" not in out._repr_html_()
    return out


def test_roofline(roofs, points):
    before = points.copy()
    _rendered(plots.roofline(roofs, points))
    pd.testing.assert_frame_equal(points, before)


def test_potential_speedup(points):
    out = _rendered(plots.potential_speedup(points, speedups=(2, 8)))
    assert "S=8" in out.svg


def test_kernel_times():
    df = pd.DataFrame({"k": [21, 21, 33], "kernel_ms": [1.0, 2.0, 3.0], "platform": ["A", "B", "A"]})
    _rendered(plots.kernel_times(df))


def test_correlation():
    df = pd.DataFrame({"k": [21, 33], "A": [1.0, 2.0], "B": [1.5, 1.8]})
    _rendered(plots.correlation(df, "A", "B"))
    _rendered(plots.correlation(df, "A", "B", log=True))


def test_cascade_is_harmonic_prefix(points):
    table = plots.cascade(points.assign(problem=1, platform=["A", "B", "C"]), "arch eff", "problem")
    assert table["rank"].tolist() == [1, 2, 3]
    assert table["eff"].is_monotonic_decreasing
    assert table["pp"].iloc[1] == pytest.approx(2 / (1 / 0.4 + 1 / 0.3))
    _rendered(plots.pp_cascade(points, eff="arch eff", by="k"))


def test_missing_columns_raise(roofs):
    with pytest.raises(ValueError):
        plots.roofline(roofs, pd.DataFrame({"ii": [1.0]}))


def _numbers(path: Path) -> set[float]:
    tree = ast.parse(path.read_text())
    return {float(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)}


def test_plotting_code_has_no_peak_literals():
    """No number in lassm/book/plots.py is a peak, a bandwidth or a clock of data/machines.csv or of a
    measured ceilings.json (STYLE.md item 12)."""
    from lassm.analysis.machine import load_machines

    m = load_machines()
    ceilings = set()
    for c in ("lane_peak_gops", "issue_peak_gips", "hbm_bandwidth_gbs", "boost_clock_ghz"):
        ceilings |= {float(v) for v in m[c]}
    for path in sorted((ROOT / "data" / "results").glob("*/ceilings.json")):
        import json

        data = json.loads(path.read_text())
        ceilings |= {float(v) for part in data.values() if isinstance(part, dict)
                     for k, v in part.items() if k.endswith(("gops", "gbs"))}
    numbers = _numbers(ROOT / "lassm" / "book" / "plots.py")
    hits = {n for n in numbers if any(abs(n - c) <= 1e-6 * max(abs(c), 1.0) for c in ceilings if c > 2)}
    assert not hits, f"lassm/book/plots.py holds ceiling values as literals: {sorted(hits)}"
    # layout sizes only: every number above 100 is one of the *_PX constants
    layout = {float(getattr(plots, name)) for name in dir(plots) if name.endswith("_PX")}
    assert {n for n in numbers if n > 100} <= layout


def test_interactive_page_loads_only_the_served_bundle(tmp_path) -> None:
    import altair as alt
    import pandas as pd

    from lassm.book import plots

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x", y="y")
    frame = interactive.to_interactive(chart.interactive(), "t-1", "test chart", folder=tmp_path)
    page = (tmp_path / "charts" / "t-1.html").read_text()
    assert (tmp_path / interactive.VEGA_BUNDLE).stat().st_size > 100_000
    assert '<script src="../vega-bundle.js"></script>' in page and "vegaEmbed(" in page
    assert "http://" not in page and "https://" not in page.replace("https://vega.github.io/schema", "")
    assert 'src="../_static/charts/t-1.html"' in frame._repr_html_()
    with pytest.raises(ValueError):
        interactive.to_interactive(chart, "../escape", folder=tmp_path)

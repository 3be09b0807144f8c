# SPDX-License-Identifier: BSD-3-Clause
"""The book's charts: tables in, Altair charts out, rendered offline to static SVG.

The charts know no vendor and no machine: every roof and point comes from the tables given; the
only numbers here are layout sizes (``*_PX``) and plotting factors (``MARGIN``). :func:`to_svg`
renders through vl-convert to inline SVG, so the book loads no script from a CDN (Altair's
default renderer does; its ``mimetype`` renderer breaks the build under Altair 6; its inline
HTML clashes with Sphinx's scripts). :func:`lassm.book.interactive.to_interactive` gives the
same chart with tooltips, zoom and pan."""
from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import pandas as pd

from ..analysis.columns import require_columns

if TYPE_CHECKING:  # imported where a chart is drawn
    import altair

#: Plot width and height, in pixels: with its axes and a legend below, a chart fits the book's
#: text column (about 690 px at a 1280 px window); the book's style sheet scales it down below that.
WIDTH_PX = 540
HEIGHT_PX = 320
#: Side of one panel of a side-by-side pair (Figs. 7 and 8): two of them fit the column.
PAIR_PX = 250
#: Width of one panel of a faceted chart, and how many panels share a row.
PANEL_PX = 170
PANELS_PER_ROW = 3
#: Least height of one panel of a chart faceted into rows.
MIN_PANEL_HEIGHT_PX = 120
#: Room in an interactive chart's frame for its title, axes and legend, in pixels.
FRAME_PAD_PX = 140
#: Marker area, in square pixels.
MARKER_PX = 80
#: Factor by which the intensity axis extends beyond the points and ridges.
MARGIN = 4.0
#: Iso-speedup curves drawn by default on the potential-speedup plot.
SPEEDUPS: tuple[float, ...] = (2, 4, 8, 16, 32, 64)
#: The charts' font, measured when the chart is laid out and named in the SVG: DejaVu Sans is the
#: browser's sans-serif on Debian and among the widest, so text laid out for it is not cut where
#: a narrower fallback (Verdana, the system's sans-serif) draws it.
FONT = "DejaVu Sans, Verdana, sans-serif"
#: Width of a legend entry per character of its label, and of its symbol and gap, in pixels.
LEGEND_CHAR_PX = 7.0
LEGEND_SYMBOL_PX = 40

#: Names a reader sees for the records' column names, on axes and legends.
TITLES: dict[str, str] = {
    "k": "k", "kernel_ms": "kernel time (ms)", "platform": "platform",
    "protocol": "protocol", "backend": "backend", "dataset": "dataset", "roof": "roof", "label": "point",
    "gintops": "GINTOP/s", "ii": "INTOP intensity (integer ops / HBM byte)", "gpus": "GPUs",
    "speedup": "speed-up", "measure": "measure",
    "bytes_per_insertion": "DRAM bytes per insertion", "program": "program", "kernel": "kernel",
    "arch eff": "architectural efficiency", "alg eff": "algorithm efficiency", "app eff": "application efficiency",
    "gcups": "GCUPS", "xdrop": "X", "variant": "variant", "device": "device", "machine": "machine",
}


def title_of(column: str) -> str:
    """A column's name as a reader sees it (:data:`TITLES`), the column itself where none is set."""
    return TITLES.get(column, column.replace("_", " "))


def _alt():
    import altair as alt

    return alt


class StaticChart:
    """A chart rendered to SVG (``svg``, from vl-convert; ``title``, the figure's accessible label),
    shown inline by Jupyter and myst-nb with no script."""

    def __init__(self, svg: str, title: str = "", spec: dict | None = None) -> None:
        self.svg, self.title = svg, title
        #: The Vega-Lite specification it was drawn from, data included (what the tests read back).
        self.spec = spec or {}

    def _repr_html_(self) -> str:
        label = html.escape(self.title, quote=True)
        return f'<figure class="lassm-chart" aria-label="{label}">{self.svg}</figure>'

    def _repr_svg_(self) -> str:
        return self.svg

    def marks(self) -> int:
        """Number of ``role-mark`` groups the SVG holds; 0 means an empty chart."""
        return self.svg.count("role-mark")


def _legend_columns(spec: dict) -> int:
    """How many legend entries share a row below the plot, from its longest label and its width."""
    from .chart_audit import views

    labels = [str(v) for view in views(spec) for ch in ("color", "shape")
              for f in [view.field(ch)] if f and f in view.rows.columns for v in view.rows[f].dropna().unique()]
    widest = max((len(v) for v in labels), default=8) * LEGEND_CHAR_PX + LEGEND_SYMBOL_PX
    return max(1, min(4, int(WIDTH_PX // widest)))


def book_spec(chart) -> dict:
    """The chart's Vega-Lite specification in the book's one style, after checking what it draws.

    The style: legends below the plot, one under the other, in as many columns as fit (beside the
    plot they made charts wider than the page); no label cut short (Vega-Lite cuts at 160 px); one
    font (:data:`FONT`), so text fits the chart; colours from :mod:`lassm.book.palette`. Built once,
    data included: it is the costly part. Raises
    :class:`lassm.book.chart_audit.ChartError` when the chart would misstate its data
    (:func:`lassm.book.chart_audit.check`) and :class:`lassm.book.palette.PaletteError` for a
    protocol, backend or vendor without a colour."""
    from .chart_audit import check
    from .palette import with_palette

    spec = with_palette(chart.to_dict())
    check(spec)
    config = spec.setdefault("config", {})
    config.update(font=FONT, padding=8)
    config.setdefault("legend", {}).update(orient="bottom", columns=_legend_columns(spec), columnPadding=28,
                                           gridAlign="all", labelLimit=0, titleLimit=0, symbolLimit=0,
                                           layout={"bottom": {"direction": "vertical", "anchor": "start"}})
    config.setdefault("axis", {}).update(labelLimit=0, titleLimit=0)
    config.setdefault("title", {}).update(limit=0, fontSize=13, anchor="start")
    config.setdefault("view", {}).update(continuousWidth=WIDTH_PX, continuousHeight=HEIGHT_PX)
    return spec


def to_svg(chart, title: str = "") -> StaticChart:
    """Renders an unconfigured Altair chart to a :class:`StaticChart` offline, in the book's style
    (:func:`book_spec`), after checking it (``ChartError`` when it would misstate its data);
    ``title`` labels the figure element, the chart's own title is kept."""
    import vl_convert as vlc

    spec = book_spec(chart)
    return StaticChart(vlc.vegalite_to_svg(spec), title, spec)


def static_dir() -> Path:
    """The book's static folder (``_static`` beside ``_config.yml``), copied into the built HTML."""
    from ..paths import REPO

    return REPO / "_static"


def static_file(sub: str, name: str, suffix: str, *, folder: Path | None = None,
                page_depth: int = 1) -> tuple[Path, str]:
    """Where a page's companion file (an interactive chart, a whole table) goes under the static
    folder's ``sub`` folder, and its address from a page ``page_depth`` folders below the root.
    ``ValueError`` unless ``name`` is letters, digits, ``-`` and ``_`` (it becomes a file name
    and a URL)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ValueError(f"{name!r}: a file name under _static/{sub}/ must be letters, digits, '-' or '_'")
    return (folder or static_dir()) / sub / f"{name}{suffix}", "../" * page_depth + f"_static/{sub}/{name}{suffix}"


def _points(points: pd.DataFrame, xy: tuple[str, str], tips: tuple[str, ...], marks: tuple[str | None, str | None],
            scales: tuple) -> object:
    """The points' layer of a roofline or speed-up chart: ``xy`` columns on ``scales``, the
    ``tips`` columns (and the ``marks``' columns) in the tooltip, color and shape by ``marks``."""
    alt = _alt()
    color, shape = marks
    pts = points.copy()
    enc = {"x": alt.X(f"{xy[0]}:Q", scale=scales[0]), "y": alt.Y(f"{xy[1]}:Q", scale=scales[1]),
           "tooltip": [c for c in (*tips, color, shape) if c and c in pts.columns]}
    if color and color in pts.columns:
        enc["color"] = alt.Color(f"{color}:N", title=title_of(color))
    if shape and shape in pts.columns:
        pts[shape] = pts[shape].astype(str)
        enc["shape"] = alt.Shape(f"{shape}:N", title=title_of(shape))
    return alt.Chart(pts).mark_point(filled=True, size=MARKER_PX).encode(**enc)


def roofline(roofs: pd.DataFrame, points: pd.DataFrame, *, color: str = "roof", shape: str | None = "k",
             title: str = "", x_title: str = "INTOP intensity (integer ops / HBM byte)",
             y_title: str = "GINTOP/s") -> altair.LayerChart:
    """Instruction roofline, log-log: one compute and one memory roof per row of ``roofs``.

    ``roofs``: ``roof``, ``peak`` [G ops/s], ``bandwidth`` [GB/s]. ``points``: ``label``, ``ii``
    [ops/B], ``gintops`` [G ops/s], the ``color`` and ``shape`` columns, and optionally ``roof``
    (ties a point to that roof's colour). Returns roof lines, ridge markers and points."""
    from ..analysis.roofline import roofline_table
    from . import palette

    alt = _alt()
    require_columns(points, ["label", "ii", "gintops"])
    table = roofline_table(roofs, points, margin=MARGIN)
    lines = table[table["kind"] == "roof"].rename(columns={"series": "roof"})
    x_scale = alt.Scale(type="log", domain=[float(table["x"].min()), float(table["x"].max())])
    y_min = float(pd.concat([lines["y"], pd.to_numeric(points["gintops"])]).min())
    y_scale = alt.Scale(type="log", domain=[y_min, float(lines["y"].max())], nice=True)
    base = alt.Chart(lines)
    # Points coloured by something else than their roof (a protocol, a backend) keep the colours
    # for it: the roofs are then grey, told apart by their dashes.
    by_roof = color == "roof"
    roof_key = (alt.Color("roof:N", title="roof") if by_roof
                else alt.StrokeDash("roof:N", title="roof", legend=palette.dash_legend(palette.GREY, columns=1)))
    roof_layer = base.mark_line(**({} if by_roof else {"color": palette.GREY})).encode(
        x=alt.X("x:Q", scale=x_scale, title=x_title),
        y=alt.Y("y:Q", scale=y_scale, title=y_title),
        detail="roof:N", **{"color" if by_roof else "strokeDash": roof_key},
    )
    ridge = base.transform_filter(alt.datum.label == "ridge").mark_point(
        shape="triangle-up", filled=False, **({} if by_roof else {"color": palette.GREY})).encode(
        x="x:Q", y="y:Q", **({"color": "roof:N"} if by_roof else {}),
        tooltip=[alt.Tooltip("roof:N"), alt.Tooltip("x:Q", title="machine balance", format=".3g")])
    point_layer = _points(points, ("ii", "gintops"), ("label", "ii", "gintops"), (color, shape), (x_scale, y_scale))
    return alt.layer(roof_layer, ridge, point_layer).properties(
        width=WIDTH_PX, height=HEIGHT_PX, title=title).resolve_scale(color="shared")


def potential_speedup(points: pd.DataFrame, speedups: Sequence[float] = SPEEDUPS, *, color: str = "platform",
                      shape: str | None = "k", title: str | altair.TitleParams = "") -> altair.LayerChart:
    """Potential-speedup plot, both axes log up to 1: x = algorithm efficiency, y = architectural
    efficiency, with iso-speedup curves ``x * y = 1 / S`` for each of ``speedups``.

    ``points`` has ``x``, ``y`` in (0, 1], ``label`` and the ``color`` / ``shape`` columns."""
    from ..analysis.roofline import speedup_table

    alt = _alt()
    require_columns(points, ["label", "x", "y"])
    table = speedup_table(points, speedups=speedups)
    iso = table[table["kind"] == "iso"]
    lo = float(min(iso["x"].min(), iso["y"].min(), points["x"].min(), points["y"].min()))
    one = max(float(iso["x"].max()), float(iso["y"].max()))
    x_scale = alt.Scale(type="log", domain=[lo, one])
    y_scale = alt.Scale(type="log", domain=[lo, one])
    curves = alt.Chart(iso).mark_line(strokeDash=[4, 3], color="gray").encode(
        x=alt.X("x:Q", scale=x_scale, title="algorithm efficiency (empirical II / theoretical II)"),
        y=alt.Y("y:Q", scale=y_scale, title="architectural efficiency (fraction of the roofline)"),
        detail="series:N")
    ends = iso.sort_values("x").groupby("series", as_index=False).first()
    labels = alt.Chart(ends).mark_text(align="left", dx=3, dy=-4, color="gray").encode(
        x=alt.X("x:Q", scale=x_scale), y=alt.Y("y:Q", scale=y_scale), text="series:N")
    point_layer = _points(points, ("x", "y"), ("label", "x", "y", "speedup"), (color, shape), (x_scale, y_scale))
    return alt.layer(curves, labels, point_layer).properties(width=WIDTH_PX, height=HEIGHT_PX, title=title)


def kernel_times(df: pd.DataFrame, *, x: str = "k", y: str = "kernel_ms", color: str = "platform",
                 title: str = "", y_title: str = "kernel time (ms)", row: str | None = None,
                 x_title: str | None = None) -> altair.Chart:
    """Kernel time per k, grouped bars by platform (the paper's Fig. 5).

    One bar per row of ``df`` (``x`` group, ``y`` time, ``color`` series); two rows of one ``x``,
    ``color`` (and ``row``) would be stacked by Vega-Lite, so :func:`to_svg` refuses them. ``row``
    gives each of its values a panel, one above the other; ``x_title`` defaults to the column's
    reader-facing name."""
    alt = _alt()
    keys = [x, color] + ([row] if row else [])
    require_columns(df, keys + [y])
    data = df[keys + [y] + [c for c in df.columns if c not in keys + [y]]].copy()
    data[x] = data[x].astype(str)
    chart = alt.Chart(data).mark_bar().encode(
        x=alt.X(f"{x}:N", title=x_title or title_of(x),
                axis=alt.Axis(labelAngle=0 if data[x].str.len().max() <= 4 else -40)),
        xOffset=alt.XOffset(f"{color}:N"),
        y=alt.Y(f"{y}:Q", title=y_title),
        color=alt.Color(f"{color}:N", title=title_of(color)),
        tooltip=[x, color, alt.Tooltip(f"{y}:Q", format=".3g")] + ([row] if row else []),
    )
    if row:
        height = max(MIN_PANEL_HEIGHT_PX, HEIGHT_PX // max(1, data[row].nunique()))
        return chart.properties(width=WIDTH_PX, height=height).facet(
            facet=alt.Facet(f"{row}:N", title=None, header=alt.Header(labelAnchor="start", labelFontWeight="bold",
                                                                       labelFontSize=12)),
            columns=1, title=title)
    return chart.properties(width=WIDTH_PX, height=HEIGHT_PX, title=title)


def correlation(df: pd.DataFrame, x: str, y: str, *, label: str = "k", log: bool = False,
                title: str = "") -> altair.LayerChart:
    """Head-to-head scatter of columns ``x`` and ``y`` (one quantity on two platforms), with the
    diagonal (Figs. 7-8): points above it are larger on ``y``'s platform. ``label`` colours the
    points, named in the legend since points may share a place."""
    alt = _alt()
    require_columns(df, [x, y, label])
    data = df[[x, y, label]].copy()
    data[label] = data[label].astype(str)
    both = pd.concat([pd.to_numeric(data[x]), pd.to_numeric(data[y])])
    lo, hi = float(both.min()), float(both.max())
    pad = (hi / lo) ** (1 / MARGIN) if log else (hi - lo) / MARGIN
    lo, hi = (lo / pad, hi * pad) if log else (max(lo - pad, 0.0), hi + pad)
    scale = alt.Scale(type="log" if log else "linear", domain=[lo, hi])
    diag = alt.Chart(pd.DataFrame({"a": [lo, hi], "b": [lo, hi]})).mark_line(strokeDash=[4, 3], color="gray").encode(
        x=alt.X("a:Q", scale=scale, title=title_of(x)), y=alt.Y("b:Q", scale=scale, title=title_of(y)))
    pts = alt.Chart(data).mark_point(filled=True, size=MARKER_PX).encode(
        x=alt.X(f"{x}:Q", scale=scale), y=alt.Y(f"{y}:Q", scale=scale),
        color=alt.Color(f"{label}:N", title=title_of(label)), tooltip=[label, x, y])
    side = PAIR_PX
    return alt.layer(diag, pts).properties(width=side, height=side, title=title)


def cascade(df: pd.DataFrame, eff: str, by: str = "problem") -> pd.DataFrame:
    """The table behind a performance-portability cascade plot.

    Per ``by`` group, platforms sorted by decreasing ``eff`` (one kind: ``arch eff``, ``alg eff`` or
    ``app eff``, in [0, 1]); row ``rank`` carries ``pp``, the harmonic PP of platforms 1..rank.
    A ``size`` column must hold one size per group; ``df`` is unchanged."""
    from ..analysis.portability import pp, require_one_size
    require_columns(df, ["platform", by, eff])
    require_one_size(df, by)
    rows = []
    for group, part in df.groupby(by, sort=True):
        part = part.sort_values(eff, ascending=False).reset_index(drop=True)
        for n in range(1, len(part) + 1):
            top = part.iloc[:n]
            frame = pd.DataFrame({"problem": group, "application": "app", "platform": top["platform"],
                                  eff: top[eff]})
            value = float(pp(frame)[eff.replace("eff", "pp")].iloc[0])
            rows.append({by: group, "rank": n, "platform": str(part.loc[n - 1, "platform"]),
                         "eff": float(part.loc[n - 1, eff]), "pp": value})
    return pd.DataFrame(rows, columns=[by, "rank", "platform", "eff", "pp"])


def pp_cascade(df: pd.DataFrame, *, eff: str = "arch eff", by: str = "k", title: str = "") -> altair.FacetChart:
    """Cascade plot of Pennycook's performance portability, one panel per ``by`` group.

    Markers are the platforms' efficiencies, best first, coloured by platform; the grey line is the
    PP so far (the caption says so: the y axis names only the efficiency). Panels keep the platform
    names in the legend rather than beside points that share a place."""
    alt = _alt()
    table = cascade(df, eff, by)
    table[by] = table[by].astype(str)
    name = title_of(eff)
    base = alt.Chart(table).encode(x=alt.X("rank:O", title="platforms, most efficient first",
                                           axis=alt.Axis(labelAngle=0)))
    line = base.mark_line(color="gray").encode(
        y=alt.Y("pp:Q", title=name),
        tooltip=[by, "rank", alt.Tooltip("pp:Q", format=".3f")])
    marks = base.mark_point(filled=True, size=MARKER_PX).encode(
        y="eff:Q", color=alt.Color("platform:N", title="platform"), shape=alt.Shape("platform:N", title="platform"),
        tooltip=[by, "platform", alt.Tooltip("eff:Q", format=".3f")])
    return alt.layer(line, marks).properties(width=PANEL_PX, height=PANEL_PX).facet(
        facet=alt.Facet(f"{by}:N", title=title_of(by)), columns=PANELS_PER_ROW, title=title)


__all__ = ["MARGIN", "SPEEDUPS", "StaticChart", "TITLES", "cascade", "correlation", "kernel_times", "potential_speedup",
           "book_spec", "pp_cascade", "roofline", "static_dir", "static_file", "title_of", "to_svg"]

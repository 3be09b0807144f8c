# SPDX-License-Identifier: BSD-3-Clause
"""A chart with tooltips, zoom and pan, served offline with the book.

:func:`to_interactive` writes a page of its own under ``_static/charts/`` that loads Vega from
``_static/vega-bundle.js`` (bundled by vl-convert, never fetched from a CDN); the notebook shows
it in an iframe, so its script never meets Sphinx's. It gets the book's style and checks
(:func:`lassm.book.plots.book_spec`) like a static chart."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Callable

from .plots import FRAME_PAD_PX, HEIGHT_PX, book_spec, static_dir, static_file

#: The Vega bundle's file name under the book's static folder.
VEGA_BUNDLE = "vega-bundle.js"
#: Room below the drawn chart in its frame, in pixels (the body's margin and the embed's).
FRAME_MARGIN_PX = 24


def write_vega_bundle(folder: Path | None = None) -> Path:
    """Writes Vega + Vega-Lite + Vega-Embed as one script (vl-convert's bundle) once; returns it."""
    import vl_convert as vlc

    from ..atomic import atomic_open

    path = (folder or static_dir()) / VEGA_BUNDLE
    if not path.exists():
        with atomic_open(path) as fh:
            # looked up by name: vl-convert's stub makes the snippet, optional where it runs, required
            bundle: Callable[[], str] = getattr(vlc, "javascript_bundle")
            fh.write(bundle())
    return path


class InteractiveChart:
    """A chart on its own page, shown in an iframe: ``src`` relative to the notebook's page, ``title``
    the frame's accessible label."""

    def __init__(self, src: str, title: str, height: int) -> None:
        self.src, self.title, self.height = src, title, height

    def _repr_html_(self) -> str:
        label = html.escape(self.title, quote=True)
        return (f'<iframe class="lassm-interactive" src="{html.escape(self.src)}" title="{label}" '
                f'style="width:100%;height:{self.height}px;border:0" loading="lazy"></iframe>')


def to_interactive(chart, name: str, title: str = "", folder: Path | None = None,
                   page_depth: int = 1) -> InteractiveChart:
    """Writes ``chart`` as page ``<name>.html`` (``name``: letters, digits, ``-``, ``_``) in ``folder``
    (default :func:`static_dir`) and returns its :class:`InteractiveChart`; ``page_depth`` is how
    deep the notebook sits below the book's root (``notebooks/x`` is 1)."""
    from ..atomic import atomic_open

    folder = folder or static_dir()
    path, src = static_file("charts", name, ".html", folder=folder, page_depth=page_depth)
    spec_dict = book_spec(chart)
    write_vega_bundle(folder)
    spec = json.dumps(spec_dict).replace("</", "<\\/")
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title or name)}</title>'
            f'<script src="../{VEGA_BUNDLE}"></script></head>\n<body><div id="chart"></div>\n'
            f'<script>vegaEmbed("#chart", {spec}, {{"actions": false}});</script></body></html>\n')
    with atomic_open(path) as fh:
        fh.write(page)
    return InteractiveChart(src, title or name, frame_height(spec_dict))


def frame_height(spec: dict) -> int:
    """The frame's height in pixels: the chart's own, drawn once offline, and a margin. The plot's
    height and a fixed pad fell short of a chart with its legends stacked below it, and cut them."""
    import vl_convert as vlc

    drawn = re.search(r'<svg\b[^>]*\bheight="([\d.]+)"', vlc.vegalite_to_svg(spec))
    if not drawn:
        height = spec.get("height")
        return (height if isinstance(height, int) else HEIGHT_PX) + FRAME_PAD_PX
    return int(float(drawn.group(1))) + FRAME_MARGIN_PX


__all__ = ["FRAME_MARGIN_PX", "InteractiveChart", "VEGA_BUNDLE", "frame_height", "to_interactive", "write_vega_bundle"]

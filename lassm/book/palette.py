# SPDX-License-Identifier: BSD-3-Clause
"""One colour per protocol, backend and vendor, the same in every chart, and the line samples of a
legend of dashes.

:func:`lassm.book.plots.book_spec` calls :func:`with_palette`, so a value of a :data:`PALETTE`
field has one colour everywhere (Vega-Lite alone colours by order of appearance); an unknown
value is refused (add it here). :func:`held` is what :func:`lassm.book.chart_audit.check` asks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:  # imported where a chart is drawn
    import altair

#: The main collision protocols and the fast kernel first (strong colours), the CPU oracle's "none",
#: then the fast kernel's ablations (lassm.backends.nvrtc.VARIANTS), each its own colour.
PROTOCOL_COLOURS: dict[str, str] = {
    "casptr": "#4c78a8", "matchany": "#f58518", "doneflag": "#54a24b", "barrier": "#e45756",
    "fast": "#b279a2", "none": "#79706e",
    "fast-reset": "#9ecae9", "fast-fulltable": "#ffbf79", "fast-votescan": "#88d27a", "fast-globalwalk": "#ff9d98",
    "fast-perread": "#d6a5c9", "fast-plainbytes": "#bab0ac", "fast-tables": "#72b7b2", "fast-bins": "#eeca3b",
    "fast-warps": "#9d755d", "fast-regs": "#ff9da6", "fast-spec": "#439894", "fast-spec2": "#d67195",
    "fast-earlyvotes": "#8f6d31", "fast-packed": "#17becf", "fast-sorted": "#bcbd22", "fast-lanes8": "#393b79",
    "fast-lanes32": "#843c39",
}
#: Every backend of the local-assembly and X-drop registries (lassm.backends, lassm.backends.xdrop).
BACKEND_COLOURS: dict[str, str] = {
    "cuda": "#54a24b", "opencl": "#4c78a8", "opencl-ptx": "#72b7b2", "hip": "#e45756", "hip-cpu": "#ff9da6",
    "sycl": "#f58518", "cpu": "#79706e", "seqan": "#b279a2",
}
#: GPU and CPU makers, in their own colours.
VENDOR_COLOURS: dict[str, str] = {"NVIDIA": "#76b900", "AMD": "#ed1c24", "Intel": "#0071c5"}

#: Lines that stand beside coloured marks without being one of them (a roofline's roofs).
GREY = "#555555"
#: Length of a line sample in a legend of dashes, in pixels.
DASH_SAMPLE_PX = 24

#: Field name -> its colours. A chart whose colour channel reads one of these fields takes them.
PALETTE: dict[str, dict[str, str]] = {
    "protocol": PROTOCOL_COLOURS, "backend": BACKEND_COLOURS, "vendor": VENDOR_COLOURS,
}


class PaletteError(ValueError):
    """A value of a palette field that has no colour of its own."""


def colour_encodings(spec: Any) -> Iterator[dict]:
    """Every nominal colour channel of a specification, nested layers, facets and concatenations included."""
    if isinstance(spec, dict):
        enc = spec.get("encoding")
        if isinstance(enc, dict):
            for channel in ("color", "fill", "stroke"):
                if isinstance(enc.get(channel), dict) and enc[channel].get("type") in ("nominal", "ordinal"):
                    yield enc[channel]
        for key, value in spec.items():
            if key not in ("encoding", "data", "datasets"):
                yield from colour_encodings(value)
    elif isinstance(spec, list):
        for item in spec:
            yield from colour_encodings(item)


def scale(name: str, shown: Iterable[object]) -> dict[str, list[str]]:
    """The colour scale of palette field ``name`` for the values a chart shows, in the palette's
    (legend's) order; :class:`PaletteError` for a value without a colour."""
    seen = {str(v) for v in shown}
    unknown = sorted(seen - set(PALETTE[name]))
    if unknown:
        raise PaletteError(f"{name} {', '.join(unknown)}: no colour in lassm/book/palette.py; add one there")
    domain = [v for v in PALETTE[name] if v in seen]
    return {"domain": domain, "range": [PALETTE[name][v] for v in domain]}


def _rows(spec: Any) -> Iterator[dict]:
    """Every data row a specification carries: its named datasets and its inline values."""
    if isinstance(spec, dict):
        for rows in (spec.get("datasets") or {}).values():
            yield from (r for r in rows if isinstance(r, dict))
        data = spec.get("data")
        if isinstance(data, dict) and isinstance(data.get("values"), list):
            yield from (r for r in data["values"] if isinstance(r, dict))
        for key, value in spec.items():
            if key not in ("datasets", "data"):
                yield from _rows(value)
    elif isinstance(spec, list):
        for item in spec:
            yield from _rows(item)


def with_palette(spec: dict) -> dict:
    """``spec``, changed in place, with every protocol, backend or vendor colour channel given the
    palette's colours for the chart's values (:func:`scale`); :class:`PaletteError` for an
    unknown one."""
    for enc in colour_encodings(spec):
        name = enc.get("field")
        if name in PALETTE:
            shown = [row[name] for row in _rows(spec) if row.get(name) is not None]
            enc["scale"] = {**enc.get("scale", {}), **scale(name, shown)}
    return spec


def dash_legend(colour: str = "black", **extra) -> altair.Legend:
    """A legend of line dashes whose samples show: Vega drew a dash legend's symbols 10 px long
    and without a stroke, so no dash showed; these are stroked and long enough for a dash."""
    import altair as alt

    return alt.Legend(symbolType="stroke", symbolStrokeWidth=2, symbolSize=DASH_SAMPLE_PX ** 2,
                      symbolStrokeColor=colour, symbolFillColor=colour, **extra)


def held(spec: dict) -> list[str]:
    """What in a chart breaks the palette: a colour channel on a palette field whose scale is not
    the palette's colours for its domain (empty when none)."""
    bad = []
    for enc in colour_encodings(spec):
        name = enc.get("field")
        if name not in PALETTE:
            continue
        scale = enc.get("scale") or {}
        domain, colours = scale.get("domain"), scale.get("range")
        if not isinstance(domain, list) or any(v not in PALETTE[name] for v in domain):
            bad.append(f"{name}: domain {domain!r} is not the palette's")
        elif colours != [PALETTE[name][v] for v in domain]:
            bad.append(f"{name}: colours {colours!r} are not the palette's for {domain}")
    return bad


__all__ = ["BACKEND_COLOURS", "DASH_SAMPLE_PX", "GREY", "PALETTE", "PROTOCOL_COLOURS", "PaletteError", "VENDOR_COLOURS", "colour_encodings", "dash_legend", "held",
           "scale", "with_palette"]

# SPDX-License-Identifier: BSD-3-Clause
"""What a chart draws, read back from its Vega-Lite specification, and the rules every chart keeps.

Vega-Lite stacks two bars sharing a position into their sum, and a ten-colour palette repeats
from the eleventh category. :func:`views` lists each drawn layer with its rows and fields, so
tests compare marks with records; :func:`check` refuses both faults before rendering."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import pandas as pd

#: Most categories one colour channel may show: the default palette (Tableau 10) repeats beyond.
MAX_COLOURS = 10
#: Channels that place a mark or split it into its own series (a bar is drawn once per distinct key).
KEY_CHANNELS = ("x", "y", "xOffset", "yOffset", "color", "shape", "detail", "row", "column", "facet", "strokeDash")


class ChartError(ValueError):
    """A chart that would misstate its data (a summed bar, a colour used twice)."""


@dataclass
class View:
    """One drawn layer: its mark, the fields behind its channels and the rows it plots."""

    mark: str
    channels: dict[str, dict[str, Any]]
    rows: pd.DataFrame
    transformed: bool = False
    facets: tuple[str, ...] = field(default_factory=tuple)

    def field(self, channel: str) -> str | None:
        """The data field behind ``channel``, or None (a constant, or no such channel)."""
        enc = self.channels.get(channel)
        return enc.get("field") if isinstance(enc, dict) else None

    def key_fields(self) -> list[str]:
        """The fields that place a mark: every keyed channel but the measured (quantitative) one."""
        keys = []
        for channel in KEY_CHANNELS:
            enc = self.channels.get(channel)
            if not isinstance(enc, dict) or "field" not in enc:
                continue
            if channel in ("x", "y") and enc.get("type") == "quantitative" and self.mark == "bar":
                continue
            keys.append(_unescape(enc["field"]))
        return keys + [f for f in self.facets if f not in keys]


def _unescape(name: str) -> str:
    return name.replace("\\.", ".").replace("\\[", "[").replace("\\]", "]")


def _rows(data: dict | None, datasets: dict[str, list]) -> pd.DataFrame:
    if not data:
        return pd.DataFrame()
    if "values" in data:
        return pd.DataFrame(data["values"])
    if "name" in data and data["name"] in datasets:
        return pd.DataFrame(datasets[data["name"]])
    return pd.DataFrame()


def _facet_fields(spec: dict) -> tuple[str, ...]:
    facet = spec.get("facet")
    if not isinstance(facet, dict):
        return ()
    if "field" in facet:
        return (_unescape(facet["field"]),)
    return tuple(_unescape(v["field"]) for v in facet.values() if isinstance(v, dict) and "field" in v)


def views(spec: dict, *, _data: dict | None = None, _datasets: dict | None = None, _encoding: dict | None = None,
          _transformed: bool = False, _facets: tuple[str, ...] = ()) -> Iterator[View]:
    """Every drawn layer of a Vega-Lite specification (``chart.to_dict()``, top-level or nested), as
    :class:`View`: mark type, channels (parent encodings merged), its data rows, and whether a
    transform changes them."""
    datasets = _datasets if _datasets is not None else spec.get("datasets", {})
    data = spec.get("data", _data)
    encoding = {**(_encoding or {}), **spec.get("encoding", {})}
    transformed = _transformed or bool(spec.get("transform"))
    facets = _facets + _facet_fields(spec)
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for child in spec.get(key, []):
            yield from views(child, _data=data, _datasets=datasets,
                             _encoding=encoding if key == "layer" else None, _transformed=transformed,
                             _facets=facets)
    if isinstance(spec.get("spec"), dict):
        yield from views(spec["spec"], _data=data, _datasets=datasets, _encoding=encoding,
                         _transformed=transformed, _facets=facets)
    mark = spec.get("mark")
    if mark is not None:
        kind = mark["type"] if isinstance(mark, dict) else str(mark)
        yield View(kind, encoding, _rows(data, datasets), transformed, facets)


def colours(view: View) -> list[str]:
    """The distinct categories a view's nominal colour channel shows (empty where it has none)."""
    enc = view.channels.get("color")
    if not isinstance(enc, dict) or "field" not in enc or enc.get("type") not in ("nominal", "ordinal"):
        return []
    name = _unescape(enc["field"])
    if name not in view.rows.columns:
        return []
    return sorted({str(v) for v in view.rows[name].dropna()})


def _panels(spec: dict) -> list[dict]:
    """The parts of a chart that each have a colour scale of their own: the panels of a
    concatenation (Vega-Lite's default), else the whole chart (layers share one scale)."""
    for key in ("hconcat", "vconcat", "concat"):
        if key in spec:
            return [{"datasets": spec.get("datasets", {}), **({"data": spec["data"]} if "data" in spec else {}), **child}
                    for child in spec[key]]
    return [spec]


def check(spec: dict) -> None:
    """Refuses (:class:`ChartError`) a chart that would misstate its data: a bar drawn from more than
    one row, a colour scale of more than :data:`MAX_COLOURS` categories over the layers sharing it,
    or a protocol, backend or vendor colour not the palette's (:func:`lassm.book.palette.held`)."""
    from .palette import held

    off = held(spec)
    if off:
        raise ChartError("colours not from the book's palette (lassm.book.palette.with_palette): " + "; ".join(off))
    for part in _panels(spec):
        shown = sorted({c for view in views(part) if not view.rows.empty for c in colours(view)})
        if len(shown) > MAX_COLOURS:
            raise ChartError(f"{len(shown)} categories on one colour scale ({', '.join(shown[:4])}, ...): "
                             f"at most {MAX_COLOURS}; facet or group them")
    for view in views(spec):
        if view.transformed or view.rows.empty:
            continue
        if view.mark == "bar":
            keys = [k for k in view.key_fields() if k in view.rows.columns]
            dup = view.rows[view.rows.duplicated(keys, keep=False)] if keys else view.rows.iloc[1:]
            if len(dup):
                first = dup.iloc[0]
                raise ChartError(f"{len(dup)} rows share a bar ({', '.join(f'{k}={first[k]}' for k in keys)}): "
                                 "Vega-Lite would draw their sum; give each bar one row")


__all__ = ["ChartError", "KEY_CHANNELS", "MAX_COLOURS", "View", "check", "colours", "views"]

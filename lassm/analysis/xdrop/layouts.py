# SPDX-License-Identifier: BSD-3-Clause
"""Which X-drop kernel a record's row ran, for rows without a ``layout`` column.

The rule (``book/data-contract.md``; checked against history by ``tests/analysis/test_xdrop_layouts.py``):
CPU rows ``scalar``; LOGAN's program ``logan``; a forced layout of the ablation names its lanes;
OpenCL ``block``; CUDA at commits before the lanes kernel (:data:`BEFORE_LANES`, before 8a27e3e)
``block``; later CUDA rows X's plan of those commits (:data:`PLAN_BEFORE_COLUMN`). The committed
measurements stay as written; the rule is tested code."""
from __future__ import annotations

import pandas as pd

from ...runs import xdrop_records as rec

#: The commit that added the CUDA lanes kernel and X's plan.
LANES_COMMIT = "8a27e3e2921a9843f1356c0f7fc7ce0a27004042"
#: The commits of committed X-drop records that precede :data:`LANES_COMMIT`: their CUDA rows ran
#: LOGAN's block layout. Any other commit of a row without ``layout`` follows the plan below.
BEFORE_LANES: frozenset[str] = frozenset({
    "ae196b1998066de4fd476e78e25bf86afef82ab8", "3c0d93942efc76c914a91dfc1a853eff91e0d43f",
    "060004c301d752058c85ef566e57574747dae1ef", "6ab21ad43d5468fa7520bc08297dc7e2d2136641",
    "8b4df9075a749fc2319c8e06fbd219be46b68450"})
#: X's plan (``(largest X, lanes)``) of every commit from :data:`LANES_COMMIT` until records named
#: their layout; frozen here because today's plan may differ.
PLAN_BEFORE_COLUMN: tuple[tuple[int, int], ...] = ((50, 8), (200, 16), (1000, 32))
#: ``counters.csv``'s program of one forced layout, and LOGAN's programs in the two files.
FORCED_PREFIX = "lassm cuda lanes="
LOGAN_PROGRAMS = ("LOGAN", "LOGAN demo")


def _before_lanes(sha: object) -> bool:
    text = str(sha or "").strip()
    return len(text) >= 7 and any(full.startswith(text) for full in BEFORE_LANES)


def _planned(xdrop: float) -> str:
    for largest, lanes in PLAN_BEFORE_COLUMN:
        if xdrop <= largest:
            return rec.layout_name(lanes)
    return rec.BLOCK


def rule(backend: str, xdrop: float, sha: object, program: str = "") -> str:
    """The layout of one older row (the module's rule, steps 1 to 5)."""
    if backend in rec.CPU_SIDE:
        return rec.SCALAR
    if program in LOGAN_PROGRAMS:
        return rec.LOGAN
    if program.startswith(FORCED_PREFIX):
        return rec.layout_name(int(program.removeprefix(FORCED_PREFIX)))
    if backend != "cuda" or _before_lanes(sha):
        return rec.BLOCK
    return _planned(float(xdrop))


def fill(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """``df`` (record ``name`` of :data:`lassm.analysis.xdrop.checked_records.FILES`, as read) with every
    empty or missing ``layout`` cell filled by :func:`rule`; cells the record holds stay."""
    have = df["layout"].astype(str).str.strip() if "layout" in df else pd.Series("", index=df.index)
    if name == "lanes":
        derived = [rec.layout_name(int(n)) for n in df["lanes"]]
    else:
        backends = df["backend"].astype(str) if "backend" in df else pd.Series("cuda", index=df.index)
        programs = df["program"].astype(str) if "program" in df else pd.Series("", index=df.index)
        shas = df["git_sha"] if "git_sha" in df else pd.Series("", index=df.index)
        derived = [rule(b, x, s, p) for b, x, s, p in zip(backends, df["xdrop"], shas, programs)]
    return df.assign(layout=have.where(have != "", pd.Series(derived, index=df.index, dtype=object)))


def family(layout: object) -> str:
    """``lanes`` for any lanes layout (the one lanes kernel, its width chosen by X), else the layout."""
    text = str(layout)
    return "lanes" if text.startswith("lanes-") else text


__all__ = ["BEFORE_LANES", "FORCED_PREFIX", "LANES_COMMIT", "LOGAN_PROGRAMS", "PLAN_BEFORE_COLUMN", "family",
           "fill", "rule"]

# SPDX-License-Identifier: BSD-3-Clause
"""The ablation of the X-drop kernel's layouts: LOGAN's block per direction against the lanes kernel.

Why: X's plan (:func:`lassm.backends.xdrop.plan.lanes_for`) gives narrow bands a few lanes of a
warp each and wide ones LOGAN's block; this measures every layout at each X in one run, on the
same GPU and pairs, so the plan and the chapter's account of it rest on one table
(``xdrop/lanes.csv``). Each layout's result must equal the block layout's pair for pair: a
layout that differs is recorded as such and never counts as faster.
"""
from __future__ import annotations

import statistics
from typing import Callable, Sequence

from ..backends.xdrop import plan
from ..runs import xdrop as rec
from ..workloads.xdrop.config import Scoring
from ..workloads.xdrop.pairs import Pairs

#: The layouts compared: LOGAN's block (0) and the lanes kernel's widths.
LAYOUTS: tuple[int, ...] = (0, *plan.LANES)


def rows(align: Callable, pairs: Pairs, name: str, scoring: Scoring, *, layouts: Sequence[int] = LAYOUTS,
         repeats: int = 3, context: dict | None = None) -> list[dict]:
    """One ``lanes.csv`` row per layout at ``scoring``'s X: the median kernel time of ``repeats``
    runs after one untimed run, cells, GCUPS, and whether the result equals the block layout's.

    Parameters
    ----------
    align : a backend's ``align`` taking ``lanes=`` (the CUDA one).
    pairs, name : the set and its name.
    scoring : the scheme with X.
    layouts : lanes values, 0 (the reference every other is compared with) first.
    repeats : timed runs per layout.
    context : provenance columns (machine, device, driver, git_sha, command).
    """
    if not layouts or layouts[0] != 0:
        raise ValueError("layouts must start with 0, the block layout the others are compared with")
    if repeats < 1:
        raise ValueError(f"repeats = {repeats} must be at least 1")
    out, reference = [], None
    for lanes in layouts:
        first = align(pairs, scoring, lanes=lanes)  # untimed: the build and the first touch of memory
        seconds = []
        for _ in range(repeats):
            res = align(pairs, scoring, lanes=lanes)
            seconds.append(float(res.extra["kernel_seconds"]))
            if res.differences(first):
                raise RuntimeError(f"{name} X={scoring.xdrop} lanes={lanes}: two runs of one layout differ")
        if reference is None:
            reference = first
        kernel = statistics.median(seconds)
        cells = int(first.extra["cells"])
        out.append({**(context or {}), "dataset": name, "n_pairs": pairs.n_pairs, "xdrop": scoring.xdrop,
                    "lanes": lanes, "planned": lanes == plan.lanes_for(scoring.xdrop), "kernel_seconds": kernel,
                    "repeats": repeats, "cells": cells, "gcups": rec.gcups(cells, kernel),
                    "equal_to_block": not reference.differences(first)})
    return out


def best(table: Sequence[dict]) -> dict[tuple[str, int], int]:
    """The fastest layout of each (dataset, X) among those equal to the block layout."""
    fastest: dict[tuple[str, int], tuple[float, int]] = {}
    for r in table:
        if str(r["equal_to_block"]) not in ("True", "true", "1"):
            continue
        key, t = (str(r["dataset"]), int(r["xdrop"])), float(r["kernel_seconds"])
        if key not in fastest or t < fastest[key][0]:
            fastest[key] = (t, int(r["lanes"]))
    return {k: v[1] for k, v in fastest.items()}


__all__ = ["LAYOUTS", "best", "rows"]

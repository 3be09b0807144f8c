# SPDX-License-Identifier: BSD-3-Clause
"""How many timed runs a point takes: at least :data:`MIN_TIMED`, then no more once they agree.

Where those runs lie within :data:`SPREAD` of their median, more would not move it beyond their
own spread; otherwise the point goes on to the plan's ``repeats``. One rule for local assembly,
X-drop and the suite; each record keeps how many runs it took.
"""
from __future__ import annotations

import statistics
from typing import Sequence

#: Timed runs every point takes (fewer only when the plan asks for fewer).
MIN_TIMED = 3
#: Relative spread ((slowest - fastest) / median) at or under which :data:`MIN_TIMED` runs suffice.
SPREAD = 0.05


def spread(times: Sequence[float]) -> float:
    """(slowest - fastest) / median; infinite for a zero median (nothing to trust)."""
    mid = statistics.median(times)
    return (max(times) - min(times)) / mid if mid > 0 else float("inf")


def enough(times: Sequence[float], most: int) -> bool:
    """Whether ``times`` suffice: ``most`` of them, or :data:`MIN_TIMED` (at most ``most``) within :data:`SPREAD`."""
    if len(times) >= most:
        return True
    return len(times) >= min(MIN_TIMED, most) and spread(times) <= SPREAD


def describe(most: int) -> str:
    """The rule in words for a plan of ``most`` timed runs (the dry run and the chapters)."""
    if most <= MIN_TIMED:
        return f"{most} timed run{'s' if most != 1 else ''}"
    return (f"{MIN_TIMED} to {most} timed runs (stopping at {MIN_TIMED} when they lie within "
            f"{SPREAD:.0%} of their median)")


__all__ = ["MIN_TIMED", "SPREAD", "describe", "enough", "spread"]

# SPDX-License-Identifier: BSD-3-Clause
"""Stamps of a command's steps on ``CLOCK_MONOTONIC``, to see where ``lassm extend`` spends the
time its kernel does not.

With ``LASSM_TIMELINE`` set to a file, each :func:`mark` appends ``<ns> <step>`` in one
``write``; unset, a mark costs one lookup. Imports only ``os`` and ``time``, since the entry
point marks before any other import.
"""
from __future__ import annotations

import os
import time

ENV = "LASSM_TIMELINE"

_FD: int | None = None
#: Why the stamps could not be written (the file could not be opened, a full disk), once one failed.
_FAULT: str | None = None


def enabled() -> bool:
    """Whether this process records its steps."""
    return bool(os.environ.get(ENV))


def mark(step: str) -> None:
    """Appends the clock and ``step`` (one line, no spaces needed) when :func:`enabled`."""
    global _FD, _FAULT
    path = os.environ.get(ENV)
    if not path or _FAULT is not None:
        return
    try:
        if _FD is None:
            _FD = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(_FD, f"{time.monotonic_ns()} {step}\n".encode())
    except OSError as exc:  # said by the command line (lassm.settings.check_timeline), not here:
        _FAULT = exc.strerror or str(exc)  # a mark may come before any of its error handling


def fault() -> str | None:
    """Why a stamp could not be written, or None: a timeline with a stamp missing is no timeline."""
    return _FAULT


def read(path: str) -> list[tuple[int, str]]:
    """The ``(ns, step)`` stamps of a timeline file, in file order."""
    with open(path, encoding="utf-8") as fh:
        return [(int(ns), step) for ns, _, step in (line.rstrip("\n").partition(" ") for line in fh if line.strip())]


def offsets(started_ns: int, stamps: list[tuple[int, str]], ended_ns: int) -> dict[str, float]:
    """Milliseconds from a run's start to each step's first stamp and to ``gone`` (the harness's
    stamp after the process ended): a step marked twice keeps its first time."""
    out: dict[str, float] = {}
    for ns, step in stamps:
        out.setdefault(step, (ns - started_ns) / 1e6)
    out["gone"] = (ended_ns - started_ns) / 1e6
    return out


def median_offsets(runs: list[dict[str, float]]) -> list[tuple[str, float]]:
    """Each step's median offset over ``runs`` (steps some runs lack are left out: a step that
    happens only sometimes, like a build, is not the critical path), in time order."""
    import statistics

    steps = [s for s in runs[0] if all(s in r for r in runs)] if runs else []
    return sorted(((s, statistics.median(r[s] for r in runs)) for s in steps), key=lambda item: item[1])


__all__ = ["ENV", "enabled", "fault", "mark", "median_offsets", "offsets", "read"]

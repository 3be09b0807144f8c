# SPDX-License-Identifier: BSD-3-Clause
"""``<machine>/runs.json``: one entry per whole ``lassm run``, its seconds and which parts measured
rather than skipped, so "how long from scratch?" is the entry whose parts skipped nothing.
Appended under the folder's lock (:func:`lassm.runs.account.append_entry`)."""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

from ..runs.account import RUNS_ACCOUNT, append_entry, read_entries, status_kind
from .outcome import OutcomeLike

#: The file, in the machine's folder.
RUNS_FILE = RUNS_ACCOUNT


def counts(outcome: OutcomeLike) -> dict[str, int]:
    """A part's rows as ``measured`` (timed: ok or differing), ``skipped`` (recorded before) and
    ``failed`` (anything else: refused, failed), by :func:`lassm.runs.account.status_kind`."""
    out = {"measured": 0, "skipped": 0, "failed": 0}
    for row in getattr(outcome, "rows", None) or []:
        kind = status_kind(row)
        out["measured" if kind == "timed" else "skipped" if kind == "skipped" else "failed"] += 1
    return out


def entry(parts: dict[str, dict], *, total: float, sha: str, command: str) -> dict:
    """The account of one whole run: per part its entry (:meth:`lassm.campaign.part.Part.entry`:
    its seconds and counts), or ``{"left_out": why}``."""
    return {"created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "git_sha": sha,
            "command": command, "seconds": round(float(total), 3), "parts": parts}


def append(folder: Path, account: dict) -> Path:
    """Appends ``account`` to ``folder/runs.json``."""
    return append_entry(folder / RUNS_FILE, account)


def from_scratch(entries: list[dict]) -> dict | None:
    """The newest entry in which every part ran and measured its points, skipping none."""
    for e in reversed(entries):
        parts = list((e.get("parts") or {}).values())
        if parts and all("left_out" not in p and p.get("skipped", 1) == 0 and p.get("measured", 0) > 0
                         for p in parts):
            return e
    return None


def read(folder: Path) -> list[dict]:
    """The folder's entries, oldest first (``[]`` without the file)."""
    return read_entries(folder / RUNS_FILE)


__all__ = ["RUNS_FILE", "append", "counts", "entry", "from_scratch", "read"]

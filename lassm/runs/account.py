# SPDX-License-Identifier: BSD-3-Clause
"""A campaign account file (``campaign.json``, ``xdrop/campaign.json``): every run's entry, kept.

``{"entries": [account, ...]}``, oldest first, each exactly what one run wrote, so a re-run that
skips every point does not erase which run measured them; a one-account file reads as one entry.
In the runs stage because :mod:`lassm.analysis.floor` reads it too. Appends happen under
:func:`lassm.atomic.locked`, so two runs writing one folder both keep their entries.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ..atomic import atomic_open, locked
from ..errors import LassmError
from . import host

#: The key of the file's list of entries.
ENTRIES = "entries"
#: Each part's account file, relative to the machine's folder (the parts of ``lassm run``, by key).
PART_ACCOUNTS: dict[str, str] = {"local-assembly": "campaign.json", "xdrop": "xdrop/campaign.json",
                                 "suite": "suite/campaign.json", "originals": "originals.json"}
#: The whole run's account (:mod:`lassm.campaign.runs_account`), in the machine's folder.
RUNS_ACCOUNT = "runs.json"
#: Every account file a run appends to.
ACCOUNTS: tuple[str, ...] = (*PART_ACCOUNTS.values(), RUNS_ACCOUNT)
#: A row's status when the run found the point already recorded and measured nothing.
SKIPPED = "skipped (recorded)"
#: The columns that name a local-assembly point in a row.
POINT: tuple[str, ...] = ("dataset", "k", "backend", "protocol")


def read_entries(path: str | os.PathLike) -> list[dict]:
    """The entries of ``path`` (either format), oldest first, one account per run; ``[]`` where it
    does not exist. Raises LassmError when it cannot be read, is not JSON or holds neither format."""
    path = Path(path)
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
    except OSError as exc:  # no read permission: one line, not a traceback
        raise LassmError(f"{path}: cannot be read: {exc.strerror}") from None
    except (ValueError, RecursionError) as exc:  # RecursionError: nested past Python's stack
        raise LassmError(f"{path}: not JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get(ENTRIES), list):
        entries = list(data[ENTRIES])
    elif isinstance(data, dict) and ENTRIES not in data:
        entries = [data]
    else:
        raise LassmError(f"{path}: neither {{'{ENTRIES}': [...]}} nor one campaign account")
    for i, entry in enumerate(entries, start=1):
        fault = entry_problem(entry)
        if fault:
            raise LassmError(f"{path}: entry {i} of {len(entries)}: {fault}; restore the file, or move it aside "
                             "and run again")
    return entries


#: The fields an entry may hold, by the JSON type each must have where present (what every part's
#: account writes: :func:`append_part`, ``lassm.campaign.assembly_run.CAMPAIGN_KEYS``, the whole run's).
_FIELDS: dict[str, tuple[type, ...]] = {
    "rows": (list,), "plan": (dict,), "steps": (dict,), "versions": (dict,), "parts": (dict,), "sources": (dict,),
    "lacks": (list,), "command": (str,), "created": (str,), "machine": (str,), "device": (str,), "driver": (str,),
    "part": (str,), "kernel": (str,), "git_sha": (str, type(None)),
}
#: A row's fields that are seconds, where present (None: not timed).
_ROW_SECONDS: tuple[str, ...] = ("kernel_seconds", "seconds", "whole_seconds")


def _seconds(value: object, untimed: bool = False) -> bool:
    """A number of seconds: a real number (not a bool), finite and 0 or more (NaN too, where
    ``untimed``: a row's time of a point that was not timed)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    return (untimed and math.isnan(value)) or (math.isfinite(value) and value >= 0)


def entry_problem(entry: object) -> str | None:
    """What keeps one entry from being read as an account, in a clause, or None; checked once here so
    that every reader can take entries for objects with rows of objects."""
    if not isinstance(entry, dict):
        return f"a JSON {type(entry).__name__}, not an account (an object)"
    for key, kinds in _FIELDS.items():
        if key in entry and not isinstance(entry[key], kinds):
            return f"{key}: a JSON {type(entry[key]).__name__}, not {_json_kinds(kinds)}"
    if "seconds" in entry and not _seconds(entry["seconds"]):
        return f"seconds: {entry['seconds']!r} is no number of seconds"
    for step, value in (entry.get("steps") or {}).items():
        if not _seconds(value):
            return f"steps: {step}: {value!r} is no number of seconds"
    if any(not isinstance(line, str) for line in entry.get("lacks") or []):
        return "lacks: not a list of lines (text)"
    for n, row in enumerate(entry.get("rows") or [], start=1):
        if not isinstance(row, dict):
            return f"row {n}: a JSON {type(row).__name__}, not a row (an object)"
        if "status" in row and not isinstance(row["status"], str):
            return f"row {n}: status: {row['status']!r} is no status (text)"
        for key in _ROW_SECONDS:
            if row.get(key) is not None and not _seconds(row[key], untimed=True):
                return f"row {n}: {key}: {row[key]!r} is no number of seconds"
    return None


def _json_kinds(kinds: tuple[type, ...]) -> str:
    names = {list: "a list", dict: "an object", str: "text", type(None): "null"}
    return " or ".join(names[k] for k in kinds)


def append_entry(path: str | os.PathLike, account: dict) -> Path:
    """Appends ``account`` (with ``host``, this host's fingerprint, added) to the entries of ``path``,
    creating it, rewriting it atomically under a lock; returns ``path``. A one-account file's
    account becomes its first entry."""
    path = Path(path)
    host.claim(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        entries = read_entries(path) + [{**account, "host": account.get("host") or host.fingerprint()}]
        with atomic_open(path) as fh:
            json.dump({ENTRIES: entries}, fh, indent=2, default=str)
            fh.write("\n")
    return path


def append_part(path: str | os.PathLike, head: dict, outcome, sha: str, command: str, seconds: float) -> Path:
    """Appends the account of one part of ``lassm run`` (X-drop, the suite, the originals): ``head``
    (what names the part and its plan), then the outcome's rows, steps and lacks, the commit, the
    software versions, the command, when and how long."""
    import datetime as _dt

    from .records import versions

    account = {**head, "rows": outcome.rows, "steps": outcome.steps, "lacks": outcome.lacks, "git_sha": sha,
               "versions": versions(), "command": command,
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "seconds": round(float(seconds), 3)}
    return append_entry(path, account)


def latest(entries: list[dict]) -> dict | None:
    """The newest entry (what the folder's last run wrote), or None for no entry."""
    return entries[-1] if entries else None


def status_kind(row: dict) -> str:
    """A row's status, in four kinds: ``timed`` (ok, or a mismatch), ``skipped`` (recorded before),
    ``refused`` (the device refused the point) or ``failed`` (anything else)."""
    status = str(row.get("status", ""))
    if status.startswith("skipped"):
        return "skipped"
    if status in ("ok", "MISMATCH"):
        return "timed"
    return "refused" if status.startswith("refused") else "failed"


def measured(row: dict) -> bool:
    """Whether a row's run measured its point (ok, a mismatch, a failure), rather than skipping it."""
    return status_kind(row) != "skipped"


def measured_by(entries: list[dict], key: tuple[str, ...] = POINT) -> list[dict]:
    """Per point, the row of the newest entry that measured it, plus ``entry``, that entry's index.

    A later run that skipped a point does not take it over; one that measured it again does.
    ``key`` names a point's columns (:data:`POINT`; ``("dataset", "xdrop", "backend")`` for X-drop).
    Rows come in first-appearance order; a point no entry measured keeps its newest row, ``entry``
    None."""
    out: dict[tuple, dict] = {}
    for i, entry in enumerate(entries):
        for row in entry.get("rows", []):
            point = tuple(row.get(k) for k in key)
            if measured(row):
                out[point] = {**row, "entry": i}
            elif out.get(point, {}).get("entry") is None:
                out[point] = {**row, "entry": None}
    return list(out.values())


__all__ = ["ACCOUNTS", "ENTRIES", "PART_ACCOUNTS", "POINT", "RUNS_ACCOUNT", "SKIPPED", "append_entry", "append_part",
           "entry_problem", "latest", "measured", "measured_by", "read_entries", "status_kind"]

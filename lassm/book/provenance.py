# SPDX-License-Identifier: BSD-3-Clause
"""Which run measured what: one table over every results folder, built from the records alone.

Every record family keeps its commit (``git_sha``) and command (run records, X-drop, suite and
originals tables, counters); rows sharing folder, family, device, commit and command are one row
with their count, so the prose need not name commands."""
from __future__ import annotations

import json

import pandas as pd

from . import machines as mach

#: The record families read from each folder: (family, CSV file relative to the folder).
CSV_FAMILIES: tuple[tuple[str, str], ...] = (
    ("X-drop times", "xdrop/times.csv"),
    ("X-drop counters", "xdrop/counters.csv"),
    ("X-drop beside LOGAN", "xdrop/against-logan.csv"),
    ("suite times", "suite/times.csv"),
    ("suite counters", "suite/counters.csv"),
    ("suite beside HeCBench", "suite/originals.csv"),
    ("local assembly beside ht_loc", "against-original.csv"),
    ("first call", "first-call.csv"),
)
#: The table's columns.
COLUMNS = ("folder", "records", "device", "commit", "command", "created", "rows")


def _summaries(folder) -> pd.DataFrame:
    rows = []
    for path in sorted(folder.glob("*/summary.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        family = "scaling runs" if path.parent.name.startswith("scaling__") else "local-assembly runs"
        rows.append({"records": family, "device": rec.get("device", ""), "commit": rec.get("git_sha", ""),
                     "command": rec.get("command", ""), "created": rec.get("created", "")})
    return pd.DataFrame(rows)


def _csv(folder, family: str, name: str) -> pd.DataFrame:
    path = folder / name
    if not path.is_file():
        return pd.DataFrame()
    t = pd.read_csv(path, dtype=str, keep_default_na=False)
    command = t["command"] if "command" in t else t.get("command_line", "")
    return pd.DataFrame({"records": family, "device": t.get("device", ""), "commit": t.get("git_sha", ""),
                         "command": command, "created": ""})


def _counters(folder) -> pd.DataFrame:
    rows = []
    for path in sorted((folder / "counters").glob("*.meta.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        rows.append({"records": f"counters ({meta.get('tool', '?')} {meta.get('tool_version', '')})".strip(),
                     "device": "", "commit": meta.get("git_sha", ""), "command": "lassm counters collect",
                     "created": ""})
    return pd.DataFrame(rows)


def program(command: str) -> str:
    """A command as the table names it: the program and its subcommands ("lassm xdrop align",
    "ht_loc", "bash tools/multigpu_campaign.sh"), without its environment, options and inputs."""
    words = [w for w in str(command).split() if "=" not in w or w.startswith("-")]
    if not words:
        return ""
    out = [words[0]]
    for w in words[1:]:
        if w.startswith("-") or w.startswith("<") or "." in w and not w.startswith("tools/") or w[:1].isdigit():
            break
        out.append(w)
        if len(out) == 3:
            break
    return " ".join(out)


def table(folders: list[str] | None = None) -> pd.DataFrame:
    """Every record family of every folder (or of ``folders``) grouped by device, commit and command:
    :data:`COLUMNS`, ``command`` the writing program (:func:`program`), ``rows`` the count,
    ``created`` their date span ('' where undated)."""
    frames = []
    root = mach.results_root()
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if folders is not None and folder.name not in folders:
            continue
        parts = [_summaries(folder), _counters(folder)] + [_csv(folder, f, n) for f, n in CSV_FAMILIES]
        parts = [p for p in parts if len(p)]
        if parts:
            frames.append(pd.concat(parts, ignore_index=True).assign(folder=folder.name))
    if not frames:
        return pd.DataFrame(columns=list(COLUMNS))
    t = pd.concat(frames, ignore_index=True).fillna("")
    t["device"] = t["device"].astype(str).map(lambda d: mach.device_label(d) if d else "")
    t["commit"] = t["commit"].astype(str).str[:7]
    t["command"] = t["command"].map(program)
    keys = ["folder", "records", "device", "commit", "command"]
    out = t.groupby(keys, sort=True).agg(rows=("created", "size"), first=("created", "min"), last=("created", "max"))
    out = out.reset_index()
    out["created"] = [(f[:10] if f[:10] == last[:10] else f"{f[:10]} to {last[:10]}") if f else ""
                      for f, last in zip(out["first"], out["last"])]
    return out[list(COLUMNS)]


def by_folder(t: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`table` summed per folder: its devices, record families, commits, programs and rows."""
    t = table() if t is None else t
    if t.empty:
        return pd.DataFrame(columns=["folder", "devices", "records", "commits", "rows", "created"])

    def joined(values: pd.Series) -> str:
        return ", ".join(sorted({v for v in values if v}))

    def span(values: pd.Series) -> str:
        dates = sorted(d for v in values if v for d in v.split(" to "))
        return "" if not dates else dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"

    out = t.groupby("folder", sort=True).agg(devices=("device", joined), records=("records", "nunique"),
                                             commits=("commit", "nunique"), rows=("rows", "sum"),
                                             created=("created", span))
    return out.reset_index()


def facts(t: pd.DataFrame) -> dict[str, str]:
    """What the appendix's opening says of :func:`table`: its folders, commits and records."""
    return {"pv_folders": f"{t['folder'].nunique():d}",
            "pv_commits": f"{t.loc[t['commit'] != '', 'commit'].nunique():d}",
            "pv_rows": f"{int(t['rows'].sum()):,}"}


__all__ = ["COLUMNS", "CSV_FAMILIES", "by_folder", "facts", "program", "table"]


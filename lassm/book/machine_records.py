# SPDX-License-Identifier: BSD-3-Clause
"""How a machine's records were made: the versions they name and the campaign runs that wrote them.

A machine chapter (``notebooks/machine.ipynb``) shows these beside its results so that a reader
comparing a machine with ours sees the driver, compiler and profiler, and which ``lassm run``
measured each point, at which commit; :mod:`lassm.book.machine_chapter` holds the results.
"""
from __future__ import annotations

import json
import re

import pandas as pd

from . import machines as mach
from .prose import count, note
from .. import paths


#: The compiler line NVRTC and nvcc write at the top of a PTX file.
_PTX_COMPILER = re.compile(r"Cuda compilation tools, release ([0-9.]+), V([0-9.]+)")


def versions_table(machine: str) -> pd.DataFrame:
    """The driver, compiler, profiler and library versions the folder's records carry, one row per
    (what, version), with the files that say so: a reader compares a machine with ours by them.

    Returns
    -------
    pandas.DataFrame
        ``what, version, where it is recorded``; empty where the records carry none.
    """
    folder = paths.results_dir(machine)
    rows: list[tuple[str, str, str]] = []
    summaries = sorted(folder.glob("*/summary.json"))
    for path in summaries:
        rec = json.loads(path.read_text())
        driver = str(rec.get("driver") or "")
        if driver.isdigit():  # older records: the CUDA driver API's version number (13000 is 13.0)
            rows.append(("CUDA driver API", f"{int(driver) // 1000}.{int(driver) % 1000 // 10}",
                         "*/summary.json: driver"))
        elif driver:
            rows.append((f"driver ({rec.get('backend')})", driver, "*/summary.json: driver"))
        for lib, version in (rec.get("versions") or {}).items():
            rows.append((lib, str(version), "*/summary.json: versions"))
    for ptx in sorted(folder.glob("**/*.ptx")):
        with open(ptx, encoding="utf-8", errors="replace") as fh:
            found = _PTX_COMPILER.search(fh.read(2048))
        if found:
            rows.append(("CUDA compiler (NVRTC)", f"{found.group(1)} (V{found.group(2)})",
                         str(ptx.parent.relative_to(folder)) + "/*.ptx"))
    for meta in sorted(folder.glob("**/*.meta.json")):
        info = json.loads(meta.read_text())
        if info.get("tool_version"):
            rows.append((f"profiler ({info.get('tool', '?')})", str(info["tool_version"]),
                         str(meta.parent.relative_to(folder)) + "/*.meta.json"))
    table = pd.DataFrame(rows, columns=["what", "version", "where it is recorded"]).drop_duplicates()
    table = table.groupby(["what", "version"], sort=True, as_index=False)["where it is recorded"].agg(", ".join)
    return table.reset_index(drop=True)


def campaign_runs(machine: str):
    """One row per ``lassm run`` that wrote ``campaign.json`` (oldest first): when, what command, at
    which commit, how long, how many points it measured and how many it found recorded."""
    from ..runs.account import measured

    entries = mach.campaign_entries(machine)
    if not entries:
        return note("No `campaign.json`: this folder was not written by `lassm run`'s campaign.")
    rows = [{"run": i + 1, "created": e.get("created"), "command": e.get("command"),
             "commit": str(e.get("git_sha") or "")[:10], "seconds": e.get("seconds"),
             "points measured": sum(measured(r) for r in e.get("rows", [])),
             "points skipped": sum(not measured(r) for r in e.get("rows", []))} for i, e in enumerate(entries)]
    return pd.DataFrame(rows).set_index("run")


def whole_runs(machine: str):
    """The newest whole ``lassm run`` of the folder (``runs.json``) and the newest one from scratch
    (every part ran and measured, skipping nothing): per part its seconds and points, or why it was
    left out."""
    from .. import paths
    from ..campaign import runs_account

    entries = runs_account.read(paths.results_dir(machine))
    if not entries:
        return note("No `runs.json`: no whole `lassm run` wrote this folder since runs were accounted.")
    chosen = {"newest": entries[-1]}
    scratch = runs_account.from_scratch(entries)
    chosen["from scratch"] = scratch if scratch is not None else {}
    rows: list[dict[str, object]] = []
    for which, e in chosen.items():
        if not e:
            rows.append({"run": which, "created": "none in this folder"})
            continue
        row: dict[str, object] = {"run": which, "created": e.get("created"), "commit": str(e.get("git_sha") or "")[:10],
               "seconds": e.get("seconds")}
        for part, p in (e.get("parts") or {}).items():
            row[part] = (f"left out ({p['left_out']})" if "left_out" in p else
                         f"{p.get('seconds', 0):.0f} s: {p.get('measured', 0)} measured, {p.get('skipped', 0)} skipped")
        rows.append(row)
    return pd.DataFrame(rows).set_index("run")


def campaign_table(machine: str):
    """The campaign's points, each with its status, time and oracle check from the run that
    measured it and that run's number, commit and date (the newest account's steps' seconds where
    no entry lists a point), or a note that there is none."""
    entries = mach.campaign_entries(machine)
    if not entries:
        return note("No `campaign.json`: this folder was not written by `lassm run`'s campaign.")
    pts = mach.campaign_points(machine)
    if len(pts):
        pts["git_sha"] = pts["git_sha"].fillna("").astype(str).str[:10]
        pts["entry"] += 1  # the runs table's numbers
        return pts.rename(columns={"entry": "measured by run", "git_sha": "commit"})
    steps = pd.Series(entries[-1].get("steps", {}), name="seconds", dtype="float64")
    steps.index.name = "step"
    return steps.to_frame()


def campaign_fact(machine: str) -> str:
    """``mc_campaign``: the run(s) that measured the points shown, and how many other runs measured none."""
    entries = mach.campaign_entries(machine)
    if not entries:
        return "none: the folder predates the campaign"
    by = mach.campaign_points(machine)["entry"].dropna().astype(int)
    measuring = sorted(set(by)) or [len(entries) - 1]

    def phrase(e: dict) -> str:
        plan, steps = e.get("plan", {}), e.get("steps", {})
        repeats, warmup = plan.get("repeats"), plan.get("warmup")
        timed = count(int(repeats), "timed repeat") if isinstance(repeats, int) else "timed repeats"
        warm = count(int(warmup), "warm-up") if isinstance(warmup, int) else "a warm-up"
        return (f"{sum(float(v) for v in steps.values()):.0f} s over {count(len(steps), 'step')}, "
                f"{timed} after {warm} per point, at commit {str(e.get('git_sha', ''))[:10]}")

    if len(measuring) == 1:
        text = phrase(entries[measuring[0]])
    else:
        text = "; ".join(f"{count(int((by == i).sum()), 'point')} in {phrase(entries[i])}" for i in measuring)
    idle = len(entries) - len(measuring)
    if idle:
        text += f" ({count(idle, 'other run')} of `lassm run` measured none of these points)"
    return text


__all__ = ["campaign_fact", "campaign_runs", "campaign_table", "versions_table", "whole_runs"]

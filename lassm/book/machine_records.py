# SPDX-License-Identifier: BSD-3-Clause
"""How a machine's records were made: the versions they name and the ``lassm run`` that measured
each point, at which commit, shown beside the chapter's results (:mod:`lassm.book.machine_chapter`)."""
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
    """The driver, compiler, profiler and library versions the folder's records carry: ``what, version,
    where it is recorded``; empty where none."""
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


#: The clock each kind of run times a point's kernel on, as the sentences name it.
BENCH_RUN, CAMPAIGN_RUN, SIDE_RUN = "the `lassm bench` run", "the campaign (`lassm run`)", "the run beside `ht_loc`"
_CLOCKS = {BENCH_RUN: "CUDA events, median of its timed runs", CAMPAIGN_RUN: "CUDA events, median of its timed runs",
           SIDE_RUN: "Nsight Compute, every kernel of one lassm extend run"}


def point_runs(machine: str, dataset: str, k: int, backend: str, protocol: str) -> pd.DataFrame:
    """Every run of ``machine``'s records that timed one point: ``run`` (:data:`BENCH_RUN`,
    :data:`CAMPAIGN_RUN`, :data:`SIDE_RUN`), ``clock``, ``kernel_ms``, ``commit`` (7 characters).

    Runs differ in commit and clock, so their times differ; a page quoting one names which."""
    from ..errors import LassmError
    from ..runs import results

    rows = []
    try:
        bench = results.load_records(machine, benchmark=True)
    except LassmError:  # no benchmark record on this machine
        bench = pd.DataFrame(columns=["dataset", "k", "backend", "protocol", "kernel_seconds", "git_sha"])
    mine = bench[(bench["dataset"] == dataset) & (bench["k"].astype(int) == int(k)) & (bench["backend"] == backend)
                 & (bench["protocol"] == protocol)]
    rows += [(BENCH_RUN, float(r.kernel_seconds) * 1e3, r.git_sha) for r in mine.itertuples()]
    camp = mach.campaign_points(machine) if mach.campaign_entries(machine) else pd.DataFrame()
    if len(camp):
        camp = camp[(camp["dataset"] == dataset) & (camp["k"].astype(int) == int(k)) & (camp["backend"] == backend)
                    & (camp["protocol"] == protocol) & camp["kernel_seconds"].notna()]
        rows += [(CAMPAIGN_RUN, float(r.kernel_seconds) * 1e3, r.git_sha) for r in camp.itertuples()]
    side = results.against_original(machine) if (backend, protocol) == ("cuda", "fast") else None
    if side is not None:
        rows += [(SIDE_RUN, float(r.lassm_kernel_s) * 1e3, r.git_sha) for r in side.itertuples() if r.dataset == dataset]
    out = pd.DataFrame(rows, columns=["run", "kernel_ms", "commit"])
    out["commit"] = out["commit"].astype(str).str[:7]
    out.insert(1, "clock", out["run"].map(_CLOCKS))
    return out


def runs_sentence(runs: pd.DataFrame, shown: str) -> str:
    """The runs of :func:`point_runs` other than ``shown`` in words, each time with its run, commit
    and clock ("" where ``shown`` is the only one)."""
    other = runs[runs["run"] != shown]
    if other.empty:
        return ""
    each = "; ".join(f"{r.kernel_ms:.2f} ms in {r.run} at commit {r.commit} ({r.clock})" for r in other.itertuples())
    return f"The same point timed by other runs, each a build of its own commit on its own clock: {each}."


__all__ = ["BENCH_RUN", "CAMPAIGN_RUN", "SIDE_RUN", "campaign_fact", "campaign_runs", "campaign_table", "point_runs",
           "runs_sentence", "versions_table", "whole_runs"]

# SPDX-License-Identifier: BSD-3-Clause
"""``run_xdrop_campaign``: the X-drop plan's timings, then its counters, then ``xdrop/campaign.json``.

Per (set, X), every backend is timed and checked against the oracle on the same pairs, and the
group's rows replace the old ones in ``times.csv`` atomically; a group recorded at this commit is
skipped unless ``force``. Then one Nsight Compute run of ``lassm xdrop align --backend cuda``
per profiled (set, X), raw files beside ``counters.csv``; then ``campaign.json``."""
from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path

from .. import stderr
from .. import paths
from ..errors import LassmError
from ..runs import xdrop_records as rec
from ..runs.account import PART_ACCOUNTS
from ..runs.folders import run_folder
from ..runs.host import check_mine, host_id
from ..runs.records import command_line, cpu_model, git_sha
from ..workloads.xdrop.scoring import Scoring
from .outcome import PartOutcome, print_report
from .part import Ask, How, LeftOut, Part, Planned, Where, Work
from .xdrop_plan import CPU_BACKENDS, XdropPlan, present_backends


@dataclass
class XdropOutcome(PartOutcome):
    """What an X-drop campaign did: one status per (set, X, backend), the files, the steps' seconds."""

    machine: str = ""


def _device(backend: str, result) -> tuple[str, str]:
    """(device, driver) of a row: the GPU's as its backend reports it; the CPU model for the CPU backends."""
    if backend in CPU_BACKENDS:
        return cpu_model(), ""
    driver = ""
    try:
        from .. import backends as la

        if backend == "cuda":
            driver = str(la.get("cuda").device_info().get("driver", ""))
        elif backend == "opencl":
            driver = str(la.get("opencl")._device().device.driver_version)
    except Exception:  # a missing driver string is no reason to lose a measurement
        driver = ""
    return str(result.extra.device or ""), driver


def warm_up(plan: XdropPlan, backends: tuple[str, ...], scoring: Scoring) -> tuple[str, ...]:
    """Builds, on one pair, the code of each of ``backends`` that gets no untimed run of its own:
    numba's and SeqAn's, and a GPU backend's program where the plan gives it no warm-up (OpenCL
    on a CPU device, without a GPU), so that no timed run pays for a build. Returns those warmed."""
    from ..backends import xdrop as registry
    from ..workloads.xdrop.pairs import Pairs

    one = Pairs.from_lists([(b"ACGTACGTAC", 2, b"ACGTACGTAC", 2, 3)])
    chosen = tuple(b for b in backends if b in CPU_BACKENDS or plan.warmup == 0)
    for b in chosen:
        registry.get(b).align(one, scoring, threads=plan.threads)
    return chosen


@dataclass(frozen=True)
class Stamp:
    """What every ``times.csv`` row of one run records beside its measure: the machine folder, the
    commit and the command line."""

    machine: str
    sha: str
    command: str


def run_group(plan: XdropPlan, pairs, dataset: str, xdrop: int, *, stamp: Stamp, say=stderr.nothing,
              oracles: dict | None = None) -> list[dict]:
    """The ``times.csv`` rows (:data:`lassm.runs.xdrop_records.TIMES_COLUMNS`, each with ``stamp``) of every
    backend of ``plan`` timed on ``pairs`` at ``xdrop`` and checked against the oracle. ``oracles``
    caches oracle results by input digest and scheme, so a set's head that is a smaller set already
    run is not aligned again."""
    from ..backends import xdrop as registry
    from ..workloads.xdrop.pair_sets import head

    scoring = Scoring(*plan.scoring, xdrop=xdrop)
    backends = plan.backends_for(dataset)
    checked = min(plan.checked_pairs(dataset) or pairs.n_pairs, pairs.n_pairs)
    timings: dict[str, rec.Timing] = {}
    oracle = None
    oracles = {} if oracles is None else oracles
    if "cpu" in backends:
        timings["cpu"] = rec.time_backend(registry.get("cpu").align, pairs, scoring, threads=plan.threads,
                                          repeats=plan.cpu_repeats)
        oracle = timings["cpu"].result
        checked = pairs.n_pairs
        oracles[(rec.digest(pairs), scoring)] = oracle
    else:
        part = head(pairs, checked)
        key = (rec.digest(part), scoring)
        if key not in oracles:
            oracles[key] = registry.get("cpu").align(part, scoring, threads=plan.threads)
        oracle = oracles[key]
    for b in backends:
        if b in timings:
            continue
        cpu_side = b in CPU_BACKENDS
        timings[b] = rec.time_backend(registry.get(b).align, pairs, scoring, threads=plan.threads,
                                      repeats=plan.cpu_repeats if cpu_side else plan.repeats,
                                      warmup=0 if cpu_side else plan.warmup)
    cells = oracle.extra.cells if checked == pairs.n_pairs else next(
        (t.result.extra.cells for t in timings.values() if t.result.extra.cells is not None), None)
    rows = []
    for b in backends:
        t = timings[b]
        same = t.agree and not oracle.differences(rec.head_result(t.result, checked))
        device, driver = _device(b, t.result)
        seconds = t.median_seconds
        threads = t.result.extra.threads if t.result.extra.threads is not None else plan.threads
        rows.append({
            "machine": stamp.machine, "device": device, "driver": driver, "kernel": rec.KERNEL, "dataset": dataset,
            "n_pairs": pairs.n_pairs, "bases": rec.bases(pairs), "xdrop": xdrop, "scoring": rec.scoring_label(scoring),
            "backend": b, "threads": threads if b in CPU_BACKENDS else None,
            "seconds": seconds, "wall_seconds": t.median_wall,
            "repeats": len(t.seconds), "cells": cells, "gcups": rec.gcups(cells, seconds) if cells else None,
            "matches_oracle": same, "git_sha": stamp.sha, "command": stamp.command, "checked_pairs": checked,
            "layout": rec.layout_of(b, t.result.extra), "host": host_id(),
        })
        gc = rows[-1]["gcups"]
        say(f"{dataset} X={xdrop} {b}: {seconds:.4f} s" + (f", {gc:.2f} GCUPS" if gc else "")
            + ("" if same else f"  DIFFERS from the oracle on {checked} pairs"))
    return rows


def groups_todo(plan: XdropPlan, rows: list[dict], sha: str, force: bool) -> dict[str, list[int]]:
    """Per set, the X values whose group is not wholly recorded at ``sha`` by this host with a time
    (what a run measures)."""
    label = ",".join(map(str, plan.scoring))
    todo: dict[str, list[int]] = {}
    for d, x in plan.groups():
        done = all(rec.recorded(rows, sha, timed="seconds", dataset=d, xdrop=x, backend=b, scoring=label,
                                host=host_id())
                   for b in plan.backends_for(d))
        if force or not done:
            todo.setdefault(d, []).append(x)
    return todo


def run_xdrop_campaign(plan: XdropPlan, *, machine: str | None = None, force: bool = False, progress: bool = True,
                       log=None) -> XdropOutcome:
    """Measures this machine as ``plan`` says into ``data/results/<machine>/xdrop/`` and returns an
    :class:`XdropOutcome`. ``machine`` defaults to :func:`lassm.runs.folders.run_folder`'s;
    ``force`` measures recorded things again; ``progress`` shows a bar and writes lines to ``log``
    (default stderr)."""
    from ..runs.progress import bar as progress_bar

    with progress_bar(progress) as bar:
        return _run_xdrop_campaign(plan, bar, machine=machine, force=force, progress=progress, log=log)


def _run_xdrop_campaign(plan: XdropPlan, bar, *, machine: str | None, force: bool, progress: bool,
                        log) -> XdropOutcome:
    """:func:`run_xdrop_campaign` inside its progress display ``bar``."""
    from ..runs.progress import Step
    from ..workloads.xdrop import pair_sets

    say = log or stderr.sayer(progress)
    command = command_line()
    sha = git_sha()
    name = run_folder(plan.backends, machine)
    check_mine(paths.results_dir(name))
    out = XdropOutcome(machine=name)
    out.lacks = present_backends()[1] + list(plan.left_out)
    where = rec.folder(name)
    times = where / rec.TIMES_FILE
    start = time.perf_counter()
    existing = rec.read_rows(times, rec.TIMES_COLUMNS)
    todo = groups_todo(plan, existing, sha, force)
    shown = Step(bar, "X-drop", sum(len(plan.backends_for(d)) for d, _x in plan.groups()))
    busy = tuple(b for b in plan.backends if any(b in plan.backends_for(d) for d in todo))
    warm_up(plan, busy, Scoring(*plan.scoring))
    oracles: dict = {}
    stamp = Stamp(name, sha, command)
    for d in plan.datasets:
        for x in plan.xdrops:
            if x not in todo.get(d, []):
                out.rows += [{"dataset": d, "xdrop": x, "backend": b, "status": "skipped (recorded)"}
                             for b in plan.backends_for(d)]
                shown.advance(len(plan.backends_for(d)))
        if not todo.get(d):
            continue
        try:
            pairs = pair_sets.load(d)
        except LassmError as exc:
            out.lacks.append(f"{d}: not loaded: {exc}")
            out.rows += [{"dataset": d, "xdrop": x, "backend": b, "status": f"failed: {exc}"}
                         for x in todo[d] for b in plan.backends_for(d)]
            shown.advance(len(todo[d]) * len(plan.backends_for(d)))
            continue
        for x in todo[d]:
            try:
                got = run_group(plan, pairs, d, x, stamp=stamp, say=say, oracles=oracles)
            except Exception as exc:  # a group that cannot run is named; the others go on
                line = " ".join(str(exc).split())
                out.rows += [{"dataset": d, "xdrop": x, "backend": b, "status": f"failed: {type(exc).__name__}: {line}"}
                             for b in plan.backends_for(d)]
                say(f"{d} X={x}: failed: {line}")
                shown.advance(len(plan.backends_for(d)))
                continue
            rec.upsert(times, rec.TIMES_COLUMNS, rec.TIMES_KEY, got)
            out.rows += [{"dataset": d, "xdrop": x, "backend": r["backend"], "seconds": r["seconds"],
                          "matches_oracle": r["matches_oracle"],
                          "status": "ok" if r["matches_oracle"] else "MISMATCH"} for r in got]
            shown.advance(len(plan.backends_for(d)))
    shown.end()
    out.steps["times"] = round(time.perf_counter() - start, 3)
    out.files["times"] = times
    say(f"times: {out.steps['times']:.0f} s -> {times}")
    if plan.profiled():
        t0 = time.perf_counter()
        from . import xdrop_counters

        counting = Step(bar, "counters (X-drop)", len(plan.profiled()))
        out.lacks += xdrop_counters.collect(plan, name, sha=sha, force=force, say=say, tick=counting.advance)
        counting.end()
        out.steps["counters"] = round(time.perf_counter() - t0, 3)
        out.files["counters"] = where / rec.COUNTERS_FILE
        say(f"counters: {out.steps['counters']:.0f} s")
    elif plan.profile:
        out.lacks.append("counters: none: the counters step profiles the cuda backend, absent here")
    else:
        out.lacks.append("counters: not collected (--no-profile or --quick)")
    out.files["campaign"] = _write_account(plan, out, sha, command, time.perf_counter() - start)
    return out


def _write_account(plan: XdropPlan, out: XdropOutcome, sha: str, command: str, seconds: float) -> Path:
    """Appends this run's account (the plan, one row per point, steps, lacks) to ``xdrop/campaign.json``."""
    from ..runs.account import append_part

    return append_part(paths.results_dir(out.machine) / XdropPart.account, {"kernel": rec.KERNEL, "machine": out.machine, "plan": plan.as_dict()},
                       out, sha, command, seconds)


def report(out: XdropOutcome) -> None:
    """The final lines: one per point, then the files and what this machine lacks."""
    def line(r: dict) -> str:
        s = f"{r['seconds']:.4f} s" if isinstance(r.get("seconds"), float) else "-"
        return f"{r['dataset']:24s} X={r['xdrop']:<5d} {r['backend']:7s} {s:>12s}  {r['status']}"

    print_report(map(line, out.rows), out.files, out.lacks)


class XdropPart(Part[XdropPlan, XdropOutcome]):
    """The X-drop campaign as a part of ``lassm run`` (:mod:`lassm.campaign.part`)."""

    key, label, account = "xdrop", "X-drop", PART_ACCOUNTS["xdrop"]

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        from ..backends.xdrop import XDROP_BACKENDS

        if ask.datasets_of(xdrop=True) == []:
            return LeftOut("no X-drop set (xdrop-*, a pairs file) among --datasets")
        if ask.backends_among(XDROP_BACKENDS) == []:
            return LeftOut("no X-drop backend among --backends")
        return None

    def plan(self, ask: Ask, planned: Planned) -> XdropPlan | LeftOut:
        from ..backends.xdrop import XDROP_BACKENDS
        from .xdrop_plan import make_plan

        plan = make_plan(ask.of_part(XDROP_BACKENDS, xdrop=True))
        return plan if plan.backends else LeftOut("no X-drop backend can run here")

    def describe(self, plan: XdropPlan) -> str:
        from .xdrop_plan import describe

        return describe(plan)

    def work(self, plan: XdropPlan, where: Where) -> Work:
        """The (set, X, backend) of groups not recorded at ``where.sha``, weighed in pairs."""
        todo = groups_todo(plan, rec.read_rows(rec.folder(where.folder) / rec.TIMES_FILE, rec.TIMES_COLUMNS),
                           where.sha, where.force)
        rows = [(d, b) for d, xs in todo.items() for _x in xs for b in plan.backends_for(d)]
        total = sum(len(plan.backends_for(d)) for d, _x in plan.groups())
        return Work(len(rows), total, float(sum(plan.sizes.get(d, 1) or 1 for d, _b in rows)))

    def units(self, row: dict, plan: dict) -> float:
        """The row's set's pairs."""
        return float((plan.get("sizes") or {}).get(row.get("dataset"), 1) or 1)

    def run(self, plan: XdropPlan, how: How) -> XdropOutcome:
        return run_xdrop_campaign(plan, machine=how.machine, force=how.force, progress=how.progress)

    def report(self, outcome: XdropOutcome, say: Callable[[str], None]) -> None:
        report(outcome)


__all__ = ["Stamp", "XdropOutcome", "XdropPart", "report", "run_group", "run_xdrop_campaign", "warm_up"]

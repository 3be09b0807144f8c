# SPDX-License-Identifier: BSD-3-Clause
"""``run_campaign``: the plan's sweep, then counters, ceilings and metrics, then ``campaign.json``.

Resumable: every file is written atomically and skipped next time unless ``force``, so a killed
campaign loses only its current point. Each folder touched gets ``campaign.json``: the plan, a
row per point, each step's seconds, and ``lacks`` (what this machine could not measure)."""
from __future__ import annotations

import datetime as _dt
import json
import time
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import stderr
from .. import paths
from ..runs.repeat_rule import describe as describe_repeats
from ..runs.account import PART_ACCOUNTS
from ..runs.folders import folder_of
from ..runs.records import command_line, cpu_model, git_sha, run_id_for, versions
from . import steps
from .part import Ask, How, LeftOut, Part, Planned, Where, Work
from .assembly_plan import CPU_SKIPS_REPLICATED, NO_GPU_PROTOCOLS, Plan, is_gpu, present_backends

#: File name of a machine folder's campaign account.
CAMPAIGN_FILE = PART_ACCOUNTS["local-assembly"]
#: Keys of ``campaign.json`` (the machine chapters read them).
CAMPAIGN_KEYS: tuple[str, ...] = ("machine", "device", "driver", "plan", "rows", "steps", "lacks", "git_sha",
                                  "versions", "command", "created", "seconds", "host")
#: Keys of each row of ``campaign.json``.
ROW_KEYS: tuple[str, ...] = ("dataset", "k", "backend", "protocol", "status", "kernel_seconds", "matches_oracle",
                             "run_id", "shared_device")


@dataclass
class Outcome:
    """What a campaign did: its rows, and per machine folder what it lacks and where its account is."""

    rows: list[dict]
    lacks: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    steps: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def failed(self) -> list[dict]:
        """Rows that neither ran clean nor were recorded before."""
        return [r for r in self.rows if not (r["status"] == "ok" or r["status"].startswith("skipped"))]


def describe(plan: Plan) -> str:
    """The plan in a few lines, with its number of points (``lassm run --dry-run``)."""
    lines = [f"datasets  {', '.join(plan.datasets)}"]
    if plan.ks != (None,):
        lines.append(f"ks        {', '.join(map(str, plan.ks))}")
    for b in plan.backends:
        skipped = f" (not on {', '.join(plan.skip[b])})" if plan.skip.get(b) else ""
        lines.append(f"{b:9s} {', '.join(plan.protocols.get(b, ('none',)))}{skipped}")
        if b == "hip":
            lines += [f"          {line}" for line in _hip_lines(plan)]
    narrowed = [b for b in plan.backends if b in CPU_SKIPS_REPLICATED and not plan.gpu(b)
                and set(plan.protocols.get(b, ())) <= set(NO_GPU_PROTOCOLS)]
    if narrowed and not any(plan.gpu(b) for b in plan.backends):  # the rule of NO_GPU_PROTOCOLS
        lines.append(f"          no GPU: {' and '.join(narrowed)} time on the CPU device the two variants the "
                     f"chapters compare across machines ({', '.join(NO_GPU_PROTOCOLS)}); the other protocols "
                     f"with --protocols")
    lines.append(f"timing    {plan.warmup} warm-up + {describe_repeats(plan.repeats)} per point, each checked against "
                 f"the CPU oracle")
    profiled = sum(len(plan.profiled(b)) for b in plan.backends if plan.gpu(b))
    lines.append(f"steps     counters {'on ' + str(profiled) + ' GPU points' if plan.profile else 'off'}, "
                 f"ceilings {'on' if plan.ceilings else 'off'}, metrics where both exist")
    lines.append(f"{len(plan.points())} points")
    return "\n".join(lines)


def _hip_lines(plan: Plan) -> list[str]:
    """The dry run's lines under hip: the gfx target and wavefront it builds for, the check against
    hip-cpu before timing (:mod:`lassm.runs.hip_check`), and why a run leaves it out where it must."""
    from ..runs.hip_check import plan_line

    target = plan.targets.get("hip")
    lines = []
    if target:
        units = f", {target['compute_units']} compute units" if target.get("compute_units") else ""
        lines.append(f"builds for {target['arch']} ({target['device']}{units}), wavefront {target['wavefront']} "
                     f"(WARP_SIZE; from {target['source']})")
    else:
        lines.append("builds for the device's wavefront (WARP_SIZE), read when the run starts")
    lines.append(plan_line(plan.protocols.get("hip", ()), target["wavefront"] if target else None))
    if "hip" in plan.unrun:
        lines.append(f"cannot run here: {plan.unrun['hip']}; a run without --dry-run leaves hip out until CuPy "
                     f"for ROCm is installed (make venv installs the rocm extra where ROCm's release has a wheel: "
                     f"make extras)")
    return lines


def _summary(machine: str, row: dict) -> dict:
    """The recorded ``summary.json`` of a row's point, or ``{}``."""
    if row.get("k") is None:
        return {}
    path = paths.results_dir(machine) / run_id_for(row["dataset"], row["k"], row["backend"], row["protocol"]) / "summary.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _git_sha() -> str | None:
    """``LASSM_GIT_SHA``, else the checkout's commit, else None (a copy without ``.git``)."""
    sha = git_sha()
    return None if sha == "unknown" else sha


def run_campaign(plan: Plan, *, machine: str | None = None, force: bool = False, progress: bool = True,
                 notebooks: bool = False, cluster: str | None = None, log=None,
                 also_lacks: list[str] | tuple[str, ...] = ()) -> Outcome:
    """Measures this machine as ``plan`` says and returns an :class:`Outcome`; writes
    ``campaign.json`` in every folder touched.

    ``machine`` puts everything in one folder (default: each backend's device names its own);
    ``force`` measures recorded things again; ``progress`` shows a bar (:func:`lassm.runs.progress.bar`)
    and step lines to ``log`` (default stderr); ``notebooks``/``cluster`` run points through
    Papermill or Dask (:func:`lassm.runs.sweep.main_job`), once each; ``also_lacks`` adds the other
    parts' lines to every folder's ``lacks``."""
    from ..runs.progress import bar as progress_bar

    how = How(machine=machine, force=force, progress=progress, notebooks=notebooks, cluster=cluster,
              lacks=tuple(also_lacks))
    with progress_bar(progress) as bar:
        return _run_campaign(plan, bar, how, log)


def _run_campaign(plan: Plan, bar, how: How, log: Callable[[str], None] | None) -> Outcome:
    """:func:`run_campaign` inside its progress display ``bar``, as ``how`` says."""
    from ..runs.sweep import SweepOptions, Via, main_job

    machine, force, progress, also_lacks = how.machine, how.force, how.progress, how.lacks
    say = log or stderr.sayer(progress)
    command = command_line()
    start = time.perf_counter()
    rows = main_job(machine=machine, points=plan.points(),
                    options=SweepOptions(force=force, repeats=plan.repeats, warmup=plan.warmup),
                    via=Via(notebooks=how.notebooks, cluster=how.cluster), progress=progress, bar=bar)
    sweep_s = time.perf_counter() - start
    say(f"sweep: {len(rows)} points in {sweep_s:.0f} s")
    summaries: dict[int, dict] = {}
    for i, row in enumerate(rows):
        row.setdefault("machine", folder_of(row["backend"], machine))
        summaries[i] = _summary(row["machine"], row)
        row["kernel_seconds"] = summaries[i].get("kernel_seconds", row.get("kernel_seconds"))
        row["matches_oracle"] = summaries[i].get("matches_cpu")
        row["run_id"] = summaries[i].get("run_id")
        row["shared_device"] = bool(summaries[i].get("shared_device", False))  # older records: not shared
    _, absent = present_backends()
    folders = list(dict.fromkeys([folder_of(b, machine) for b in plan.backends] + [r["machine"] for r in rows]))
    outcome = Outcome(rows=rows)
    for folder in folders:
        lacks = list(absent) + list(also_lacks)
        timing = {"sweep": round(sweep_s, 3)}
        gpus = [b for b in plan.backends if folder_of(b, machine) == folder and is_gpu(b)]
        shared = FolderSteps(plan, folder, force, command, say, timing, bar)
        for i, backend in enumerate(gpus):  # ceilings and metrics are the folder's: once, after all counters
            lacks += _gpu_steps(shared, backend, machine_steps=gpus[0] if i == len(gpus) - 1 else None)
        if not gpus:
            lacks += steps.cpu_lacks()
        outcome.lacks[folder] = lacks
        outcome.steps[folder] = timing
        mine = [i for i, r in enumerate(rows) if r["machine"] == folder]
        outcome.files[folder] = _write(folder, plan, [rows[i] for i in mine], [summaries[i] for i in mine],
                                       timing, lacks, command, time.perf_counter() - start)
    return outcome


@dataclass(frozen=True)
class FolderSteps:
    """What the GPU steps of one machine folder share, backend after backend: the plan, the folder,
    whether what is recorded is measured again (``force``), the command line the ceilings record,
    where the step lines go (``say``), the steps' seconds (added to as they run) and the progress
    display (None: none shown)."""

    plan: Plan
    folder: str
    force: bool
    command: str
    say: Callable[[str], None]
    timing: dict
    bar: Any = None


def _gpu_steps(shared: FolderSteps, backend: str, machine_steps: str | None = "") -> list[str]:
    """Counters of one GPU backend, then, unless ``machine_steps`` is None, the folder's ceilings
    (through the backend it names, else the first GPU backend) and metrics, each a progress task;
    returns what it lacks."""
    from ..runs.progress import Step, bar as progress_bar

    plan, folder, force, command, say, timing = (shared.plan, shared.folder, shared.force, shared.command,
                                                 shared.say, shared.timing)
    bar = shared.bar if shared.bar is not None else progress_bar(False)
    roofs = machine_steps or backend
    lacks: list[str] = []
    profiled = plan.profiled(backend)
    todo = (
        ("counters", plan.profile, "counters: not collected (--no-profile or --quick)", len(profiled),
         lambda tick: steps.counters(backend, folder, profiled, force=force, tick=tick)),
        ("ceilings", plan.ceilings, "ceilings: not measured (--no-ceilings or --quick)", 1,
         lambda tick: steps.ceilings(roofs, folder, force=force, command=command)),
        ("metrics", True, "", 1, lambda tick: steps.metrics(folder)),
    )
    for name, enabled, why_not, total, step in todo if machine_steps is not None else todo[:1]:
        if not enabled:
            lacks.append(why_not)
            continue
        t0 = time.perf_counter()
        shown = Step(bar, f"{name} ({backend})", total) if name == "counters" else Step(bar, name, unit="step")
        said = step(shown.advance)
        shown.end()
        timing[name] = round(timing.get(name, 0) + time.perf_counter() - t0, 3)
        say(f"{name}: {'done' if not said else '; '.join(said)} ({timing[name]:.0f} s)")
        lacks += said
    return lacks


def _write(folder: str, plan: Plan, rows: list[dict], summaries: list[dict], timing: dict, lacks: list[str],
           command: str, seconds: float) -> Path:
    """Appends this run's account to ``data/results/<folder>/campaign.json`` (earlier runs' entries kept)."""
    from ..runs.account import append_entry

    first = next((s for s in summaries if s), {})
    found = {key: val for s in summaries for key, val in s.get("versions", {}).items()}
    account = {
        "machine": folder,
        "device": first.get("device") or cpu_model(),
        "driver": first.get("driver", ""),
        "plan": plan.as_dict(),
        "rows": [{key: r.get(key) for key in ROW_KEYS} for r in rows],
        "steps": timing,
        "lacks": lacks,
        "git_sha": _git_sha(),
        "versions": {**found, **versions(), **({"driver": first["driver"]} if first.get("driver") else {})},
        "command": command,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
    }
    return append_entry(paths.results_dir(folder) / CAMPAIGN_FILE, account)


def report(outcome: Outcome, console=None) -> None:
    """The final table (dataset, backend, protocol, ms, matches) and the ``lacks:`` lines."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console(stderr=True)
    table = Table(title="lassm run")
    for col in ("dataset", "k", "backend", "protocol", "ms", "matches", "status"):
        table.add_column(col, justify="right" if col in ("k", "ms") else "left")
    for r in outcome.rows:
        ms = f"{r['kernel_seconds'] * 1e3:.2f}" if isinstance(r.get("kernel_seconds"), (int, float)) else "-"
        if r.get("shared_device") and ms != "-":  # timed beside another process holding the device
            ms += " (shared)"
        match = {True: "yes", False: "NO", None: "-"}[r.get("matches_oracle")]
        table.add_row(r["dataset"], str(r["k"]), r["backend"], r["protocol"], ms, match, r["status"])
    console.print(table)
    for folder, lacks in outcome.lacks.items():
        console.print(f"{folder}: {outcome.files.get(folder, '')}", highlight=False, markup=False)
        if lacks:
            console.print("lacks:", highlight=False)
        for line in lacks:
            console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)


class LocalAssembly(Part[Plan, Outcome]):
    """The local-assembly campaign as a part of ``lassm run`` (:mod:`lassm.campaign.part`)."""

    key, label, account = "local-assembly", "local assembly", CAMPAIGN_FILE

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        from .. import backends

        if ask.datasets_of(xdrop=False) == []:
            return LeftOut("no local-assembly dataset among --datasets")
        if ask.backends_among(backends.BACKENDS) == []:
            return LeftOut("no local-assembly backend among --backends")
        return None

    def plan(self, ask: Ask, planned: Planned) -> Plan:
        from .. import backends
        from .assembly_plan import make_plan

        return make_plan(ask.of_part(backends.BACKENDS, xdrop=False))

    def describe(self, plan: Plan) -> str:
        return describe(plan)

    def work(self, plan: Plan, where: Where) -> Work:
        """The sweep's points not recorded in their folder (each backend's, unless ``--machine``),
        weighed in runs."""
        from ..runs.sweep import recorded, weight
        from ..workloads.local_assembly.datasets import named_k

        folders = {b: folder_of(b, where.machine, plan.targets, dry=True) for b in plan.backends}

        def done(d: str, k: int | None, b: str, p: str) -> bool:
            known = k or named_k(d)  # a file's k is inside it: its point counts as to measure
            if not known:
                return False
            return recorded(folders[b], d, known, b, p)

        points = plan.points()
        todo = [(d, k, b, p) for d, k, b, p in points if where.force or not done(d, k, b, p)]
        return Work(len(todo), len(points), sum(weight(d, plan.repeats, plan.warmup) for d, *_ in todo))

    def units(self, row: dict, plan: dict) -> float:
        """The sweep's runs of the row's point (a ``x20`` dataset's weighs 20, as the progress bar does)."""
        from ..runs.sweep import weight

        return weight(str(row.get("dataset", "")), int(plan.get("repeats") or 1), int(plan.get("warmup") or 0))

    def entry_units(self, entry: dict) -> float:
        """An entry's seconds cover its whole sweep, whose points may be filed in other folders (a
        GPU run's CPU points): there the plan's points count, in the share this folder's rows measured."""
        rows, plan = entry.get("rows") or [], entry.get("plan") or {}
        skip, protocols = plan.get("skip") or {}, plan.get("protocols") or {}
        every = [d for d in plan.get("datasets") or [] for _k in plan.get("ks") or [None]
                 for b in plan.get("backends") or [] if d not in skip.get(b, [])
                 for _p in protocols.get(b, ["none"])]  # as Plan.points
        if rows and len(every) > len(rows):
            done = sum(1 for r in rows if self.priced(r))
            return sum(self.units({"dataset": d}, plan) for d in every) * done / len(rows)
        return super().entry_units(entry)

    def run(self, plan: Plan, how: How) -> Outcome:
        return run_campaign(plan, machine=how.machine, force=how.force, progress=how.progress,
                            notebooks=how.notebooks, cluster=how.cluster, also_lacks=how.lacks)

    def report(self, outcome: Outcome, say: Callable[[str], None]) -> None:
        report(outcome)


__all__ = ["CAMPAIGN_FILE", "CAMPAIGN_KEYS", "LocalAssembly", "Outcome", "ROW_KEYS", "describe", "report",
           "run_campaign"]

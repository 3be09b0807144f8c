# SPDX-License-Identifier: BSD-3-Clause
"""How long each part of ``lassm run`` should take here, from the accounts of earlier runs (``--dry-run``).

Why: before giving a machine to ``lassm run`` one wants to know whether it takes a minute or an
hour. Each part's account (:data:`ACCOUNTS`) keeps, per run, its seconds and its rows, measured
or skipped. Seconds per unit of work, pooled over the runs that measured something, times the
units a run would measure now (a point already recorded is skipped, as the run itself decides:
:func:`lassm.runs.sweep.recorded`, :func:`lassm.campaign.xdrop_run.groups_todo`,
:func:`lassm.campaign.suite.todo`, :func:`lassm.campaign.originals.todo`) is the estimate. A unit
is a point, except where points differ much in cost: the sweep counts its runs (a ``x20``
dataset's point weighs 20 of them, as its progress bar does) and X-drop its pairs.

The accounts are the machine's own folder's where they measured something, else the nearest
device's, committed or under ``LASSM_RESULTS``: of the same kind (GPU, or CPU: ``cpu-*``), the
same model line first (an H200 without records takes the H100's). Nothing else is guessed: a
part no such account measured says so. Reading the accounts is all it does
(no kernel is built, no device asked more than the plan already did), so a dry run stays quick.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Sequence

#: Each part's account, in a machine's folder.
ACCOUNTS: dict[str, str] = {"local-assembly": "campaign.json", "xdrop": "xdrop/campaign.json",
                            "suite": "suite/campaign.json", "originals": "originals.json"}
#: First words of a GPU's folder name (a CPU's is ``cpu-<model>``).
GPU_WORDS = frozenset({"nvidia", "amd", "intel", "radeon", "instinct", "geforce", "tesla", "quadro", "apple", "gpu"})


@dataclasses.dataclass(frozen=True)
class Work:
    """What a run of one part would measure: its points, of the plan's total, and their units of work."""

    points: int
    total: int
    units: float


@dataclasses.dataclass(frozen=True)
class Rate:
    """The seconds and units of work of the runs of one account that measured something."""

    seconds: float
    units: float
    runs: int
    path: Path


@dataclasses.dataclass(frozen=True)
class Estimate:
    """One part's estimate: its work, the rate it is priced at (None: nothing to price it from)."""

    part: str
    work: Work
    rate: Rate | None
    own: bool = False
    kind: str = ""
    #: The machine's folder the run would write (``--machine``, else the device's).
    folder: str = ""

    @property
    def seconds(self) -> float | None:
        """Estimated seconds; 0 when every point is recorded; None without a rate."""
        if self.work.points == 0:
            return 0.0
        if self.rate is None:
            return None
        return self.rate.seconds / self.rate.units * self.work.units

    def line(self) -> str:
        """The ``estimate`` line of the part's block in ``lassm run --dry-run``."""
        if self.work.points == 0:
            return (f"estimate  nothing to measure: {self.work.total} of {self.work.total} points recorded here "
                    f"(--force measures them again)")
        if self.rate is None:
            return (f"estimate  none: neither {self.folder or 'this machine'}'s accounts nor another "
                    f"{self.kind or 'such'} device's measured this part")
        whose = "this machine's account" if self.own else "the nearest device's account"
        runs = f"{self.rate.runs} run{'s' if self.rate.runs != 1 else ''} that measured"
        return (f"estimate  about {duration(self.seconds)} for {self.work.points} of {self.work.total} points, "
                f"at the pace of {whose} {shown(self.rate.path)} ({duration(self.rate.seconds)} over {runs})")


def duration(seconds: float | None) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 05 min``."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 1:
        return "under 1 s"
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def shown(path: Path) -> str:
    """``path`` from the checkout's root where it is inside it (``data/results/...``), else whole."""
    from .. import paths

    try:
        return str(path.relative_to(paths.REPO))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- the accounts' rates


def measured(row: dict) -> bool:
    """A row whose point took the run's time: timed (ok or differing) or refused by the device."""
    status = str(row.get("status", ""))
    return status in ("ok", "MISMATCH") or status.startswith("refused")


def _plan_points(plan: dict) -> list[str]:
    """The datasets of a recorded local-assembly plan's points, one per point (as :meth:`Plan.points`)."""
    skip = plan.get("skip") or {}
    protocols = plan.get("protocols") or {}
    return [d for d in plan.get("datasets") or [] for _k in plan.get("ks") or [None]
            for b in plan.get("backends") or [] if d not in skip.get(b, [])
            for _p in protocols.get(b, ["none"])]


def row_units(part: str, row: dict, plan: dict) -> float:
    """A row's units of work: the sweep's runs of its point, X-drop's pairs, else 1."""
    if part == "local-assembly":
        from ..runs.sweep import weight

        return weight(str(row.get("dataset", "")), int(plan.get("repeats") or 1), int(plan.get("warmup") or 0))
    if part == "xdrop":
        return float((plan.get("sizes") or {}).get(row.get("dataset"), 1) or 1)
    return 1.0


def entry_units(part: str, entry: dict) -> float:
    """The units of work an account's entry measured. A local-assembly entry's seconds cover its
    whole sweep, whose points may be filed in other folders (a GPU run's CPU points): there the
    plan's points count, in the share this folder's rows measured."""
    rows = entry.get("rows") or []
    plan = entry.get("plan") or {}
    done = [r for r in rows if measured(r)]
    if part == "local-assembly" and rows:
        every = _plan_points(plan)
        if len(every) > len(rows):
            return sum(row_units(part, {"dataset": d}, plan) for d in every) * len(done) / len(rows)
    return sum(row_units(part, r, plan) for r in done)


def rate(part: str, folder: Path) -> Rate | None:
    """The part's rate in ``folder``: its account's entries that measured something, pooled; None
    where there are none (no account, or one whose runs found everything recorded)."""
    from ..runs.account import read_entries

    path = folder / ACCOUNTS[part]
    try:
        entries = read_entries(path)
    except Exception:  # noqa: BLE001  an unreadable account prices nothing; the run itself names it
        return None
    seconds = units = 0.0
    runs = 0
    for entry in entries:
        got = entry_units(part, entry)
        if got > 0 and isinstance(entry.get("seconds"), (int, float)):
            seconds, units, runs = seconds + float(entry["seconds"]), units + got, runs + 1
    return Rate(seconds, units, runs, path) if runs else None


# ---------------------------------------------------------------- the nearest device


def kind_of(name: str) -> str | None:
    """``cpu`` or ``gpu`` as a folder's name says it (``cpu-amd-epyc``, ``nvidia-h200``), else None."""
    words = name.lower().split("-")
    if "cpu" in words:
        return "cpu"
    return "gpu" if words[0] in GPU_WORDS or "gpu" in words else None


def _named_by_device(name: str) -> bool:
    """Whether a folder's name is a device's, as a run names it (``cpu-<model>``, ``<vendor>-<model>``)."""
    first = name.lower().split("-")[0]
    return first == "cpu" or first in GPU_WORDS


def candidates(target: str, device: str, kind: str, roots: Sequence[Path]) -> list[Path]:
    """The folders a part's rate is taken from, nearest first: ``target`` under the first root (the
    machine's own), then the folders of this machine's ``kind`` (``gpu`` or ``cpu``), the closest in
    name to ``target`` first, or to ``device`` (this machine's folder name) where ``target`` is no
    device's name of that kind (``--machine laptop``). Closest is the longest common start, so the
    same vendor and model line comes first: ``nvidia-h100-...`` for ``nvidia-h200``."""
    ref = target if _named_by_device(target) and kind_of(target) == kind else device
    found: list[tuple[int, Path]] = []
    for i, root in enumerate(roots):
        for folder in sorted(root.iterdir()) if root.is_dir() else ():
            if folder.is_dir() and kind_of(folder.name) == kind:
                found.append((i, folder))
    found.sort(key=lambda f: (-_common(f[1].name, ref), f[1].name, f[0]))
    own = roots[0] / target
    return [own] + [f for _i, f in found if f != own]


def _common(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def default_roots() -> list[Path]:
    """The results root (``LASSM_RESULTS`` or ``data/results``), then the committed folders."""
    from .. import paths

    roots = [paths.results_root(), paths.REPO / "data" / "results"]
    return list(dict.fromkeys(r.resolve() if r.exists() else r for r in roots))


# ---------------------------------------------------------------- what a run would measure


def _folder_of(backend: str, targets: dict[str, dict] | None = None) -> str:
    """The folder a run files ``backend``'s points under; a CUDA GPU's name from the driver already
    asked for the plan, without importing CuPy; the AMD GPU's name rocminfo gives where a dry run
    plans hip without its runtime (``targets``: :attr:`lassm.campaign.plan.Plan.targets`)."""
    from .. import paths
    from ..runs.records import default_machine, machine_for_backend

    try:
        if backend == "cuda" and not paths.env_machine():
            from ..backends import cudadrv

            return paths.slug(cudadrv.context().facts.name)
        return machine_for_backend(backend)
    except Exception:  # noqa: BLE001  a backend that cannot name its device: the CPU's folder
        target = (targets or {}).get(backend)
        return paths.slug(target["device"]) if target else default_machine()


def device(plan) -> tuple[str, str]:
    """(folder, kind) of this machine's device: the first GPU backend's among the plan's parts (the
    folder a whole run's ``runs.json`` goes to), else the CPU's, ``cpu``."""
    from .. import backends as la
    from ..runs.records import default_machine
    from .plan import is_gpu

    names = [*(plan.local.backends if plan.local is not None else ()),
             *(plan.xdrop.backends if plan.xdrop is not None else ()),
             *(plan.suite.backends if plan.suite is not None else ())]
    unrun = plan.local.unrun if plan.local is not None else {}
    for backend in dict.fromkeys(names):
        if backend in la.BACKENDS and backend != "cpu" and (is_gpu(backend) or backend in unrun):
            return _folder_of(backend, plan.local.targets if plan.local is not None else None), "gpu"
    return default_machine(), "cpu"


def local_work(plan, machine: str | None, force: bool) -> Work:
    """The sweep's points not recorded in their folder, weighed in runs."""
    from .. import paths
    from ..runs.sweep import recorded, weight
    from ..workloads.local_assembly.datasets import named_k

    folders = {b: paths.machine_slug(machine) if machine else _folder_of(b, plan.targets) for b in plan.backends}

    def done(d: str, k: int | None, b: str, p: str) -> bool:
        known = k or named_k(d)  # a file's k is inside it: its point counts as to measure
        return bool(known) and recorded(folders[b], d, known, b, p)

    points = plan.points()
    todo = [(d, k, b, p) for d, k, b, p in points if force or not done(d, k, b, p)]
    return Work(len(todo), len(points), sum(weight(d, plan.repeats, plan.warmup) for d, *_ in todo))


def xdrop_work(plan, folder: str, sha: str, force: bool) -> Work:
    """The (set, X, backend) of groups not recorded at ``sha``, weighed in pairs."""
    from ..runs import xdrop as rec
    from .xdrop_run import groups_todo

    todo = groups_todo(plan, rec.read_rows(rec.folder(folder) / rec.TIMES_FILE, rec.TIMES_COLUMNS), sha, force)
    rows = [(d, b) for d, xs in todo.items() for _x in xs for b in plan.backends_for(d)]
    total = sum(len(plan.backends_for(d)) for d, _x in plan.groups())
    return Work(len(rows), total, float(sum(plan.sizes.get(d, 1) or 1 for d, _b in rows)))


def suite_work(plan, folder: str, sha: str, force: bool) -> Work:
    """The variants without a row at ``sha``."""
    from . import suite

    todo = suite.todo(plan, {b: folder for b in plan.backends}, sha, force)
    return Work(len(todo), len(plan.points()), float(len(todo)))


def originals_work(plan, folder: str, sha: str, force: bool) -> Work:
    """The rows (one per program and input) not recorded at ``sha``."""
    from . import originals

    todo = originals.todo(plan, folder, sha, force)
    total = (2 * len(plan.ht_loc_datasets) + (2 * len(plan.xdrops) if plan.logan_dataset else 0)
             + len([k for k in plan.suite_kernels if k in _hecbench_programs()]))
    rows = sum(originals.ROWS_PER_ITEM[key] * len(items) for key, items in todo.items())
    return Work(rows, total, float(rows))


def _hecbench_programs() -> dict:
    from .originals.hecbench import PROGRAMS

    return PROGRAMS


def estimate_part(part: str, part_plan, *, target: str, device_name: str, kind: str, machine: str | None = None,
                  force: bool = False, roots: Sequence[Path] | None = None) -> Estimate:
    """One part's estimate: the work a run would do in ``target``'s folder (local assembly: each
    backend's, unless ``machine`` names one), priced by the nearest account that measured the
    part (:func:`candidates`)."""
    from ..runs.records import git_sha

    if part == "local-assembly":
        work = local_work(part_plan, machine, force)
    else:
        make = {"xdrop": xdrop_work, "suite": suite_work, "originals": originals_work}[part]
        work = make(part_plan, target, git_sha(), force)
    roots = list(roots) if roots is not None else default_roots()
    for i, folder in enumerate(candidates(target, device_name, kind, roots)):
        found = rate(part, folder)
        if found is not None:
            return Estimate(part, work, found, own=i == 0, kind=kind, folder=target)
    return Estimate(part, work, None, kind=kind, folder=target)


def estimate_whole(plan, *, machine: str | None = None, force: bool = False,
                   roots: Sequence[Path] | None = None) -> dict[str, Estimate]:
    """Each planned part's estimate (``plan``: :func:`lassm.campaign.whole.make_whole_plan`'s;
    ``machine``: ``--machine``, else the device names the folder)."""
    from .. import paths
    from .whole import PARTS, part_of

    name, kind = device(plan)
    target = paths.machine_slug(machine) if machine else name
    return {key: estimate_part(key, part_of(plan, key), target=target, device_name=name, kind=kind,
                               machine=machine, force=force, roots=roots)
            for key, _label in PARTS if part_of(plan, key) is not None}


def dry_run(plan, *, machine: str | None = None, force: bool = False,
            roots: Sequence[Path] | None = None) -> tuple[dict[str, str], str]:
    """What ``lassm run --dry-run`` adds to the plan: each part's ``estimate`` line, and the total
    (with how long a whole run from scratch took here, where ``runs.json`` says)."""
    from .. import paths
    from .whole import PARTS

    estimates = estimate_whole(plan, machine=machine, force=force, roots=roots)
    tail = [total_line(estimates, dict(PARTS))]
    folder = next(iter(estimates.values())).folder if estimates else ""
    scratch = from_scratch_line(paths.results_dir(folder)) if folder else None
    return {k: e.line() for k, e in estimates.items()}, "\n".join(tail + ([scratch] if scratch else []))


def total_line(estimates: dict[str, Estimate], labels: dict[str, str]) -> str:
    """``== estimated total: about ...`` with each part's share, and the parts nothing prices."""
    known = {k: e.seconds for k, e in estimates.items() if e.seconds is not None}
    unknown = [labels[k] for k, e in estimates.items() if e.seconds is None]
    if not known:
        return "== estimated total: none: no account to estimate from" if unknown else "== estimated total: no part runs"
    parts = ", ".join(f"{labels[k]} {duration(s)}" for k, s in known.items())
    rest = f"; not counted, nothing to estimate from: {', '.join(unknown)}" if unknown else ""
    return f"== estimated total: about {duration(sum(known.values()))} ({parts}{rest})"


def from_scratch_line(folder: Path) -> str | None:
    """How long a whole run from scratch took in ``folder`` (``runs.json``), where one did."""
    from . import runs_account

    try:
        whole = runs_account.from_scratch(runs_account.read(folder))
    except Exception:  # noqa: BLE001  an unreadable account says nothing here
        return None
    if whole is None:
        return None
    return (f"   a whole run from scratch took {duration(whole.get('seconds'))} here "
            f"({shown(folder / runs_account.RUNS_FILE)}, {str(whole.get('created', ''))[:10]})")


__all__ = ["ACCOUNTS", "Estimate", "Rate", "Work", "candidates", "default_roots", "device", "dry_run", "duration",
           "entry_units", "estimate_part", "estimate_whole", "from_scratch_line", "kind_of", "measured",
           "rate", "total_line"]

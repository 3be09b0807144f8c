# SPDX-License-Identifier: BSD-3-Clause
"""How long each part of ``lassm run`` should take here, from the accounts of past runs (``--dry-run``).

Estimate = seconds per unit of work, pooled over the runs of a part's account
(:attr:`lassm.campaign.part.Part.account`) that measured something, times the units a run would
measure now (:meth:`~lassm.campaign.part.Part.work`, recorded points skipped). A unit is a point,
a sweep run (an ``x20`` point weighs 20) or an X-drop pair (:meth:`~lassm.campaign.part.Part.units`).
Accounts are the machine's own where they measured something, else the nearest device's of the
same kind (:func:`candidates`); a part none measured says so. Only accounts are read, so a dry
run stays quick."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .part import PlanLike, Where, Work

if TYPE_CHECKING:  # whole imports every part; the estimate reads it only when asked
    from .whole import AnyPart, WholePlan

#: First words of a GPU's folder name (a CPU's is ``cpu-<model>``).
GPU_WORDS = frozenset({"nvidia", "amd", "intel", "radeon", "instinct", "geforce", "tesla", "quadro", "apple", "gpu"})


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


def entry_units(part: str, entry: dict) -> float:
    """The units of work an entry of part ``part``'s account measured
    (:meth:`lassm.campaign.part.Part.entry_units`)."""
    return _part(part).entry_units(entry)


def _part(key: str) -> AnyPart:
    from .whole import part

    return part(key)


def rate(part: str, folder: Path) -> Rate | None:
    """The part's rate in ``folder``: its account's entries that measured something, pooled; None
    where there are none (no account, or one whose runs found everything recorded)."""
    from ..runs.account import read_entries

    path = folder / _part(part).account
    try:
        entries = read_entries(path)
    except Exception:  # noqa: BLE001  an unreadable account prices nothing; the run itself names it
        return None
    seconds = units = 0.0
    runs = 0
    for entry in entries:
        got = _part(part).entry_units(entry)
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
    """The folders a part's rate is taken from, nearest first: ``target`` under the first root, then the
    folders of this ``kind`` (``gpu`` or ``cpu``) by longest common name start with ``target`` (or
    with ``device`` where ``target`` names no device of that kind, ``--machine laptop``), so
    ``nvidia-h100-...`` comes first for ``nvidia-h200``."""
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


def device(plan: WholePlan) -> tuple[str, str]:
    """(folder, kind) of this machine's device: the first GPU backend's among the plan's parts (the
    folder a whole run's ``runs.json`` goes to), else the CPU's, ``cpu``."""
    from .. import backends as la
    from ..runs.folders import folder_of
    from ..runs.records import default_machine
    from .assembly_plan import Plan, is_gpu

    local = plan.of("local-assembly", Plan)
    unrun = local.unrun if local is not None else {}
    for backend in plan.backends():
        if backend in la.BACKENDS and backend != "cpu" and (is_gpu(backend) or backend in unrun):
            return folder_of(backend, targets=local.targets if local is not None else None, dry=True), "gpu"
    return default_machine(), "cpu"


def estimate_part(part: str, part_plan: PlanLike, *, target: str, device_name: str, kind: str, machine: str | None = None,
                  force: bool = False, roots: Sequence[Path] | None = None) -> Estimate:
    """One part's estimate: the work a run would do in ``target``'s folder (local assembly: each
    backend's, unless ``machine`` names one), priced by the nearest account that measured the
    part (:func:`candidates`)."""
    from ..runs.records import git_sha

    work = _part(part).work(part_plan, Where(target, git_sha(), force, machine))
    roots = list(roots) if roots is not None else default_roots()
    for i, folder in enumerate(candidates(target, device_name, kind, roots)):
        found = rate(part, folder)
        if found is not None:
            return Estimate(part, work, found, own=i == 0, kind=kind, folder=target)
    return Estimate(part, work, None, kind=kind, folder=target)


def estimate_whole(plan: WholePlan, *, machine: str | None = None, force: bool = False,
                   roots: Sequence[Path] | None = None) -> dict[str, Estimate]:
    """Each planned part's estimate (``plan``: :func:`lassm.campaign.whole.make_whole_plan`'s;
    ``machine``: ``--machine``, else the device names the folder)."""
    from .. import paths

    name, kind = device(plan)
    target = paths.machine_slug(machine) if machine else name
    return {p.key: estimate_part(p.key, part_plan, target=target, device_name=name, kind=kind, machine=machine,
                                 force=force, roots=roots)
            for p, part_plan in plan.planned()}


def dry_run(plan: WholePlan, *, machine: str | None = None, force: bool = False,
            roots: Sequence[Path] | None = None) -> tuple[dict[str, str], str]:
    """What ``lassm run --dry-run`` adds to the plan: each part's ``estimate`` line and the total (with
    a whole from-scratch run's time here, where ``runs.json`` has one), then each folder written and
    whether it resumes or starts fresh, and why (:func:`lassm.runs.host.resume_line`)."""
    from .. import paths

    estimates = estimate_whole(plan, machine=machine, force=force, roots=roots)
    tail = [total_line(estimates, {p.key: p.label for p in plan.parts})]
    folder = next(iter(estimates.values())).folder if estimates else ""
    scratch = from_scratch_line(paths.results_dir(folder)) if folder else None
    tail += [scratch] if scratch else []
    tail += records_lines(plan, machine, [e.folder for e in estimates.values()])
    return {k: e.line() for k, e in estimates.items()}, "\n".join(tail)


def records_lines(plan: WholePlan, machine: str | None, folders: Sequence[str] = ()) -> list[str]:
    """Each folder a run of ``plan`` writes (``folders``, and each local-assembly backend's), with
    whether it resumes there or starts fresh, and why (:func:`lassm.runs.host.resume_line`)."""
    from ..runs.folders import folder_of
    from ..runs.host import resume_line
    from .assembly_plan import Plan

    local = plan.of("local-assembly", Plan)
    own = [folder_of(b, machine, local.targets, dry=True) for b in local.backends] if local is not None else []
    written = [*folders, *own]
    return [resume_line(name) for name in dict.fromkeys(written)]


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


__all__ = ["Estimate", "Rate", "candidates", "default_roots", "device", "dry_run", "duration", "entry_units",
           "estimate_part", "estimate_whole", "from_scratch_line", "kind_of", "rate", "total_line"]

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run`` without ``--kernel``: the whole study on this machine, a loop over its parts.

:data:`PARTS`, in run order: local assembly (:mod:`.assembly_plan`, :mod:`.assembly_run`), X-drop
(:mod:`.xdrop_plan`, :mod:`.xdrop_run`), Jin and Vetter's kernels (:mod:`.suite_part`), the original
programs (:mod:`.originals`, with a CUDA GPU and nvcc). ``--datasets`` goes to the part of each
name's kind (``xdrop-*`` and pairs files to X-drop, others to local assembly), and a part with
none named is left out (so is the suite); ``--backends`` keeps each part's named backends. A part
left out or unable to run is one line; the others go on."""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, TypeVar, overload

from ..runs.account import RUNS_ACCOUNT
from .originals import OriginalsPart
from .outcome import OutcomeLike
from .part import Ask, How, LeftOut, Part, PlanLike, plan_of
from .assembly_run import LocalAssembly
from .suite_part import SuitePart
from .xdrop_run import XdropPart

#: A part whatever its plan and outcome types: the loop holds parts of different types side by side,
#: and hands each part only the plan it made and the outcome it returned.
AnyPart = Part[Any, Any]
_KindT = TypeVar("_KindT")

#: The parts of ``lassm run``, in run order: a fifth kernel family is one more line here. Every
#: reader takes the list when it is called (``--kernel``'s names, the plan, the accounts the
#: pre-run check reads), never a copy made at import.
PARTS: tuple[AnyPart, ...] = (LocalAssembly(), XdropPart(), SuitePart(), OriginalsPart())


def part(key: str) -> AnyPart:
    """The part named ``key`` (``--kernel``'s name)."""
    for p in PARTS:
        if p.key == key:
            return p
    raise KeyError(key)


def accounts(parts: tuple[AnyPart, ...] | None = None) -> tuple[str, ...]:
    """Every account file a run of ``parts`` (default: :data:`PARTS`) appends to, relative to a
    machine's folder: each part's own, then the whole run's ``runs.json``."""
    return tuple(dict.fromkeys([*(p.account for p in (PARTS if parts is None else parts)), RUNS_ACCOUNT]))


@dataclasses.dataclass
class WholePlan:
    """The plans of the parts that run, by key in run order; a part that does not run has a line
    in ``left_out``. ``lacks``: lines for the local-assembly account (why the originals cannot run)."""

    plans: dict[str, PlanLike]
    left_out: dict[str, str] = dataclasses.field(default_factory=dict)
    lacks: list[str] = dataclasses.field(default_factory=list)
    parts: tuple[AnyPart, ...] = dataclasses.field(default_factory=lambda: PARTS)

    @overload
    def of(self, key: str) -> PlanLike | None: ...

    @overload
    def of(self, key: str, kind: type[_KindT]) -> _KindT | None: ...

    def of(self, key: str, kind: type[object] = object) -> object | None:
        """The plan of part ``key`` (where it is a ``kind``), None where it is left out."""
        return plan_of(self.plans, key, kind)

    def only(self, key: str) -> None:
        """Leaves every part but ``key`` out, as ``--kernel <key>`` asks."""
        for p in self.parts:
            if p.key != key:
                self.plans.pop(p.key, None)
                self.left_out[p.key] = f"--kernel {key}"

    def planned(self) -> list[tuple[AnyPart, PlanLike]]:
        """(part, its plan) of each part that runs, in run order."""
        return [(p, self.plans[p.key]) for p in self.parts if p.key in self.plans]

    def backends(self) -> list[str]:
        """Every backend the planned parts run, once each, in run order."""
        return list(dict.fromkeys(b for p, plan in self.planned() for b in p.backends(plan)))


def make_whole_plan(ask: Ask, parts: tuple[AnyPart, ...] | None = None) -> WholePlan:
    """Each part of ``parts`` (default: :data:`PARTS`) planned, in order (a part may build on the
    plans before it, as the originals do), or why it is left out
    (:meth:`lassm.campaign.part.Part.needs`, :meth:`~lassm.campaign.part.Part.plan`)."""
    parts = PARTS if parts is None else parts
    out = WholePlan({}, parts=parts)
    for p in parts:
        got: PlanLike | LeftOut | None = p.needs(ask, dict(out.plans))
        if got is None:
            got = p.plan(ask, dict(out.plans))
        if isinstance(got, LeftOut):
            out.left_out[p.key] = got.reason
            out.lacks += got.lacks
        else:
            out.plans[p.key] = got
    return out


def describe_whole(plan: WholePlan, notes: dict[str, str] | None = None) -> str:
    """Each part's plan under its heading (``lassm run --dry-run``), or why it is left out; ``notes``
    adds a line under a planned part's block (its estimated time, :mod:`.estimate`)."""
    blocks = []
    for p in plan.parts:
        if p.key not in plan.plans:
            blocks.append(f"== {p.label}: left out: {plan.left_out.get(p.key, 'not planned')}")
            continue
        note = (notes or {}).get(p.key)
        blocks.append(f"== {p.label}\n{p.describe(plan.plans[p.key])}" + (f"\n{note}" if note else ""))
    return "\n\n".join(blocks)


@dataclasses.dataclass
class WholeOutcome:
    """Each part's outcome, by key (the parts that ran), and their seconds."""

    outcomes: dict[str, OutcomeLike] = dataclasses.field(default_factory=dict)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def failed(self) -> list[dict]:
        """Every part's failed rows."""
        return [r for outcome in self.outcomes.values() for r in outcome.failed]


def run_whole(plan: WholePlan, how: How = How()) -> WholeOutcome:
    """Runs the planned parts in order, then appends the run's entry to ``runs.json``. A part may
    start work while the part before it runs (:meth:`lassm.campaign.part.Part.behind`: the
    originals' builds while the suite is timed)."""
    how = dataclasses.replace(how, lacks=(*how.lacks, *plan.lacks))
    out = WholeOutcome()
    start = time.perf_counter()
    behind: dict[str, threading.Thread | None] = {}
    for i, p in enumerate(plan.parts):
        if p.key not in plan.plans:
            how.say(f"== {p.label}: left out: {plan.left_out.get(p.key, '')}")
            continue
        following = plan.parts[i + 1] if i + 1 < len(plan.parts) else None
        if following is not None and following.key in plan.plans:
            behind[following.key] = following.behind(plan.plans[following.key])
        waiting = behind.get(p.key)
        if waiting is not None:
            waiting.join()
        how.say(f"== {p.label}")
        t0 = time.perf_counter()
        out.outcomes[p.key] = p.run(plan.plans[p.key], how)
        p.report(out.outcomes[p.key], how.say)
        out.seconds[p.key] = round(time.perf_counter() - t0, 3)
        how.say(f"== {p.label}: {out.seconds[p.key]:.0f} s")
    _account(plan, out, how.machine, time.perf_counter() - start)
    return out


def _account(plan: WholePlan, out: WholeOutcome, machine: str | None, seconds: float) -> None:
    """Appends the run's entry to ``runs.json`` of the run's folder (:func:`lassm.runs.folders.run_folder`)."""
    from .. import paths
    from ..runs.folders import run_folder
    from ..runs.records import command_line, git_sha
    from . import runs_account

    parts = {p.key: p.entry(out.outcomes[p.key], out.seconds.get(p.key, 0.0)) if p.key in out.outcomes
             else {"left_out": plan.left_out.get(p.key, "")} for p in plan.parts}
    folder = paths.results_dir(run_folder(plan.backends(), machine))
    runs_account.append(folder, runs_account.entry(parts, total=seconds, sha=git_sha(), command=command_line()))


__all__ = ["AnyPart", "PARTS", "WholeOutcome", "WholePlan", "accounts", "describe_whole", "make_whole_plan", "part",
           "run_whole"]

# SPDX-License-Identifier: BSD-3-Clause
"""What ``lassm run`` asks of each of its parts: one small interface, so that the main job is a loop.

Each part is a :class:`Part`, listed in run order in :data:`lassm.campaign.whole.PARTS`; a new
kernel family is one module and one line there."""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Generic, Protocol, TypeVar

from .. import stderr
from ..runs.account import status_kind
from .outcome import OutcomeLike


class PlanLike(Protocol):
    """What every part's plan is: a frozen dataclass that its account stores as a dict."""

    def as_dict(self) -> dict:
        """The plan as the part's account stores it."""
        ...


#: A part's plan (a frozen dataclass of its own: :class:`lassm.campaign.assembly_plan.Plan`, ...).
PlanT = TypeVar("PlanT", bound=PlanLike)
#: A part's outcome (a dataclass of its own, with ``rows`` and ``failed``).
OutcomeT = TypeVar("OutcomeT", bound=OutcomeLike)
#: Any plan type, for :func:`plan_of`.
KindT = TypeVar("KindT")
#: The plans of the parts planned so far, by key (what :meth:`Part.needs` and :meth:`Part.plan` read).
Planned = Mapping[str, PlanLike]


def plan_of(planned: Planned, key: str, kind: type[KindT]) -> KindT | None:
    """The plan of part ``key`` among ``planned``, where it is a ``kind`` (None where that part is not planned)."""
    got = planned.get(key)
    return got if isinstance(got, kind) else None


@dataclasses.dataclass(frozen=True)
class Ask:
    """``lassm run``'s options, as every part reads them; None where an option was not given.

    ``datasets`` go to the part whose kind each name is (``xdrop-*`` and pairs files to X-drop, the others to
    local assembly: :meth:`datasets_of`); ``backends`` keeps, in each part, the names it has
    (:meth:`backends_among`); ``dry`` is ``--dry-run``."""

    quick: bool = False
    backends: Sequence[str] | None = None
    datasets: Sequence[str] | None = None
    protocols: Sequence[str] | None = None
    ks: Sequence[int] | None = None
    xdrops: Sequence[int] | None = None
    repeats: int | None = None
    warmup: int | None = None
    profile: bool = True
    ceilings: bool = True
    originals: bool = True
    originals_folder: str | None = None
    all_counters: bool = False
    dry: bool = False

    def datasets_of(self, xdrop: bool) -> list[str] | None:
        """``--datasets``' X-drop sets (``xdrop``) or local-assembly datasets; None where none were named."""
        from ..workloads.xdrop.pair_sets import is_xdrop

        if not self.datasets:
            return None
        return [d for d in self.datasets if is_xdrop(d) == xdrop]

    def backends_among(self, names: Iterable[str]) -> list[str] | None:
        """``--backends``' names that are among ``names`` (a part's backends); None where none were named."""
        if self.backends is None:
            return None
        have = set(names)
        return [b for b in self.backends if b in have]

    def of_part(self, names: Iterable[str], xdrop: bool) -> Ask:
        """These options as one part's plan reads them: ``--backends`` among its ``names``
        (:meth:`backends_among`), ``--datasets`` of its kind (:meth:`datasets_of`)."""
        return dataclasses.replace(self, backends=self.backends_among(names), datasets=self.datasets_of(xdrop))


@dataclasses.dataclass(frozen=True)
class How:
    """How the planned parts run: ``lassm run``'s options after the plan.

    ``machine`` is ``--machine`` (one folder for everything); ``notebooks`` and ``cluster`` run the
    local-assembly points another way; ``lacks`` are lines every local-assembly account adds (why
    the original programs cannot run here)."""

    machine: str | None = None
    force: bool = False
    progress: bool = True
    notebooks: bool = False
    cluster: str | None = None
    lacks: tuple[str, ...] = ()

    def say(self, text: str) -> None:
        """One line on standard error, where ``progress``."""
        if self.progress:
            stderr.line(text)


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """Why a part does not run (its one line in ``--dry-run`` and ``runs.json``), and lines for
    the local-assembly account's ``lacks``."""

    reason: str
    lacks: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Work:
    """What a run of one part would measure: its points, of the plan's total, and their units of work."""

    points: int
    total: int
    units: float


@dataclasses.dataclass(frozen=True)
class Where:
    """Where an estimated run would write, as :meth:`Part.work` reads it: ``folder`` (the run's),
    ``sha`` (the commit it records at), ``force`` and ``--machine``."""

    folder: str
    sha: str
    force: bool = False
    machine: str | None = None


class Part(Generic[PlanT, OutcomeT]):
    """One part of ``lassm run``, generic over its plan and outcome dataclasses
    (``class LocalAssembly(Part[Plan, Outcome])``). A subclass sets :attr:`key`, :attr:`label`,
    :attr:`account` and answers :meth:`needs`, :meth:`plan`, :meth:`describe`, :meth:`backends`,
    :meth:`work`, :meth:`run`, :meth:`report` and :meth:`entry`."""

    #: Its name on the command line (``--kernel``) and in ``runs.json``.
    key: str = ""
    #: Its heading in ``--dry-run`` and the progress lines.
    label: str = ""
    #: Its own account file, relative to the machine's folder (the four parts':
    #: :data:`lassm.runs.account.PART_ACCOUNTS`); the pre-run check reads it before any work.
    account: str = ""

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        """Why the options (or this machine) leave the part out before it is planned, else None.
        ``planned``: the plans of the parts before it, by key."""
        return None

    def plan(self, ask: Ask, planned: Planned) -> PlanT | LeftOut:
        """The part's plan, or a :class:`LeftOut` where it comes out empty (no backend here)."""
        raise NotImplementedError

    def describe(self, plan: PlanT) -> str:
        """The plan's block in ``--dry-run``."""
        raise NotImplementedError

    def backends(self, plan: PlanT) -> tuple[str, ...]:
        """The backends the plan runs: they name the machine folders the run writes
        (:func:`lassm.runs.folders.machine_folders`)."""
        return tuple(getattr(plan, "backends", ()))

    def work(self, plan: PlanT, where: Where) -> Work:
        """What a run would measure now (what is recorded is skipped), for ``--dry-run``'s estimate."""
        raise NotImplementedError

    def units(self, row: dict, plan: dict) -> float:
        """The units of work of a row of the part's account (``plan``: that entry's plan): 1 a point."""
        return 1.0

    @staticmethod
    def priced(row: dict) -> bool:
        """A row whose point took the run's time: timed (ok or differing) or refused by the device."""
        return status_kind(row) in ("timed", "refused")

    def entry_units(self, entry: dict) -> float:
        """The units of work an entry of the part's account measured (its rows that took time)."""
        plan = entry.get("plan") or {}
        return sum(self.units(r, plan) for r in entry.get("rows") or [] if self.priced(r))

    def behind(self, plan: PlanT) -> threading.Thread | None:
        """Work to start in the background while the part before it runs (a thread, joined before
        this part runs), or None."""
        return None

    def run(self, plan: PlanT, how: How) -> OutcomeT:
        """Runs the plan; returns its outcome (``rows`` with a ``status`` each, ``failed``)."""
        raise NotImplementedError

    def report(self, outcome: OutcomeT, say: Callable[[str], None]) -> None:
        """The outcome's table after the run."""

    def entry(self, outcome: OutcomeT, seconds: float) -> dict:
        """The part's entry in the whole run's ``runs.json``: its seconds and its rows' counts."""
        from .runs_account import counts

        return {"seconds": round(float(seconds), 3), **counts(outcome)}


__all__ = ["Ask", "How", "LeftOut", "OutcomeT", "Part", "PlanLike", "PlanT", "Planned", "Where", "Work", "plan_of"]

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run`` without ``--kernel``: the whole study on this machine, in four parts, one after the other.

1. the local-assembly campaign (:mod:`.plan`, :mod:`.run`);
2. the X-drop campaign (:mod:`.xdrop_plan`, :mod:`.xdrop_run`);
3. Jin and Vetter's five kernels on CUDA and OpenCL (:mod:`.suite`);
4. the original programs beside ours (:mod:`.originals`), where a CUDA GPU and nvcc are here.

The options name what they narrow: ``--datasets`` goes to the part whose kind each name is
(``xdrop-*`` names to X-drop, the others to local assembly), and a part none of whose datasets
is named is left out (the suite has none: ``--datasets`` leaves it out); ``--backends`` keeps,
in each part, the backends it names that the part has. A part that is left out, or cannot run here, is one line, and the others go on.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from . import originals as orig
from . import plan as local
from . import suite as suite_plan
from . import xdrop_plan

#: The parts in run order, with the label ``--dry-run`` prints.
PARTS: tuple[tuple[str, str], ...] = (("local-assembly", "local assembly"), ("xdrop", "X-drop"),
                                      ("suite", "Jin and Vetter's kernels"), ("originals", "the original programs"))
#: The plan's and the outcome's attribute of each part.
_FIELD = {"local-assembly": "local", "xdrop": "xdrop", "suite": "suite", "originals": "originals"}


@dataclass
class WholePlan:
    """The three parts' plans; a part that does not run has None and a line in ``left_out``."""

    local: local.Plan | None
    xdrop: xdrop_plan.XdropPlan | None
    originals: orig.OriginalsPlan | None
    left_out: dict[str, str] = field(default_factory=dict)
    suite: suite_plan.SuitePlan | None = None
    #: Lines for the local-assembly account's ``lacks``: why the originals cannot run here.
    lacks: list[str] = field(default_factory=list)

    def only(self, part: str) -> None:
        """Leaves every part but ``part`` (a key of :data:`PARTS`) out, as ``--kernel <part>`` asks."""
        for key, _label in PARTS:
            if key != part:
                setattr(self, _FIELD[key], None)
                self.left_out[key] = f"--kernel {part}"


def part_of(plan: WholePlan, key: str):
    """The plan of part ``key`` (a key of :data:`PARTS`), None where it is left out."""
    return getattr(plan, _FIELD[key])


def split_backends(names: list[str] | None) -> tuple[list[str] | None, list[str] | None]:
    """``--backends`` as (local assembly's, X-drop's): each part keeps the names it has; None where none was given."""
    if names is None:
        return None, None
    from .. import backends
    from ..backends.xdrop import XDROP_BACKENDS

    return [n for n in names if n in backends.BACKENDS], [n for n in names if n in XDROP_BACKENDS]


def make_whole_plan(quick: bool = False, *, backends: list[str] | None = None, datasets: list[str] | None = None,
                    protocols: list[str] | None = None, ks: list[int] | None = None, xdrops: list[int] | None = None,
                    repeats: int | None = None, warmup: int | None = None, profile: bool = True,
                    ceilings: bool = True, originals: bool = True, originals_folder: str | None = None,
                    all_counters: bool = False, dry: bool = False) -> WholePlan:
    """The four parts for this machine; the arguments are ``lassm run``'s (see the module's rules);
    ``dry``: for ``--dry-run`` (:func:`lassm.campaign.plan.make_plan`'s)."""
    la_backends, xd_backends = split_backends(backends)
    la_sets = [d for d in datasets if not d.startswith("xdrop-")] if datasets else None
    xd_sets = [d for d in datasets if d.startswith("xdrop-")] if datasets else None
    left: dict[str, str] = {}
    la = xd = None
    if la_sets == [] or la_backends == []:
        left["local-assembly"] = ("no local-assembly dataset among --datasets" if la_sets == []
                                  else "no local-assembly backend among --backends")
    else:
        la = local.make_plan(quick, backends=la_backends, datasets=la_sets, protocols=protocols, ks=ks,
                             repeats=repeats, warmup=warmup, profile=profile, ceilings=ceilings, dry=dry)
    if xd_sets == [] or xd_backends == []:
        left["xdrop"] = ("no X-drop set (xdrop-*) among --datasets" if xd_sets == []
                         else "no X-drop backend among --backends")
    else:
        xd = xdrop_plan.make_plan(quick, backends=xd_backends, datasets=xd_sets, xdrops=xdrops, repeats=repeats,
                                  warmup=warmup, profile=profile)
        if not xd.backends:
            left["xdrop"], xd = "no X-drop backend can run here", None
    su = None
    su_backends = [b for b in backends if b in ("cuda", "opencl")] if backends is not None else None
    if datasets:
        left["suite"] = "--datasets names no suite kernel"
    elif su_backends == []:
        left["suite"] = "no suite backend (cuda, opencl) among --backends"
    else:
        su = suite_plan.make_plan(quick, backends=su_backends, repeats=repeats, warmup=warmup,
                                  all_counters=all_counters)
        if not su.backends:
            left["suite"], su = "no suite backend (cuda, opencl) can run here", None
    og = None
    blocked = orig.blocked() if originals and (la is not None or xd is not None or su is not None) else []
    if not originals:
        left["originals"] = "left out (--no-originals)"
    elif la is None and xd is None and su is None:
        left["originals"] = "left out: no kernel's part runs"
    elif blocked:
        left["originals"] = "cannot run here: " + "; ".join(line.split("not run: ", 1)[-1] for line in blocked)
    else:
        from .originals import ht_loc, logan

        chosen = la.datasets if la is not None and la_sets else tuple(
            d for d in (la.datasets if la is not None else ()) if d in ht_loc.DATASETS)
        target = None
        if xd is not None:
            target = logan.DATASET if logan.DATASET in xd.datasets and not xd_sets else (
                max(xd.datasets, key=lambda d: xd.sizes.get(d, 0)) if xd.datasets else None)
        og = orig.OriginalsPlan(ht_loc_datasets=tuple(chosen), logan_dataset=target,
                                xdrops=xd.xdrops if xd is not None else (), profile=profile and not quick,
                                folder=originals_folder, suite_kernels=su.kernels if su is not None else ())
    return WholePlan(la, xd, og, left, lacks=blocked, suite=su)


def describe_whole(plan: WholePlan, notes: dict[str, str] | None = None) -> str:
    """Each part's plan under its heading (``lassm run --dry-run``), or why it is left out; ``notes``
    adds a line under a planned part's block (its estimated time, :mod:`.estimate`)."""
    from .run import describe

    blocks = []
    for key, label in PARTS:
        part = getattr(plan, _FIELD[key])
        if part is None:
            blocks.append(f"== {label}: left out: {plan.left_out.get(key, 'not planned')}")
            continue
        if key == "local-assembly":
            text = describe(part)
        elif key == "xdrop":
            text = xdrop_plan.describe(part)
        elif key == "suite":
            text = suite_plan.describe(part)
        else:
            text = orig.describe(part)
        note = (notes or {}).get(key)
        blocks.append(f"== {label}\n{text}" + (f"\n{note}" if note else ""))
    return "\n\n".join(blocks)


@dataclass
class WholeOutcome:
    """Each part's outcome (None where it did not run) and their seconds."""

    local: object | None = None
    xdrop: object | None = None
    originals: orig.OriginalsOutcome | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    suite: suite_plan.SuiteOutcome | None = None

    @property
    def failed(self) -> list[dict]:
        """Every part's failed rows."""
        return [r for part in (self.local, self.xdrop, self.suite, self.originals) if part is not None
                for r in part.failed]


def run_whole(plan: WholePlan, *, machine: str | None = None, force: bool = False, progress: bool = True,
              notebooks: bool = False, cluster: str | None = None) -> WholeOutcome:
    """Runs the planned parts in order; a part that raises is named and the next one still runs."""
    from .run import report, run_campaign
    from .xdrop_run import report as xdrop_report, run_xdrop_campaign

    say = (lambda text: print(text, file=sys.stderr, flush=True)) if progress else (lambda text: None)
    out = WholeOutcome()
    start = time.perf_counter()
    building = None  # the originals' programs, built while the suite is timed (orig.build_behind)
    for key, label in PARTS:
        part = getattr(plan, _FIELD[key])
        if part is None:
            say(f"== {label}: left out: {plan.left_out.get(key, '')}")
            continue
        if key == "suite" and plan.originals is not None:
            building = orig.build_behind(plan.originals)
        if key == "originals" and building is not None:
            building.join()
        say(f"== {label}")
        t0 = time.perf_counter()
        if key == "local-assembly":
            out.local = run_campaign(part, machine=machine, force=force, progress=progress, notebooks=notebooks,
                                     cluster=cluster, also_lacks=plan.lacks)
            report(out.local)
        elif key == "xdrop":
            out.xdrop = run_xdrop_campaign(part, machine=machine, force=force, progress=progress)
            xdrop_report(out.xdrop)
        elif key == "suite":
            out.suite = suite_plan.run_suite(part, machine=machine, force=force, say=say, progress=progress)
            suite_plan.report(out.suite)
        else:
            out.originals = orig.run_originals(part, machine=machine, force=force, say=say, progress=progress)
            orig.report(out.originals)
            for line in out.originals.lacks:
                say(f"  {line}")
        out.seconds[key] = round(time.perf_counter() - t0, 3)
        say(f"== {label}: {out.seconds[key]:.0f} s")
    _account(plan, out, machine, time.perf_counter() - start)
    return out


def _account(plan: WholePlan, out: WholeOutcome, machine: str | None, seconds: float) -> None:
    """Appends the run's entry to ``runs.json`` of the machine's folder (the GPU's, as the
    local-assembly part names it, else the CPU's)."""
    from .. import paths
    from ..runs.records import command_line, default_machine, git_sha, machine_for_backend
    from . import runs_account

    if machine:
        name = paths.machine_slug(machine)
    else:
        gpus = [b for b in (plan.local.backends if plan.local is not None else ()) if b != "cpu"]
        try:
            name = machine_for_backend(gpus[0]) if gpus else default_machine()
        except Exception:  # noqa: BLE001 - a backend that cannot name its device: the CPU's folder
            name = default_machine()
    parts = {key: getattr(out, _FIELD[key]) for key, _label in PARTS}
    runs_account.append(paths.results_dir(name), runs_account.entry(
        parts, out.seconds, plan.left_out, total=seconds, sha=git_sha(), command=command_line()))


__all__ = ["PARTS", "WholeOutcome", "WholePlan", "describe_whole", "make_whole_plan", "part_of", "run_whole",
           "split_backends"]

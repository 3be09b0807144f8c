# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run``: the main job, the parts of :data:`lassm.campaign.whole.PARTS` or one of them
(``--kernel``, a part's key), checked before any work."""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import stderr
from ..errors import LassmError

if TYPE_CHECKING:  # the campaign is imported only when a run is asked for
    from ..campaign.part import Ask
    from ..campaign.assembly_plan import Plan


def cmd_run(args: argparse.Namespace) -> int:
    """``lassm run``; a failed run leaves no new machine folder without a measurement in it (nor
    one holding only the parts' accounts)."""
    from ..campaign.whole import accounts
    from ..runs.folders import kept_if_done

    return kept_if_done(lambda: _cmd_run(args), accounts())


def _cmd_run(args: argparse.Namespace) -> int:
    if args.kernel == "xdrop":
        from .xdrop_command import run_campaign as run_xdrop

        return run_xdrop(args)
    if args.kernel == "local-assembly":
        return _run_local(args)
    _check_run_options(args)
    from ..campaign.part import How
    from ..campaign.assembly_plan import Plan
    from ..campaign.whole import accounts, describe_whole, make_whole_plan, run_whole

    if args.kernel == "originals" and args.no_originals:
        raise LassmError("--no-originals: --kernel originals runs nothing else; drop one of them")
    plan = make_whole_plan(_ask(args))
    if args.kernel is not None:  # one part alone, planned after the others (the originals beside their inputs)
        plan.only(args.kernel)
    _check_run(args, plan.backends(), plan.of("local-assembly", Plan), accounts(plan.parts))
    if args.dry_run:
        from ..campaign.estimate import dry_run

        notes, total = dry_run(plan, machine=args.machine, force=args.force)
        print(describe_whole(plan, notes))
        print(f"\n{total}")
        return 0
    _check_hip(args, plan.of("local-assembly", Plan))
    outcome = run_whole(plan, How(machine=args.machine, force=args.force, progress=not args.quiet,
                                  notebooks=args.notebooks, cluster=args.cluster))
    return 1 if outcome.failed else 0


def _ask(args: argparse.Namespace) -> Ask:
    """``lassm run``'s options as its parts read them; ``--notebooks`` and ``--cluster`` run each
    local-assembly point once, another way, so they refuse ``--repeats`` and ``--warmup``."""
    from ..campaign.part import Ask

    once = args.notebooks or args.cluster
    for option, given in (("--repeats", args.repeats), ("--warmup", args.warmup)):
        if once and given is not None:
            raise LassmError(f"{option}: {'--notebooks' if args.notebooks else '--cluster'} runs each point once; "
                             f"drop one of them")
    return Ask(args.quick, backends=args.backends, datasets=args.datasets, protocols=args.protocols, ks=args.ks,
               xdrops=args.xdrops, repeats=1 if once else args.repeats, warmup=0 if once else args.warmup,
               profile=not args.no_profile, ceilings=not args.no_ceilings, originals=not args.no_originals,
               originals_folder=args.originals, all_counters=getattr(args, "all_counters", False), dry=args.dry_run)


def _check_run_options(args: argparse.Namespace) -> None:
    """The names ``lassm run`` takes for either kernel, checked against both (each part keeps its own)."""
    from .. import backends
    from .xdrop_command import BACKEND_NAMES

    if args.protocols and args.backends:  # they apply to every GPU backend named (the CPU has none)
        for name in args.backends:
            if name in backends.BACKENDS:
                for proto in (args.protocols if name != "cpu" else []):
                    backends.check_protocol(name, proto, "--protocols")
    for name in args.backends or []:
        if name in backends.BACKENDS:
            if name == "hip" and args.dry_run and _amd_gpu():  # planned for the GPU rocminfo lists
                continue
            if not args.cluster:  # the workers of a cluster may have what this machine lacks
                backends.get(name)  # fails now, naming what to install
        elif name in BACKEND_NAMES:
            from ..backends.xdrop import get

            get(name)  # fails now, naming what to install


def _amd_gpu() -> bool:
    """Whether rocminfo lists an AMD GPU here (a dry run plans hip for it, runtime or not)."""
    from ..backends import rocminfo

    return bool(rocminfo.gpus())


def _check_hip(args: argparse.Namespace, plan: Plan | None) -> None:
    """Before the first point: hip's output on the sample against hip-cpu's, where the plan times
    hip on this machine (:func:`lassm.runs.hip_check.before_timing`; a cluster's workers have their
    own GPUs, which this machine cannot check)."""
    if plan is None or "hip" not in plan.backends or args.cluster:
        return
    from .. import paths
    from ..runs.folders import folder_of
    from ..runs.hip_check import before_timing

    target = plan.targets.get("hip")
    if not target or not target.get("wavefront"):  # hip.target() answers wherever hip runs
        raise LassmError("hip check: the AMD GPU's wavefront is unknown (neither its runtime nor rocminfo says), "
                         "so hip-cpu cannot be run at it; nothing was timed")
    folder = paths.results_dir(folder_of("hip", args.machine))
    before_timing(plan.protocols["hip"], folder, str(target["device"]), int(target["wavefront"]),
                  say=stderr.line)


def _run_local(args: argparse.Namespace) -> int:
    """``lassm run --kernel local-assembly``: the local-assembly campaign alone."""
    from ..campaign import describe, make_plan, report, run_campaign

    if args.xdrops:
        raise LassmError("--xdrops: X is the xdrop kernel's; add --kernel xdrop")
    for option, given in (("--originals", args.originals), ("--no-originals", args.no_originals)):
        if given:
            raise LassmError(f"{option}: the original programs are a part of their own; drop --kernel local-assembly")
    _local_names(args)
    ask = _ask(args)
    _check_run_options(args)  # the names are local assembly's alone (_local_names)
    plan = make_plan(ask)
    if args.protocols and not args.backends:
        built = {p for b in plan.backends for p in plan.protocols[b] if b != "cpu"}
        unbuilt = [p for p in args.protocols if p not in built]
        if unbuilt:
            gpus = [b for b in plan.backends if b != "cpu"]
            raise LassmError(f"--protocols {','.join(unbuilt)}: no backend of this run builds it (backends here: "
                             f"{', '.join(plan.backends)}{'' if gpus else '; the cpu backend has no protocol'})")
    _check_run(args, plan.backends, plan)
    if args.dry_run:
        from ..campaign.estimate import dry_run, records_lines
        from ..campaign.whole import WholePlan

        whole = WholePlan({"local-assembly": plan})
        notes, _total = dry_run(whole, machine=args.machine, force=args.force)
        print("\n".join([describe(plan), notes["local-assembly"], *records_lines(whole, args.machine)]))
        return 0
    _check_hip(args, plan)
    outcome = run_campaign(plan, machine=args.machine, force=args.force, progress=not args.quiet,
                           notebooks=args.notebooks, cluster=args.cluster)
    report(outcome)
    return 1 if outcome.failed else 0


def _check_run(args: argparse.Namespace, backends: Sequence[str], local: Plan | None,
               accounts: Sequence[str] | None = None) -> None:
    """What the run, and its dry run alike, checks before it measures
    (:func:`lassm.runs.preflight.check_run`): the results folders it writes (:func:`lassm.runs.folders.machine_folders`; ``local``, the
    local-assembly plan, names devices a dry run plans without their runtime), the ``accounts`` it
    appends to (default :data:`lassm.runs.account.ACCOUNTS`), the plan's dataset files and
    ``--cluster``'s scheduler. Only :func:`_check_hip` builds and runs kernels, so only the real run
    makes it."""
    from ..runs.account import ACCOUNTS
    from ..runs.folders import machine_folders
    from ..runs.preflight import check_run

    folders = machine_folders(backends, args.machine, targets=local.targets if local is not None else None,
                              dry=args.dry_run)
    check_run(folders, datasets=local.datasets if local is not None else (), cluster=args.cluster,
              accounts=ACCOUNTS if accounts is None else accounts)


def _local_names(args: argparse.Namespace) -> None:
    """Refuses, for the local-assembly kernel, the X-drop backends and sets ``run``'s parser lets through."""
    from .. import backends

    for name in args.backends or []:
        if name not in backends.BACKENDS:
            raise LassmError(f"--backends {name}: an X-drop backend; local assembly has {', '.join(backends.BACKENDS)} "
                             f"(or add --kernel xdrop)")
    for name in args.datasets or []:
        if name.startswith("xdrop-"):
            raise LassmError(f"--datasets {name}: an X-drop pair set; add --kernel xdrop")


__all__ = ["cmd_run"]

# SPDX-License-Identifier: BSD-3-Clause
"""The original programs beside ours, the last part of ``lassm run``.

With an NVIDIA GPU and nvcc, the programs our kernels came from are built from pinned public
sources (:mod:`.sources`) with their Makefiles' flags (:mod:`.build`) and run on our inputs:
MetaHipMer's ``ht_loc`` beside ``lassm extend`` (:mod:`.ht_loc`, outputs compared line for line)
and LOGAN's demo beside ``lassm xdrop align`` (:mod:`.logan`, scores compared pair for pair).
Times land in the machine's folder with provenance; what cannot run is one line of ``lacks``."""
from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

from ... import stderr
from ...runs.account import PART_ACCOUNTS
from ..outcome import PartOutcome, print_report
from ..part import Ask, How, LeftOut, Part, Planned, Where, Work, plan_of
from . import build, sources
from .sources import SOURCES, SourceUnavailable

#: Timed whole runs of each program per dataset (ht_loc) and per X (LOGAN), after one untimed run.
HT_LOC_REPEATS, LOGAN_REPEATS = 3, 1
#: The part's account in the machine's folder: plan, rows, steps, lacks, provenance.
ACCOUNT_FILE = PART_ACCOUNTS["originals"]


@dataclass(frozen=True)
class OriginalsPlan:
    """What the originals part runs.

    logan_dataset : the X-drop set both programs run (None: LOGAN is left out), at ``xdrops``.
    profile : kernel times from Nsight Compute, where it is here.
    folder : the user's folder of sources (``--originals``; None: the cache, then a download).
    suite_kernels : the suite's kernels whose HeCBench program runs beside ours."""

    ht_loc_datasets: tuple[str, ...]
    logan_dataset: str | None
    xdrops: tuple[int, ...]
    ht_loc_repeats: int = HT_LOC_REPEATS
    logan_repeats: int = LOGAN_REPEATS
    profile: bool = True
    folder: str | None = None
    suite_kernels: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """The plan as the campaign's account stores it."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


class OriginalsOutcome(PartOutcome):
    """What the part did: a status row per program and input, what it lacks, its seconds and files."""


def blocked(backend: str = "cuda") -> list[str]:
    """Why no original program can run here beside ``backend`` (empty when it and nvcc are both here)."""
    from ... import backends

    out = []
    try:
        backends.get(backend)
    except backends.BackendUnavailable as exc:
        out.append(f"originals: not run: they need an NVIDIA GPU with the {backend} backend ("
                   + str(exc).split(" cannot run here: ", 1)[-1] + ")")
    if build.find_nvcc() is None:
        out.append("originals: not run: no CUDA compiler (nvcc not on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin); "
                   "install the CUDA toolkit to build ht_loc and LOGAN")
    return out


def describe(plan: OriginalsPlan, why_not: list[str] | None = None) -> str:
    """The part in a few lines (``lassm run --dry-run``), or why it is left out."""
    why_not = blocked() if why_not is None else why_not
    head = "originals"
    if why_not:
        return "\n".join([f"{head} left out here:", *[f"  {w}" for w in why_not]])
    where = plan.folder or f"the cache ({sources.cache_root()}), else downloaded from GitHub"
    lines = [f"{head} built with nvcc from pinned sources in {where}"]
    if plan.ht_loc_datasets:
        lines.append(f"  ht_loc ({sources.HT_LOC.label}) beside lassm extend fast on "
                     f"{', '.join(plan.ht_loc_datasets)}: {plan.ht_loc_repeats} timed runs each, outputs compared")
    if plan.logan_dataset:
        lines.append(f"  LOGAN demo ({sources.LOGAN.label}) beside lassm xdrop align cuda on {plan.logan_dataset} "
                     f"at X = {', '.join(map(str, plan.xdrops))}: {plan.logan_repeats} timed run each, "
                     f"every pair's score compared")
    if plan.suite_kernels:
        from .hecbench import PROGRAMS

        lines.append(f"  HeCBench ({sources.HECBENCH.label}) at Jin and Vetter's sizes: "
                     f"{', '.join(PROGRAMS[k].folder for k in plan.suite_kernels if k in PROGRAMS)}, each with its own check")
    lines.append(f"  kernel times {'from Nsight Compute where it is here' if plan.profile else 'off'}")
    return "\n".join(lines)


def _build(key: str, folder: str | None, arch: str, kernels: tuple[str, ...] = ()) -> tuple[Path, build.Built]:
    """(the pinned source tree of ``key``, found or fetched; its programs built, or taken from the build cache)."""
    tree = sources.locate(SOURCES[key], folder)
    if key == "hecbench":
        from .hecbench import build_all

        return tree, build_all(tree, arch, build.require_nvcc(), kernels)
    return tree, (build.build_ht_loc if key == "ht_loc" else build.build_logan)(tree, arch)


def _prepare(key: str, plan: OriginalsPlan, arch: str, say, kernels: tuple[str, ...] = (), bar=None) -> build.Built:
    """The pinned source of ``key`` found (or fetched) and built, a task of ``bar`` while it lasts;
    raises with one line on failure."""
    from ...runs.progress import Step, bar as progress_bar

    source = SOURCES[key]
    t0 = time.perf_counter()
    shown = Step(bar if bar is not None else progress_bar(False), f"build {source.repo}", unit="step")
    try:
        tree, built = _build(key, plan.folder, arch, kernels)
    finally:
        shown.end()
    say(f"originals: {source.label} built for {arch} with {built.nvcc} ({time.perf_counter() - t0:.1f} s, "
        f"{tree})")
    return built


def build_behind(plan: OriginalsPlan) -> threading.Thread:
    """Builds ``plan``'s programs into the build cache in a thread, started while an earlier part
    measures (``lassm run`` starts it with the suite, which times on the GPU's own clocks), so nvcc's
    time leaves the whole run. Join it before the part starts; failures are left for the part to
    name."""
    wanted = [key for key, needed in (("hecbench", plan.suite_kernels), ("ht_loc", plan.ht_loc_datasets),
                                      ("logan", plan.logan_dataset)) if needed]

    def work() -> None:
        try:
            arch = build.gpu_arch()
        except Exception:  # noqa: BLE001  no device: the part says so
            return
        for key in wanted:
            try:
                _build(key, plan.folder, arch, plan.suite_kernels if key == "hecbench" else ())
            except Exception:  # noqa: BLE001  met again, and named, by the part
                continue

    thread = threading.Thread(target=work, name="originals-build", daemon=True)
    thread.start()
    return thread


#: Status rows of each part per item of its to-do list: ht_loc and LOGAN a row for the original and
#: one for ours (per dataset, per X), HeCBench one per kernel.
ROWS_PER_ITEM = {"ht_loc": 2, "logan": 2, "hecbench": 1}
#: The label of each part's task.
LABELS = {"ht_loc": "ht_loc beside ours", "logan": "LOGAN beside ours", "hecbench": "HeCBench"}


def tables_of(name: str) -> dict[str, Path]:
    """Each part's table in the machine's folder ``name``."""
    from ... import paths
    from ...runs import xdrop_records as xrec
    from ...runs.results import AGAINST_ORIGINAL_FILE
    from . import hecbench

    return {"ht_loc": paths.results_dir(name) / AGAINST_ORIGINAL_FILE,
            "logan": xrec.folder(name) / xrec.AGAINST_LOGAN_FILE, "hecbench": hecbench.table(name)}


def todo(plan: OriginalsPlan, name: str, sha: str, force: bool = False, backend: str = "cuda") -> dict[str, list]:
    """What a run measures in the folder ``name``: ht_loc's datasets, LOGAN's X values and HeCBench's
    kernels whose rows are not all recorded at ``sha`` (all of them with ``force``)."""
    from . import hecbench, ht_loc, logan

    where = tables_of(name)
    return {"ht_loc": ht_loc.todo(plan.ht_loc_datasets, where["ht_loc"], sha, force, backend),
            "logan": logan.todo(plan.logan_dataset, plan.xdrops, where["logan"], sha, force, backend)
            if plan.logan_dataset else [],
            "hecbench": hecbench.todo(plan.suite_kernels, where["hecbench"], sha, force)}


def run_originals(plan: OriginalsPlan, *, machine: str | None = None, force: bool = False,
                  say: Callable[[str], None] = stderr.nothing, backend: str = "cuda",
                  arch: str | None = None, progress: bool = False) -> OriginalsOutcome:
    """Builds and runs the originals beside ours as ``plan`` says, skipping what is recorded at this
    commit unless ``force``; returns an :class:`OriginalsOutcome`.

    ``machine`` defaults to the GPU's folder; ``backend`` ``cpu`` runs the whole part against
    stand-in programs (as the tests do); ``arch`` is nvcc's ``sm_XY`` (default the GPU's);
    ``progress`` shows builds and inputs as tasks (:func:`lassm.runs.progress.bar`)."""
    from ...runs.progress import bar as progress_bar

    with progress_bar(progress) as bar:
        return _run_originals(plan, bar, machine=machine, force=force, say=say, backend=backend, arch=arch)


def _run_originals(plan: OriginalsPlan, bar, *, machine: str | None, force: bool, say: Callable[[str], None],
                   backend: str, arch: str | None) -> OriginalsOutcome:
    """:func:`run_originals` inside its progress display ``bar``."""
    from ... import paths
    from ...runs.progress import Step
    from ...runs.records import cpu_model, git_sha, machine_for_backend
    from ..steps import find_ncu
    from . import ht_loc, logan
    from .timing import Measuring, gpu_device

    out = OriginalsOutcome()
    start = time.perf_counter()
    out.lacks = blocked(backend)
    name = paths.machine_slug(machine) if machine else machine_for_backend("cpu" if out.lacks else backend)
    sha = git_sha()
    if out.lacks:
        out.files["account"] = _write_account(name, plan, out, sha, time.perf_counter() - start)
        return out
    ncu = find_ncu() if plan.profile else None
    if plan.profile and ncu is None:
        out.lacks.append("originals: kernel times not measured: no ncu (Nsight Compute) here; whole times only")
    try:
        arch = arch or build.gpu_arch()
        device = gpu_device() if backend != "cpu" else (cpu_model(), "")
    except Exception as exc:  # noqa: BLE001  no device after all: one line
        out.lacks.append(f"originals: not run: {' '.join(str(exc).split())[:300]}")
        out.files["account"] = _write_account(name, plan, out, sha, time.perf_counter() - start)
        return out
    from . import hecbench

    tables = tables_of(name)
    wanted = todo(plan, name, sha, force, backend)
    for k in plan.suite_kernels:
        if k in hecbench.PROGRAMS and k not in wanted["hecbench"]:
            out.rows.append({"part": "hecbench", "dataset": k, "program": hecbench.PROGRAMS[k].folder,
                             "status": "skipped (recorded)"})
    for d in plan.ht_loc_datasets:
        if d not in wanted["ht_loc"]:
            out.rows += [{"part": "ht_loc", "dataset": d, "program": p, "status": "skipped (recorded)"}
                         for p in (ht_loc.ORIGINAL, ht_loc.ours_label(backend))]
    for x in plan.xdrops if plan.logan_dataset else ():
        if x not in wanted["logan"]:
            out.rows += [{"part": "logan", "dataset": plan.logan_dataset, "xdrop": x, "program": p,
                          "status": "skipped (recorded)"} for p in (logan.LOGAN_PROGRAM, logan.ours_label(backend))]
    with tempfile.TemporaryDirectory(prefix="lassm-originals-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        prepared: dict[str, build.Built] = {}
        started: dict = {}
        if wanted["hecbench"]:  # built first: a program ended after its copy back starts before the rest
            try:
                prepared["hecbench"] = _prepare("hecbench", plan, arch, say, tuple(wanted["hecbench"]), bar)
                started = hecbench.start_behind(prepared["hecbench"], wanted["hecbench"], stack)
            except (SourceUnavailable, build.BuildFailed):
                pass  # named in its turn, below
        for key in ("ht_loc", "logan", "hecbench"):
            if not wanted[key]:
                continue
            t0 = time.perf_counter()
            try:
                built = prepared.get(key) or _prepare(key, plan, arch, say,
                                                      tuple(wanted[key]) if key == "hecbench" else (), bar)
            except (SourceUnavailable, build.BuildFailed) as exc:
                out.lacks.append(f"originals: {SOURCES[key].repo} not run: {exc}")
                say(out.lacks[-1])
                continue
            context = built.context(name, device, sha)
            shown = Step(bar, LABELS[key], len(wanted[key]))
            how = Measuring(context, ncu=ncu, backend=backend, say=say, tick=shown.advance)
            if key == "hecbench":
                rows, failed = hecbench.run_all(built, wanted[key], tables[key], how, started=started)
            elif key == "ht_loc":
                rows, failed = ht_loc.run_all(wanted[key], tables[key], built, work,
                                              replace(how, repeats=plan.ht_loc_repeats))
            else:
                from ...workloads.xdrop import pair_sets as xsets

                assert plan.logan_dataset is not None  # LOGAN wants nothing without its set
                try:
                    pairs = xsets.load(plan.logan_dataset)
                except Exception as exc:  # noqa: BLE001  a set that cannot be built here is named
                    out.lacks.append(f"originals: LOGAN not run: {plan.logan_dataset}: {' '.join(str(exc).split())}")
                    shown.end()
                    continue
                rows, failed = logan.run_all(built, pairs, plan.logan_dataset, wanted[key], tables[key], work,
                                             replace(how, repeats=plan.logan_repeats))
            shown.end()
            out.rows += rows
            out.lacks += failed
            out.steps[key] = round(time.perf_counter() - t0, 3)
            out.files[key] = tables[key]
    out.steps["originals"] = round(time.perf_counter() - start, 3)
    out.files["account"] = _write_account(name, plan, out, sha, time.perf_counter() - start)
    return out


def _write_account(machine: str, plan: OriginalsPlan, out: OriginalsOutcome, sha: str, seconds: float) -> Path:
    """Appends this run's account (plan, rows, steps, lacks, the pinned sources) to ``<machine>/originals.json``."""
    from ... import paths
    from ...runs.account import append_part
    from ...runs.records import command_line

    head = {"part": "originals", "machine": machine, "plan": plan.as_dict(),
            "sources": {k: s.label for k, s in SOURCES.items()}}
    return append_part(paths.results_dir(machine) / ACCOUNT_FILE, head, out, sha, command_line(), seconds)


def report(outcome: OriginalsOutcome) -> None:
    """One line per program and input, then the files (standard error)."""
    def line(r: dict) -> str:
        where = r["dataset"] + (f" X={r['xdrop']}" if "xdrop" in r else "")
        whole = f"{r['whole_seconds']:.3f} s" if isinstance(r.get("whole_seconds"), float) else "-"
        return f"{where:28s} {r.get('program', ''):24s} {whole:>10s}  {r['status']}"

    print_report(map(line, outcome.rows), outcome.files)


class OriginalsPart(Part[OriginalsPlan, OriginalsOutcome]):
    """The original programs beside ours, as the last part of ``lassm run`` (:mod:`lassm.campaign.part`):
    on the inputs the kernels' parts planned."""

    key, label, account = "originals", "the original programs", ACCOUNT_FILE

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        if not ask.originals:
            return LeftOut("--no-originals")
        if not planned:
            return LeftOut("no kernel's part runs")
        why = blocked()
        if why:
            return LeftOut("cannot run here: " + "; ".join(line.split("not run: ", 1)[-1] for line in why), tuple(why))
        return None

    def plan(self, ask: Ask, planned: Planned) -> OriginalsPlan:
        """ht_loc on the local-assembly datasets (those it has, unless named), LOGAN on LOGAN's set
        (else the largest X-drop set, unless named), HeCBench on the suite's kernels."""
        from . import ht_loc, logan

        from ..assembly_plan import Plan
        from ..suite_part import SuitePlan
        from ..xdrop_plan import XdropPlan

        la, xd = plan_of(planned, "local-assembly", Plan), plan_of(planned, "xdrop", XdropPlan)
        su = plan_of(planned, "suite", SuitePlan)
        chosen = la.datasets if la is not None and ask.datasets_of(xdrop=False) else tuple(
            d for d in (la.datasets if la is not None else ()) if d in ht_loc.DATASETS)
        target = None
        if xd is not None:
            target = logan.DATASET if logan.DATASET in xd.datasets and not ask.datasets_of(xdrop=True) else (
                max(xd.datasets, key=lambda d: xd.sizes.get(d, 0)) if xd.datasets else None)
        return OriginalsPlan(ht_loc_datasets=tuple(chosen), logan_dataset=target,
                             xdrops=xd.xdrops if xd is not None else (), profile=ask.profile and not ask.quick,
                             folder=ask.originals_folder, suite_kernels=su.kernels if su is not None else ())

    def describe(self, plan: OriginalsPlan) -> str:
        return describe(plan)

    def backends(self, plan: OriginalsPlan) -> tuple[str, ...]:
        return ("cuda",)

    def work(self, plan: OriginalsPlan, where: Where) -> Work:
        """The rows (one per program and input) not recorded at ``where.sha``."""
        from .hecbench import PROGRAMS

        left = todo(plan, where.folder, where.sha, where.force)
        total = (2 * len(plan.ht_loc_datasets) + (2 * len(plan.xdrops) if plan.logan_dataset else 0)
                 + len([k for k in plan.suite_kernels if k in PROGRAMS]))
        rows = sum(ROWS_PER_ITEM[key] * len(items) for key, items in left.items())
        return Work(rows, total, float(rows))

    def behind(self, plan: OriginalsPlan) -> threading.Thread:
        return build_behind(plan)

    def run(self, plan: OriginalsPlan, how: How) -> OriginalsOutcome:
        return run_originals(plan, machine=how.machine, force=how.force, say=how.say, progress=how.progress)

    def report(self, outcome: OriginalsOutcome, say: Callable[[str], None]) -> None:
        report(outcome)
        for line in outcome.lacks:
            say(f"  {line}")


__all__ = ["OriginalsPart", "build_behind", "ACCOUNT_FILE", "LABELS", "OriginalsOutcome", "OriginalsPlan", "ROWS_PER_ITEM", "blocked", "describe",
           "report", "run_originals", "tables_of", "todo"]

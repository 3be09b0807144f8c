# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run --kernel suite``: Jin and Vetter's kernels (:mod:`lassm.backends.suite`) on this machine.

Per kernel: inputs at the machine's size class (Jin and Vetter's on a GPU, small on a CPU), the
reference once, then every variant of every backend here warmed up, timed ``repeats`` times
(medians) and checked. Rows are upserted into ``<machine>/suite/times.csv`` after each kernel
(rows at this commit skipped unless forced); the account is appended to
``suite/campaign.json``. A variant the device refuses is a row with its refusal, not a failure."""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable

from .. import stderr
from .. import paths
from ..runs.repeat_rule import describe as describe_repeats
from ..runs import suite_records as rec
from ..runs import tables
from ..runs.account import PART_ACCOUNTS
from ..runs.folders import folder_of
from ..runs.host import check_mine, host_id
from . import suite_counters
from .outcome import PartOutcome, print_report
from .part import Ask, How, LeftOut, Part, Planned, Where, Work

#: Timed runs of a variant and untimed runs before them, where a GPU runs the suite; on a CPU
#: device each variant is timed once after its warm-up.
REPEATS, WARMUP, CPU_REPEATS = 5, 1, 1


@dataclass(frozen=True)
class SuitePlan:
    """What the suite part runs: kernels, backends, the size class, repeats."""

    kernels: tuple[str, ...]
    backends: tuple[str, ...]
    size: str
    repeats: int = REPEATS
    warmup: int = WARMUP
    left_out: tuple[str, ...] = ()
    counters: bool = True
    #: Count :data:`lassm.campaign.suite_counters.ON_REQUEST` too (``lassm run --all-counters``).
    all_counters: bool = False

    def as_dict(self) -> dict:
        """The plan as the account stores it."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def points(self) -> list[tuple[str, str, str]]:
        """(kernel, backend, variant) in run order."""
        from ..backends import suite

        return [(k, b, v) for k in self.kernels for b in self.backends for v in suite.get(k).VARIANTS.get(b, {})]


def present_backends() -> tuple[list[str], list[str]]:
    """The suite's backends that run here, and one line for each that cannot."""
    from ..backends import suite

    found, lacks = [], []
    for name in suite.BACKENDS:
        ok, why = suite.available(name)
        if ok:
            found.append(name)
        else:
            lacks.append(f"suite: {name}: {why.split(' cannot run here: ', 1)[-1]}")
    return found, lacks


def make_plan(quick: bool = False, *, backends: list[str] | None = None, kernels: list[str] | None = None,
              repeats: int | None = None, warmup: int | None = None, all_counters: bool = False) -> SuitePlan:
    """The suite for this machine: Jin and Vetter's sizes where a GPU runs it, else the CPU sizes (``quick``: tiny)."""
    from ..backends import suite

    found, lacks = present_backends()
    names = [b for b in (backends or found) if b in suite.BACKENDS]
    gpu = any(suite.common.is_gpu(b) for b in names if b in found)
    size = "tiny" if quick else "gpu" if gpu else "cpu"
    return SuitePlan(kernels=tuple(kernels or suite.KERNELS), backends=tuple(names), size=size,
                     repeats=int(repeats if repeats is not None else REPEATS if gpu else CPU_REPEATS),
                     warmup=int(warmup if warmup is not None else WARMUP),
                     left_out=tuple(line for line in lacks if not backends or line.split(": ")[1] in backends),
                     all_counters=all_counters)


def describe(plan: SuitePlan) -> str:
    """The part in a few lines (``lassm run --dry-run``)."""
    from ..backends import suite

    lines = [f"kernels   {', '.join(plan.kernels)} (Jin and Vetter), size class {plan.size}"]
    for k in plan.kernels:
        mod = suite.get(k)
        for b in plan.backends:
            lines.append(f"{k:10s}{b:8s}{', '.join(mod.VARIANTS.get(b, {}))}")
    lines.append(f"timing    {plan.warmup} warm-up + {describe_repeats(plan.repeats)} per variant, the first "
                 f"checked against the reference")
    counted = [b for b in plan.backends if b in suite_counters.BACKENDS]
    if plan.size == "gpu" and plan.counters and counted:
        later = [] if plan.all_counters else suite_counters.left_on_request(
            [p for p in plan.points() if p[1] in counted])
        lines.append(f"counters  Nsight Compute on every {' and '.join(counted)} variant, one profiled process per "
                     f"kernel and backend" + (f" (not {', '.join(' '.join(p) for p in later)}: --all-counters)"
                                              if later else ""))
    lines += [f"left out  {line}" for line in plan.left_out]
    lines.append(f"{len(plan.points())} points")
    return "\n".join(lines)


class SuiteOutcome(PartOutcome):
    """What the suite part did (rows per kernel, backend and variant)."""

    @property
    def failed(self) -> list[dict]:
        """Rows that failed or differ from the reference (a device's refusal is a finding, not a failure)."""
        return [r for r in super().failed if not r["status"].startswith("refused")]


def _measure(mod, backend: str, inp, variant: str, ref, plan: SuitePlan) -> dict:
    """Warm-up, timed runs (:mod:`lassm.runs.repeat_rule`), check of the first: the row's measured columns."""
    from ..backends.suite.common import unchecked_run
    from ..runs.repeat_rule import enough

    for _ in range(plan.warmup):
        unchecked_run(mod, backend, inp, variant)
    runs = [mod.run(backend, inp, variant)]  # the first timed run's output is the one checked
    while not enough([r.seconds for r in runs], max(plan.repeats, 1)):
        runs.append(unchecked_run(mod, backend, inp, variant))
    same, error = mod.check(runs[0].output, ref)
    return {"device": runs[-1].device, "driver": runs[-1].driver,
            "seconds": statistics.median(r.seconds for r in runs),
            "host_seconds": statistics.median(r.host_seconds for r in runs), "launches": runs[-1].launches,
            "repeats": len(runs), "matches_reference": same, "max_error": error,
            "status": "ok" if same else "MISMATCH"}


#: Kernels timed last, in this order: their references take longest (on an H200's node cmap's
#: 10^8 Philox numbers about 11 s, epistasis half a minute at Jin and Vetter's size), so they are
#: computed while the others are timed.
SLOW_REFERENCES: tuple[str, ...] = ("cmap", "epistasis")


def run_order(kernels: tuple[str, ...]) -> list[str]:
    """``kernels`` in the order the part times them: those of :data:`SLOW_REFERENCES` last."""
    return [k for k in kernels if k not in SLOW_REFERENCES] + [k for k in SLOW_REFERENCES if k in kernels]


def reference_of(kernel: str, size: str):
    """``kernel``'s reference at ``size``, from its inputs made again (they are drawn from a fixed seed)."""
    from ..backends import suite

    mod = suite.get(kernel)
    return mod.reference(mod.inputs(size))


def references_started(kernels: list[str], size: str):
    """(pool, kernel -> future of :func:`reference_of`): each reference in a fresh process (spawned,
    so no thread of this one is forked), or (None, {}) where no pool can start."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if not kernels:
        return None, {}
    try:
        pool = ProcessPoolExecutor(max_workers=len(kernels), mp_context=multiprocessing.get_context("spawn"))
        return pool, {k: pool.submit(reference_of, k, size) for k in kernels}
    except Exception:  # noqa: BLE001  no processes here: each reference is computed in its turn
        return None, {}


def todo(plan: SuitePlan, folders: dict[str, str], sha: str, force: bool = False) -> list[tuple[str, str, str]]:
    """The (kernel, backend, variant) a run measures: those without a row of this host at ``sha`` and
    the plan's size in their backend's folder (``folders``), all of them with ``force``."""
    before = {f: tables.read_rows(rec.folder(f) / rec.TIMES_FILE, rec.COLUMNS) for f in set(folders.values())}
    return [(k, b, v) for k, b, v in plan.points()
            if force or not tables.recorded(before[folders[b]], sha, kernel=k, backend=b, variant=v, size=plan.size,
                                            host=host_id())]


def run_suite(plan: SuitePlan, *, machine: str | None = None, force: bool = False,
              say: Callable[[str], None] = stderr.nothing, progress: bool = False) -> SuiteOutcome:
    """Runs the plan; writes ``<machine>/suite/times.csv`` and appends the run's account. ``progress``
    shows the variants, the PTX and the counters as tasks (:func:`lassm.runs.progress.bar`)."""
    from ..runs.progress import bar as progress_bar

    with progress_bar(progress) as bar:
        return _run_suite(plan, bar, machine=machine, force=force, say=say)


def _run_suite(plan: SuitePlan, bar, *, machine: str | None, force: bool, say: Callable[[str], None]) -> SuiteOutcome:
    """:func:`run_suite` inside its progress display ``bar``."""
    from ..backends import suite
    from ..runs.progress import Step
    from ..runs.records import command_line, git_sha

    out = SuiteOutcome()
    out.lacks = list(plan.left_out)
    start = time.perf_counter()
    sha = git_sha()
    command = command_line()
    folders = {b: folder_of(b, machine) for b in plan.backends}
    for name in set(folders.values()):
        check_mine(paths.results_dir(name))
    measured = todo(plan, folders, sha, force)
    shown = Step(bar, "suite", len(plan.points()))

    def todo_of(kernel: str) -> list[tuple[str, str]]:
        return [(b, v) for k, b, v in measured if k == kernel]

    # at Jin and Vetter's sizes the references take CPU seconds (epistasis: half a minute): all start now,
    # each in a process of its own, while the kernels before them are timed on the GPU
    pool, refs = references_started([k for k in plan.kernels if todo_of(k)], plan.size) if plan.size == "gpu" \
        else (None, {})
    for kernel in run_order(plan.kernels):
        mod = suite.get(kernel)
        chosen = todo_of(kernel)
        skipped = [{"kernel": kernel, "backend": b, "variant": v, "status": "skipped (recorded)"}
                   for b in plan.backends for v in mod.VARIANTS.get(b, {}) if (b, v) not in chosen]
        out.rows += skipped
        shown.advance(len(skipped))
        if not chosen:
            continue
        t0 = time.perf_counter()
        inp = mod.inputs(plan.size)
        try:
            ref = refs[kernel].result() if kernel in refs else mod.reference(inp)
        except Exception:  # noqa: BLE001  a worker that failed: the reference is computed here
            ref = mod.reference(inp)
        say(f"{kernel}: inputs and reference at size {plan.size} ({time.perf_counter() - t0:.1f} s"
            f"{', the reference computed beside the kernels before it' if kernel in refs else ''})")
        for backend, variant in chosen:
            row: dict[str, object] = {"machine": folders[backend], "kernel": kernel, "backend": backend, "variant": variant,
                   "size": plan.size, "git_sha": sha, "command": command, "host": host_id()}
            try:
                row.update(_measure(mod, backend, inp, variant, ref, plan))
            except suite.Refused as exc:
                row["status"] = f"refused: {' '.join(str(exc).split())}"
            except Exception as exc:  # one variant that fails is named; the others go on
                row["status"] = f"failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            where = rec.folder(folders[backend]) / rec.TIMES_FILE
            tables.upsert(where, rec.COLUMNS, rec.KEY, [row])  # as it lands: a run cut short keeps what it timed
            out.files[f"times:{folders[backend]}"] = where
            out.rows.append({k: row.get(k) for k in ("kernel", "backend", "variant", "seconds", "status")})
            seconds = row.get("seconds")
            took = f"{seconds * 1e3:.3f} ms" if isinstance(seconds, float) else "-"
            say(f"{kernel} {backend} {variant}: {took}, {row['status']}")
            shown.advance()
    shown.end()
    if plan.size == "gpu":
        t0 = time.perf_counter()
        making = Step(bar, "PTX", unit="step")
        out.lacks += write_ptx(plan, folders)
        making.end()
        out.steps["ptx"] = round(time.perf_counter() - t0, 3)
        profiled = [p for p in plan.points() if p[1] in suite_counters.BACKENDS]
        if plan.counters and profiled:
            t0 = time.perf_counter()
            gpu_folder = folders[profiled[0][1]]  # cuda and opencl-ptx file under the GPU's one folder
            counting = Step(bar, "counters (suite)", len(profiled))
            out.lacks += suite_counters.collect(profiled, plan.size, gpu_folder, sha=sha, force=force, say=say,
                                                every=plan.all_counters, tick=counting.advance)
            counting.end()
            out.steps["counters"] = round(time.perf_counter() - t0, 3)
            out.files[f"counters:{gpu_folder}"] = rec.folder(gpu_folder) / suite_counters.FILE
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
    out.steps["suite"] = round(time.perf_counter() - start, 3)
    for folder in dict.fromkeys(folders.values()):
        out.files[f"campaign:{folder}"] = _write_account(folder, plan, out, sha, command)
    return out


#: The instruction mix of every variant's PTX, beside the PTX files under ``suite/ptx/``.
PTX_MIX_FILE = "ptx-mix.csv"


def write_ptx(plan: SuitePlan, folders: dict[str, str], arch: str | None = None) -> list[str]:
    """Each variant's PTX, as each model's compiler made it for this GPU (NVRTC; NVIDIA's OpenCL
    compiler, whose program binary is PTX), into ``suite/ptx/``, with their instruction mix
    (:mod:`lassm.analysis.ptx`) in ``suite/ptx-mix.csv``; returns what could not be written.
    ``arch`` (``compute_90``) defaults to the GPU's."""
    import pandas as pd

    from ..analysis import ptx
    from ..atomic import atomic_open
    from ..backends import suite

    lacks: list[str] = []
    mixes: dict[str, list[pd.DataFrame]] = {}
    if "cuda" in plan.backends and arch is None:
        from ..backends import cuda as cu

        arch = "compute_" + str(cu.device_info()["compute_capability"])
    for kernel in plan.kernels:
        mod = suite.get(kernel)
        for backend in plan.backends:
            if backend in ptx.SAME_PTX:
                continue  # its PTX is another backend's (opencl-ptx launches opencl's)
            for variant in mod.VARIANTS.get(backend, {}):
                options = mod.build_options(backend, variant)
                cu_src, cl_src, _entry = suite.common.files(mod, variant)
                try:
                    text = (suite.common.cuda_compile_ptx(cu_src, options, arch or "compute_90")[0] if backend == "cuda"
                            else suite.common.opencl_ptx(cl_src, options))
                except Exception as exc:  # a PTX that cannot be made is named; the others go on
                    lacks.append(f"suite: PTX of {kernel} {backend} {variant}: {' '.join(str(exc).split())[:200]}")
                    continue
                if text is None:
                    continue  # not an NVIDIA device: its binary is no PTX
                where = rec.folder(folders[backend]) / "ptx" / f"{backend}__{kernel}__{variant}.ptx"
                where.parent.mkdir(parents=True, exist_ok=True)
                with atomic_open(where) as fh:
                    fh.write(text)
                mixes.setdefault(folders[backend], []).append(
                    ptx.mix(text, str(where.name), kernel=kernel, backend=backend, variant=variant))
    for folder, frames in mixes.items():  # the variants made here replace theirs; the others' rows stay
        path = rec.folder(folder) / PTX_MIX_FILE
        made = pd.concat(frames, ignore_index=True)
        if path.is_file():
            kept = pd.read_csv(path, keep_default_na=False)
            ids = ["kernel", "backend", "variant"]
            fresh = pd.MultiIndex.from_frame(made[ids].drop_duplicates())
            made = pd.concat([kept[~pd.MultiIndex.from_frame(kept[ids]).isin(fresh)], made], ignore_index=True)
        with atomic_open(path) as fh:
            made.to_csv(fh, index=False)
    return lacks


def _write_account(folder: str, plan: SuitePlan, out: SuiteOutcome, sha: str, command: str):
    from ..runs.account import append_part

    return append_part(paths.results_dir(folder) / SuitePart.account, {"part": "suite", "machine": folder, "plan": plan.as_dict()},
                       out, sha, command, out.steps.get("suite", 0.0))


def report(out: SuiteOutcome) -> None:
    """One line per point, then the files (standard error)."""
    def line(r: dict) -> str:
        shown = f"{r['seconds'] * 1e3:.3f} ms" if isinstance(r.get("seconds"), float) else "-"
        return f"{r['kernel']:10s} {r['backend']:7s} {r['variant']:16s} {shown:>12s}  {r['status']}"

    print_report(map(line, out.rows), out.files)


class SuitePart(Part[SuitePlan, SuiteOutcome]):
    """Jin and Vetter's kernels as a part of ``lassm run`` (:mod:`lassm.campaign.part`)."""

    key, label, account = "suite", "Jin and Vetter's kernels", PART_ACCOUNTS["suite"]
    #: The suite's backends among ``--backends``.
    NAMES = ("cuda", "opencl")

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        if ask.datasets:
            return LeftOut("--datasets names no suite kernel")
        if ask.backends_among(self.NAMES) == []:
            return LeftOut("no suite backend (cuda, opencl) among --backends")
        return None

    def plan(self, ask: Ask, planned: Planned) -> SuitePlan | LeftOut:
        plan = make_plan(ask.quick, backends=ask.backends_among(self.NAMES), repeats=ask.repeats, warmup=ask.warmup,
                         all_counters=ask.all_counters)
        return plan if plan.backends else LeftOut("no suite backend (cuda, opencl) can run here")

    def describe(self, plan: SuitePlan) -> str:
        return describe(plan)

    def work(self, plan: SuitePlan, where: Where) -> Work:
        """The variants without a row at ``where.sha``."""
        left = todo(plan, {b: where.folder for b in plan.backends}, where.sha, where.force)
        return Work(len(left), len(plan.points()), float(len(left)))

    def run(self, plan: SuitePlan, how: How) -> SuiteOutcome:
        return run_suite(plan, machine=how.machine, force=how.force, say=how.say, progress=how.progress)

    def report(self, outcome: SuiteOutcome, say: Callable[[str], None]) -> None:
        report(outcome)


__all__ = ["SuitePart", "SLOW_REFERENCES", "reference_of", "references_started", "run_order", "CPU_REPEATS", "PTX_MIX_FILE", "REPEATS", "WARMUP", "SuiteOutcome", "SuitePlan", "describe", "make_plan",
           "present_backends", "report", "run_suite", "todo", "write_ptx"]

# SPDX-License-Identifier: BSD-3-Clause
"""What ``lassm run --kernel xdrop`` measures on this machine: sets, X values, backends, repeats.

Every backend of one X is timed in one run on the same pairs and checked against the numba
oracle. With a GPU, the CPU backends (far slower at large X) time only sets of at most
:data:`CPU_MAX_PAIRS` pairs, and a larger set is checked on its first :data:`CHECK_PAIRS` pairs
(``times.csv`` records how many). Without a GPU the plan is one small set every backend runs
whole, OpenCL on a CPU device timed as the CPU backends (:data:`NO_GPU_REPEATS`). Sets and limits
keep the plan within a few minutes of a 16-core GPU node."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..runs.repeat_rule import describe as describe_repeats
from .part import Ask

#: LOGAN's X values (the tables of Zeni et al.).
XDROPS: tuple[int, ...] = (10, 20, 50, 100, 500, 1000, 5000)
#: A GPU machine's sets: every backend on the 2k sets, the GPU backends on the 20k set too.
GPU_DATASETS: tuple[str, ...] = ("xdrop-sim-2k", "xdrop-sim-20k", "xdrop-real-lambda-2k")
#: A machine without a GPU: 200 LOGAN-sized pairs, every backend.
CPU_DATASETS: tuple[str, ...] = ("xdrop-sim-200",)
#: ``--quick``: 50 short pairs, seconds on any machine.
QUICK_DATASETS: tuple[str, ...] = ("xdrop-short-50",)
#: Sets whose CUDA runs get Nsight Compute counters (each X): the 2,000-pair sets, the head of the
#: 20k set (the same pairs). Replaying every pass of the 20k set's kernels took most of two
#: minutes on an H200 (X = 5000: 0.6 s a pass); the counts the chapter reads per cell (intensity,
#: instructions and bytes per cell, the roofline) come from the same kernel on the same kind of pairs.
PROFILED_DATASETS: tuple[str, ...] = ("xdrop-sim-2k", "xdrop-real-lambda-2k")
#: On a GPU machine, the largest set the CPU backends are timed on, and the head the oracle checks of a larger one.
CPU_MAX_PAIRS = 2000
CHECK_PAIRS = 2000
#: GPU backends in the order they are timed, then the CPU ones (the oracle first: it is the reference).
GPU_BACKENDS: tuple[str, ...] = ("cuda", "opencl")
CPU_BACKENDS: tuple[str, ...] = ("cpu", "seqan")
#: Timed and untimed runs of a GPU backend per (set, X); the CPU backends run once, after a
#: warm-up on one pair (numba's and the driver's builds), since a run lasts seconds to minutes.
GPU_REPEATS, GPU_WARMUP, CPU_REPEATS = 5, 1, 1
#: Without a GPU the GPU backends (OpenCL on a CPU device) run once per (set, X) with no warm-up of
#: their own, after the one-pair warm-up every CPU backend gets, which builds their program too
#: (:func:`lassm.campaign.xdrop_run.warm_up`). On the reader's 2-core box a run of
#: ``xdrop-sim-200`` lasted 1.5 to 2.8 s and the first run after that warm-up agreed with the
#: next two within 2 %, at every X; six runs of each X had been 80 of the part's 100 seconds.
NO_GPU_REPEATS, NO_GPU_WARMUP = CPU_REPEATS, 0


@dataclass(frozen=True)
class XdropPlan:
    """One X-drop campaign.

    datasets : names :func:`lassm.workloads.xdrop.pair_sets.load` understands, in run order.
    backends : GPU ones first, then ``cpu``, ``seqan``.
    cpu_max_pairs : the CPU backends time only sets of at most this many pairs (None: every set).
    check_pairs : the oracle checks a larger set's first pairs only (None: every pair).
    repeats, warmup : runs of a GPU backend (without a GPU :data:`NO_GPU_REPEATS`,
        :data:`NO_GPU_WARMUP`, a one-pair warm-up); ``cpu_repeats`` of a CPU one.
    profile : Nsight Compute counters of the ``cuda`` runs of :data:`PROFILED_DATASETS`.
    scoring : match, mismatch, gap.
    left_out : one line per default set this machine cannot have (a real set without its genome or
        pbsim), left out rather than failed."""

    datasets: tuple[str, ...]
    xdrops: tuple[int, ...]
    backends: tuple[str, ...]
    sizes: dict[str, int] = field(default_factory=dict)
    cpu_max_pairs: int | None = None
    check_pairs: int | None = None
    repeats: int = GPU_REPEATS
    warmup: int = GPU_WARMUP
    cpu_repeats: int = CPU_REPEATS
    profile: bool = True
    scoring: tuple[int, int, int] = (1, -1, -1)
    threads: int = 1
    left_out: tuple[str, ...] = ()

    def backends_for(self, dataset: str) -> tuple[str, ...]:
        """The backends timed on ``dataset``: the CPU ones only where it is small enough."""
        small = self.cpu_max_pairs is None or self.sizes.get(dataset, 0) <= self.cpu_max_pairs
        return tuple(b for b in self.backends if small or b not in CPU_BACKENDS)

    def checked_pairs(self, dataset: str) -> int:
        """How many of the set's pairs the oracle checks: all where the CPU runs it whole."""
        n = self.sizes.get(dataset, 0)
        if "cpu" in self.backends_for(dataset) or self.check_pairs is None:
            return n
        return min(n, self.check_pairs)

    def groups(self) -> list[tuple[str, int]]:
        """(dataset, X) in run order: one set at a time, X rising."""
        return [(d, x) for d in self.datasets for x in self.xdrops]

    def profiled(self) -> list[tuple[str, int]]:
        """(dataset, X) whose ``cuda`` run gets counters; empty without profiling or CUDA."""
        if not self.profile or "cuda" not in self.backends:
            return []
        return [(d, x) for d, x in self.groups() if d in PROFILED_DATASETS]

    def as_dict(self) -> dict:
        """The plan as ``xdrop/campaign.json`` stores it."""
        out = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


def present_backends() -> tuple[list[str], list[str], bool]:
    """(the X-drop backends that run here, GPU ones first then ``cpu`` and ``seqan``; one line for each
    that cannot; whether a GPU is among them: ``opencl`` counts only on a GPU device)."""
    from ..backends import xdrop as registry
    from ..errors import BackendUnavailable

    found, lacks, gpu = [], [], False
    for name in (*GPU_BACKENDS, *CPU_BACKENDS):
        try:
            registry.get(name)
        except BackendUnavailable as exc:
            lacks.append(f"{name}: {str(exc).split(' cannot run here: ', 1)[-1]}")
            continue
        found.append(name)
        gpu |= name in GPU_BACKENDS and _on_gpu(name)
    return found, lacks, gpu


def _on_gpu(name: str) -> bool:
    """Whether GPU backend ``name`` runs on a GPU here (OpenCL may have found a CPU driver)."""
    if name != "opencl":
        return True
    from .. import backends

    try:
        return backends.get("opencl").device_kind() != "cpu"
    except backends.BackendUnavailable:
        return False


def default_threads() -> int:
    """The CPU backends' threads: every core numba may use (``NUMBA_NUM_THREADS``; the cores, without numba)."""
    try:
        import numba
    except ImportError:
        import os

        return os.cpu_count() or 1
    return int(numba.config.NUMBA_NUM_THREADS)


def make_plan(ask: Ask = Ask(), *, gpu: bool | None = None, threads: int | None = None) -> XdropPlan:
    """The X-drop campaign for this machine as ``ask`` (this part's options,
    :meth:`~lassm.campaign.part.Ask.of_part`) says.

    quick : :data:`QUICK_DATASETS`, no counters.
    backends, datasets, xdrops : replace the plan's (default: what runs here, the machine's sets,
        :data:`XDROPS`).
    repeats, warmup : the GPU backends' runs (default :data:`GPU_REPEATS`, :data:`GPU_WARMUP` with a
        GPU, :data:`NO_GPU_REPEATS`, :data:`NO_GPU_WARMUP` without).
    profile : keep the counters step.

    ``gpu`` (default: asked of the backends) decides the sets and the CPU limit; ``threads``
    defaults to :func:`default_threads`."""
    from ..workloads.xdrop import pair_sets as registry

    quick, backends, datasets, xdrops = ask.quick, ask.backends, ask.datasets, ask.xdrops
    repeats, warmup, profile = ask.repeats, ask.warmup, ask.profile
    found, _lacks, has_gpu = present_backends() if backends is None or gpu is None else ([], [], False)
    names = list(backends) if backends else found
    gpu = has_gpu if gpu is None else gpu
    order = [b for b in (*GPU_BACKENDS, *CPU_BACKENDS) if b in names]
    chosen = tuple(datasets or (QUICK_DATASETS if quick else GPU_DATASETS if gpu else CPU_DATASETS))
    left_out: tuple[str, ...] = ()
    if not datasets:  # a default set this machine cannot have is left out, named; a named one fails loudly
        why = {d: registry.unavailable(d) for d in chosen}
        left_out = tuple(f"{line}; left out of the X-drop campaign" for line in why.values() if line)
        chosen = tuple(d for d in chosen if not why[d])
    return XdropPlan(datasets=chosen, xdrops=tuple(xdrops or XDROPS), backends=tuple(order), left_out=left_out,
                     sizes={d: registry.n_pairs(d) for d in chosen},
                     cpu_max_pairs=CPU_MAX_PAIRS if gpu else None, check_pairs=CHECK_PAIRS if gpu else None,
                     repeats=(GPU_REPEATS if gpu else NO_GPU_REPEATS) if repeats is None else int(repeats),
                     warmup=(GPU_WARMUP if gpu else NO_GPU_WARMUP) if warmup is None else int(warmup),
                     profile=profile and not quick, threads=int(threads or default_threads()))


def describe(plan: XdropPlan) -> str:
    """The plan in a few lines (``lassm run --kernel xdrop --dry-run``)."""
    lines = [f"kernel    xdrop (LOGAN's X-drop seed extension, SeqAn's extendSeed)",
             f"X         {', '.join(map(str, plan.xdrops))}", f"scoring   {','.join(map(str, plan.scoring))}"]
    for d in plan.datasets:
        checked = plan.checked_pairs(d)
        note = "" if checked == plan.sizes.get(d) else f", the oracle checks its first {checked}"
        lines.append(f"{d:24s} {plan.sizes.get(d, 0):>7d} pairs: {', '.join(plan.backends_for(d))}{note}")
    gpus = [b for b in plan.backends if b not in CPU_BACKENDS]
    if gpus and plan.warmup == 0:  # the rule without a GPU: one warm-up on one pair per backend, not per X
        lines.append(f"timing    {', '.join(gpus)} {plan.repeats} timed run(s) per X with no untimed one (the rule "
                     f"without a GPU), CPU {plan.cpu_repeats} run on {plan.threads} threads; every backend warmed "
                     f"up once on one pair, each run checked against the cpu oracle")
    else:
        lines.append(f"timing    GPU {plan.warmup} warm-up + {describe_repeats(plan.repeats)}, CPU {plan.cpu_repeats} "
                     f"run on {plan.threads} threads, each checked against the cpu oracle")
    lines.append(f"counters  {len(plan.profiled())} cuda runs under Nsight Compute" if plan.profiled() else "counters  off")
    points = sum(len(plan.backends_for(d)) for d, _x in plan.groups())
    lines += [f"left out  {line}" for line in plan.left_out]
    lines.append(f"{points} points")
    return "\n".join(lines)

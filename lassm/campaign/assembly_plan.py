# SPDX-License-Identifier: BSD-3-Clause
"""What the campaign measures on this machine: datasets, backends, protocols, repeats, steps.

The plan is data, decided before any kernel runs, so ``lassm run --dry-run`` prints it and tests
check it; only its backends depend on the machine."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from .part import Ask

#: The full campaign's datasets: the embedded real sample, the four generated Table II datasets,
#: one replicated scale point and the committed real-genome ``mock5`` set at the same four k.
FULL_DATASETS: tuple[str, ...] = (
    "sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77", "sample-k77x20",
    "real-mock5-k21", "real-mock5-k33", "real-mock5-k55", "real-mock5-k77",
)
#: ``lassm run --quick``: the small job a laptop finishes in a minute.
QUICK_DATASETS: tuple[str, ...] = ("sample-k77",)
#: Datasets whose points get hardware counters (the sample and the Table II datasets).
PROFILED_DATASETS: tuple[str, ...] = ("sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77")
#: Kernel variants counted: the faithful port and the fast variant (where a backend builds it).
PROFILED_PROTOCOLS: tuple[str, ...] = ("casptr", "fast")
#: Timed runs per point (the record keeps each and their median) and untimed runs before them.
REPEATS = 5
WARMUP = 1
#: Without a GPU (a laptop, a 2-core CI machine) each point is timed once after its warm-up:
#: CPU runs last seconds, where a median of five adds little but five times the wait.
NO_GPU_REPEATS = 1
#: A replicated dataset's name (``sample-k77x20``).
_REPLICATED = re.compile(r"x\d+$")
#: GPU backends in order of preference: the campaign times the first that can run here.
GPU_BACKENDS: tuple[str, ...] = ("cuda", "hip")
#: The portable backend, timed wherever its runtime finds a device (an Intel GPU, or a CPU).
PORTABLE_BACKEND = "sycl"
#: The sub-group-free OpenCL backends: ``opencl`` (``portable.cl`` through pyopencl), timed on
#: whatever device it finds, a GPU's own OpenCL (NVIDIA's on an H100: one GPU, two programming
#: models) or a CPU driver (the same source on the CPU, for portability over both); and
#: ``opencl-ptx``, that compiler's PTX launched by CUDA, the one Nsight Compute counts (NVIDIA only).
OPENCL_BACKENDS: tuple[str, ...] = ("opencl", "opencl-ptx")
#: Backends that skip the replicated datasets on a CPU device (minutes of a CPU for nothing a
#: GPU chapter reads).
CPU_SKIPS_REPLICATED: tuple[str, ...] = (PORTABLE_BACKEND, "opencl")
#: Without a GPU, the protocols those backends are timed with on the CPU device (unless
#: ``--protocols`` names others): the faithful port and the fast variant, the two the chapters
#: set side by side across machines (:data:`lassm.book.across.VARIANTS`). The other insert
#: protocols (matchany, doneflag, barrier) differ in how a warp's lanes share a table; on the
#: 2-core reader's box the four faithful ones lay within 6 % of each other on every dataset
#: (sample-k77 on sycl: 691, 721, 729, 734 ms), and they were 54 of the campaign's 100 points,
#: about 60 % of its local-assembly minutes.
NO_GPU_PROTOCOLS: tuple[str, ...] = ("casptr", "fast")


@dataclass(frozen=True)
class Plan:
    """One campaign: every (dataset, k, backend, protocol) point, how often it is timed, which steps follow.

    backends : those that can run here, the CPU oracle last.
    protocols : backend -> its builds; ``("none",)`` for ``cpu``.
    profile : collect counters for the profiled points of GPU backends.
    ceilings : run the machine's microbenchmarks (INT32 throughput, HBM bandwidth).
    ks : start k values (``None``: each dataset's own).
    skip : backend -> datasets it is not timed on (sycl and opencl on a CPU device skip the
        replicated scale point, which no GPU chapter reads)."""

    datasets: tuple[str, ...]
    backends: tuple[str, ...]
    protocols: dict[str, tuple[str, ...]] = field(default_factory=dict)
    repeats: int = REPEATS
    warmup: int = WARMUP
    profile: bool = True
    ceilings: bool = True
    ks: tuple[int | None, ...] = (None,)
    skip: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Backend -> what its builds are made for (``hip``: ``arch``, ``device``, ``wavefront``,
    #: ``source``), for ``--dry-run``; not part of ``campaign.json``.
    targets: dict[str, dict] = field(default_factory=dict)
    #: Backend -> why it cannot run here though a dry run plans it (``hip`` where rocminfo lists an
    #: AMD GPU and CuPy for ROCm is missing): a run without ``--dry-run`` leaves it out.
    unrun: dict[str, str] = field(default_factory=dict)

    def gpu(self, backend: str) -> bool:
        """Whether ``backend`` is timed on a GPU in this plan: :func:`is_gpu`, or planned for the AMD
        GPU rocminfo lists (:attr:`unrun`)."""
        return backend in self.unrun or is_gpu(backend)

    def points(self) -> list[tuple[str, int | None, str, str]]:
        """(dataset, k, backend, protocol) in run order, one dataset at a time, the CPU oracle first, as
        :func:`lassm.runs.sweep.main_job` takes them."""
        order = sorted(self.backends, key=lambda b: b != "cpu")
        return [(d, k, b, p) for d in self.datasets for k in self.ks for b in order
                if d not in self.skip.get(b, ()) for p in self.protocols.get(b, ("none",))]

    def profiled(self, backend: str) -> list[tuple[str, int | None, str]]:
        """(dataset, k, protocol) of GPU ``backend`` that get hardware counters; empty when the plan does
        not profile."""
        if not self.profile or backend not in self.backends:
            return []
        return [(d, k, p) for d in self.datasets if d in PROFILED_DATASETS for k in self.ks
                for p in self.protocols.get(backend, ()) if p in PROFILED_PROTOCOLS]

    def as_dict(self) -> dict:
        """The plan as ``campaign.json`` stores it (lists, not tuples)."""
        out = asdict(self)
        del out["targets"], out["unrun"]  # what this machine is, not what was measured
        out["protocols"] = {b: list(p) for b, p in self.protocols.items()}
        out["skip"] = {b: list(d) for b, d in self.skip.items()}
        return {key: list(val) if isinstance(val, tuple) else val for key, val in out.items()}


def timed_protocols(backend: str) -> tuple[str, ...]:
    """The protocols of ``backend`` (a key of :data:`lassm.backends.BACKENDS`), ``fast`` included,
    without the ``fast-*`` ablation builds; ``("none",)`` for ``cpu``."""
    from .. import backends

    return tuple(p for p in backends.protocols(backend) if not p.startswith("fast-"))


def is_gpu(backend: str) -> bool:
    """Whether ``backend`` runs on a GPU here: False for ``cpu``, for a backend that cannot run here,
    and for one answering from a CPU device (the portable backend may)."""
    if backend == "cpu":
        return False
    from .. import backends

    try:
        return getattr(backends.get(backend), "device_kind", lambda: "gpu")() != "cpu"
    except backends.BackendUnavailable:
        return False


def present_backends(dry: bool = False) -> tuple[list[str], list[str]]:
    """The backends the campaign times here, and one line for each kind it cannot.

    In order: the best GPU backend (``cuda``, else ``hip``), the portable backend if its runtime
    finds a device, the OpenCL backends where they run, then ``cpu``. The lines (``"gpu: none can
    run here (cuda: ...)"``) go to ``campaign.json``'s ``lacks``, naming an AMD GPU rocminfo lists
    that hip cannot use. With ``dry``, ``hip`` is planned for such a GPU, to show what it would get."""
    from .. import backends
    from ..backends import rocminfo

    found: list[str] = []
    why: dict[str, str] = {}
    for name in (*GPU_BACKENDS, PORTABLE_BACKEND, *OPENCL_BACKENDS):
        if name in GPU_BACKENDS and any(b in GPU_BACKENDS for b in found):
            continue
        try:
            backends.get(name)
        except backends.BackendUnavailable as exc:
            why[name] = str(exc).split(" cannot run here: ", 1)[-1]
            if name == "hip" and not found and (agents := rocminfo.gpus()):
                why[name] += f" (rocminfo lists {agents[0].describe()})"
                if dry:
                    found.append(name)
            continue
        found.append(name)
    lacks = []
    if not any(b in GPU_BACKENDS for b in found):
        lacks.append("gpu: no CUDA or HIP backend can run here (" + "; ".join(f"{b}: {why[b]}" for b in GPU_BACKENDS) + ")")
    elif "hip" in found and "hip" in why:
        lacks.append(f"hip: planned by the dry run, cannot run here: {why['hip']}")
    for name in (PORTABLE_BACKEND, *OPENCL_BACKENDS):
        if name not in found:
            lacks.append(f"{name}: cannot run here: {why[name]}")
    return found + ["cpu"], lacks


def make_plan(ask: Ask = Ask()) -> Plan:
    """The campaign for this machine as ``ask`` (this part's options,
    :meth:`~lassm.campaign.part.Ask.of_part`) says.

    quick : :data:`QUICK_DATASETS` only, timed, without counters and ceilings.
    backends, datasets, protocols, ks : replace the plan's (``protocols`` for every GPU backend
        that builds them).
    repeats, warmup : replace :data:`REPEATS` and :data:`WARMUP`.
    profile, ceilings : keep those steps.
    dry : a plan for ``--dry-run`` (:func:`present_backends`; :attr:`Plan.unrun` says why ``hip``
        cannot run).

    Without a GPU: :data:`NO_GPU_REPEATS` repeats, :data:`NO_GPU_PROTOCOLS` only, and sycl and
    opencl on a CPU device skip the replicated datasets (``x<N>``), unless the options say otherwise."""
    from .. import backends as _backends

    quick, backends, datasets, protocols, ks = ask.quick, ask.backends, ask.datasets, ask.protocols, ask.ks
    repeats, warmup, profile, ceilings, dry = ask.repeats, ask.warmup, ask.profile, ask.ceilings, ask.dry
    names = list(backends) if backends else present_backends(dry)[0]
    targets, unrun = hip_facts(names)
    chosen = {}
    for name in names:
        if not protocols or name == "cpu":
            chosen[name] = timed_protocols(name)
        else:  # asked by name: the ablation builds too
            chosen[name] = tuple(p for p in protocols if p in _backends.protocols(name))
    chosen_datasets = tuple(datasets or (QUICK_DATASETS if quick else FULL_DATASETS))
    gpus = [b for b in names if is_gpu(b) or b in unrun]
    skip = {b: tuple(d for d in chosen_datasets if _REPLICATED.search(d)) for b in names
            if b in CPU_SKIPS_REPLICATED and b not in gpus}
    if not gpus and not protocols:  # the CPU device's two variants (NO_GPU_PROTOCOLS says why)
        chosen.update({b: tuple(p for p in chosen[b] if p in NO_GPU_PROTOCOLS) for b in chosen
                       if b in CPU_SKIPS_REPLICATED})
    default_repeats = REPEATS if gpus else NO_GPU_REPEATS
    return Plan(datasets=chosen_datasets, backends=tuple(names), protocols=chosen,
                skip={b: d for b, d in skip.items() if d},
                repeats=default_repeats if repeats is None else int(repeats),
                warmup=WARMUP if warmup is None else int(warmup),
                profile=profile and not quick, ceilings=ceilings and not quick, ks=tuple(ks) if ks else (None,),
                targets=targets, unrun=unrun)


def hip_facts(names: list[str]) -> tuple[dict[str, dict], dict[str, str]]:
    """(:attr:`Plan.targets`, :attr:`Plan.unrun`) of the backends ``names``: for ``hip``, the gfx
    target and wavefront it builds for (:func:`lassm.backends.hip.target`), and why it cannot run
    here where its runtime is missing. Empty where ``hip`` is not among them."""
    if "hip" not in names:
        return {}, {}
    from .. import backends
    from ..backends import hip

    found = hip.target()
    targets = {"hip": {"arch": found[0].arch, "device": found[0].name, "wavefront": found[0].wavefront,
                       "compute_units": found[0].compute_units, "source": found[1]}} if found else {}
    try:
        backends.get("hip")
    except backends.BackendUnavailable as exc:
        return targets, {"hip": str(exc).split(" cannot run here: ", 1)[-1]}
    return targets, {}

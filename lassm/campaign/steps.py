# SPDX-License-Identifier: BSD-3-Clause
"""The campaign's steps after the timed sweep: counters, ceilings, metrics.

Each writes only under ``data/results/<machine>/`` (atomically), skips what is there unless
forced, and returns lines of what it could not measure, for ``campaign.json``'s ``lacks``; the
campaign goes on."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from .. import paths
from ..errors import LassmError

#: Where Nsight Compute is looked for when it is not on ``PATH``.
NCU_FALLBACK = Path("/usr/local/cuda/bin/ncu")
#: Seconds one profiled run may take before it is stopped.
NCU_TIMEOUT = 240.0
#: The profiler of each GPU backend's vendor, and how to get it.
PROFILERS: dict[str, tuple[str, str]] = {
    "cuda": ("ncu", "install Nsight Compute (the CUDA toolkit's nsight-compute package) and put ncu on PATH"),
    "hip": ("rocprofv3", "install ROCm's rocprofiler-sdk and put rocprofv3 on PATH"),
    "sycl": ("unitrace", "install Intel's unitrace (github.com/intel/pti-gpu) and put it on PATH"),
    "opencl": ("", "Nsight Compute profiles no OpenCL launch; the opencl-ptx backend runs the same "
                   "compiler's PTX through CUDA, where ncu counts it"),
    "opencl-ptx": ("ncu", "install Nsight Compute (the CUDA toolkit's nsight-compute package) and put ncu on PATH"),
}


def find_ncu() -> str | None:
    """Nsight Compute's executable: ``ncu`` on ``PATH``, else the CUDA toolkit's, else None."""
    found = shutil.which("ncu")
    if found:
        return found
    return str(NCU_FALLBACK) if NCU_FALLBACK.is_file() and os.access(NCU_FALLBACK, os.X_OK) else None


def counter_file(machine: str, dataset: str, k: int, backend: str, protocol: str) -> Path:
    """``data/results/<machine>/counters/ncu__<dataset>__k<k>__<backend>__<protocol>.csv``."""
    from ..runs.records import run_id_for

    return paths.results_dir(machine) / "counters" / f"ncu__{run_id_for(dataset, k, backend, protocol)}.csv"


@contextlib.contextmanager
def _importable_here() -> Iterator[None]:
    """The profiled ``python -m lassm.cli`` imports this lassm, wherever the profiler starts it."""
    here = str(Path(__file__).resolve().parents[2])
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = here + (os.pathsep + old if old else "")
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def counters(backend: str, machine: str, points: list[tuple[str, int | None, str]], force: bool = False,
             ncu: str | None = None, timeout: float = NCU_TIMEOUT,
             tick: Callable[[], None] = lambda: None) -> list[str]:
    """Hardware counters of ``points`` on GPU ``backend``, with the profiler this machine has.

    Nsight Compute runs on ``cuda`` and ``opencl-ptx``: every point's ``lassm extend`` in one
    profiled process (:mod:`lassm.cli.profiled`), cut into one raw CSV per point with sidecars under
    ``counters/``. It profiles no OpenCL launch, so ``opencl`` gets a line naming the way round;
    other vendors' profilers get a line saying what to do. ``force`` recounts points with a raw file;
    ``ncu`` defaults to :func:`find_ncu`; ``timeout`` is per run; ``tick`` is called once per point.
    Returns one line per thing not measured."""
    tool, how = PROFILERS.get(backend, ("", ""))
    if not tool:
        return [f"counters: the {backend} backend has no profiler in this study" + (f": {how}" if how else "")]
    if tool != "ncu":
        exe = shutil.which(tool)
        module = {"hip": "rocprof", "sycl": "unitrace"}[backend]
        if exe is None:
            return [f"counters: {tool} not found; {how}"]
        return [f"counters: {tool} is here ({exe}) but the campaign does not drive it yet: run the command of "
                f"lassm.analysis.counters.{module}.build_command, then lassm counters parse --tool {module}"]
    exe = ncu or find_ncu()
    if exe is None:
        return [f"counters: ncu not found (not on PATH, nor {NCU_FALLBACK}); {how}"]
    from ..analysis.counters import ncu_batch
    from ..analysis.counters import ncu as nsight
    from ..runs.records import slug
    from ..workloads.local_assembly import datasets, formats

    lacks: list[str] = []
    loaded: dict[tuple, tuple] = {}  # (dataset, k) -> (dataset, start k): each generated once
    raws: list[Path] = []
    labels: list[dict] = []
    commands: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="lassm-counters-") as tmp, _importable_here():
        for dname, k, proto in points:
            known = k or datasets.named_k(dname)  # a recorded point is skipped before its dataset is made
            if known and not force and counter_file(machine, dname, known, backend, proto).is_file():
                tick()
                continue
            try:
                if (dname, k) not in loaded:
                    loaded.clear()
                    loaded[(dname, k)] = datasets.load(dname, k)
                ds, start_k = loaded[(dname, k)]
                raw = counter_file(machine, dname, start_k, backend, proto)
                if raw.is_file() and not force:
                    tick()
                    continue
                data = Path(tmp) / f"{slug(dname)}-k{start_k}.parquet"
                if not data.is_file():
                    formats.write_dataset(ds, data)
            except Exception as exc:  # a dataset that cannot be made is named; the others go on
                lacks.append(f"counters: {dname} {proto}: {_one_line(exc)}")
                tick()
                continue
            # the point's `lassm extend`, as extend_command gives it, run in the one profiled process
            commands.append(nsight.extend_command(data, k=start_k, protocol=proto, backend=backend,
                                                  out=Path(tmp) / f"extended-{len(commands)}.txt"))
            raws.append(raw)
            labels.append({"dataset": dname, "k": int(start_k), "protocol": proto})
        if commands:  # one session for the backend's points (lassm.cli.profiled)
            names = [str(i) for i in range(len(commands))]  # the runner's names: each command's place
            try:
                missing = ncu_batch.collect(ncu_batch.commands_target(commands), names, raws, labels,
                                        session=nsight.Session(nsight.DEFAULT_KERNEL, exe, timeout=timeout * len(names)))
            except Exception as exc:  # the session failed: named once, the campaign goes on
                return lacks + [f"counters: {_one_line(exc)}"]
            for name, why in missing.items():
                label = labels[int(name)]
                lacks.append(f"counters: {label['dataset']} {label['protocol']}: {why}")
            for _ in commands:
                tick()
    return lacks


def ceilings(backend: str, machine: str, force: bool = False, command: str = "") -> list[str]:
    """The machine's ceilings (INT32 throughput, HBM bandwidth, measured on CUDA) into
    ``ceilings.json`` with ``command`` as provenance; ``force`` measures again. Returns one line
    when they could not be measured."""
    if backend != "cuda":
        return [f"ceilings: the microbenchmarks (lassm.analysis.machine) run on CUDA only; none for {backend}"]
    path = paths.results_dir(machine) / "ceilings.json"
    if path.is_file() and not force:
        return []
    from ..analysis import machine as bench
    from ..atomic import atomic_open
    from ..backends import cuda
    from ..runs.records import git_sha, versions

    try:
        res = bench.measure()
    except Exception as exc:  # a failed microbenchmark is named; the campaign goes on
        return [f"ceilings: {_one_line(exc)}"]
    res.update(device=cuda.device_name(), git_sha=git_sha(), versions=versions(), command=command)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as fh:
        json.dump(res, fh, indent=2, default=str)
        fh.write("\n")
    return []


def metrics(machine: str) -> list[str]:
    """``metrics derive`` for ``machine``: ``metrics.csv`` from its counters and ceilings; one line when
    either is missing."""
    folder = paths.results_dir(machine)
    missing = [what for what, there in (("counters", any((folder / "counters").glob("*.csv"))),
                                        ("ceilings", (folder / "ceilings.json").is_file())) if not there]
    if missing:
        return [f"metrics: not derived: {machine} has no {' and no '.join(missing)}"]
    from ..analysis.derive import write_metrics

    try:
        write_metrics(machine)
    except Exception as exc:  # named in lacks; the campaign goes on
        return [f"metrics: {_one_line(exc)}"]
    return []


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if isinstance(exc, LassmError) else f"{type(exc).__name__}: {text}"


def cpu_lacks() -> list[str]:
    """What a CPU device's folder cannot have: the study's profilers and microbenchmarks are GPU tools."""
    return ["counters: none for a CPU device: the study's profilers (ncu, rocprofv3, unitrace) count GPU kernels",
            "ceilings: the microbenchmarks (lassm.analysis.machine) measure CUDA GPUs only",
            "metrics: not derived: no counters and no ceilings on a CPU device"]

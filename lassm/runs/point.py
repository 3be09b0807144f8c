# SPDX-License-Identifier: BSD-3-Clause
"""One sweep point, run and recorded: the one code path of ``lassm run``, ``run.ipynb`` and a
Dask worker, apart so that :mod:`.sweep` and :mod:`.distributed` both call it without a cycle.
"""
from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from .. import backends, paths
from ..errors import LassmError
from ..workloads.local_assembly import datasets
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from .records import Checks, RunOptions, machine_for_backend, run_point


def protocols_of(backend: str) -> tuple[str, ...]:
    """The insert protocols a backend can be built with (``none`` for the CPU)."""
    if backend == "cpu":
        return ("none",)
    return tuple(getattr(backends.get(backend), "PROTOCOLS", ("none",)))


def point_command(dataset: str, k: int, backend: str, protocol: str, machine: str | None = None) -> str:
    """The ``lassm run`` line that re-runs exactly this point (recorded by the notebook path)."""
    words = ["lassm", "run", "--notebooks", "--datasets", dataset, "--ks", str(k), "--backends", backend,
             "--protocols", protocol]
    if machine:
        words += ["--machine", machine]
    return " ".join(shlex.quote(w) for w in words)


def run_one(dataset: str, k: int | None, backend: str, protocol: str, machine: str | None = None, *,
            ds: Dataset | None = None, run: RunOptions = RunOptions(),
            checks: Checks = Checks()) -> tuple[Path, dict]:
    """Runs and records one sweep point; returns the record folder and its ``summary.json`` content.

    The positional names are the ``parameters`` cell of ``notebooks/run.ipynb`` (a test checks).

    Parameters
    ----------
    dataset : a name :func:`lassm.workloads.local_assembly.datasets.load` understands, or a path.
    k : start k; None takes the dataset's own.
    protocol : GPU insert protocol; ``none`` for the CPU backend.
    machine : results folder name (default: derived from the device).
    ds : the dataset already loaded; ``k`` must then be set.
    run : :class:`RunOptions`: repeats, warm-ups, the command recorded (default
        :func:`point_command`), the record's folder, and whether to replace a record another process
        wrote meanwhile (else :class:`lassm.runs.records.AlreadyRecorded`).
    checks : :class:`Checks`: the oracle's output if already known, and the hook given the first
        timed output; the dataset's own reference (MetaHipMer's output, where known) is checked too.
    """
    if backend == "cpu" and protocol != "none":
        raise LassmError(f"the cpu backend has no insert protocol; got protocol={protocol!r}, use 'none'")
    if ds is None or k is None:
        ds, k = datasets.load(dataset, k)
    mname = paths.machine_slug(machine) if machine else machine_for_backend(backend)
    options = {"protocol": protocol} if backend != "cpu" else {}
    run = replace(run, command=run.command or point_command(dataset, k, backend, protocol, mname))
    checks = replace(checks, reference=datasets.reference_output(dataset))
    return run_point(ds, dataset, Params(k=k), backend, machine=mname, run=run, checks=checks, **options)

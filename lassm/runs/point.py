# SPDX-License-Identifier: BSD-3-Clause
"""One sweep point, run and recorded: the one code path of ``lassm run``, ``run.ipynb`` and a
Dask worker.

In a module of its own so that the sweep (:mod:`lassm.runs.sweep`) and the Dask runner
(:mod:`lassm.runs.distributed`) both call it, neither importing the other back.
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
    """Runs and records one sweep point; the one code path of ``lassm run`` and ``run.ipynb``.

    Its positional parameters are the parameter vocabulary: the ``parameters`` cell of
    ``notebooks/run.ipynb`` uses the same names (``tests/test_sweep.py`` checks it).

    Parameters
    ----------
    dataset : str
        A name understood by :func:`lassm.workloads.local_assembly.datasets.load` (``sample-k21``, ``gen-k33``, a path).
    k : int or None
        Start k; None takes the dataset's own.
    backend : str
        A key of :data:`lassm.backends.BACKENDS`.
    protocol : str
        GPU insert protocol; ``none`` for the CPU backend, which has none.
    machine : str or None
        Results folder name (default: derived from the device).
    ds : Dataset, optional
        The dataset already loaded (the sweep loads each one once); ``k`` must then be set.
    run : RunOptions
        Repeats, warm-up runs, the command line to record (default: :func:`point_command`),
        the folder to write the record into instead of ``data/results/<machine>/``, and whether
        to replace the record should another process write it meanwhile (false raises
        :class:`lassm.runs.records.AlreadyRecorded` instead: a sweep without ``force``).
    checks : Checks
        The CPU oracle's output for this dataset and k, when the caller already has it, and the
        hook that receives the first timed output (the sweep keeps the CPU's as the dataset's
        oracle). The reference checked is the dataset's own (MetaHipMer's output, where known).

    Returns
    -------
    (Path, dict)
        The record folder and its ``summary.json`` content.
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

# SPDX-License-Identifier: BSD-3-Clause
"""The main job: every sweep point (dataset x k x backend x protocol) on this machine.

Resumable: a point whose ``summary.json`` exists is skipped (``force`` re-runs it); each point
is written atomically, so a killed sweep loses nothing already recorded; a failing point is
reported and the rest goes on.
"""
from __future__ import annotations

import shlex
import sys
import traceback
from pathlib import Path

from . import backends, datasets, paths
from .config import Params
from .errors import LassmError
from .runs import machine_for_backend, run_id_for, run_point, slug


def protocols_of(backend: str) -> tuple[str, ...]:
    """The insert protocols a backend can be built with (``none`` for the CPU)."""
    if backend == "cpu":
        return ("none",)
    return tuple(getattr(backends.get(backend), "PROTOCOLS", ("none",)))


def main_job(machine: str | None = None, backend_names: list[str] | None = None,
             dataset_names: list[str] | None = None, protocols: list[str] | None = None,
             ks: list[int] | None = None, force: bool = False, progress: bool = True,
             root: Path | None = None) -> list[dict]:
    """Runs the sweep; returns one status row per point.

    Parameters
    ----------
    machine : results folder name (default: derived from the device).
    backend_names : default: the best backend present, plus ``cpu`` (the oracle) if different.
    dataset_names : names understood by :func:`lassm.datasets.load` (default: ``sample-k77``).
    protocols : GPU insert protocols (default: every one the backend has).
    ks : start k values (default: each dataset's own).
    force : re-run points already recorded.
    """
    best = backends.best()
    backend_names = backend_names or ([best, "cpu"] if best != "cpu" else ["cpu"])
    dataset_names = dataset_names or ["sample-k77"]
    command = "lassm " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    points = []
    for dname in dataset_names:
        for k in ks or [None]:
            for bname in backend_names:
                for proto in protocols_of(bname) if not protocols or bname == "cpu" else protocols:
                    points.append((dname, k, bname, proto))
    machine_name = slug(machine) if machine else None
    rows: list[dict] = []
    loaded: dict = {}
    bar = _progress(progress)
    with bar:
        task = bar.add_task("sweep", total=len(points))
        for dname, k, bname, proto in points:
            bar.update(task, description=f"{dname} k={k or '-'} {bname}/{proto}")
            row = {"dataset": dname, "k": k, "backend": bname, "protocol": proto}
            try:
                if (dname, k) not in loaded:
                    loaded[(dname, k)] = datasets.load(dname, k)
                ds, start_k = loaded[(dname, k)]
                row["k"] = start_k
                mname = machine_name or machine_for_backend(bname)
                if mname and not force and (paths.results_dir(mname) / run_id_for(dname, start_k, bname, proto) / "summary.json").exists():
                    row["status"] = "skipped (recorded)"
                else:
                    options = {"protocol": proto} if bname != "cpu" else {}
                    folder, summary = run_point(ds, dname, Params(k=start_k), bname, command,
                                                machine=mname, root=root,
                                                reference=datasets.reference_output(dname), **options)
                    row["status"] = "ok" if summary["matches_cpu"] is not False else "MISMATCH"
                    row["folder"] = str(folder)
                    row["kernel_seconds"] = summary["kernel_seconds"]
            except LassmError as exc:
                row["status"] = f"failed: {exc}"
            except Exception as exc:  # a failing point is reported, the sweep goes on
                row["status"] = f"failed: {type(exc).__name__}: {exc}"
                traceback.print_exc(file=sys.stderr)
            rows.append(row)
            bar.advance(task)
    return rows


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, *a, **k):
        return 0

    def update(self, *a, **k):
        pass

    def advance(self, *a, **k):
        pass


def _progress(enabled: bool):
    if not enabled:
        return _NoBar()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())

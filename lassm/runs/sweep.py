# SPDX-License-Identifier: BSD-3-Clause
"""The main job: every sweep point (dataset x k x backend x protocol) on this machine.

Resumable: a whole record of this host is skipped (``force`` re-runs it; a damaged one is named
and measured again, :mod:`lassm.runs.record_check`); points are written atomically and a
failing point does not stop the rest. Each point runs :func:`run_one`, directly (the default)
or with ``notebooks=True`` through Papermill on ``notebooks/run.ipynb``, the executed notebook
renamed into the record folder as ``run.ipynb`` once the record is written.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import stderr
from .. import backends, paths
from ..workloads.local_assembly import datasets
from ..atomic import publish, temp_prefix
from ..errors import LassmError, OutputFault, write_refused
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.result import Extension
from .point import protocols_of, run_one
from .account import SKIPPED
from .host import check_mine
from .record_check import ABSENT, problem
from .records import (AlreadyRecorded, Checks, RunOptions, clear_leftovers, command_line, machine_for_backend,
                      run_id_for)

if TYPE_CHECKING:  # rich is imported when a bar is shown
    from rich.progress import Progress

#: The notebook that ``lassm run --notebooks`` executes for each point (a checkout's file).
RUN_NOTEBOOK = paths.REPO / "notebooks" / "run.ipynb"

#: File name of the executed notebook inside a record folder.
NOTEBOOK_NAME = "run.ipynb"


@dataclass(frozen=True)
class Choice:
    """Which points a sweep runs: the product of its axes, each defaulted from what is here.

    Attributes
    ----------
    backends : default: the best backend present, plus ``cpu`` (the oracle) if different.
    datasets : default ``sample-k77``.
    protocols : default: every one the backend has.
    ks : start k values (default: each dataset's own).
    """

    backends: Sequence[str] | None = None
    datasets: Sequence[str] | None = None
    protocols: Sequence[str] | None = None
    ks: Sequence[int] | None = None

    def points(self) -> list[tuple]:
        """The (dataset, k, backend, protocol) tuples, a dataset's points together."""
        best = backends.best()
        backend_names = self.backends or ([best, "cpu"] if best != "cpu" else ["cpu"])
        ks: Sequence[int | None] = self.ks or [None]
        return [(dname, k, bname, proto) for dname in self.datasets or ["sample-k77"] for k in ks
                for bname in backend_names
                for proto in (protocols_of(bname) if not self.protocols or bname == "cpu" else self.protocols)]


@dataclass(frozen=True)
class SweepOptions:
    """What holds for every point of a sweep: ``force`` re-runs recorded points; ``repeats`` and
    ``warmup`` apply on the direct path (the notebook and cluster paths run each point once);
    ``root`` replaces ``data/results/<machine>/`` (direct and cluster paths)."""

    force: bool = False
    repeats: int = 1
    warmup: int = 0
    root: Path | None = None


@dataclass(frozen=True)
class Via:
    """Where the points run: in this process (default), through Papermill (``notebooks``, executing
    ``template``, default :data:`RUN_NOTEBOOK`), or as Dask tasks that write their own records
    (``cluster``, a ``--cluster`` value, or ``client``, already connected)."""

    notebooks: bool = False
    template: Path | None = None
    cluster: str | None = None
    client: object | None = None


def main_job(machine: str | None = None, points: Choice | Sequence[tuple] | None = None, *,
             options: SweepOptions = SweepOptions(), via: Via = Via(), progress: bool = True,
             bar: Progress | None = None) -> list[dict]:
    """Runs the sweep; returns one status row per point.

    ``points``: (dataset, k, backend, protocol) tuples or the :class:`Choice` they come from (default
    ``Choice()``); ``options``: :class:`SweepOptions`; ``via``: :class:`Via`; ``bar``: a shown
    :class:`rich.progress.Progress` to add the sweep's task to (default: its own, when ``progress``)."""
    force, root, repeats, warmup = options.force, options.root, options.repeats, options.warmup
    if via.notebooks:
        _check_notebook_tools(via.template or RUN_NOTEBOOK)
        if root is not None:
            raise LassmError("notebooks=True writes records under data/results/<machine>/ (LASSM_RESULTS); drop root")
    command = command_line()
    if points is None:
        points = Choice()
    points = points.points() if isinstance(points, Choice) else list(points)
    machine_name = paths.machine_slug(machine) if machine else None
    if via.cluster or via.client is not None:
        if via.notebooks:
            raise LassmError("--notebooks runs each point in this process; drop --cluster or --notebooks")
        return _main_job_on_cluster(points, via, machine_name, options, command, progress, bar)
    run = RunOptions(repeats=repeats, warmup=warmup, command=command, root=root, replace=force)
    rows: list[dict] = []
    loaded: dict = {}
    owners: set[str] = set()  # the machine folders found this host's
    oracles: dict = {}  # (dataset, k) -> the CPU's output, run once per dataset and k
    with _shown(bar, progress) as bar:
        # the bar counts runs (a x20 dataset's point weighs 20 of its runs), so its ETA is fair; it shows points
        task = bar.add_task("sweep", total=sum(weight(p[0], repeats, warmup) for p in points), points=0,
                            points_total=len(points))
        for dname, k, bname, proto in points:
            bar.update(task, description=f"sweep {dname} k={k or '-'} {bname}/{proto}")
            row = {"dataset": dname, "k": k, "backend": bname, "protocol": proto}
            try:
                if (dname, k) not in loaded:
                    loaded.clear()  # a plan groups a dataset's points: keep one dataset in memory
                    oracles.clear()
                    loaded[(dname, k)] = datasets.load(dname, k)
                ds, start_k = loaded[(dname, k)]
                row["k"] = start_k
                mname = machine_name or machine_for_backend(bname)
                row["machine"] = mname
                run_id = run_id_for(dname, start_k, bname, proto)
                if root is None:
                    _check_owner(mname, owners)
                found = record_problem(mname, dname, start_k, bname, proto) if mname and not force else ABSENT
                damaged = found not in (None, ABSENT)  # measured again, and replaced
                if found is None:
                    row["status"] = SKIPPED
                    clear_leftovers(paths.results_dir(mname), run_id)
                else:
                    if damaged:
                        stderr.line(f"{paths.results_dir(mname) / run_id}: {found}; measuring it again")
                    if via.notebooks:
                        folder, summary = run_notebook(dname, start_k, bname, proto, mname, template=via.template)
                    else:
                        key = (dname, k)
                        if bname != "cpu" and key not in oracles:
                            oracles[key] = _oracle(ds, start_k)
                        keep = (lambda ext, key=key: oracles.setdefault(key, ext)) if bname == "cpu" else None
                        again = replace(run, replace=True) if damaged else run
                        folder, summary = run_one(dname, start_k, bname, proto, mname, ds=ds, run=again,
                                                  checks=Checks(cpu_ext=oracles.get(key), keep_output=keep))
                    row["status"] = "ok" if summary["matches_cpu"] is not False else "MISMATCH"
                    row["folder"] = str(folder)
                    row["kernel_seconds"] = summary["kernel_seconds"]
                    row["shared_device"] = bool(summary.get("shared_device", False))
            except AlreadyRecorded:  # another run on this folder recorded the point meanwhile
                row["status"] = SKIPPED
            except OutputFault:  # a full disk fails every point after it, each once measured: the run ends
                raise
            except LassmError as exc:
                row["status"] = f"failed: {exc}"
            except Exception as exc:  # a failing point is reported, the sweep goes on
                if isinstance(exc, OSError) and write_refused(exc):  # a full disk, unnamed: as above
                    raise
                row["status"] = f"failed: {_describe(exc)}"
                if not _is_notebook_error(exc):  # the notebook's traceback is in the error itself
                    traceback.print_exc(file=sys.stderr)
            rows.append(row)
            bar.update(task, advance=weight(dname, repeats, warmup), points=len(rows))
    return rows


def recorded(machine: str, dataset: str, k: int, backend: str, protocol: str) -> bool:
    """Whether the point's record is whole and this host's in the machine's folder: a run skips it
    (``--force`` aside)."""
    return record_problem(machine, dataset, k, backend, protocol) is None


def record_problem(machine: str, dataset: str, k: int, backend: str, protocol: str) -> str | None:
    """What keeps the point's record in the machine's folder from counting as done
    (:func:`lassm.runs.record_check.problem`: :data:`ABSENT` where there is none), or None."""
    return problem(paths.results_dir(machine) / run_id_for(dataset, k, backend, protocol))


def _check_owner(machine: str, owners: set[str]) -> None:
    """Refuses a machine folder that is not this host's (:func:`lassm.runs.host.check_mine`), once a folder."""
    if machine not in owners:
        check_mine(paths.results_dir(machine))
        owners.add(machine)


def _oracle(ds: Dataset, k: int) -> Extension:
    """The CPU backend's output for a dataset: what every GPU point of it is checked against."""
    from .extend import extend

    return extend(ds, Params(k=k), backend="cpu")


def weight(dataset: str, repeats: int, warmup: int) -> float:
    """A point's share of the bar: its runs, times the replication of its dataset (``x20``)."""
    m = re.search(r"x(\d+)$", dataset)
    return (repeats + warmup) * (int(m[1]) if m and not dataset.endswith((".dat", ".parquet")) else 1)


def _main_job_on_cluster(points: list[tuple], via: Via, machine: str | None, options: SweepOptions, command: str,
                         progress: bool, bar: Progress | None = None) -> list[dict]:
    """The sweep's points as Dask tasks (``lassm.runs.distributed``): same records, same resumability."""
    from . import distributed

    with contextlib.ExitStack() as stack:
        client = via.client
        if client is None:
            assert via.cluster is not None  # the cluster's way is taken for one or the other
            client = stack.enter_context(distributed.connect(via.cluster, quiet=not progress))
        with _shown(bar, progress) as bar:
            task = bar.add_task("sweep", total=len(points))

            def shown(row: dict) -> None:
                bar.update(task, description=f"{row['dataset']} k={row['k'] or '-'} {row['backend']}/{row['protocol']}")
                bar.advance(task)

            return distributed.run_points(client, points, machine=machine, force=options.force, command=command,
                                          root=options.root, on_row=shown)


def run_notebook(dataset: str, k: int, backend: str, protocol: str, machine: str,
                 template: Path | None = None) -> tuple[Path, dict]:
    """Executes the run notebook for one point, which records the point itself; only then is the
    executed copy renamed from a temporary to ``<record>/run.ipynb``. On failure the temporary is
    removed and the notebook's error raised."""
    import papermill

    template = Path(template or RUN_NOTEBOOK)
    machine_dir = paths.results_dir(machine)
    run_id = run_id_for(dataset, k, backend, protocol)
    machine_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(run_id), suffix=".ipynb", dir=machine_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        params = {"dataset": dataset, "k": int(k), "backend": backend, "protocol": protocol, "machine": machine}
        papermill.execute_notebook(str(template), str(tmp), parameters=params, kernel_name="python3",
                                   cwd=str(template.parent), progress_bar=False, log_output=False)
        folder = machine_dir / run_id
        summary_path = folder / "summary.json"
        if not summary_path.is_file():
            raise LassmError(f"{template}: ran without writing {summary_path}")
        publish(tmp, folder / NOTEBOOK_NAME)  # with an ordinary file's mode, not mkstemp's 0600
        return folder, json.loads(summary_path.read_text())
    finally:
        tmp.unlink(missing_ok=True)


def _check_notebook_tools(template: Path) -> None:
    """Fails early, with what to install, when the notebook path cannot run."""
    if not Path(template).is_file():
        raise LassmError(f"{template}: no such notebook; --notebooks runs from a checkout of lassm")
    for module in ("papermill", "ipykernel"):
        try:
            __import__(module)
        except ImportError:
            raise LassmError(f"--notebooks needs {module}: pip install 'lassm[book]'") from None


def _is_notebook_error(exc: BaseException) -> bool:
    return type(exc).__name__ == "PapermillExecutionError"


def _describe(exc: BaseException) -> str:
    """One line for a failed point: a notebook's own exception name and message, else ours."""
    if _is_notebook_error(exc):
        return f"{getattr(exc, 'ename', 'Error')}: {getattr(exc, 'evalue', exc)} (in {NOTEBOOK_NAME})"
    return f"{type(exc).__name__}: {exc}"


def _shown(bar: Progress | None, enabled: bool) -> contextlib.AbstractContextManager[Progress]:
    """``bar`` as it is (its owner shows and ends it), else a progress display of the sweep's own
    (:func:`lassm.runs.progress.bar`: live on a terminal, plain lines elsewhere, silent unless ``enabled``)."""
    if bar is not None:
        return contextlib.nullcontext(bar)
    from .progress import bar as progress_bar

    return progress_bar(enabled)


def record_frames(folder: str | Path) -> dict:
    """The tables of one record folder, for display: ``summary`` (nested values as JSON text),
    ``ends`` and ``launches``, each left out where the record does not hold it."""
    import pandas as pd

    folder = Path(folder)
    summary = json.loads((folder / "summary.json").read_text())
    flat = {key: json.dumps(val, sort_keys=True) if isinstance(val, (dict, list)) else val
            for key, val in sorted(summary.items())}
    frames = {"summary": pd.DataFrame({"value": pd.Series(flat, dtype=object)})}
    for name in ("ends", "launches"):
        if (folder / f"{name}.parquet").is_file():
            frames[name] = pd.read_parquet(folder / f"{name}.parquet")
    return frames

# SPDX-License-Identifier: BSD-3-Clause
"""Run records: what one (dataset, k, backend, protocol) run measured, with its provenance.

Each run writes ``data/results/<machine>/<run-id>/`` atomically: ``summary.json`` (the figures
and their provenance), ``ends.parquet`` (per contig end: walk length, final k, termination,
steps, insertions) and, for GPU backends, ``launches.parquet``. The run id is the sweep point,
so a re-run replaces its record and a killed sweep keeps every record written.
"""
from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .. import settings
from ..version import __version__
from .. import paths
from .devices import cpu_model, device_kind
from . import host
from .host import claim, place
from ..atomic import atomic_path, locked, publish, remove_stale, temp_prefix
from ..errors import OutputFault, write_refused
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.result import Extension
from ..workloads.local_assembly.stats import work_counts

#: Keys every summary.json carries (the book and later analyses rely on them).
SUMMARY_KEYS = (
    "kernel", "machine", "device", "driver", "backend", "protocol", "warp_size", "dataset", "k",
    "contig_ends", "hash_insertions", "kernel_seconds", "wall_seconds", "matches_cpu",
    "git_sha", "versions", "command",
)


#: The kernel these records measure; a ``summary.json`` without the key predates it and is this
#: kernel's too (the X-drop kernel's measurements are tables: :mod:`lassm.runs.xdrop_records`).
KERNEL = "local-assembly"


slug = paths.slug  # a folder-safe name (a device's, a run id's); a machine's is paths.machine_slug


def command_line() -> str:
    """This process's command as its records quote it: ``lassm`` and the arguments, shell-quoted."""
    import shlex
    import sys

    return "lassm " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def git_sha() -> str:
    """The checkout's commit (with ``-dirty`` when it has uncommitted changes), or ``unknown``.

    ``LASSM_GIT_SHA`` wins: a GPU node gets a copy of the tree without its ``.git``.
    """
    named = settings.value("LASSM_GIT_SHA")
    if named is not None:
        return named
    return _checkout_sha(str(paths.REPO))


@functools.lru_cache(maxsize=None)
def _checkout_sha(repo: str) -> str:
    """The checkout's commit, asked of git once per process: every record of a run quotes it, and
    a run's records are of one checkout."""
    exe = shutil.which("git")
    if exe is None:
        return "unknown"
    try:
        sha = subprocess.run([exe, "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                             timeout=10, close_fds=False).stdout.strip()
        dirty = subprocess.run([exe, "-C", repo, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, timeout=10, close_fds=False).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def versions() -> dict:
    """Versions of everything that can change a result or a timing."""
    out = {"lassm": __version__, "python": platform.python_version(), "numpy": np.__version__}
    for mod in ("numba", "cupy", "pyarrow", "dpctl"):
        m = sys.modules.get(mod)
        if m is not None:
            out[mod] = getattr(m, "__version__", "?")
    return out


def default_machine(ext: Extension | None = None) -> str:
    """``LASSM_MACHINE`` if set, else this host's folder (:func:`lassm.runs.host.place`) of the GPU's
    name for GPU runs, else of the CPU model."""
    if (name := paths.env_machine()):
        return name
    device = (ext.right.extra.device if ext is not None else None) or ""
    return place(slug(device) if device else slug("cpu " + cpu_model()))


def machine_for_backend(backend: str) -> str:
    """The results folder name a run on ``backend`` will use (see :func:`default_machine`)."""
    if paths.env_machine() or backend == "cpu":
        return default_machine()
    from .. import backends

    mod = backends.get(backend)
    if getattr(mod, "device_kind", lambda: "gpu")() == "cpu":  # e.g. SYCL on the OpenCL CPU driver
        return default_machine()
    name = getattr(mod, "device_name", lambda: "")()
    return place(slug(name)) if name else default_machine()


def output_digest(ext: Extension) -> str:
    """SHA-256 of the sorted output lines: equal digests mean identical extended contigs."""
    h = hashlib.sha256()
    for line in sorted(ext.lines()):
        h.update(line.encode() + b"\n")
    return h.hexdigest()


def summarize(ext: Extension, dataset: str, matches_cpu: bool | None, command: str | None,
              machine: str | None = None, extra: dict | None = None, digest: str | None = None) -> dict:
    """The summary.json record of one run; ``digest``: its :func:`output_digest`, where the caller has it."""
    info = ext.right.extra
    machine = machine or default_machine(ext)
    ends = 2 * int(ext.dataset.with_reads_mask().sum())
    work = work_counts(ext)
    summary = {
        "kernel": KERNEL,
        "machine": machine,
        "device": info.device or cpu_model(),
        "driver": info.driver if info.driver is not None else "",
        "backend": ext.backend,
        "protocol": info.protocol if info.protocol is not None else "none",
        "warp_size": int(info.warp_size if info.warp_size is not None else 1),
        "dataset": dataset,
        "k": int(ext.params["k"]),
        "params": ext.params,
        "contigs": int(ext.dataset.n_contigs),
        "contig_ends": ends,
        "hash_insertions": work["start_insertions"],
        **{key: val for key, val in work.items() if key != "start_insertions"},
        "kernel_seconds": float(ext.kernel_seconds),
        "wall_seconds": float(ext.wall_seconds),
        "launches": len(info.launches) + len(ext.left.extra.launches),
        "mem_high_water_bytes": int(max(info.mem_high_water_bytes or 0, ext.left.extra.mem_high_water_bytes or 0)),
        "matches_cpu": matches_cpu,
        "output_sha256": digest or output_digest(ext),
        "git_sha": git_sha(),
        "versions": versions(),
        "command": command,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "gpus": int(info.sharded.gpus if info.sharded is not None else 1 if ext.backend != "cpu" else 0),
        "device_kind": device_kind(ext.backend),
        "host": host.fingerprint(),
    }
    if os.environ.get("SLURM_JOB_ID"):  # written inside a Slurm job: which one (a worker of --cluster slurm)
        summary["slurm_job"] = os.environ["SLURM_JOB_ID"]
    if extra:
        summary.update(extra)
    return summary


def _write_tables(folder: Path, ext: Extension, with_ends: bool = True) -> None:
    """``ends.parquet`` (and ``launches.parquet``); plain TSV where pyarrow is absent (a bare GPU node)."""
    cols = ext.ends_columns() if with_ends else {}
    launches = [{"side": side, **launch} for side, res in (("right", ext.right), ("left", ext.left))
                for launch in res.extra.launches]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        if cols:
            with open(folder / "ends.tsv", "w") as fh:
                fh.write("\t".join(cols) + "\n")
                for row in zip(*cols.values()):
                    fh.write("\t".join(str(v) for v in row) + "\n")
        if launches:
            (folder / "launches.json").write_text(json.dumps(launches, indent=1) + "\n")
        return
    if cols:
        pq.write_table(pa.table(cols), folder / "ends.parquet")
    if launches:
        pq.write_table(pa.Table.from_pylist(launches), folder / "launches.parquet")


def normalize_records(root: Path) -> list[Path]:
    """Turns the TSV/JSON tables a bare GPU node wrote into parquet (run before committing)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    done = []
    for tsv in sorted(Path(root).rglob("ends.tsv")):
        if tsv.parent.name.startswith("."):  # a temporary left by a killed run: not a record
            continue
        table = pacsv.read_csv(tsv, parse_options=pacsv.ParseOptions(delimiter="\t"))
        with atomic_path(tsv.with_name("ends.parquet")) as tmp:  # a kill keeps the TSV, to redo
            pq.write_table(table, tmp)
        tsv.unlink()
        done.append(tsv.parent)
    for js in sorted(Path(root).rglob("launches.json")):
        if js.parent.name.startswith("."):
            continue
        with atomic_path(js.with_name("launches.parquet")) as tmp:
            pq.write_table(pa.Table.from_pylist(json.loads(js.read_text())), tmp)
        js.unlink()
    return done


class AlreadyRecorded(Exception):
    """Another process recorded the point while this one measured it, and replacing was not asked; its
    record stands and the caller counts the point as ``skipped (recorded)``."""

    def __init__(self, folder: Path):
        super().__init__(f"{folder}: recorded by another process meanwhile")
        self.folder = folder


def write_record(summary: dict, ext: Extension, root: Path | None = None, run_id: str | None = None,
                 replace: bool = True) -> Path:
    """Writes one run's folder atomically and returns it.

    The per-end table is written for the oracle and for runs that differ from it; a run identical to
    the oracle says so (``ends_table``) instead. An existing record is moved aside (``.<run-id>.old``)
    and replaced under :func:`lassm.atomic.locked`, so two writers of one point take turns.

    Raises
    ------
    AlreadyRecorded
        When ``replace`` is false and another process wrote the record since the caller looked.
    OutputFault
        When the file system refuses a write, naming the record's folder, of which nothing was kept.
    """
    root = Path(root) if root is not None else paths.results_dir(summary["machine"])
    run_id = run_id or run_id_for(summary["dataset"], summary["k"], summary["backend"], summary["protocol"])
    claim(root / run_id)
    try:
        return _write_record(summary, ext, root, run_id, replace)
    except OSError as exc:
        if not write_refused(exc):
            raise
        raise OutputFault(str(root / run_id), exc) from None


def _write_record(summary: dict, ext: Extension, root: Path, run_id: str, replace: bool) -> Path:
    """:func:`write_record`'s writing, once the folder is claimed."""
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(run_id), dir=root))
    try:
        summary = {**summary, "run_id": run_id}
        with_ends = summary["backend"] == "cpu" or summary.get("matches_cpu") is not True
        if not with_ends:
            summary["ends_table"] = "identical to the cpu backend's record of this dataset (matches_cpu)"
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        _write_tables(tmp, ext, with_ends=with_ends)
        final = root / run_id
        old = root / f".{run_id}.old"
        with locked(final):
            if not replace and (final / "summary.json").is_file():
                raise AlreadyRecorded(final)
            shutil.rmtree(old, ignore_errors=True)  # a kill during an earlier removal may have left one
            if final.exists():
                os.replace(final, old)
            publish(tmp, final, directory=True)  # mkdtemp's 0700 would hide the record from the group
            clear_leftovers(root, run_id, holding=True)
        return final
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def clear_leftovers(root: Path, run_id: str, holding: bool = False) -> None:
    """Removes what killed writes of record ``run_id`` left in ``root``: the copy moved aside, dead
    writers' temporaries on this host, and a killed holder's lock file (unless ``holding``: the
    caller removes its own). Called after a write and when a sweep finds the point recorded."""
    if (root / run_id / "summary.json").is_file():
        shutil.rmtree(root / f".{run_id}.old", ignore_errors=True)
    if root.is_dir():
        remove_stale(root, run_id)
    if not holding and (root / f".{run_id}.lock").exists():
        with locked(root / run_id):
            pass


def run_id_for(dataset: str, k: int, backend: str, protocol: str) -> str:
    return f"{slug(dataset)}__k{int(k)}__{slug(backend)}__{slug(protocol)}"


@dataclass(frozen=True)
class RunOptions:
    """How a point is run and recorded, the same for every point of a sweep.

    Attributes
    ----------
    repeats : timed runs at most (:mod:`lassm.runs.repeat_rule`); ``kernel_seconds`` is their
        median, each kept in ``kernel_seconds_runs``.
    warmup : untimed runs before them.
    command : the command line to record (default: the point's own).
    root : folder for the record instead of ``data/results/<machine>/``.
    replace : replace a record another process wrote meanwhile (else :class:`AlreadyRecorded`).
    """

    repeats: int = 1
    warmup: int = 0
    command: str | None = None
    root: Path | None = None
    replace: bool = True


@dataclass(frozen=True)
class Checks:
    """What a point's output is checked against; a sweep computes the oracle once per dataset and k.

    Attributes
    ----------
    cpu : check a GPU backend's output against the CPU oracle.
    cpu_ext : the oracle's output, computed when needed and not given.
    reference : MetaHipMer's own output, contig id -> extended sequence (``matches_reference``).
    keep_output : called with the first timed run's output.
    """

    cpu: bool = True
    cpu_ext: Extension | None = None
    reference: dict[int, str] | None = None
    keep_output: Callable[[Extension], None] | None = None


def run_point(ds: Dataset, dataset: str, params: Params, backend: str, machine: str | None = None,
              run: RunOptions = RunOptions(), checks: Checks = Checks(), **options) -> tuple[Path, dict]:
    """Runs one sweep point, checks every repeat against the CPU oracle (on the CPU, against the
    first) and records it; returns the record folder and its ``summary.json`` content.

    Warm-up and timed runs hold the device lock (:func:`lassm.runs.device_lock.hold_device`); where
    another process kept it past the wait, the record says ``shared_device``. ``run`` and ``checks``
    are :class:`RunOptions` and :class:`Checks`; ``options`` go to the backend."""
    from .device_lock import device_identity, hold_device
    from .extend import extend
    from .repeat_rule import enough

    repeats, warmup, check_cpu, cpu_ext = run.repeats, run.warmup, checks.cpu, checks.cpu_ext
    if repeats < 1 or warmup < 0:
        raise ValueError(f"repeats = {repeats} must be at least 1 and warmup = {warmup} not negative")
    if backend != "cpu" and check_cpu and cpu_ext is None:
        cpu_ext = extend(ds, params, backend="cpu")
    times: list[float] = []
    diffs: list[str] = []
    first: Extension | None = None
    with hold_device(device_identity(backend)) as hold:  # another campaign's runs would slow these
        for _ in range(warmup):
            extend(ds, params, backend=backend, **options)
        while not enough(times, repeats):  # lassm.runs.repeat_rule: 3 runs where they agree
            ext = extend(ds, params, backend=backend, **options)
            times.append(float(ext.kernel_seconds))
            if first is None:
                first = ext
                if checks.keep_output is not None:
                    checks.keep_output(ext)
            if backend == "cpu":
                diffs += ext.compare(first)  # it is the oracle: its repeats must agree
            elif check_cpu and cpu_ext is not None:  # made above where not given
                diffs += ext.compare(cpu_ext)
    matches: bool | None = not diffs if backend == "cpu" or check_cpu else None
    extra: dict = {"kernel_seconds": float(statistics.median(times)), "kernel_seconds_runs": times,
                   "repeats": len(times), "warmup": int(warmup), "shared_device": hold.shared,
                   "device_wait_seconds": round(hold.waited_seconds, 3)}
    if diffs:
        extra["cpu_differences"] = sorted(set(diffs))
    if backend != "cpu" and check_cpu and cpu_ext is not None:
        extra["cpu_seconds"] = cpu_ext.wall_seconds
    if checks.reference is not None:
        mine = {int(c): ext.extended(i).decode() for i, c in enumerate(ds.cids)}
        extra["matches_reference"] = mine == checks.reference
    summary = summarize(ext, dataset, matches, run.command, machine=machine, extra=extra)
    return write_record(summary, ext, root=run.root, replace=run.replace), summary

# SPDX-License-Identifier: BSD-3-Clause
"""``--cluster slurm:...``: Dask workers started as Slurm jobs (dask-jobqueue's ``SLURMCluster``).

The spec (:func:`parse`, checked when the command line is read)::

    slurm[:PARTITION[:WORKERS]][,KEY=VALUE...]

``PARTITION`` defaults to Slurm's; ``WORKERS`` (default one job's worth) is rounded up to whole
jobs. Keys:

``gpus=G``
    GPUs per job (``--gres=gpu:G``): one worker per GPU, each seeing its GPU alone
    (:mod:`lassm.runs.slurm_worker`). Without it the workers are CPU workers.
``processes=P``
    CPU workers per job (default 1; not with ``gpus``).
``cores=C``
    CPUs per job (default 4 per GPU, else 1 per worker), shared among its workers' numba threads.
``memory=M``
    memory per job (``16GB``, ``500MiB``; default 16 GB per GPU, else 4 GB per worker).
``walltime=T``
    the jobs' time limit (default ``01:00:00``; Slurm's forms).
``account=A``, ``qos=Q``, ``constraint=F``
    ``--account``, ``--qos``, ``--constraint``.
``interface=I``
    the network interface the scheduler and workers talk on (``ib0``).
``logs=DIR``
    where the jobs' output goes (default ``~/.cache/lassm/slurm``).
``wait=S``
    seconds to wait for the workers (default 600); then the run goes on with those that joined,
    or stops when none did, saying why the jobs wait.

The scheduler runs in the submitting process; workers run ``sys.executable``, so the checkout,
its environment and the results root must be on a file system the nodes share. The jobs are
cancelled when the command ends.
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from .. import stderr
from ..errors import LassmError
from .dask_settings import QUIET_WORKERS, config_exports, worker_threads

#: What ``--cluster slurm...`` takes, for help texts and errors.
SLURM_HELP = ("slurm[:PARTITION[:WORKERS]][,KEY=VALUE...], KEY one of gpus, processes, cores, memory, walltime, "
              "account, qos, constraint, interface, logs, wait")

#: Per worker when not given: CPUs and memory (bytes) of a GPU worker, and of a CPU worker.
GPU_CORES, GPU_MEMORY = 4, 16 * 10**9
CPU_CORES, CPU_MEMORY = 1, 4 * 10**9

_NAME = re.compile(r"[A-Za-z0-9_.+-]+")
_WALLTIME = re.compile(r"\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}")
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
#: What :func:`_job_states` says of jobs no longer in the queue.
ENDED = "none left in the queue (ended)"
_KEYS = ("gpus", "processes", "cores", "memory", "walltime", "account", "qos", "constraint", "interface", "logs",
         "wait")


@dataclass(frozen=True)
class SlurmSpec:
    """A parsed ``slurm:`` spec (:func:`parse`); the module's docstring says what each field does."""

    partition: str | None = None
    workers: int | None = None
    gpus: int = 0
    processes: int | None = None
    cores: int | None = None
    memory: int | None = None
    walltime: str = "01:00:00"
    account: str | None = None
    qos: str | None = None
    constraint: str | None = None
    interface: str | None = None
    logs: str | None = None
    wait: float = 600.0

    @property
    def per_job(self) -> int:
        """Dask workers per job: one per GPU, else ``processes``."""
        return self.gpus or self.processes or 1

    @property
    def jobs(self) -> int:
        """Jobs to submit: the workers asked for, in whole jobs."""
        return math.ceil((self.workers or self.per_job) / self.per_job)

    @property
    def total(self) -> int:
        """Workers the jobs start."""
        return self.jobs * self.per_job

    @property
    def job_cores(self) -> int:
        return self.cores or self.per_job * (GPU_CORES if self.gpus else CPU_CORES)

    @property
    def job_memory(self) -> int:
        return self.memory or self.per_job * (GPU_MEMORY if self.gpus else CPU_MEMORY)

    @property
    def log_directory(self) -> Path:
        if self.logs:
            return Path(self.logs).expanduser()
        from ..paths import cache_dir

        return cache_dir() / "slurm"


def is_slurm(text: str) -> bool:
    """Whether a ``--cluster`` value is a Slurm spec."""
    return text == "slurm" or text.startswith(("slurm:", "slurm,"))


def _bad(text: str, why: str) -> LassmError:
    return LassmError(f"{text!r}: {why} (expected {SLURM_HELP})")


def _positive(text: str, key: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise _bad(text, f"{key} {value!r} is not an integer") from None
    if n < 1:
        raise _bad(text, f"{key} {n} must be at least 1")
    return n


def memory_bytes(value: str) -> int:
    """``16GB``, ``500MiB``, ``4G``, ``2000000000``: bytes (decimal units as Dask reads them)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([A-Za-z]*)", value.strip())
    if m is None or m[2].lower() not in _UNITS:
        raise ValueError(f"memory {value!r}: expected a size such as 16GB or 500MiB")
    unit = m[2].lower()
    n = int(float(m[1]) * _UNITS[unit])
    if n < 2**20:
        raise ValueError(f"memory {value!r}: less than 1 MiB")
    return n


def parse(text: str) -> SlurmSpec:
    """Reads a ``--cluster slurm...`` value; a mistake raises one :class:`LassmError` naming it."""
    head, *options = text.split(",")
    kind, _, rest = head.partition(":")
    if kind != "slurm":
        raise _bad(text, "not a Slurm spec")
    partition, _, count = rest.partition(":")
    if partition and not _NAME.fullmatch(partition):
        raise _bad(text, f"partition {partition!r} is not a name")
    if ":" in count:
        raise _bad(text, "more than PARTITION:WORKERS before the first comma")
    fields: dict[str, Any] = {"partition": partition or None}
    if count:
        fields["workers"] = _positive(text, "WORKERS", count)
    for option in options:
        key, eq, value = option.partition("=")
        key = key.strip()
        if not eq or not value.strip():
            raise _bad(text, f"{option!r} is not KEY=VALUE")
        if key not in _KEYS:
            raise _bad(text, f"unknown key {key!r}")
        if key in fields:
            raise _bad(text, f"{key} given twice")
        value = value.strip()
        if key in ("gpus", "processes", "cores"):
            fields[key] = _positive(text, key, value)
        elif key == "memory":
            try:
                fields[key] = memory_bytes(value)
            except ValueError as exc:
                raise _bad(text, str(exc)) from None
        elif key == "walltime":
            if not _WALLTIME.fullmatch(value):
                raise _bad(text, f"walltime {value!r} is not a Slurm time (MM, HH:MM:SS, D-HH:MM...)")
            fields[key] = value
        elif key == "wait":
            try:
                fields[key] = float(value)
            except ValueError:
                raise _bad(text, f"wait {value!r} is not a number of seconds") from None
            if not 0 < fields[key] < math.inf:
                raise _bad(text, f"wait {value!r} must be above 0")
        elif key == "logs":
            fields[key] = value
        elif not _NAME.fullmatch(value) and not (key == "constraint" and re.fullmatch(r"[A-Za-z0-9_.&|()*\[\]-]+", value)):
            raise _bad(text, f"{key} {value!r} is not a name")
        else:
            fields[key] = value
    spec = SlurmSpec(**fields)
    if spec.gpus and spec.processes:
        raise _bad(text, "gpus= starts one worker per GPU; drop processes=")
    if spec.cores is not None and spec.cores < spec.per_job:
        raise _bad(text, f"cores={spec.cores} is fewer than the {spec.per_job} workers of a job")
    return spec


def cluster_options(spec: SlurmSpec) -> dict:
    """``SLURMCluster``'s arguments for ``spec``: one Dask thread per worker, the workers started by
    :mod:`lassm.runs.slurm_worker` (one per GPU, pinned), with the local clusters' worker settings
    (no statistical profiler: :func:`config_exports`; each its share of the job's CPUs)."""

    directives = [f"--gres=gpu:{spec.gpus}"] if spec.gpus else []
    directives += [f"--{key}={val}" for key, val in (("qos", spec.qos), ("constraint", spec.constraint)) if val]
    launcher = ["--workers", str(spec.per_job)] + (["--gpus", str(spec.gpus)] if spec.gpus else [])
    return {
        "queue": spec.partition, "account": spec.account, "walltime": spec.walltime,
        # Dask's view: per_job single-threaded workers sharing job_memory; Slurm's: job_cores CPUs.
        "cores": spec.per_job, "processes": spec.per_job, "memory": spec.job_memory, "job_cpu": spec.job_cores,
        "job_name": "lassm-worker", "job_extra_directives": directives,
        "worker_command": "lassm.runs.slurm_worker", "worker_extra_args": launcher,
        "python": sys.executable, "interface": spec.interface, "log_directory": str(spec.log_directory),
        "scheduler_options": {"dashboard_address": ":0"}, "job_script_prologue": config_exports(QUIET_WORKERS)
        + [f"export {key}={val}" for key, val in worker_threads(spec.job_cores, spec.per_job).items()],
    }


def _preflight(script: str) -> None:
    """Asks ``sbatch --test-only`` whether the worker job can run at all, so that a partition that
    does not exist or resources no node has fail now, with Slurm's words, not after ``wait``."""
    with tempfile.NamedTemporaryFile("w", prefix="lassm-worker-", suffix=".sh") as fh:
        fh.write(script)
        fh.flush()
        try:
            done = subprocess.run(["sbatch", "--test-only", fh.name], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            raise LassmError(f"--cluster slurm: sbatch --test-only failed: {exc}") from None
    if done.returncode != 0:
        why = "; ".join(line.strip() for line in done.stderr.splitlines() if line.strip()) or f"exit {done.returncode}"
        raise LassmError(f"--cluster slurm: Slurm refuses the worker job: {why}")


def _job_states(job_ids: list[str]) -> str:
    """``squeue``'s word on the jobs (state and reason), or why it could not say."""
    if not job_ids:
        return "no job submitted"
    try:
        out = subprocess.run(["squeue", "-h", "-j", ",".join(job_ids), "-o", "%i %T %r"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"squeue failed: {exc}"
    return "; ".join(out.splitlines()) or ENDED


def _count(client: Any) -> int:
    """Workers connected to the scheduler now."""
    return len(client.nthreads())


def _wait(client: Any, cluster: Any, spec: SlurmSpec, say: Callable[[str], None]) -> None:
    """Waits up to ``spec.wait`` seconds for every worker; fails when none joined, at once where the
    jobs left the queue without a worker joining (their output is in the log folder)."""
    t0 = time.monotonic()
    say(f"slurm: {spec.jobs} job(s) asked of partition {spec.partition or '(default)'}; "
        f"waiting for {spec.total} worker(s)")
    last_check = 0.0
    while (n := _count(client)) < spec.total:
        waited = time.monotonic() - t0
        if waited > spec.wait:
            break
        if n == 0 and waited - last_check > 5:  # jobs that failed at once: say so now, not after the wait
            last_check = waited
            ids = job_ids(cluster)
            if ids and _job_states(ids) == ENDED:
                raise LassmError(f"--cluster slurm: the jobs {', '.join(ids)} ended before a worker joined; "
                                 f"their output is in {spec.log_directory}")
        time.sleep(0.2)
    waited = time.monotonic() - t0
    ids = job_ids(cluster)
    if n == 0:
        raise LassmError(f"--cluster slurm: no worker joined within {spec.wait:.0f} s (jobs: {_job_states(ids)}); "
                         f"raise wait= or see {spec.log_directory}")
    say(f"slurm: {n} of {spec.total} worker(s) up in job(s) {', '.join(ids)} after {waited:.0f} s" +
        ("" if n == spec.total else f"; going on with them (jobs: {_job_states(ids)})"))


def job_ids(cluster: Any) -> list[str]:
    """The Slurm ids of the cluster's jobs submitted so far."""
    return [str(job.job_id) for job in cluster.workers.values() if getattr(job, "job_id", None)]


def _slurm_cluster_class():
    """dask-jobqueue's ``SLURMCluster``, imported with this process's SIGINT handler kept: its
    ``runner`` module sets one at import that ends the process with ``sys.exit()``, so that
    Ctrl-C during a run would leave with exit 0 and no line instead of "interrupted"."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT) if main else None
    try:
        from dask_jobqueue import SLURMCluster
    finally:
        if before is not None:
            signal.signal(signal.SIGINT, before)
    return SLURMCluster


@contextlib.contextmanager
def start(spec: SlurmSpec, say: Callable[[str], None] | None = None) -> Iterator[Any]:
    """A Dask client of workers started as Slurm jobs; the jobs are cancelled on exit."""
    say = say or stderr.line
    try:
        SLURMCluster = _slurm_cluster_class()
        from distributed import Client
    except ImportError:
        raise LassmError("--cluster slurm needs dask-jobqueue: pip install 'lassm[dask]'") from None
    if shutil.which("sbatch") is None:
        raise LassmError("--cluster slurm: sbatch is not on PATH (no Slurm client on this machine)")
    options = cluster_options(spec)
    os.makedirs(options["log_directory"], exist_ok=True)
    with SLURMCluster(**options) as cluster, Client(cluster) as client:
        _preflight(cluster.job_script())
        cluster.scale(jobs=spec.jobs)
        _wait(client, cluster, spec, say)
        yield client


__all__ = ["SLURM_HELP", "SlurmSpec", "cluster_options", "is_slurm", "job_ids", "memory_bytes", "parse", "start"]

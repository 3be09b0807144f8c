# SPDX-License-Identifier: BSD-3-Clause
"""The Dask settings of the workers lassm starts, and how they reach a worker a job script starts;
one dictionary for :mod:`lassm.runs.distributed` and :mod:`lassm.runs.slurm`.
"""
from __future__ import annotations

import os
import shlex
from typing import Any, Sequence

#: Dask settings of the workers lassm starts: no statistical profiler, which wakes every 10 ms to
#: take a worker's GIL and walk the running task's stack, for a dashboard lassm never reads,
#: while the task's Python (its output's formatting) needs that GIL.
QUIET_WORKERS = {"distributed.worker.profile.enabled": False}


def host_cores() -> int:
    """The CPUs this process may run on (its affinity: a Slurm job's or a container's share)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity call on this platform
        return os.cpu_count() or 1


def cpu_share(cores: int, workers: int) -> int:
    """Each of ``workers`` workers' part of ``cores`` CPUs: at least one."""
    return max(1, cores // max(1, workers))


def worker_threads(cores: int, workers: int) -> dict[str, str]:
    """The environment giving each of ``workers`` single-task workers on ``cores`` CPUs
    ``cores // workers`` threads, overriding the nannies' ``OMP_NUM_THREADS=1``, which would leave
    Arrow's reads and decompression on one core."""
    return {"OMP_NUM_THREADS": str(cpu_share(cores, workers))}


def sharing(workers: Sequence[str]) -> dict[str, int]:
    """For each worker address of a run, how many of the run's ``workers`` share its host."""
    from distributed.comm import get_address_host

    hosts = {w: get_address_host(w) for w in workers}
    return {w: sum(h == hosts[w] for h in hosts.values()) for w in hosts}


def take_share(share: int) -> int:
    """On a worker that one of ``share`` workers of a run on its host: sizes Arrow's thread pool
    (a shard folder's reads and decompression) to its part of the host's CPUs, whatever its
    environment says (a cluster started for four GPUs runs one shard on one of them, too), and
    returns the threads."""
    import pyarrow

    threads = cpu_share(host_cores(), share)
    pyarrow.set_cpu_count(threads)
    return threads


def config_exports(config: dict[str, Any]) -> list[str]:
    """Shell lines that give a job's Dask processes ``config`` (dotted keys) through the
    environment (``DASK_A__B_C=value``, read by ``dask.config`` at import, each value as a Python
    literal): how :data:`QUIET_WORKERS` reaches the workers that a Slurm job script starts, where
    no configuration of the submitting process travels (the local clusters' nannies take it along)."""
    lines = []
    for key, value in config.items():
        name = "DASK_" + "__".join(part.upper().replace("-", "_") for part in key.split("."))
        lines.append(f"export {name}={shlex.quote(repr(value))}")
    return lines


__all__ = ["QUIET_WORKERS", "config_exports", "cpu_share", "host_cores", "sharing", "take_share", "worker_threads"]

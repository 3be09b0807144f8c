# SPDX-License-Identifier: BSD-3-Clause
"""The Dask settings of the workers lassm starts, and how they reach a worker a job script starts.

Apart from :mod:`lassm.runs.distributed` (the local clusters) and :mod:`lassm.runs.slurm` (the
jobs) so that both take the one dictionary.
"""
from __future__ import annotations

import shlex
from typing import Any

#: Dask settings of the workers lassm starts: no statistical profiler, which wakes every 10 ms to
#: take a worker's GIL and walk the running task's stack, for a dashboard lassm never reads,
#: while the task's Python (its output's formatting) needs that GIL.
QUIET_WORKERS = {"distributed.worker.profile.enabled": False}


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


__all__ = ["QUIET_WORKERS", "config_exports"]

# SPDX-License-Identifier: BSD-3-Clause
"""The Dask workers of one Slurm job: one per GPU of the job, each seeing its own GPU alone.

The job script runs this module with Dask's worker arguments. Dask's ``--nworkers`` would give
every worker all the job's GPUs; here each worker is its own process with
``CUDA_VISIBLE_DEVICES`` (and ``LASSM_GPU_INDEX``) naming one of them and a resource ``GPU=1``.
CPU workers get their share of the CPUs as ``NUMBA_NUM_THREADS``. Workers are named ``NAME-0``,
``NAME-1``... as ``--nworkers`` would, so ``SLURMCluster`` knows them; a ``SIGTERM`` is passed to
every worker.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys


def job_gpus(count: int) -> list[str]:
    """The job's GPUs as ``CUDA_VISIBLE_DEVICES`` entries: Slurm's list, else ``0..count-1``."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("SLURM_JOB_GPUS") or ""
    devices = [d.strip() for d in listed.split(",") if d.strip()]
    return devices[:count] if devices else [str(i) for i in range(count)]


def worker_envs(workers: int, gpus: int, cpus: int) -> list[dict[str, str]]:
    """Each worker's environment changes: its GPU, or its share of the job's CPUs."""
    share = str(max(1, cpus // workers))
    envs = []
    devices = job_gpus(gpus) if gpus else []
    if gpus and len(devices) < workers:
        raise SystemExit(f"lassm.runs.slurm_worker: {workers} GPU workers but the job has {len(devices)} GPU(s) "
                         f"({os.environ.get('CUDA_VISIBLE_DEVICES', 'CUDA_VISIBLE_DEVICES unset')})")
    for i in range(workers):
        env = {"NUMBA_NUM_THREADS": os.environ.get("NUMBA_NUM_THREADS", share)}
        if gpus:
            env.update(CUDA_VISIBLE_DEVICES=devices[i], LASSM_GPU_INDEX=devices[i])
        envs.append(env)
    return envs


def main(argv: list[str] | None = None) -> int:
    """Starts the job's workers, passes signals on, returns the worst exit code."""
    parser = argparse.ArgumentParser(prog="python -m lassm.runs.slurm_worker",
                                     description="one Slurm job's Dask workers, one per GPU (lassm --cluster slurm)")
    parser.add_argument("scheduler", help="the scheduler's address")
    parser.add_argument("--name", required=True, help="the job's worker name (workers: NAME-0, NAME-1, ...)")
    parser.add_argument("--workers", type=int, default=1, help="workers of this job")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs of this job: one worker each (0: CPU workers)")
    args, rest = parser.parse_known_args(argv)
    cpus = int(os.environ.get("SLURM_CPUS_PER_TASK") or os.cpu_count() or 1)
    envs = worker_envs(args.workers, args.gpus, cpus)
    procs = []
    for i, extra in enumerate(envs):
        name = f"{args.name}-{i}" if args.workers > 1 else args.name
        cmd = [sys.executable, "-m", "distributed.cli.dask_worker", args.scheduler, *rest, "--name", name, "--nanny"]
        if args.gpus:
            cmd += ["--resources", "GPU=1"]
        procs.append(subprocess.Popen(cmd, env={**os.environ, **extra}))

    def forward(signum: int, _frame) -> None:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, forward)
    codes = [proc.wait() for proc in procs]
    return max(codes, key=abs, default=0)


if __name__ == "__main__":
    sys.exit(main())

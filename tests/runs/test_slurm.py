# SPDX-License-Identifier: BSD-3-Clause
"""``--cluster slurm:...`` on a real Slurm: this machine as a one-node cluster.

``tools/slurm_single_node.sh`` starts Debian's slurmctld, slurmd and munged (``make test`` runs
it first where root allows; the fixture runs it too, and leaves the daemons running for the next
run). Where it cannot (not root, the packages absent), every test here skips with its line.
The workers are Slurm jobs; each check asks Slurm (``scontrol``) about the jobs that ran the
work, and compares what they wrote with a single process's run, byte for byte.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="needs Dask: pip install 'lassm[dask]'")
pytest.importorskip("dask_jobqueue", reason="needs dask-jobqueue: pip install 'lassm[dask]'")

from lassm import paths  # noqa: E402
from lassm.cli import main  # noqa: E402
from lassm.runs import account, distributed, slurm  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "slurm_single_node.sh"
PARTITION = os.environ.get("LASSM_SLURM_PARTITION", "debug")
#: Two CPU workers, one core and 2 GB each, on the script's partition.
TWO = f"slurm:{PARTITION}:2,memory=2GB,wait=120"


@pytest.fixture(scope="module")
def slurm_conf():
    """This machine's one-node Slurm, started when it is not up; its ``SLURM_CONF`` for the module."""
    done = subprocess.run(["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=900)
    lines = (done.stdout + done.stderr).strip().splitlines() or ["(no output)"]
    if done.returncode == 3:
        pytest.skip(next((line for line in lines if "cannot start" in line), lines[-1]))
    assert done.returncode == 0, "\n".join(lines[-20:])
    conf = lines[-1].split("=", 1)[1] if lines[-1].startswith("SLURM_CONF=") else ""
    assert conf, lines
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SLURM_CONF", conf)
        mp.setenv("LASSM_CACHE", str(Path(conf).parent / "cache"))  # the jobs' logs, out of ~/.cache
        yield conf


def _job(job_id: str) -> dict[str, str]:
    """Slurm's record of a job (``scontrol show job``; kept an hour after it ends: MinJobAge)."""
    out = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return dict(word.split("=", 1) for word in out.stdout.split() if "=" in word)


def _records(folder: Path) -> dict[str, dict]:
    """The whole records in ``folder`` (not a hidden temporary of one being written)."""
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(folder.glob("*/summary.json"))
            if not p.parent.name.startswith(".")}


def _worker_jobs(job_ids: set[str]) -> None:
    """Each job is known to Slurm, ran on the script's partition as a lassm worker job, and ended."""
    assert job_ids
    for job_id in job_ids:
        job = _job(job_id)
        assert (job["JobName"], job["Partition"]) == ("lassm-worker", PARTITION), job
        assert job["JobState"] in ("COMPLETED", "CANCELLED", "COMPLETING", "RUNNING"), job


def test_dask_jobqueue_is_imported_without_taking_ctrl_c() -> None:
    """dask-jobqueue's runner sets a SIGINT handler of its own at import (``sys.exit()``: a run
    stopped with Ctrl-C would leave with exit 0 and no line); lassm imports it keeping the
    process's. A fresh interpreter, so that the import is a first one."""
    code = ("import signal; before = signal.getsignal(signal.SIGINT)\n"
            "from lassm.runs import slurm; slurm._slurm_cluster_class()\n"
            "assert signal.getsignal(signal.SIGINT) is before, signal.getsignal(signal.SIGINT)\n"
            "import dask_jobqueue.runner  # the module that sets it: imported, not run again\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_bad_slurm_specs_are_one_error_line(slurm_conf, capsys) -> None:
    for spec in ("slurm:debug:0", "slurm:debug,gpus=0", "slurm:debug,nope=1", "slurm:debug,walltime=1h",
                 "slurm:debug,gpus=2,processes=2", "slurm:a b"):
        assert main(["run", "--cluster", spec, "--backends", "cpu", "--quiet"]) == 2, spec
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("lassm: error: run: argument --cluster:"), err
    # What Slurm itself refuses (no such partition, more memory than any node) is one line too, at once.
    t0 = time.monotonic()
    for spec, words in (("slurm:no-such-partition", "partition"), (f"slurm:{PARTITION},memory=100TB", "not available")):
        assert main(["run", "--kernel", "local-assembly", "--cluster", spec, "--backends", "cpu",
                     "--datasets", "sample-k21", "--machine", "t", "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("lassm: error: --cluster slurm: Slurm refuses the worker job") and words in err[-1], err
    assert time.monotonic() - t0 < 60


def test_worker_jobs_that_end_at_once_are_said_at_once(slurm_conf, tmp_path, monkeypatch) -> None:
    """Jobs whose workers cannot start (here: no Python) end; the wait stops then, naming the logs."""
    from lassm.errors import LassmError

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "executable", "/bin/false")  # the job script's python
    t0 = time.monotonic()
    with pytest.raises(LassmError, match="ended before a worker joined; their output is in"):
        with distributed.connect(TWO, quiet=True):
            pass
    assert time.monotonic() - t0 < 60  # TWO waits up to 120 s for workers


def test_cpu_sweep_through_slurm(slurm_conf, tmp_path, monkeypatch) -> None:
    """``lassm run --cluster slurm:...`` writes what one process writes, from Slurm jobs' workers."""
    names = "sample-k21,gen-k21-s0.05,sample-k77"
    args = ["run", "--kernel", "local-assembly", "--backends", "cpu", "--datasets", names, "--machine", "t", "--quiet"]
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "single"))
    assert main(args) == 0
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "slurm"))
    monkeypatch.chdir(tmp_path)  # the results root is the submitting process's, wherever the jobs start
    assert main([*args, "--cluster", TWO]) == 0
    single, remote = _records(tmp_path / "single" / "t"), _records(tmp_path / "slurm" / "t")
    assert sorted(remote) == sorted(single) and len(remote) == 3
    for run_id, rec in remote.items():
        assert rec["matches_cpu"] is True and rec["output_sha256"] == single[run_id]["output_sha256"]
        assert "slurm_job" not in single[run_id] or os.environ.get("SLURM_JOB_ID")
    _worker_jobs({rec["slurm_job"] for rec in remote.values()})
    rows = account.read_entries(tmp_path / "slurm" / "t" / "campaign.json")[-1]["rows"]
    assert [r["status"] for r in rows] == ["ok"] * 3
    assert sorted(p.name for p in (tmp_path / "slurm" / "t").iterdir() if p.name.startswith(".")) == []
    assert main([*args, "--cluster", TWO]) == 0  # resumable through Slurm too
    rows = account.read_entries(tmp_path / "slurm" / "t" / "campaign.json")[-1]["rows"]
    assert [r["status"] for r in rows] == [account.SKIPPED] * 3


def test_sharded_extend_through_slurm(slurm_conf, tmp_path, monkeypatch) -> None:
    """``lassm extend --cluster slurm:...``: shards on two Slurm jobs, the output byte-identical."""
    monkeypatch.chdir(tmp_path)
    sample = str(paths.sample("k77"))
    one, many = tmp_path / "one.txt", tmp_path / "many.txt"
    assert main(["extend", sample, "--k", "77", "--backend", "cpu", "--out", str(one)]) == 0
    before = _known_jobs()
    assert main(["extend", sample, "--k", "77", "--backend", "cpu", "--out", str(many), "--cluster", TWO]) == 0
    assert many.read_bytes() == one.read_bytes()
    jobs = _known_jobs() - before
    assert len(jobs) == 2, jobs  # the two worker jobs, and nothing else, ran it
    _worker_jobs(jobs)


def _known_jobs() -> set[str]:
    """The ids of the jobs Slurm knows (running, or ended within the hour)."""
    out = subprocess.run(["scontrol", "-o", "show", "job"], capture_output=True, text=True, timeout=30).stdout
    return {w.split("=", 1)[1] for w in out.split() if w.startswith("JobId=")}


def test_gpu_workers_are_pinned_one_per_gpu(slurm_conf) -> None:
    """``gpus=2``: one job asks Slurm for two GPUs (the script's stand-ins) and starts two workers,
    each seeing one of the job's GPUs alone; no GPU code runs."""
    with distributed.connect(f"slurm:{PARTITION}:2,gpus=2,cores=2,memory=2GB,wait=120", quiet=True) as client:
        where = client.gather([client.submit(distributed._where, workers=[w], pure=False)
                               for w in distributed.workers_of(client)])
        resources = {w["name"]: w["resources"] for w in client.scheduler_info()["workers"].values()}
    assert sorted(w["gpu"] for w in where) == ["0", "1"]
    assert len({w["slurm_job"] for w in where}) == 1 and len({w["pid"] for w in where}) == 2
    assert all(r == {"GPU": 1} for r in resources.values()) and len(resources) == 2
    job = _job(where[0]["slurm_job"])
    assert "gpu:2" in job.get("TresPerNode", "") + job.get("Gres", ""), job


def test_slurm_workers_run_without_the_sampling_profiler(slurm_conf, tmp_path, monkeypatch) -> None:
    """The local clusters' worker settings (``QUIET_WORKERS``: no statistical profiler; the job's CPUs
    shared by its workers) reach the worker a Slurm job starts, through its job script; this
    process's configuration stays as it was."""
    import dask

    monkeypatch.chdir(tmp_path)
    with distributed.connect(f"slurm:{PARTITION}:1,cores=2,memory=2GB,wait=120", quiet=True) as client:
        assert "export DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False" in client.cluster.job_script()
        seen = client.run(lambda dask_worker: (dask.config.get("distributed.worker.profile.enabled"),
                                               "profile" in dask_worker.periodic_callbacks,
                                               os.environ.get("SLURM_JOB_ID", ""), os.environ.get("OMP_NUM_THREADS"),
                                               __import__("pyarrow").cpu_count()))
    assert dask.config.get("distributed.worker.profile.enabled") is True
    assert len(seen) == 1 and all(value[:2] == (False, False) for value in seen.values()), seen
    # the job's two CPUs are its one worker's (Arrow reads with both), not Dask's one thread a worker
    assert all(value[3:] == ("2", 2) for value in seen.values()), seen
    _worker_jobs({value[2] for value in seen.values()})


POINTS = [("sample-k77x3", None, "cpu", "none"), ("sample-k77x2", None, "cpu", "none"),
          ("sample-k77", None, "cpu", "none"), ("gen-k21-s0.1", 21, "cpu", "none"),
          ("gen-k21-s0.1", 33, "cpu", "none"), ("sample-k77x2", 55, "cpu", "none")]


def test_a_cancelled_worker_job_loses_no_point(slurm_conf, tmp_path, monkeypatch) -> None:
    """``scancel`` of one worker's job once the first point is recorded: the sweep finishes on the
    other job's worker, and every point is recorded once, whole."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "rec"
    rows: list[dict] = []
    with distributed.connect(TWO, quiet=True) as client:
        sweep = threading.Thread(target=lambda: rows.extend(distributed.run_points(client, POINTS, root=out)))
        sweep.start()
        deadline = time.monotonic() + 300
        while not (first := _records(out)):
            assert time.monotonic() < deadline and sweep.is_alive(), "no point was recorded"
            time.sleep(0.05)
        victim = next(iter(first.values()))["slurm_job"]
        subprocess.run(["scancel", victim], check=True, timeout=30)
        recorded_at_kill = len(_records(out))
        sweep.join(timeout=300)
        assert not sweep.is_alive()
    assert recorded_at_kill < len(POINTS), "the job was cancelled after the sweep's end: nothing was tested"
    assert len(rows) == len(POINTS)
    assert all(r["status"] in ("ok", account.SKIPPED) for r in rows), rows
    records = _records(out)
    assert len(records) == len(POINTS) and all(rec["matches_cpu"] for rec in records.values())
    survivors = {rec["slurm_job"] for rec in records.values()} - {victim}
    assert len(survivors) == 1, "the other job's worker finished the sweep"
    assert _job(victim)["JobState"] == "CANCELLED"
    # What a write the cancel cut short left (its temporary, its lock) is gone: the point's next
    # write, or the run that found it recorded, cleared it.
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


#: A job script of a user's own: a scheduler writing its file, and one worker reading it.
OWN_JOB = """#!/bin/bash
#SBATCH -J lassm-own -o {log} -e {log} -p {partition} -c 1 --mem=2G -t 10
{python} -m distributed.cli.dask_scheduler --scheduler-file {file} --port 0 --dashboard-address :0 &
{python} -m distributed.cli.dask_worker --scheduler-file {file} --nthreads 1 --name own-0 &
wait
"""


def test_a_scheduler_file_from_a_users_job_script(slurm_conf, tmp_path, monkeypatch) -> None:
    """The scheduler file a job script of one's own writes is a ``--cluster`` value, as before."""
    monkeypatch.chdir(tmp_path)
    file = tmp_path / "scheduler.json"
    script = tmp_path / "own.sh"
    script.write_text(OWN_JOB.format(log=tmp_path / "own.log", partition=PARTITION, python=sys.executable, file=file))
    job_id = subprocess.run(["sbatch", "--parsable", str(script)], capture_output=True, text=True, check=True,
                            timeout=30).stdout.strip().split(";")[0]
    try:
        deadline = time.monotonic() + 120
        while not file.exists():
            assert time.monotonic() < deadline, (tmp_path / "own.log").read_text() if (tmp_path / "own.log").exists() else ""
            time.sleep(0.2)
        from distributed import Client

        with Client(scheduler_file=str(file), timeout=60) as client:  # the file comes before its worker
            client.wait_for_workers(1, timeout=120)
        sample = str(paths.sample("k77"))
        one, many = tmp_path / "one.txt", tmp_path / "many.txt"
        assert main(["extend", sample, "--k", "77", "--out", str(one)]) == 0
        assert main(["extend", sample, "--k", "77", "--out", str(many), "--cluster", str(file)]) == 0
        assert many.read_bytes() == one.read_bytes()
        assert _job(job_id)["JobState"] == "RUNNING"
    finally:
        subprocess.run(["scancel", job_id], timeout=30)


def test_a_restart_forgets_the_jobs_of_a_killed_run(slurm_conf) -> None:
    """Daemons killed with a job on the node (a machine stopped mid-run) come back with the node
    free: a job the old controller recorded as running would otherwise hold every core until its
    walltime, and each later worker job would pend on Resources."""
    env = {**os.environ, "SLURM_CONF": slurm_conf}
    cores = subprocess.run(["sinfo", "-h", "-N", "-p", PARTITION, "-o", "%c"], capture_output=True,
                           text=True, env=env, timeout=30).stdout.split()[0]
    job = subprocess.run(["sbatch", "--parsable", "-p", PARTITION, "-c", cores, "-J", "lassm-stale",
                          "-o", "/dev/null", "--wrap", "sleep 600"], capture_output=True, text=True, env=env,
                         timeout=30)
    assert job.returncode == 0, job.stderr
    job_id = job.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 60
    while _job(job_id)["JobState"] != "RUNNING":
        assert time.monotonic() < deadline, _job(job_id)
        time.sleep(0.5)
    stopped = subprocess.run(["bash", str(SCRIPT), "stop"], capture_output=True, text=True, timeout=60)
    assert stopped.returncode == 0, stopped.stderr
    started = subprocess.run(["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=300)
    assert started.returncode == 0, started.stdout + started.stderr
    queue = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True, env=env, timeout=30)
    assert queue.returncode == 0 and job_id not in queue.stdout.split(), queue.stdout
    state = subprocess.run(["sinfo", "-h", "-N", "-p", PARTITION, "-o", "%t"], capture_output=True, text=True,
                           env=env, timeout=30).stdout.strip()
    assert state == "idle", state


def test_the_spec_reads_as_documented() -> None:
    """Counts, defaults and rounding of the spec (no Slurm needed)."""
    spec = slurm.parse("slurm:gpu:6,gpus=4,walltime=2-00:00:00,memory=200GB,account=proj")
    assert (spec.partition, spec.jobs, spec.total, spec.job_cores, spec.job_memory) == ("gpu", 2, 8, 16, 200 * 10**9)
    opts = slurm.cluster_options(spec)
    assert opts["job_extra_directives"] == ["--gres=gpu:4"] and opts["processes"] == opts["cores"] == 4
    assert opts["worker_extra_args"] == ["--workers", "4", "--gpus", "4"] and opts["account"] == "proj"
    cpu = slurm.parse("slurm")
    assert (cpu.partition, cpu.total, cpu.job_cores, cpu.job_memory, cpu.gpus) == (None, 1, 1, 4 * 10**9, 0)
    assert slurm.parse("slurm:debug:3,processes=2").jobs == 2

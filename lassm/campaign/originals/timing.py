# SPDX-License-Identifier: BSD-3-Clause
"""What both side-by-side runs share: the GPU's name, whole-command timing, kernel times from Nsight Compute.

Also a whole command timed as a user pays it, start-up and imports included
(:func:`command_time`, ``lassm measure command-time``).
"""
from __future__ import annotations

import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ...errors import LassmError

#: Seconds one profiled or timed run may take.
RUN_TIMEOUT = 600.0
#: The metrics of a kernel-time run (one ncu pass): time, and thread instructions as a check of the work.
TIME_METRICS = ("gpu__time_duration.sum", "smsp__thread_inst_executed.sum")


def _silent(text: str) -> None:
    """Says nothing: the default of a caller that shows no lines."""


def _untimed() -> None:
    """Counts nothing: the default of a caller without a progress display."""


@dataclass(frozen=True)
class Measuring:
    """How a part sets an original beside ours, handed unchanged from ``run_all`` to each input's run.

    context : the columns every row shares (machine, device, driver, original_source, nvcc, git_sha).
    ncu : Nsight Compute, or None for no kernel times.
    layouts : the X-drop CUDA plans to run ours with, a row each; none: ``LASSM_XDROP_LAYOUT``'s.
    say : where each row's line and failure go; tick : called after each input."""

    context: dict
    repeats: int = 1
    ncu: str | None = None
    backend: str = "cuda"
    layouts: tuple[str, ...] = ()
    say: Callable[[str], None] = _silent
    tick: Callable[[], None] = _untimed


def gpu_device() -> tuple[str, str]:
    """(name, driver version) of the CUDA device, as the CUDA backend reports them for every record."""
    from ...backends import cuda

    info = cuda.device_info()
    return str(info["device"]), str(info["driver"])


def installed_env() -> dict[str, str]:
    """This environment, with Python allowed to cache bytecode as an installed package's is
    (some GPU nodes set ``PYTHONDONTWRITEBYTECODE``, which recompiles lassm on every start)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(cmd: Sequence[str], timeout: float = RUN_TIMEOUT, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Seconds of one run of ``cmd`` (``env``: variables set beside :func:`installed_env`'s) and its
    standard output; a failure raises with the end of its output."""
    t0 = time.perf_counter()
    try:
        res = subprocess.run(list(cmd), capture_output=True, text=True, env={**installed_env(), **(env or {})},
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LassmError(f"{Path(cmd[0]).name} ran past {timeout:.0f} s") from None
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        tail = " | ".join((res.stderr or res.stdout).strip().splitlines()[-4:])
        raise LassmError(f"{Path(cmd[0]).name} exited {res.returncode}: {tail}")
    return seconds, res.stdout


def interleaved(cmds: Mapping[str, Sequence[str]], repeats: int, warm: bool = True) -> dict[str, list[tuple[float, str]]]:
    """``repeats`` timed runs of each command, after one untimed run of each where ``warm``, taken
    in turns, each round in the reverse order of the round before (A B, B A, A B, ...): whatever
    drifts on the node meanwhile (clocks, caches, another tenant) falls on every program alike,
    not on whichever ran its runs last. Returns each command's :func:`run` results in order."""
    names = list(cmds)
    if warm:
        for name in names:
            run(cmds[name])
    out: dict[str, list[tuple[float, str]]] = {name: [] for name in names}
    for r in range(int(repeats)):
        for name in names if r % 2 == 0 else names[::-1]:
            out[name].append(run(cmds[name]))
    return out


def kernel_times(cmd: Sequence[str], ncu: str, log: Path, *, clock_control: str | None = None,
                 kernel: str | None = None) -> list[tuple[str, float, float]]:
    """(kernel name, seconds, thread instructions) of every launch of one run of ``cmd`` under ncu,
    only of kernels matching regex ``kernel``; ``clock_control`` None keeps ncu's default (base
    clocks locked)."""
    _profile(cmd, ncu, log, clock_control, f"regex:{kernel}" if kernel else None)
    launches = _launches(log.read_text(errors="replace"))
    if not launches:
        raise LassmError(f"ncu profiled no kernel launch of {Path(cmd[0]).name}")
    return launches


def lassm_kernel_times(commands: Sequence[Sequence[str]], ncu: str, log: Path, *, clock_control: str | None = None,
                       kernel: str | None = None) -> list[list[tuple[str, float, float]]]:
    """:func:`kernel_times` of several ``lassm`` commands in one profiled process
    (:mod:`lassm.cli.profiled`), so ncu's per-process cost is paid once; each command's launches, in
    order (empty where it failed)."""
    import json
    import tempfile

    from ...analysis.counters import ncu_batch

    with tempfile.TemporaryDirectory(prefix="lassm-ncu-commands-") as tmp:
        status = Path(tmp) / "status.json"
        target = [*ncu_batch.commands_target(commands), str(status)]
        filt = ncu_batch.with_boundary(f"regex:{kernel}") if kernel else None
        _profile(target, ncu, log, clock_control, filt)
        failed = json.loads(status.read_text()) if status.is_file() else {}
    parts = ncu_batch.split_at(log, ncu_batch.BOUNDARY)
    return [[] if str(i) in failed or i >= len(parts) else _launches(parts[i]) for i in range(len(commands))]


def _profile(cmd: Sequence[str], ncu: str, log: Path, clock_control: str | None, kernel_filter: str | None) -> None:
    """One run of ``cmd`` under ncu with :data:`TIME_METRICS`, its raw CSV in ``log``; raises on a refusal."""
    from ...analysis.counters.ncu import check_output

    log.unlink(missing_ok=True)
    args = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all",
            "--metrics", ",".join(TIME_METRICS), "--log-file", str(log)]
    args += ["--clock-control", clock_control] if clock_control else []
    args += ["--kernel-name", kernel_filter] if kernel_filter else []
    try:
        res = subprocess.run([*args, "--", *cmd], capture_output=True, text=True, env=installed_env(),
                             timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise LassmError(f"ncu: {Path(cmd[0]).name} ran past {RUN_TIMEOUT:.0f} s") from None
    text = log.read_text(errors="replace") if log.exists() else ""
    check_output(text + res.stdout + res.stderr)
    if res.returncode != 0:
        tail = " | ".join((res.stderr or res.stdout).strip().splitlines()[-4:])
        raise LassmError(f"ncu exited {res.returncode}: {tail}")


def _launches(text: str) -> list[tuple[str, float, float]]:
    """(kernel name, seconds, thread instructions) of each row of a raw CSV's text."""
    from ...analysis.counters import convert, parse_number
    from ...analysis.counters.ncu import read_raw

    wide, units = read_raw(text if "\n" in text else text + "\n")
    if wide.empty:
        return []
    unit = units.get(TIME_METRICS[0], "nsecond") or "nsecond"
    return [(str(r["Kernel Name"]), float(convert(parse_number(r[TIME_METRICS[0]]), unit, "second")),
             float(parse_number(r[TIME_METRICS[1]])) if TIME_METRICS[1] in wide.columns else float("nan"))
            for _, r in wide.iterrows()]




#: ``import time: self [us] | cumulative | imported package`` (a nested import is indented).
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\s*$")


def _stderr_run(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of one run of ``argv`` and its stderr; a failure raises (its time says nothing)."""
    t0 = time.perf_counter()
    done = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-4:])
        raise LassmError(f"{Path(argv[0]).name} exited {done.returncode}: {tail}")
    return seconds, done.stderr


def import_times(stderr: str) -> tuple[float, list[tuple[float, str]]]:
    """The seconds spent importing (the sum of every top-level import's cumulative time, over all
    Python processes of the run) and the top-level imports, heaviest first."""
    top: list[tuple[float, str]] = []
    for line in stderr.splitlines():
        m = _IMPORT_LINE.match(line)
        if m and len(m[3]) <= 1:  # one space after the bar: a top-level import
            top.append((int(m[2]) / 1e6, m[4]))
    top.sort(reverse=True)
    return sum(s for s, _ in top), top


def command_time(command: Sequence[str], repeat: int, warmup: int, top: int) -> dict:
    """A whole command in fresh processes: median, best and worst wall time of ``repeat`` runs after
    ``warmup`` untimed ones, then one run under ``PYTHONPROFILEIMPORTTIME=1`` (imports of every thread
    summed, which can exceed their wall time) and ``python -c pass`` for the interpreter's start-up."""
    for _ in range(warmup):
        _stderr_run(command)
    walls = [_stderr_run(command)[0] for _ in range(repeat)]
    traced_wall, stderr = _stderr_run(command, env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    imports, heaviest = import_times(stderr)
    bare = statistics.median(_stderr_run([sys.executable, "-c", "pass"])[0] for _ in range(repeat))
    return {"command": shlex.join(command), "repeat": repeat, "warmup": warmup,
            "median_seconds": statistics.median(walls), "min_seconds": min(walls), "max_seconds": max(walls),
            "wall_seconds": walls, "import_seconds": imports, "traced_wall_seconds": traced_wall,
            "python_seconds": bare, "python": sys.executable,
            "top_imports": [{"module": name, "seconds": s} for s, name in heaviest[:top]]}


def beside_each(cases: Sequence[tuple[str, list[dict], Callable[[], list[dict]]]], original: str, how: Measuring,
                upsert: Callable[[list[dict]], None], said: Callable[[dict, list[dict], Callable[[str], None]], None],
                kernels: tuple[str, Callable[[list[dict], str], None]]) -> tuple[list[dict], list[str]]:
    """Each case ``(name, its status rows, the call measuring it)`` measured, its rows upserted and
    ``how.tick`` called after it; a case that fails is named and the others go on. With Nsight
    Compute, ours get their kernel columns at the end from one profiled process (``kernels``: what
    it runs, the call). Returns (status rows, one line per failure)."""
    status: list[dict] = []
    failed: list[str] = []
    ours: list[dict] = []
    for name, rows_if_failed, measure in cases:
        try:
            rows = measure()
        except Exception as exc:  # one case that fails is named; the others go on
            line = " ".join(str(exc).split())[:400]
            failed.append(f"originals: {name}: {type(exc).__name__}: {line}")
            status += [{**r, "status": f"failed: {line}"} for r in rows_if_failed]
            how.say(failed[-1])
            how.tick()
            continue
        upsert(rows)  # a run cut short keeps the whole times
        ours += [r for r in rows if r["program"] != original]
        for r in rows:
            if r["program"] == original or how.ncu is None:
                said(r, status, how.say)
        how.tick()
    if ours and how.ncu is not None:
        try:
            kernels[1](ours, how.ncu)
        except Exception as exc:  # noqa: BLE001  our whole times stay; the reason is said
            failed.append(f"originals: {kernels[0]} under Nsight Compute: {type(exc).__name__}: "
                          f"{' '.join(str(exc).split())[:300]}")
            how.say(failed[-1])
        upsert(ours)
        for r in ours:
            said(r, status, how.say)
    return status, failed


__all__ = ["RUN_TIMEOUT", "TIME_METRICS", "beside_each", "command_time", "gpu_device", "import_times", "installed_env", "kernel_times",
           "lassm_kernel_times", "run"]

# SPDX-License-Identifier: BSD-3-Clause
"""Jin and Vetter's CUDA programs from HeCBench beside the suite's kernels (:mod:`lassm.backends.suite`).

``all-pairs-distance-cuda``, ``epistasis-cuda``, ``cm-cuda``, ``nw-cuda`` and ``minkowski-cuda``
(zjin-lcf/HeCBench) are built with their Makefiles' flags for this GPU, linked to the shared CUDA
runtime, and run at Jin and Vetter's sizes with their copies captured. Each prints its average
kernel time and its own CPU check (``verified``); its output is compared with our CUDA kernel's
(:mod:`.hecbench_outputs`, the ``outputs_*`` columns). Rows go to ``<machine>/suite/originals.csv``.

Exceptions, each for a check of minutes: ``minkowski-cuda`` is built with ``VERIFY=no``;
``epistasis-cuda`` is ended once its scores are copied back (:data:`ENDED_AFTER_COPY`).
``cm-cuda`` runs on a synthetic data set (:mod:`.cmap_data`) and times no kernel: its whole
processing time comes from a run of its own without the capture library; it has no check.

A program's clock is the host's around its launches, so it holds launch costs (for all-pairs,
a synchronization per launch). Where ncu is here each program runs once more under it
(:data:`NcuPlan`) and ``ncu_seconds`` is one iteration's ``gpu__time_duration``, with the settings
of the suite's counters step (clocks as they run, caches flushed per launch)."""
from __future__ import annotations

import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ...runs import suite_records as rec
from ...runs import tables
from .build import Built, _cached, _run
from . import cmap_data
from .hecbench_outputs import CAPTURE_TIMEOUT, SHIM, capture, compare
from .sources import HECBENCH
from .timing import Measuring, installed_env, run as _timed_run
from ...errors import LassmError

#: The Makefiles' flags (the architecture added).
FLAGS = ("-std=c++17", "-Xcompiler", "-Wall", "-O3")
#: The suite's variant of our CUDA build that each program is set beside: the fastest we found.
OURS = {"all_pairs": "tiles", "epistasis": "margins", "nw": "strips", "minkowski": "tiles", "cmap": "fused"}
#: The Nsight Compute columns of a row (empty where ncu is not here).
NCU_COLUMNS: tuple[str, ...] = ("ncu_seconds", "ncu_kernels", "ncu_command")
#: Rows of ``suite/originals.csv``.
COLUMNS: tuple[str, ...] = ("machine", "device", "driver", "kernel", "program", "args", "seconds", "verified",
                            "ours_variant", "git_sha", "command", "original_source", "nvcc", "outputs_equal",
                            "output_difference", "outputs_compared", *NCU_COLUMNS)
KEY: tuple[str, ...] = ("kernel", "program")
FILE = "originals.csv"
#: The copy-capture library built from :data:`lassm.campaign.originals.hecbench_outputs.SHIM`.
SHIM_LIBRARY = "libmemcpy_capture.so"
#: The library that starts Nsight Compute's range at a launch number, and its source: a program
#: whose :class:`NcuPlan` skips launches runs under ``--profile-from-start off`` with it preloaded,
#: instead of ncu intercepting each skipped launch (``--launch-skip``).
GATE = Path(__file__).with_name("launch_gate.c")
GATE_LIBRARY = "liblaunch_gate.so"
_TIME = re.compile(r"(?:Average|Total) kernel execution time:\s*([0-9.eE+-]+)\s*\((us|s)\)")
#: Seconds one profiled run may take.
NCU_TIMEOUT = 300.0


@dataclass(frozen=True)
class NcuPlan:
    """How a program runs under Nsight Compute: its arguments there, the launches to skip (its
    warm-up), and the profiled launches as ``groups`` runs of ``per_group`` consecutive launches of
    one kernel; one iteration is the median of each group, then ``combine``d over the groups:
    ``sum`` (the groups are one iteration's launches) or ``min`` (they are alternative kernels for
    the same result: the fastest)."""

    args: tuple[str, ...]
    groups: int
    per_group: int
    skip: int = 0
    combine: str = "sum"

    def seconds(self, durations: Sequence[float], names: Sequence[str]) -> tuple[float, str]:
        """(one iteration's seconds, the kernels it counts) from the profiled launches' durations."""
        import statistics

        want = self.groups * self.per_group
        if len(durations) != want:
            raise ValueError(f"Nsight Compute profiled {len(durations)} launches, {want} expected")
        medians = [statistics.median(durations[g * self.per_group:(g + 1) * self.per_group]) for g in range(self.groups)]
        if self.combine == "min":
            best = min(range(self.groups), key=medians.__getitem__)
            return medians[best], names[best * self.per_group]
        return sum(medians), ";".join(sorted(set(names)))
#: cm-cuda's one time: its whole processing, in seconds (its words).
_WHOLE = re.compile(r"Time in taken in seconds :\s*([0-9.eE+-]+)")


@dataclass(frozen=True)
class Program:
    """One HeCBench program: its folder and source, extra flags, arguments (Jin and Vetter's sizes) and
    which of its printed times is the kernel the suite's matches; its other sources (each compiled
    apart, a ``.cpp`` as CUDA, as its Makefile does) and whether it reads the synthetic cudaMap
    data set (:mod:`.cmap_data`, written as the folder its one argument names)."""

    kernel: str
    folder: str
    source: str
    args: tuple[str, ...]
    extra: tuple[str, ...] = ()
    pick: str = "one"  # "one": the only time; "second": the second of three; "sum": the sum of all;
    #                    "whole": its whole processing time (it times no kernel)
    ncu: NcuPlan | None = None

    def profiled(self) -> NcuPlan:
        """Its :class:`NcuPlan`; refused where it has none (it is never run under Nsight Compute)."""
        if self.ncu is None:
            raise ValueError(f"{self.folder} has no Nsight Compute plan")
        return self.ncu
    also: tuple[str, ...] = ()
    data: bool = False

    def seconds(self, text: str) -> float:
        """The kernel time the program printed (its whole processing time for ``pick="whole"``), in seconds."""
        if self.pick == "whole":
            times = [float(v) for v in _WHOLE.findall(text)]
        else:
            times = [float(v) * (1e-6 if unit == "us" else 1.0) for v, unit in _TIME.findall(text)]
        if not times:
            raise ValueError(f"{self.folder} printed no kernel time; it ends: {' | '.join(text.splitlines()[-3:])}")
        if self.pick == "second":
            return times[1]
        return sum(times) if self.pick == "sum" else times[0]


PROGRAMS: dict[str, Program] = {
    # three kernels, the second Jin and Vetter's (registers and shared memory): 100 iterations each
    # (under ncu: 5 each, the fastest kernel's median)
    "all_pairs": Program("all_pairs", "all-pairs-distance-cuda", "main.cu", ("100",), pick="second",
                         ncu=NcuPlan(("5",), groups=3, per_group=5, combine="min")),
    # 8,192 samples of 4,096 SNPs, 10 iterations (under ncu: 3)
    "epistasis": Program("epistasis", "epistasis-cuda", "main.cu", ("8192", "4096", "10"),
                         ncu=NcuPlan(("8192", "4096", "3"), groups=1, per_group=3)),
    # two sequences of 16,384, penalty 10, 10 iterations (after its own 100 untimed ones; under ncu
    # one, its 2,047 launches summed, the 100 x 2,047 warm-up launches skipped)
    "nw": Program("nw", "nw-cuda", "nw.cu", ("16384", "10", "10"),
                  ncu=NcuPlan(("16384", "10", "1"), groups=2047, per_group=1, skip=100 * 2047)),
    # p = 1 to 4, 10 iterations each, fast math as its Makefile builds it, without its CPU check
    # (under ncu: 3 of each p, their medians summed)
    "minkowski": Program("minkowski", "minkowski-cuda", "main.cu", ("10",), extra=("-use_fast_math",), pick="sum",
                         ncu=NcuPlan(("3",), groups=4, per_group=3)),
    # the synthetic cudaMap set: 10 drugs x 100,000 random signatures of 100 genes (its fixed default), its whole
    # time; under ncu its 30 launches, a drug's three (the query's dot product, the random signatures' scores,
    # the count above the query's) ten times, summed: Jin and Vetter's 10^6 signatures as ours score them in one run
    "cmap": Program("cmap", "cm-cuda", "main.cpp", (cmap_data.DATASET,), pick="whole", also=("io.cpp", "process.cu"),
                    data=True, ncu=NcuPlan((cmap_data.DATASET,), groups=3 * cmap_data.DRUGS, per_group=1)),
}


def build_all(tree: Path, arch: str, nvcc: str, kernels: Sequence[str]) -> Built:
    """The programs of ``kernels`` (those HeCBench has here), each compiled then linked as its Makefile does."""
    wanted = tuple(k for k in kernels if k in PROGRAMS)

    def make(out: Path) -> None:
        def one(kernel: str) -> None:
            prog = PROGRAMS[kernel]
            work = out / prog.folder
            shutil.copytree(tree / "src" / prog.folder, work)
            flags = [*FLAGS, f"-arch={arch}", *prog.extra]
            objects = ["main.o"] if not prog.also else [f"{Path(s).stem}.o" for s in (prog.source, *prog.also)]
            for src, obj in zip((prog.source, *prog.also), objects):
                cuda = ("-x", "cu") if src.endswith(".cpp") else ()
                _run([nvcc, *cuda, *flags, "-c", src, "-o", obj], work, f"HeCBench {prog.folder}: compiling {src}")
            _run([nvcc, *flags, *objects, "-cudart", "shared", "-o", str(out / kernel)], work,
                 f"HeCBench {prog.folder}: linking against the shared runtime")
            shutil.rmtree(work)

        with ThreadPoolExecutor(len(wanted) or 1) as pool:
            list(pool.map(one, wanted))
        for src, lib, what in ((SHIM, SHIM_LIBRARY, "the copy-capture library"), (GATE, GATE_LIBRARY, "the launch gate")):
            _run([nvcc, "-shared", "-cudart", "none", "-Xcompiler", "-fPIC", str(src), "-o", str(out / lib), "-ldl"], out,
                 what)

    return _cached(HECBENCH, arch, nvcc, (*wanted, SHIM_LIBRARY, GATE_LIBRARY), make,
                   extra=repr((FLAGS, sorted(PROGRAMS.items()))).encode() + SHIM.read_bytes() + GATE.read_bytes())


def todo(kernels: Sequence[str], table: Path, sha: str, force: bool) -> list[str]:
    """The kernels whose original has no row at ``sha`` (all of them when ``force``)."""
    rows = tables.read_rows(table, COLUMNS)
    return [k for k in kernels if k in PROGRAMS and (force or not tables.recorded(rows, sha, kernel=k))]


def ncu_command(prog: Program, ncu: str = "ncu", raw: Path | None = None, program: Path | None = None,
                args: Sequence[str] | None = None, gated: bool = False) -> list[str]:
    """The Nsight Compute command of ``prog``'s :class:`NcuPlan` (the log file, the binary and, for a
    program that reads a data set, its folder, where given); ``gated``: its skipped launches are
    passed over by :data:`GATE_LIBRARY` (:func:`gate_env`), not by ncu."""
    plan = prog.profiled()
    skip = ["--profile-from-start", "off"] if gated and plan.skip else ["--launch-skip", str(plan.skip)]
    cmd = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none", "--metrics",
           "gpu__time_duration.sum", *skip, "--launch-count", str(plan.groups * plan.per_group),
           "--kill", "yes"]
    if raw is not None:
        cmd += ["--log-file", str(raw)]
    return [*cmd, "--", str(program) if program is not None else prog.folder, *(plan.args if args is None else args)]


def gate_env(prog: Program, gate: Path) -> dict[str, str]:
    """The variables of a gated profiled run: the gate preloaded, starting the range at the plan's skip."""
    return {"LD_PRELOAD": str(gate), "LASSM_PROFILE_AFTER": str(prog.profiled().skip)}


def ncu_columns(raw: Path, prog: Program, gated: bool = False) -> dict:
    """``ncu_*`` columns from the raw CSV of ``prog``'s profiled run: its kernels'
    ``gpu__time_duration`` for one iteration (ncu writes thousands separators: "68,000" ns)."""
    from ...analysis.counters import ncu as ncu_csv
    from ...analysis.counters.tidy import convert, parse_number

    table, units = ncu_csv.read_raw(raw)
    unit = units.get("gpu__time_duration.sum", "ns")
    durations = [convert(parse_number(v), unit, "second") for v in table["gpu__time_duration.sum"]]
    seconds, kernels = prog.profiled().seconds(durations, [str(n) for n in table["Kernel Name"]])
    shown = ncu_command(prog, gated=gated)
    if gated and prog.profiled().skip:
        shown = [f"{k}={Path(v).name if k == 'LD_PRELOAD' else v}" for k, v in gate_env(prog, Path(GATE_LIBRARY)).items()] + shown
    return {"ncu_seconds": seconds, "ncu_kernels": kernels, "ncu_command": " ".join(shown)}


def ncu_time(program: Path, prog: Program, raw: Path, ncu: str, args: Sequence[str] | None = None,
             gate: Path | None = None) -> dict:
    """``ncu_*`` columns: the program run under Nsight Compute (its :class:`NcuPlan`; ``args`` in
    place of the plan's own: a data set's folder), the raw CSV kept at ``raw`` (:func:`ncu_columns`);
    with ``gate`` (:data:`GATE_LIBRARY`), a plan's skipped launches are passed over by it."""
    if prog.ncu is None:
        return {}
    raw.parent.mkdir(parents=True, exist_ok=True)
    gated = gate is not None and prog.ncu.skip > 0
    try:
        _timed_run(ncu_command(prog, ncu, raw, program, args, gated=gated), NCU_TIMEOUT,
                   env=gate_env(prog, gate) if gated and gate is not None else None)
    except LassmError:
        # ``--kill yes`` ends the program once its launches are counted (its CPU check, minutes for
        # epistasis-cuda, is not what is measured here); an exit code that says so is no failure
        # when every expected launch is in the file
        if not raw.is_file():
            raise
    return ncu_columns(raw, prog, gated=gated)


def raw_file(machine: str, kernel: str) -> Path:
    """``<machine>/suite/counters/ncu__original__<kernel>.csv``: the program's profiled run."""
    return _raw_beside(table(machine), kernel)


def _raw_beside(originals: Path, kernel: str) -> Path:
    """The profiled run's raw CSV of the originals table ``originals``'s folder."""
    return originals.parent / "counters" / f"ncu__original__{kernel}.csv"


#: Programs whose own CPU check takes minutes after their timed launches (epistasis-cuda's: every
#: pair of 4,096 SNPs over 8,192 samples on one core, more than five minutes on the H200's node):
#: started first and alone on the GPU (:class:`_Started`), and ended once their result is copied
#: back (the bytes of that copy, from the arguments), so their check is not run: their output is
#: compared with ours instead, as minkowski-cuda's is (built without its check, ``VERIFY=no``).
ENDED_AFTER_COPY: dict[str, Callable[[Sequence[str]], int]] = {
    "epistasis": lambda args: int(args[1]) ** 2 * 4,  # the SNP x SNP float scores
}
CHECKED_BEHIND: frozenset[str] = frozenset(ENDED_AFTER_COPY)


class _Started:
    """A program run with its copies captured, read until it prints its kernel time: from then on
    it uses no GPU time that is measured (its copy back, then its CPU check), and :meth:`output`
    waits for the rest."""

    def __init__(self, program: Path, args: Sequence[str], shim: Path, folder: Path, timeout: float,
                 end_after: int | None = None) -> None:
        import subprocess
        import time as _time

        self.name, self.timeout, self.started = program.name, timeout, _time.monotonic()
        self.folder, self.end_after = folder, end_after
        self.err = (folder / ".stderr").open("w+")
        self.proc = subprocess.Popen([str(program), *args], stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     env={**installed_env(), "LD_PRELOAD": str(shim), "LASSM_CAPTURE": str(folder)},
                                     start_new_session=True)  # its children end with it
        self.head: list[str] = []
        for line in self.proc.stdout or ():  # its timed launches end before this line is printed
            self.head.append(line)
            if _TIME.search(line):
                break

    def output(self) -> str:
        """Everything it printed, once it has ended; raises as :func:`lassm.campaign.originals.timing.run` does."""
        import subprocess
        import time as _time

        import os
        import signal

        if self.end_after is not None:  # ended once a copy back of that many bytes is written whole
            while self.proc.poll() is None and _time.monotonic() - self.started < self.timeout:
                if any(p.stat().st_size >= self.end_after for p in self.folder.glob("*-d2h.bin")):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.communicate()
                    self.err.close()
                    return "".join(self.head)
                _time.sleep(0.05)
        left = max(1.0, self.timeout - (_time.monotonic() - self.started))
        try:
            rest, _ = self.proc.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
            raise LassmError(f"{self.name} ran past {self.timeout:.0f} s") from None
        finally:
            self.err.seek(0)
            err = self.err.read()
            self.err.close()
        text = "".join(self.head) + (rest or "")
        if self.proc.returncode != 0:
            raise LassmError(f"{self.name} exited {self.proc.returncode}: "
                             + " | ".join((err or text).strip().splitlines()[-4:]))
        return text


def start_behind(built: Built, kernels: Sequence[str], stack) -> dict[str, tuple[Path, Callable[[], str]]]:
    """The programs of :data:`CHECKED_BEHIND` among ``kernels`` started, each alone on the GPU until
    it prints its time (:class:`_Started`): kernel -> (its capture folder, what waits for its output).
    Their folders live as long as ``stack`` (a :class:`contextlib.ExitStack`)."""
    started: dict[str, tuple[Path, Callable[[], str]]] = {}
    for kernel in [k for k in kernels if k in CHECKED_BEHIND]:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"lassm-capture-{kernel}-")))
        try:
            args = PROGRAMS[kernel].args
            run = _Started(built[kernel], args, built[SHIM_LIBRARY], tmp, CAPTURE_TIMEOUT,
                           end_after=ENDED_AFTER_COPY[kernel](args))
            started[kernel] = (tmp, run.output)
        except Exception as exc:  # noqa: BLE001  it could not start: named when its turn comes
            started[kernel] = (tmp, _raiser(exc))
    return started


def run_all(built: Built, kernels: Sequence[str], table: Path, how: Measuring, *,
            started: dict[str, tuple[Path, Callable[[], str]]] | None = None) -> tuple[list[dict], list[str]]:
    """Each program once at Jin and Vetter's sizes, and under Nsight Compute where ``how.ncu`` is given;
    a row each, upserted as it lands, ``how.tick`` after each. :data:`CHECKED_BEHIND` programs start
    first (or were ``started`` by the caller, :func:`start_behind`), alone on the GPU until they print
    their time, and are joined last. ``how.repeats`` and ``how.backend`` are unused."""
    import contextlib

    status: list[dict] = []
    failed: list[str] = []
    with contextlib.ExitStack() as stack:
        started = started if started is not None else start_behind(built, kernels, stack)
        for kernel in [k for k in kernels if k not in started]:
            with tempfile.TemporaryDirectory(prefix=f"lassm-capture-{kernel}-") as tmp:
                _one(built, kernel, Path(tmp), None, table, how, status, failed)
            how.tick()
        for kernel in [k for k in kernels if k in started]:
            folder, output = started[kernel]
            _one(built, kernel, folder, output, table, how, status, failed)
            how.tick()
    return status, failed


def _raiser(exc: BaseException) -> Callable[[], str]:
    def again() -> str:
        raise exc
    return again


def _one(built: Built, kernel: str, tmp: Path, output: Callable[[], str] | None, table: Path, how: Measuring,
         status: list[dict], failed: list[str]) -> None:
    """One program's row: its run (``output`` when it was started already, else run here), its
    check, its output beside ours, then its profiled run; appended to ``status`` and ``failed``."""
    context, ncu, say = how.context, how.ncu, how.say
    prog = PROGRAMS[kernel]
    argv = prog.args
    try:
        if prog.data:
            argv = (str(cmap_data.write(cmap_data.make(), tmp / prog.args[0])),)
            # its whole time from a run of its own: the capture's files would add to it
            whole_out = _timed_run([str(built[kernel]), *argv], CAPTURE_TIMEOUT)[1]
        out = output() if output is not None else capture(built[kernel], argv, built[SHIM_LIBRARY], tmp)
        seconds = prog.seconds(whole_out if prog.data else out)
    except Exception as exc:  # one program that fails is named; the others go on
        line = " ".join(str(exc).split())[:300]
        failed.append(f"originals: HeCBench {prog.folder}: {type(exc).__name__}: {line}")
        status.append({"part": "hecbench", "dataset": kernel, "program": prog.folder, "status": f"failed: {line}"})
        say(failed[-1])
        return
    compared = outputs(kernel, tmp, argv)
    verdicts = re.findall(r"^(PASS|FAIL)\s*$", out, re.M)
    verified = "not checked" if not verdicts else "PASS" if set(verdicts) == {"PASS"} else "FAIL"
    row = {**context, "kernel": kernel, "program": prog.folder, "args": " ".join(prog.args), "seconds": seconds,
           "verified": verified, "ours_variant": OURS[kernel], "command": f"{prog.folder} {' '.join(prog.args)}",
           **compared}
    tables.upsert(table, COLUMNS, KEY, [row])  # before the profiled run: a run cut short keeps this much
    timed: dict = {}
    if ncu is not None:  # in the folder's lifetime: a program that reads a data set reads it again
        try:
            timed = ncu_time(built[kernel], prog, _raw_beside(table, kernel), ncu, argv if prog.data else None,
                             gate=built[GATE_LIBRARY])
        except Exception as exc:  # the program's own clock stays; the reason is said
            failed.append(f"originals: HeCBench {prog.folder} under Nsight Compute: {type(exc).__name__}: "
                          f"{' '.join(str(exc).split())[:300]}")
            say(failed[-1])
    if timed:
        row.update(timed)
        tables.upsert(table, COLUMNS, KEY, [row])
    differ = verified == "FAIL" or row.get("outputs_equal") is False
    whole = prog.pick == "whole"
    status.append({"part": "hecbench", "dataset": kernel, "program": prog.folder,
                   "whole_seconds": seconds if whole else None, "kernel_seconds": None if whole else seconds,
                   "status": "MISMATCH" if differ else "ok"})
    equal = row.get("outputs_equal")
    said = "equal to ours" if equal is True else "DIFFERS from ours" if equal is False else row["outputs_compared"]
    clock = f", {timed['ncu_seconds'] * 1e3:.3f} ms by Nsight Compute" if timed else ""
    per = "in all (its whole processing)" if whole else "per iteration"
    say(f"HeCBench {prog.folder}: {seconds * 1e3:.3f} ms {per} by its own clock{clock}, its own check: "
        f"{verified}, its output: {said}")


def outputs(kernel: str, copies: Path, args: Sequence[str]) -> dict:
    """The row's output columns: the program's output (its copies, in ``copies``) beside our CUDA
    kernel's (:data:`OURS`, the fastest we found) on its inputs (:mod:`.hecbench_outputs`), or why
    they were not compared."""
    from ...backends import suite

    ok, why = suite.available("cuda")
    if not ok:
        return {"outputs_compared": f"not compared: {' '.join(why.split())[:200]}"}
    try:
        got = compare(kernel, copies, tuple(args), OURS[kernel])
    except Exception as exc:  # a comparison that cannot be made is named in the row
        return {"outputs_compared": f"not compared: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}
    return {"outputs_equal": got.equal, "output_difference": got.difference, "outputs_compared": got.what}


def table(machine: str) -> Path:
    """``<machine>/suite/originals.csv``."""
    return rec.folder(machine) / FILE


__all__ = ["CHECKED_BEHIND", "ENDED_AFTER_COPY", "COLUMNS", "FILE", "FLAGS", "GATE", "GATE_LIBRARY", "HECBENCH", "KEY", "NCU_COLUMNS", "NcuPlan", "OURS", "PROGRAMS", "SHIM_LIBRARY",
           "Program", "build_all", "gate_env", "ncu_columns", "ncu_command", "ncu_time", "outputs", "raw_file", "run_all", "start_behind", "table", "todo"]

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's own X-drop demo and ``lassm xdrop align --backend cuda``, side by side, on the same pairs and X.

Issue 18's benchmark (item 5): LOGAN (public: albertozeni/LOGAN; its sources exported under
``.baselines/LOGAN``, built here with nvcc as its Makefile does, for this GPU's architecture,
never committed) runs ``demo input k X 1`` on the pairs of a named set written in its input
form (``seqV posV seqH posH strand``, one pair a line; V is SeqAn's query, H its database, as
in ``lassm.workloads.xdrop``), and ours runs on the same pairs as parquet. For each X:

- whole-command wall time, the median of ``--repeats`` runs (one untimed run of each program
  before the first X: CUDA's context, CuPy's kernel cache);
- LOGAN's own "GPU only time" (its kernels and the copies around them, host timer; summed over
  its batches of 30,000 pairs);
- kernel time: Nsight Compute's ``gpu__time_duration.sum`` summed over every launch of one run
  of each command, ``--clock-control none`` as the study's counters (LOGAN launches its left and
  right extensions on two streams, which ncu serializes); ``--no-ncu`` skips it;
- with ``--counters-xdrops``, LOGAN's kernels under the study's whole metric list, one row per X
  into ``xdrop/counters.csv`` (program ``LOGAN``), beside the campaign's ``lassm cuda`` rows.

Rows go to ``data/results/<machine>/xdrop/against-logan.csv`` (atomically, after each X; rows
already there at this commit are kept and skipped unless ``--force``). LOGAN's demo prints no
alignment, so its results are not compared here; ours are the oracle's (``lassm run --kernel xdrop``).

Usage (GPU node, repository root):
    PYTHONPATH=$PWD python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \\
        --dataset xdrop-sim-20k --xdrops 10,20,50,100,500,1000,5000 --counters-xdrops 100,1000
"""
from __future__ import annotations

import argparse
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from lassm.runs import xdrop as rec
from lassm.runs.records import git_sha
from lassm.workloads.xdrop.pairs import Pairs

#: LOGAN's Makefile: ``nvcc -O3 -maxrregcount=32 -std=c++14 -Isrc -Xcompiler -fopenmp``, objects built
#: with ``-dc`` and linked with the same flags; the architecture is added (its ``v100`` switch adds sm_70).
LOGAN_FLAGS = ("-O3", "-maxrregcount=32", "-std=c++14", "-Isrc", "-Xcompiler", "-fopenmp")
LOGAN_SOURCES = ("demo", "seed", "score", "logan_functions")
#: LOGAN's kernel and ours, for ncu's ``--kernel-name``.
LOGAN_KERNEL = "extendSeedLGappedXDropOneDirectionGlobal"
OUR_KERNEL = "xdrop_kernel"
LOGAN_PROGRAM = "LOGAN demo"
#: The two metrics of the kernel-time runs (one ncu pass).
TIME_METRICS = ("gpu__time_duration.sum", "smsp__thread_inst_executed.sum")
_GPU_ONLY = re.compile(r"^GPU only time:\s*([0-9.eE+-]+)\s*$", re.M)
_TOTAL = re.compile(r"^Total Execution time:\s*([0-9.eE+-]+)\s*$", re.M)


def seed_length(pairs: Pairs) -> int:
    """The seed length every pair shares: LOGAN's demo takes one k for all of them."""
    lengths = np.unique(pairs.seed_len)
    if len(lengths) != 1:
        raise ValueError(f"{pairs.name}: seeds of {len(lengths)} lengths ({', '.join(map(str, lengths[:5]))}); "
                         f"LOGAN's demo takes one k")
    return int(lengths[0])


def write_logan_input(pairs: Pairs, path: str | Path) -> int:
    """Writes LOGAN's demo input, ``seqV posV seqH posH n`` (tab-separated, strand ``n``: same strand); returns k."""
    k = seed_length(pairs)
    with open(path, "w") as fh:
        for i in range(pairs.n_pairs):
            h, ph, v, pv, _k = pairs.pair(i)
            fh.write(f"{v.decode()}\t{pv}\t{h.decode()}\t{ph}\tn\n")
    return k


def parse_logan_output(text: str) -> tuple[float, float]:
    """(GPU only time summed over LOGAN's batches, Total Execution time), seconds, from the demo's stdout.

    Raises
    ------
    ValueError
        When a line is missing (the demo failed before printing it).
    """
    gpu = [float(m) for m in _GPU_ONLY.findall(text)]
    total = _TOTAL.findall(text)
    if not gpu or len(total) != 1:
        raise ValueError(f"LOGAN's demo printed {len(gpu)} 'GPU only time' and {len(total)} 'Total Execution time' "
                         f"lines; its output ends: {' | '.join(text.strip().splitlines()[-3:])}")
    return float(sum(gpu)), float(total[0])


def parse_ncu_times(text: str) -> tuple[float, int, float]:
    """(kernel seconds, launches, thread instructions) summed over every launch of ncu's raw CSV.

    ``text`` is what ``ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum,
    smsp__thread_inst_executed.sum`` wrote: ``==PROF==`` lines, the header, a units row, one row
    per launch; columns are found by name, numbers may hold thousands separators.
    """
    from lassm.analysis.counters import convert, parse_number
    from lassm.analysis.counters.ncu import read_raw

    wide, units = read_raw(text if "\n" in text else text + "\n")
    if wide.empty:
        raise ValueError("ncu profiled no kernel launch")
    for col in TIME_METRICS:
        if col not in wide.columns:
            raise ValueError(f"ncu's table has no column {col}")
    seconds = sum(convert(parse_number(v), units.get(TIME_METRICS[0], "nsecond") or "nsecond", "second")
                  for v in wide[TIME_METRICS[0]])
    inst = sum(parse_number(v) for v in wide[TIME_METRICS[1]])
    return float(seconds), int(len(wide)), float(inst)


def build_logan(source: Path, work: Path, arch: str) -> Path:
    """LOGAN's ``demo``, built from a copy of ``source`` (the four objects at once), for ``arch``."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    tree = work / "LOGAN"
    shutil.copytree(source, tree)
    flags = [*LOGAN_FLAGS, f"-arch={arch}"]

    def compile_one(name: str) -> None:
        subprocess.run([nvcc, "-c", *flags, "-dc", f"src/{name}.cu", "-o", f"src/{name}.o"], cwd=tree, check=True)

    with ThreadPoolExecutor(len(LOGAN_SOURCES)) as pool:
        list(pool.map(compile_one, LOGAN_SOURCES))
    subprocess.run([nvcc, *flags, *[f"src/{n}.o" for n in LOGAN_SOURCES], "-o", "demo"], cwd=tree, check=True)
    return tree / "demo"


def run_whole(cmd: list[str]) -> tuple[float, str]:
    """Seconds of one run of ``cmd`` and its standard output (a failure raises, with its stderr)."""
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {(res.stderr or res.stdout)[-1500:]}")
    return seconds, res.stdout


def ncu_times(cmd: list[str], ncu: str, kernel: str, log: Path) -> tuple[float, int, float]:
    """Kernel seconds, launches and thread instructions of one run of ``cmd`` under ncu."""
    from lassm.analysis.counters.ncu import check_output

    log.unlink(missing_ok=True)
    res = subprocess.run([ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
                          "--kernel-name", f"regex:{kernel}", "--metrics", ",".join(TIME_METRICS),
                          "--log-file", str(log), "--", *cmd], capture_output=True, text=True)
    text = log.read_text(errors="replace") if log.exists() else ""
    check_output(text + res.stdout + res.stderr)
    if res.returncode != 0:
        raise RuntimeError(f"ncu exited {res.returncode}: {(res.stderr or res.stdout)[-1500:]}")
    return parse_ncu_times(text)


def logan_counters(demo_cmd: list[str], raw: Path, *, dataset: str, xdrop: int, machine: str, sha: str, ncu: str,
                   command: str) -> dict:
    """LOGAN's kernels under the study's whole metric list: one ``counters.csv`` row (program ``LOGAN``)."""
    from lassm.analysis.counters import ncu as nsight
    from lassm.campaign.xdrop_counters import row_from_raw

    nsight.collect(demo_cmd, raw, dataset=dataset, k=xdrop, protocol="LOGAN", kernel_name=f"regex:{LOGAN_KERNEL}",
                   ncu=ncu, timeout=600)
    return row_from_raw(raw, dataset=dataset, xdrop=xdrop, program="LOGAN", machine=machine, git_sha=sha,
                        command=command)


def _device() -> tuple[str, str]:
    """The GPU's name and driver (the CPU's model and no driver where CuPy sees none: a dry run)."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        from lassm.runs.records import cpu_model

        return cpu_model(), ""

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()
        driver = out[0].strip() if out else ""
    except (OSError, subprocess.SubprocessError):
        driver = ""
    return name, driver or str(cupy.cuda.runtime.driverGetVersion())


def _int_list(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want a comma list of integers") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: X values are 0 or more")
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="LOGAN's source tree (its Makefile and src/), built with nvcc")
    ap.add_argument("--program", type=Path, help="a LOGAN demo already built (instead of --source)")
    ap.add_argument("--machine", required=True, help="results folder name")
    ap.add_argument("--dataset", default="xdrop-sim-20k", help="an X-drop set name or pairs file (default %(default)s)")
    ap.add_argument("--xdrops", type=_int_list, default=[10, 20, 50, 100, 500, 1000, 5000])
    ap.add_argument("--repeats", type=int, default=1, help="timed whole runs per program and X (default 1)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--no-ncu", action="store_true", help="no kernel times from Nsight Compute")
    ap.add_argument("--counters-xdrops", type=_int_list, default=[],
                    help="X values at which LOGAN also runs under the study's whole metric list (counters.csv)")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl", "cpu"),
                    help="our backend (default cuda; cpu for a dry run of this script without a GPU)")
    ap.add_argument("--force", action="store_true", help="measure again rows recorded at this commit")
    args = ap.parse_args(argv)
    if not args.source and not args.program:
        ap.error("give --source (LOGAN's tree) or --program")
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    from lassm.campaign.steps import find_ncu
    from lassm.workloads.xdrop import datasets
    from lassm.workloads.xdrop.formats import write_pairs_parquet

    device, driver = _device()
    ncu = None if args.no_ncu else find_ncu()
    sha = git_sha()
    programs = (LOGAN_PROGRAM, f"lassm xdrop align {args.backend}")
    table = rec.folder(args.machine) / rec.AGAINST_LOGAN_FILE
    counters = rec.folder(args.machine) / rec.COUNTERS_FILE
    pairs = datasets.load(args.dataset)
    name = args.dataset if args.dataset.startswith("xdrop-") else Path(args.dataset).stem
    todo = [x for x in args.xdrops if args.force or not all(
        rec.recorded(rec.read_rows(table, rec.AGAINST_LOGAN_COLUMNS), sha, dataset=name, xdrop=x, program=p)
        for p in programs)]
    counted = [x for x in args.counters_xdrops if ncu and (args.force or not rec.recorded(
        rec.read_rows(counters, rec.COUNTER_COLUMNS), sha, dataset=name, xdrop=x, program="LOGAN"))]
    print(f"{name}: {pairs.n_pairs} pairs; X to run: {todo or 'none (recorded at this commit)'}"
          + (f"; LOGAN's counters at X = {counted}" if counted else ""), flush=True)
    if not todo and not counted:
        print(f"-> {table}")
        return 0
    with tempfile.TemporaryDirectory(prefix="lassm-vs-logan-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        exe = args.program or build_logan(args.source, tmp, args.arch)
        print(f"LOGAN demo: {exe} ({time.perf_counter() - t0:.1f} s to build)", flush=True)
        logan_in, ours_in = tmp / "pairs.txt", tmp / "pairs.parquet"
        k = write_logan_input(pairs, logan_in)
        write_pairs_parquet(pairs, ours_in)
        def measure(prog: str, cmd: list[str], x: int, shown: str) -> dict:
            """One program at one X: its whole runs, LOGAN's printed time, ncu's kernel time."""
            runs = [run_whole(cmd) for _ in range(args.repeats)]
            gpu_only = [parse_logan_output(out)[0] for _s, out in runs] if prog == LOGAN_PROGRAM else []
            kernel, launches, inst = (ncu_times(cmd, ncu, LOGAN_KERNEL if prog == LOGAN_PROGRAM else OUR_KERNEL,
                                                tmp / "ncu.csv") if ncu else (None, None, math.nan))
            row = {"machine": args.machine, "device": device, "driver": driver, "dataset": name,
                   "n_pairs": pairs.n_pairs, "xdrop": x, "program": prog, "kernel_seconds": kernel,
                   "kernel_launches": launches, "logan_gpu_seconds": statistics.median(gpu_only) if gpu_only else None,
                   "whole_seconds": statistics.median(s for s, _out in runs), "git_sha": sha, "command": shown}
            print(f"X={x} {prog}: whole {row['whole_seconds']:.3f} s"
                  + (f", kernel {kernel * 1e3:.3f} ms ({launches} launches, {inst:.4g} thread instructions)"
                     if kernel is not None else "")
                  + (f", LOGAN's GPU only time {row['logan_gpu_seconds']:.4f} s" if gpu_only else ""), flush=True)
            return row

        first, failed = True, []
        for x in todo:
            cmds = {programs[0]: [str(exe), str(logan_in), str(k), str(x), "1"],
                    programs[1]: [sys.executable, "-m", "lassm.cli", "xdrop", "align", str(ours_in), "--backend",
                                  args.backend, "--xdrop", str(x), "--out", str(tmp / "ours.parquet")]}
            shown = {programs[0]: f"demo {name}.txt {k} {x} 1",
                     programs[1]: f"lassm xdrop align {name}.parquet --backend {args.backend} --xdrop {x}"}
            try:
                if first:  # CUDA's context, CuPy's kernel cache, the file system's cache: untimed
                    for cmd in cmds.values():
                        run_whole(cmd)
                    first = False
                rows = [measure(prog, cmd, x, shown[prog]) for prog, cmd in cmds.items()]
            except (RuntimeError, ValueError, OSError) as exc:  # one X that fails is named; the others go on
                failed.append(f"X={x}: {' '.join(str(exc).split())[:500]}")
                print(f"X={x}: failed: {failed[-1]}", flush=True)
                continue
            rec.upsert(table, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, rows)

        if args.counters_xdrops and not ncu:
            print("counters: no ncu here; none collected", flush=True)
        for x in counted:
            raw = rec.folder(args.machine) / "counters" / f"ncu__{name}__x{x}__logan.csv"
            try:
                row = logan_counters([str(exe), str(logan_in), str(k), str(x), "1"], raw, dataset=name, xdrop=x,
                                     machine=args.machine, sha=sha, ncu=ncu,
                                     command=f"ncu --metrics <data/metric-names.csv> -- demo {name}.txt {k} {x} 1")
            except Exception as exc:  # LOGAN's counters are extra: named, not fatal
                failed.append(f"counters X={x}: {' '.join(str(exc).split())[:500]}")
                print(f"counters LOGAN X={x}: failed: {failed[-1]}", flush=True)
                continue
            rec.upsert(counters, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
            print(f"counters LOGAN X={x}: {row['duration_s'] * 1e3:.2f} ms, {row['launches']} launches, "
                  f"{row['int_lane_ops']:.4g} integer lane ops", flush=True)
    print(f"-> {table}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Times a whole command, start-up included, as a user pays it: N runs, each in a fresh process.

Why: the study compares ``lassm extend`` and ``lassm xdrop align`` with the C++ originals end to
end, and a command's fixed cost (interpreter, imports, the GPU runtime's search and context, the
first use of a kernel) hides in no kernel timer. This prints the median, best and worst wall time
of ``--repeat`` runs after ``--warmup`` untimed ones (which fill on-disk caches: numba's, CuPy's),
then one more run under ``python -X importtime`` (``PYTHONPROFILEIMPORTTIME=1``, which every Python
process of the command honours) and the time its imports took, with the heaviest top-level ones:
the imports of every thread, summed (a backend's warm-up thread imports its runtime while the
main thread reads the input, so the sum can pass the wall time they cost), and ``python -c pass``
for the interpreter's own start-up.

Not a timed test (timings depend on the machine and its load): a measurement to log. The command
runs with this process's environment and working folder; its output is discarded unless it fails.

Usage (repository root, the venv's ``lassm`` on PATH):
    python tools/whole_command_time.py -- lassm xdrop align pairs.parquet --backend cuda --out a.parquet
    python tools/whole_command_time.py --repeat 5 --json t.json -- lassm extend in.dat --out o.txt
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

#: ``import time: self [us] | cumulative | imported package`` (a nested import is indented).
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\s*$")


def run_once(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Runs ``argv`` once; returns its wall seconds and its stderr. Raises when it fails, since a
    failed run's time says nothing about the command."""
    t0 = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"whole_command_time: {shlex.join(argv)} exited {done.returncode}:\n{done.stderr[-4000:]}")
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


def main(argv: list[str] | None = None) -> int:
    """Parses the options, times the command, prints (or writes as JSON) the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="%(prog)s [--repeat N] [--warmup W] [--json FILE] -- COMMAND ...")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs first, to fill on-disk caches (default %(default)s)")
    ap.add_argument("--top", type=int, default=8, help="heaviest top-level imports to list (default %(default)s)")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command to time after --")
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be at least 1 and --warmup not negative")
    for _ in range(args.warmup):
        run_once(command)
    walls = [run_once(command)[0] for _ in range(args.repeat)]
    traced_wall, stderr = run_once(command, env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    imports, top = import_times(stderr)
    bare = statistics.median(run_once([sys.executable, "-c", "pass"])[0] for _ in range(args.repeat))
    figures = {"command": shlex.join(command), "repeat": args.repeat, "warmup": args.warmup,
               "median_seconds": statistics.median(walls), "min_seconds": min(walls), "max_seconds": max(walls),
               "wall_seconds": walls, "import_seconds": imports, "traced_wall_seconds": traced_wall,
               "python_seconds": bare, "python": sys.executable,
               "top_imports": [{"module": name, "seconds": s} for s, name in top[:args.top]]}
    print(f"{figures['command']}\n"
          f"  wall: median {figures['median_seconds']:.3f} s, best {figures['min_seconds']:.3f} s, "
          f"worst {figures['max_seconds']:.3f} s over {args.repeat} fresh processes ({args.warmup} warm-up)\n"
          f"  imports: {imports:.3f} s (one run under -X importtime, {traced_wall:.3f} s wall with the tracing)\n"
          f"  python -c pass: median {bare:.3f} s ({sys.executable})")
    for s, name in top[:args.top]:
        print(f"    {s:7.3f} s  {name}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(figures, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

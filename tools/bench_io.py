# SPDX-License-Identifier: BSD-3-Clause
"""Reading and writing a ``.dat`` file at I/O speed: read_dat and write_dat against a plain
``bytes.split()`` of the same file, all measured in one run, and the command line's start-up.

Not a timed test (timings depend on the machine and its load): a measurement to log. Each figure
is the best of ``--repeat`` runs; MB is 10^6 bytes of the ``.dat`` file. The baseline reads the
file and splits it into fields, the least any reader does; read_dat reads the same file into a
dataset with every check; the ratios are times over the baseline's. The ``fresh_process`` rows
time the same in a new interpreter (its start-up and imports included), as one command pays.

Usage (repository root): PYTHONPATH=. python3 tools/bench_io.py --dataset sample-k77x20 [--repeat 3]
[--careful] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from lassm import paths
from lassm.atomic import atomic_open
from lassm.workloads.local_assembly import datasets, formats

#: Modules the start-up check looks for (GPU and data stacks).
HEAVY = ("cupy", "numba", "pyopencl", "dpctl", "dask", "pandas", "pyarrow")


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def split_baseline(path: Path) -> int:
    """Reads ``path`` and splits it into fields: what any reader of it must at least do."""
    return len(path.read_bytes().split())


def fresh_read(path: Path, repeat: int) -> float:
    """The shortest time of ``read_dataset`` alone, timed inside a new interpreter each run (its
    imports left out): the read as ``lassm extend`` pays it, first call and fresh memory included."""
    code = ("import sys, time\nfrom lassm.workloads.local_assembly import formats\n"
            "t = time.perf_counter()\nformats.read_dataset(sys.argv[1])\nprint(time.perf_counter() - t)")
    return min(float(subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                                    check=True).stdout) for _ in range(repeat))


def startup(repeat: int) -> dict:
    """Wall time of a fresh interpreter importing the CLI, and of ``lassm --help``, with the
    heavy modules each leaves imported."""
    out = {}
    probes = {"import lassm.cli": "import lassm.cli",
              "lassm --help": "from lassm.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"}
    for name, code in probes.items():
        probe = f"import sys\n{code}\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
        run = lambda: subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        heavy = run().stderr.strip().splitlines()[-1:] or [""]
        out[name] = {"seconds": best_of(run, repeat), "heavy_modules": [m for m in heavy[0].split(",") if m]}
    empty = best_of(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), repeat)
    out["python -c pass"] = {"seconds": empty, "heavy_modules": []}
    return out


def provenance() -> dict:
    """Git commit, command, CPU and library versions of this measurement."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=paths.REPO, capture_output=True, text=True).stdout.strip()

    cpu = platform.processor()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"git_sha": git("rev-parse", "HEAD"), "git_dirty": bool(git("status", "--porcelain", "--", "lassm", "tools")),
            "command": "python3 " + shlex.join(sys.argv), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__,
            "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def measure(name: str, repeat: int, careful: bool) -> dict:
    """Times write_dat, read_dat and the split baseline on dataset ``name``, in one run."""
    ds, _ = datasets.load(name)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.dat"
        t_write = best_of(lambda: formats.write_dat(ds, path), repeat)
        size = path.stat().st_size
        t_split = best_of(lambda: split_baseline(path), repeat)
        t_read = best_of(lambda: formats.read_dat(path), repeat)
        times = {"split_baseline": t_split, "read_dat": t_read, "write_dat": t_write}
        # In a fresh interpreter, as one command would: imports (numba's, for a big file) and
        # loading compiled code from numba's cache count here.
        cold = lambda code: best_of(lambda: subprocess.run([sys.executable, "-c", code], check=True), repeat)
        times["split_fresh_process"] = cold(f"open({str(path)!r}, 'rb').read().split()")
        times["read_dat_fresh_process"] = cold("from lassm.workloads.local_assembly import formats\n"
                                               f"formats.read_dat({str(path)!r})")
        times["read_dat_in_fresh_process"] = fresh_read(path, repeat)
        bulk = getattr(formats, "dat_bulk", None)
        if bulk is not None and hasattr(bulk, "JIT_MIN_BYTES"):  # the NumPy path alone, numba aside
            jit_min, bulk.JIT_MIN_BYTES = bulk.JIT_MIN_BYTES, 1 << 62
            try:
                times["read_dat_numpy_path"] = best_of(lambda: formats.read_dat(path), repeat)
                times["write_dat_numpy_path"] = best_of(lambda: formats.write_dat(ds, path), repeat)
            finally:
                bulk.JIT_MIN_BYTES = jit_min
        reader = getattr(formats, "_read_dat_careful", None)
        if careful and reader is not None:
            times["read_dat_careful"] = best_of(lambda: reader(str(path), path.read_bytes(), None, None), repeat)
    mb = size / 1e6
    return {"dataset": name, "contigs": ds.n_contigs, "reads": ds.left.n_reads + ds.right.n_reads, "bytes": size,
            "repeat": repeat, "seconds": times, "mb_per_s": {k: mb / v for k, v in times.items()},
            "ratio_to_split": {k: v / t_split for k, v in times.items()}}


def report(result: dict) -> str:
    """The measurement as lines of text."""
    lines = [f"{key}: {val}" for key, val in result["provenance"].items()]
    for row in result["io"]:
        lines.append(f"dataset {row['dataset']}: {row['contigs']} contigs, {row['reads']} reads, "
                     f"{row['bytes'] / 1e6:.1f} MB, best of {row['repeat']}")
        lines.append(f"  {'step':26s} {'seconds':>9s} {'MB/s':>9s} {'x split':>8s}")
        for key, sec in row["seconds"].items():
            lines.append(f"  {key:26s} {sec:9.3f} {row['mb_per_s'][key]:9.1f} {row['ratio_to_split'][key]:8.2f}")
    for key, val in result.get("startup", {}).items():
        lines.append(f"start-up {key:18s} {val['seconds']:.3f} s  heavy modules: {', '.join(val['heavy_modules']) or 'none'}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", action="append", default=None, help="dataset name (repeatable; default sample-k77x20)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--careful", action="store_true", help="also time the careful field-by-field reader")
    ap.add_argument("--no-startup", action="store_true", help="skip the start-up measurement")
    ap.add_argument("--json", type=Path, default=None, help="also write the result as JSON here")
    args = ap.parse_args()
    result = {"provenance": provenance(),
              "io": [measure(name, args.repeat, args.careful) for name in args.dataset or ["sample-k77x20"]]}
    if not args.no_startup:
        result["startup"] = startup(args.repeat)
    print(report(result))
    if args.json:
        with atomic_open(args.json) as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()

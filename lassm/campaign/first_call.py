# SPDX-License-Identifier: BSD-3-Clause
"""A GPU command's first call on a machine against its warm calls (the goal: at most 1.5 times).

For ``lassm extend`` with ``fast`` and ``lassm xdrop align``, each start: ``empty`` (the first
call compiles with NVRTC) and ``built ahead`` (``lassm build-kernels`` first, its seconds apart).
Each starts from an empty ``LASSM_CACHE``: the first call timed alone, then ``repeats`` warm calls
after one untimed run warming bytecode and file cache. Rows are upserted by :data:`KEY` into
``data/results/<machine>/first-call.csv`` (``lassm measure first-call``), read by
:func:`lassm.runs.results.first_call`."""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from .. import stderr
from .. import paths
from ..runs import tables
from ..runs.records import git_sha
from ..runs.results import FIRST_CALL_FILE as FILE
from .originals.timing import gpu_device, run

COLUMNS = ("machine", "device", "driver", "command", "dataset", "start", "build_seconds", "first_seconds",
           "warm_seconds", "warm_runs", "first_over_warm", "git_sha", "command_line")
KEY = ("command", "dataset", "start")


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    return run(cmd, env=env)[0]


def measure(machine: str, dataset: str, pairs_name: str, xdrop: int, repeats: int) -> list[dict]:
    """Both commands from both starts: one row of :data:`COLUMNS` each; progress on stderr."""
    from ..workloads.local_assembly import datasets, formats
    from ..workloads.xdrop import pair_sets as xdatasets
    from ..workloads.xdrop.pair_files import write_pairs_parquet

    device, driver = gpu_device()
    py = [sys.executable, "-m", "lassm"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="lassm-first-call-") as tmp:
        work = Path(tmp)
        ds, k = datasets.load(dataset)
        dat = work / f"{Path(dataset).stem}.dat"
        formats.write_dat(ds, dat)
        pairs = work / f"{Path(pairs_name).stem}.parquet"
        write_pairs_parquet(xdatasets.load(pairs_name), pairs)
        commands = {
            "lassm extend": (dataset, [*py, "extend", str(dat), "--k", str(k), "--backend", "cuda",
                                       "--protocol", "fast", "--out", str(work / "out.txt")]),
            "lassm xdrop align": (pairs_name, [*py, "xdrop", "align", str(pairs), "--backend", "cuda",
                                               "--xdrop", str(xdrop), "--out", str(work / "aligned.parquet")]),
        }
        for _dataset, cmd in commands.values():  # bytecode and the file cache warmed, kernel caches apart
            _timed(cmd, {"LASSM_CACHE": str(work / "cache-untimed")})
        for start in ("empty", "built ahead"):
            for label, (name, cmd) in commands.items():
                env = {"LASSM_CACHE": str(work / f"cache-{label.split()[-1]}-{start.split()[0]}")}
                build = _timed([*py, "build-kernels"], env) if start == "built ahead" else None
                first = _timed(cmd, env)
                warm = [_timed(cmd, env) for _ in range(repeats)]
                med = statistics.median(warm)
                shown = " ".join(c if not c.startswith(str(work)) else Path(c).name for c in cmd[2:])
                rows.append({"machine": machine, "device": device, "driver": driver, "command": label,
                             "dataset": name, "start": start, "build_seconds": build, "first_seconds": first,
                             "warm_seconds": med, "warm_runs": " ".join(f"{t:.4f}" for t in warm),
                             "first_over_warm": first / med, "git_sha": git_sha(), "command_line": shown})
                stderr.line(f"{label} on {name}, cache {start}: first {first:.3f} s, warm {med:.3f} s ({first / med:.2f}x)"
                            + (f", build-kernels {build:.1f} s" if build is not None else ""))
    return rows


def write(rows: list[dict], machine: str) -> Path:
    """The rows upserted into the machine's :data:`FILE`."""
    out = paths.results_dir(machine) / FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    tables.upsert(out, COLUMNS, KEY, rows)
    return out


__all__ = ["COLUMNS", "FILE", "KEY", "measure", "write"]

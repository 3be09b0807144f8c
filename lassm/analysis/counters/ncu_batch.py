# SPDX-License-Identifier: BSD-3-Clause
"""Several points counted in one Nsight Compute session: one profiled process, cut apart afterwards.

One process runs a group's points in turn, launching the empty kernel :data:`BOUNDARY` after
each, so profiler, interpreter and CUDA context start once per group. The raw CSV is cut at
those rows into one raw file per point with its labels, read like a single run's file. A point
that fails is named in a status file (JSON, name -> one line) and its part dropped; the boundary
still launches, so later parts stay aligned."""
from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from .ncu import Session, lines_and_header

#: The empty kernel launched after each point: the cut between points.
BOUNDARY = "lassm_counters_boundary"


def with_boundary(kernel_name: str) -> str:
    """ncu's ``--kernel-name`` filter that also matches :data:`BOUNDARY` (``regex:.`` already does)."""
    if kernel_name.startswith("regex:"):
        pattern = kernel_name[len("regex:"):]
        return kernel_name if re.search(pattern, BOUNDARY) else f"regex:(?:{pattern})|^{BOUNDARY}$"
    return f"regex:^{re.escape(kernel_name)}$|^{BOUNDARY}$"


#: The module that runs several ``lassm`` commands in one process, the boundary after each
#: (named, not imported: it runs lassm's command line, a stage above this one).
COMMANDS_MODULE = "lassm.cli.profiled"


def commands_target(commands: Sequence[Sequence[str]]) -> list[str]:
    """The one process that runs ``commands`` (each ``[python, -m, lassm or lassm.cli, ...]``, as
    they would run alone) in turn: the target of a session over all of them."""
    import json
    import sys

    argvs = []
    for cmd in commands:
        if len(cmd) < 3 or cmd[1] != "-m" or cmd[2] not in ("lassm", "lassm.cli"):
            raise ValueError(f"not a lassm command: {' '.join(cmd[:3])}")
        argvs.append(list(cmd[3:]))
    return [sys.executable, "-m", COMMANDS_MODULE, json.dumps(argvs)]


def boundary(profiled_range: bool = False) -> None:
    """Launches :data:`BOUNDARY` once the work before it has ended (inside the profiler's range
    where the session profiles ranges only, ``profiled_range``)."""
    import cupy

    kernel = cupy.RawKernel(f'extern "C" __global__ void {BOUNDARY}() {{}}', BOUNDARY)
    cupy.cuda.Device().synchronize()
    runtime = cupy.cuda.runtime
    if profiled_range:
        runtime.profilerStart()
    kernel((1,), (1,), ())
    cupy.cuda.Device().synchronize()
    if profiled_range:
        runtime.profilerStop()


def run_points(names: Sequence[str], work: Callable[[str], None], status: str | Path | None,
               profiled_range: bool = False) -> int:
    """The profiled process's loop: ``work(name)`` for each point, then the boundary; the names
    whose work raised go to ``status`` with one line each. Returns 0."""
    errors: dict[str, str] = {}
    for name in names:
        try:
            work(name)
        except Exception as exc:  # noqa: BLE001  the point is named; the next one is still counted
            errors[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        finally:
            boundary(profiled_range)
    if status:
        Path(status).write_text(json.dumps(errors))
    return 0


def split_at(source: str | os.PathLike, boundary: str) -> list[str]:
    """One profiled process's raw CSV cut at the ``boundary`` kernel's rows (dropped) into one raw CSV
    per point, in launch order; each keeps the header and units row, and launches after the last
    boundary form a last part. ``ValueError`` without an ncu header."""
    lines, start, header = lines_and_header(source)
    name_at = header.index("Kernel Name")
    head = [lines[start]]
    parts: list[list[str]] = []
    current: list[str] = []
    seen = False
    for line in lines[start + 1:]:
        s = line.strip()
        if not s or s.startswith("=="):
            continue
        cells = next(csv.reader([s]))
        if not seen and cells and cells[0].strip() == "":  # the units row, under the header
            head.append(line)
            seen = True
            continue
        seen = True
        if len(cells) > name_at and cells[name_at] == boundary:
            parts.append(current)
            current = []
        else:
            current.append(line)
    if current:
        parts.append(current)
    return ["\n".join(head + part) + "\n" for part in parts]


def collect(target: Sequence[str], names: Sequence[str], raws: Sequence[Path], labels: Sequence[dict], *,
            session: Session) -> dict[str, str]:
    """Runs ``target`` (its status file's path appended) once under ncu as ``session`` says, plus
    :data:`BOUNDARY`; writes ``raws[i]`` with ``labels[i]`` in its meta sidecar. Returns name -> why
    for points not counted; raises as :func:`lassm.analysis.counters.ncu.collect` when the session
    itself fails."""
    from dataclasses import replace

    from ...atomic import atomic_open
    from . import ncu as nsight
    from .tidy import sidecar_paths, write_sidecars

    missing: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="lassm-ncu-batch-") as tmp:
        status = Path(tmp) / "status.json"
        whole = Path(tmp) / "session.csv"
        first = labels[0] if labels else {}
        nsight.collect([*target, str(status)], whole, dataset=str(first.get("dataset", "")),
                       k=int(first.get("k", 0)), protocol=str(first.get("protocol", "")),
                       session=replace(session, kernel_name=with_boundary(session.kernel_name)))
        errors = json.loads(status.read_text()) if status.is_file() else {}
        version_file, meta_file = sidecar_paths(whole)
        version_text = version_file.read_text()
        meta = json.loads(meta_file.read_text())
        parts = split_at(whole, BOUNDARY)
        for i, (name, raw, label) in enumerate(zip(names, raws, labels)):
            if name in errors:
                missing[name] = errors[name]
                continue
            if i >= len(parts) or len(parts[i].strip().splitlines()) < 3:  # header, units, one launch
                missing[name] = "no launch counted"
                continue
            raw.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(raw) as fh:
                fh.write(parts[i])
            write_sidecars(raw, version_text, {**meta, **label, "raw_file": raw.name},
                           launches=len(nsight.read_raw(raw)[0]))
    return missing


__all__ = ["BOUNDARY", "COMMANDS_MODULE", "boundary", "commands_target", "collect", "run_points", "split_at", "with_boundary"]

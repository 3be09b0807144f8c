# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop campaign's counters step: Nsight Compute on ``lassm xdrop align --backend cuda``.

One profiled run per (set, X) with local assembly's metric list, kernels ``xdrop_kernel`` or
``xdrop_lanes_kernel`` only; raw CSV and sidecars under ``xdrop/counters/``, launches summed into
one ``counters.csv`` row. ``lassm measure against-logan`` makes LOGAN's raw files rows of the same
table with :func:`row_from_raw`."""
from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import stderr
from ..runs import xdrop_records as rec
from ..runs.records import slug
from .steps import NCU_FALLBACK, _importable_here, _one_line, find_ncu
from .xdrop_plan import XdropPlan

if TYPE_CHECKING:
    from ..analysis.counters.ncu import Session

#: The program label of our CUDA kernel's rows (LOGAN's are ``LOGAN``).
PROGRAM = "lassm cuda"
#: The X-drop kernels' entry points: LOGAN's block layout, the lanes kernel and the wide-band block.
KERNEL_NAME = "regex:^xdrop_(lanes_|warps_)?kernel$"
#: Seconds one profiled run may take.
NCU_TIMEOUT = 300.0
#: ncu refusals that hold for every run: the step stops at the first.
_MACHINE_WIDE = ("ERR_NVGPUCTRPERM", "LibraryNotLoaded", "not on PATH")


def raw_file(machine: str, dataset: str, xdrop: int, program: str = PROGRAM) -> Path:
    """``xdrop/counters/ncu__<dataset>__x<X>__<program>.csv``."""
    return rec.folder(machine) / "counters" / f"ncu__{slug(dataset)}__x{int(xdrop)}__{slug(program)}.csv"


def align_command(pairs_file: str | Path, xdrop: int, scoring: tuple[int, int, int], out: str | Path,
                  python: str | None = None) -> list[str]:
    """``python -m lassm.cli xdrop align FILE --backend cuda --xdrop X --match .. --out OUT``."""
    match, mismatch, gap = scoring
    return [python or sys.executable, "-m", "lassm.cli", "xdrop", "align", str(pairs_file), "--backend", "cuda",
            "--xdrop", str(int(xdrop)), "--match", str(match), "--mismatch", str(mismatch), "--gap", str(gap),
            "--out", str(out)]


def row_from_raw(raw: str | Path, *, dataset: str, xdrop: int, program: str, machine: str, git_sha: str,
                 command: str, layout: str | None = None) -> dict:
    """One ``counters.csv`` row (:data:`lassm.runs.xdrop_records.COUNTER_COLUMNS`) from ncu's raw CSV of one
    run (path or text), launches summed. ``layout`` defaults to what the CUDA backend launches at X
    (:func:`lassm.runs.xdrop_records.planned_layout`). ``ValueError`` when the file holds no launch or more
    than one device."""
    from ..analysis.counters import ncu

    _tidy, p = ncu.one_point(raw, dataset=dataset, k=int(xdrop), protocol=program)
    row = {c: p[c] for c in ("device", "simd_width", "duration_s", "int_lane_ops", "warp_inst", "thread_inst",
                             "dram_read_bytes", "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes", "launches")}
    row.update(dataset=dataset, xdrop=int(xdrop), program=program, machine=machine, git_sha=git_sha, command=command,
               layout=layout or rec.planned_layout("cuda", xdrop))
    row["launches"] = int(row["launches"])
    for c in ("simd_width", "duration_s", "int_lane_ops", "warp_inst", "thread_inst", "dram_read_bytes",
              "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes"):
        row[c] = float(row[c])
    return row


@dataclass(frozen=True)
class Program:
    """What one profiled ``lassm xdrop align`` runs: its rows' program label, the options after
    the alignment's own (e.g. a ``--lanes``) and the kernel layout they launch (None: the one
    planned at X, :func:`lassm.runs.xdrop_records.planned_layout`)."""

    name: str = PROGRAM
    extra: tuple[str, ...] = ()
    layout: str | None = None


def session(ncu_exe: str, timeout: float = NCU_TIMEOUT) -> Session:
    """How ncu profiles the X-drop kernels (:data:`KERNEL_NAME`): with ``ncu_exe``, stopped after ``timeout``."""
    from ..analysis.counters.ncu import Session

    return Session(KERNEL_NAME, ncu_exe, timeout=timeout)


def count(pairs_file: Path, dataset: str, xdrop: int, scoring: tuple[int, int, int], *, machine: str, sha: str,
          ncu_exe: str, program: Program = Program()) -> dict:
    """One profiled ``lassm xdrop align`` of ``pairs_file`` as ``program`` says (its alignments
    written beside it), its raw file kept, its row upserted into ``counters.csv`` and returned."""
    from ..analysis.counters import ncu

    target = [*align_command(pairs_file, xdrop, scoring, pairs_file.parent / "aligned.parquet"), *program.extra]
    raw = raw_file(machine, dataset, xdrop, program.name)
    ncu.collect(target, raw, dataset=dataset, k=xdrop, protocol=program.name, session=session(ncu_exe))
    shown = f"ncu --metrics <data/metric-names.csv> --kernel-name {KERNEL_NAME} -- lassm xdrop align " \
            f"{dataset}.parquet --backend cuda --xdrop {xdrop}" + "".join(f" {a}" for a in program.extra)
    row = row_from_raw(raw, dataset=dataset, xdrop=xdrop, program=program.name, machine=machine, git_sha=sha,
                       command=shown, layout=program.layout)
    rec.upsert(rec.folder(machine) / rec.COUNTERS_FILE, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
    return row


def collect(plan: XdropPlan, machine: str, *, sha: str, force: bool = False, say=stderr.nothing,
            ncu_exe: str | None = None, timeout: float = NCU_TIMEOUT, tick=lambda n: None) -> list[str]:
    """Counters of the plan's profiled (set, X) into ``counters.csv``; returns what it could not count.

    One profiled process per set (:mod:`lassm.analysis.counters.ncu_batch`), so pairs and CUDA context
    load once. Rows at this commit are skipped unless ``force``; ``tick(n)`` hears of every ``n``
    (set, X) done with."""
    from ..analysis.counters import ncu_batch
    from ..workloads.xdrop import pair_sets
    from ..workloads.xdrop.pair_files import write_pairs_parquet

    exe = ncu_exe or find_ncu()
    if exe is None:
        return [f"counters: ncu not found (not on PATH, nor {NCU_FALLBACK}); install Nsight Compute"]
    table = rec.folder(machine) / rec.COUNTERS_FILE
    rows = rec.read_rows(table, rec.COUNTER_COLUMNS)
    todo: dict[str, list[int]] = {}
    for d, x in plan.profiled():
        if force or not rec.recorded(rows, sha, dataset=d, xdrop=x, program=PROGRAM):
            todo.setdefault(d, []).append(int(x))
    tick(len(plan.profiled()) - sum(map(len, todo.values())))
    lacks: list[str] = []
    with tempfile.TemporaryDirectory(prefix="lassm-xdrop-ncu-") as tmp, _importable_here():
        for d, xs in todo.items():
            names = [str(x) for x in xs]
            try:
                pairs_file = Path(tmp) / f"{slug(d)}.parquet"
                write_pairs_parquet(pair_sets.load(d), pairs_file)
                raws = [raw_file(machine, d, x) for x in xs]
                missing = ncu_batch.collect([*_target(pairs_file, plan.scoring), *names], names, raws,
                                        [{"dataset": d, "k": x, "protocol": PROGRAM} for x in xs],
                                        session=session(exe, timeout * len(xs)))
            except Exception as exc:  # a set that cannot be counted is named; the others go on
                if any(marker in str(exc) for marker in _MACHINE_WIDE):
                    return lacks + [f"counters: {_one_line(exc)}"]
                lacks.append(f"counters: {d}: {_one_line(exc)}")
                tick(len(xs))
                continue
            for x, raw in zip(xs, raws):
                if str(x) in missing:
                    lacks.append(f"counters: {d} X={x}: {missing[str(x)]}")
                    continue
                shown = (f"ncu --metrics <data/metric-names.csv> --kernel-name {KERNEL_NAME} -- lassm xdrop align "
                         f"{d}.parquet --backend cuda --xdrop {x} (every X of the set in one profiled process)")
                row = row_from_raw(raw, dataset=d, xdrop=x, program=PROGRAM, machine=machine, git_sha=sha,
                                   command=shown)
                rec.upsert(table, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
                say(f"counters {d} X={x}: {row['duration_s'] * 1e3:.2f} ms in {row['launches']} launches")
            tick(len(xs))
    return lacks


def _target(pairs_file: Path, scoring: tuple[int, int, int]) -> list[str]:
    """The profiled process: this module on one pairs file, the X values and the status file appended."""
    match, mismatch, gap = scoring
    return [sys.executable, "-m", __name__, str(pairs_file), str(match), str(mismatch), str(gap)]


def main(argv: list[str] | None = None) -> int:
    """The profiled process: ``PAIRS MATCH MISMATCH GAP X ... STATUS``: each X one ``lassm xdrop align
    --backend cuda`` as the command runs it, then the boundary kernel."""
    from ..analysis.counters import ncu_batch
    from ..backends.xdrop import get
    from ..workloads.xdrop.scoring import Scoring
    from ..workloads.xdrop.pair_files import read_pairs

    pairs_file, match, mismatch, gap, *xs, status = argv if argv is not None else sys.argv[1:]
    pairs = read_pairs(pairs_file)
    backend = get("cuda")

    def work(x: str) -> None:
        backend.align(pairs, Scoring(match=int(match), mismatch=int(mismatch), gap=int(gap), xdrop=int(x)))

    return ncu_batch.run_points(xs, work, status)


__all__ = ["KERNEL_NAME", "PROGRAM", "Program", "align_command", "collect", "count", "main", "raw_file", "row_from_raw",
           "session"]


if __name__ == "__main__":
    sys.exit(main())

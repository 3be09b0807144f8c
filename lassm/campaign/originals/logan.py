# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's own X-drop demo and ``lassm xdrop align --backend cuda``, side by side, on the same pairs and X.

LOGAN runs ``demo input k X 1`` on a set in its input form (``seqV posV seqH posH strand``, one
pair a line; V SeqAn's query, H its database); ours on the same pairs as parquet. Per X:

- whole-command wall time, the median of ``repeats`` runs (one untimed run of each program
  before the first X);
- LOGAN's "GPU only time" (kernels and copies, host timer, summed over its 30,000-pair batches);
- kernel time where ncu is here: ``gpu__time_duration.sum`` over every launch of one run,
  ``--clock-control none`` (ncu serializes LOGAN's two extension streams);
- whether LOGAN's score equals ours for every pair, printed by our driver ``logan_scores``
  (LOGAN's library called as the demo calls it; the demo prints none).

Rows are upserted into ``data/results/<machine>/xdrop/against-logan.csv`` after each X.
:func:`against` (``lassm measure against-logan``) runs it on a named set and can also count
LOGAN's kernels under the study's metric list (:func:`counters_row`)."""
from __future__ import annotations

import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ... import stderr
from ...runs import tables
from ...runs import xdrop_records as rec
from ...workloads.xdrop.pairs import Pairs
from .build import Built, Given
from .sources import LOGAN
from .timing import Measuring, beside_each, gpu_device, interleaved, kernel_times, lassm_kernel_times, run

#: LOGAN's kernel and ours, for ncu's ``--kernel-name``.
LOGAN_KERNEL = "extendSeedLGappedXDropOneDirectionGlobal"
OUR_KERNEL = "xdrop_(lanes_|warps_)?kernel"  # a regular expression: every layout
#: The two programs' labels in the table (ours names its backend: :func:`ours_label`).
LOGAN_PROGRAM, OURS = "LOGAN demo", "lassm xdrop align cuda"


def ours_label(backend: str, layout: str | None = None) -> str:
    """Our program's label in the table: ``lassm xdrop align <backend>``, and for CUDA the plan
    (``layout``, else ``LASSM_XDROP_LAYOUT``) where it is not the default, so that both plans'
    rows stand side by side."""
    from ...backends.xdrop import xdrop_host

    label = f"lassm xdrop align {backend}"
    chosen = xdrop_host.layout(layout) if backend == "cuda" else xdrop_host.DEFAULT_LAYOUT
    return label if chosen == xdrop_host.DEFAULT_LAYOUT else f"{label} ({chosen} layout)"


def ours_programs(backend: str, layouts: Sequence[str] = ()) -> dict[str, str | None]:
    """Our programs of one run, label -> the plan its command names (``--layout``): one per plan
    of ``layouts``; none named (the environment's) where ``layouts`` is empty."""
    if not layouts:
        return {ours_label(backend): None}
    return {ours_label(backend, layout): layout for layout in layouts}


def layout_env() -> str:
    """``LASSM_XDROP_LAYOUT=<plan>`` as this process runs ours: what a row's command names."""
    from ...backends.xdrop import xdrop_host

    return f"{xdrop_host.LAYOUT_ENV}={xdrop_host.layout()}"


#: The set LOGAN runs on in the campaign: the 20,000 LOGAN-like pairs of LOGAN's paper.
DATASET = "xdrop-sim-20k"
_GPU_ONLY = re.compile(r"^GPU only time:\s*([0-9.eE+-]+)\s*$", re.M)
_TOTAL = re.compile(r"^Total Execution time:\s*([0-9.eE+-]+)\s*$", re.M)
_SCORE = re.compile(r"^score\t(\d+)\t(-?\d+)$", re.M)


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
    """(GPU only time summed over batches, Total Execution time) in seconds from the demo's stdout;
    ``ValueError`` when a line is missing."""
    gpu = [float(m) for m in _GPU_ONLY.findall(text)]
    total = _TOTAL.findall(text)
    if not gpu or len(total) != 1:
        raise ValueError(f"LOGAN's demo printed {len(gpu)} 'GPU only time' and {len(total)} 'Total Execution time' "
                         f"lines; its output ends: {' | '.join(text.strip().splitlines()[-3:])}")
    return float(sum(gpu)), float(total[0])


def parse_scores(text: str, n_pairs: int) -> np.ndarray:
    """The ``score`` lines of ``logan_scores`` as one int64 per pair, in input order; ``ValueError``
    when a pair has no score or two, or an index is out of range."""
    found = np.array([(int(i), int(s)) for i, s in _SCORE.findall(text)], dtype=np.int64).reshape(-1, 2)
    idx = found[:, 0]
    if len(found) != n_pairs or np.any(idx < 0) or np.any(idx >= n_pairs) or len(np.unique(idx)) != n_pairs:
        raise ValueError(f"logan_scores printed {len(found)} scores ({len(np.unique(idx))} distinct pairs) "
                         f"for {n_pairs} pairs")
    out = np.empty(n_pairs, dtype=np.int64)
    out[idx] = found[:, 1]
    return out


def ours_scores(path: Path) -> np.ndarray:
    """The ``score`` column of our results file (LOGAN's figure: left + right + the seed's own)."""
    from ...workloads.xdrop.pair_files import read_alignments_table

    return np.asarray(read_alignments_table(path)["score"], dtype=np.int64)


def side_by_side(built: Built, pairs: Pairs, name: str, xdrop: int, work: Path, how: Measuring, *,
                 ours_later: bool = False) -> list[dict]:
    """LOGAN's demo and ours at one X: a row of :data:`lassm.runs.xdrop_records.AGAINST_LOGAN_COLUMNS` for LOGAN
    and one per program of :func:`ours_programs`, each with its scores' check (LOGAN's true where all
    agree).

    ``work`` holds ``pairs.txt`` and ``pairs.parquet``; ``how`` (:class:`.timing.Measuring`) the
    shared columns, timed runs, ncu and backend. With ``ours_later`` our kernel columns are left for
    :func:`ours_kernels` (one profiled process for every X)."""
    repeats, ncu, context, backend = how.repeats, how.ncu, how.context, how.backend
    logan_in, ours_in = work / "pairs.txt", work / "pairs.parquet"
    k = seed_length(pairs)
    programs = ours_programs(backend, how.layouts)
    outs = {prog: work / f"ours-{i}.parquet" for i, prog in enumerate(programs)}
    cmds = {LOGAN_PROGRAM: [str(built["demo"]), str(logan_in), str(k), str(xdrop), "1"]}
    shown = {LOGAN_PROGRAM: f"demo {name}.txt {k} {xdrop} 1"}
    for prog, layout in programs.items():
        named = ["--layout", layout] if layout else []
        cmds[prog] = [sys.executable, "-m", "lassm", "xdrop", "align", str(ours_in), "--backend", backend,
                      "--xdrop", str(xdrop), *named, "--out", str(outs[prog])]
        env = f"{layout_env()} " if not layout and prog != f"lassm xdrop align {backend}" else ""  # not the default
        shown[prog] = f"{env}lassm xdrop align {name}.parquet --backend {backend} --xdrop {xdrop} {' '.join(named)}"
        shown[prog] = shown[prog].rstrip()
    runs = interleaved(cmds, repeats, warm=False)  # in turns; no untimed run first, as before
    _s, printed = run([str(built["logan_scores"]), str(logan_in), str(k), str(xdrop)])
    theirs = parse_scores(printed, pairs.n_pairs)
    equal = {prog: bool(np.array_equal(theirs, ours_scores(out))) for prog, out in outs.items()}
    equal[LOGAN_PROGRAM] = all(equal.values())
    rows = []
    for prog, cmd in cmds.items():
        gpu_only = [parse_logan_output(out)[0] for _t, out in runs[prog]] if prog == LOGAN_PROGRAM else []
        kernel, launches = None, None
        if ncu and not (ours_later and prog != LOGAN_PROGRAM):
            got = kernel_times(cmd, ncu, work / "ncu.csv", clock_control="none",
                               kernel=LOGAN_KERNEL if prog == LOGAN_PROGRAM else OUR_KERNEL)
            kernel, launches = sum(s for _n, s, _i in got), len(got)
        rows.append({**context, "dataset": name, "n_pairs": pairs.n_pairs, "xdrop": xdrop, "program": prog,
                     "kernel_seconds": kernel, "kernel_launches": launches,
                     "logan_gpu_seconds": statistics.median(gpu_only) if gpu_only else None,
                     "whole_seconds": statistics.median(t for t, _out in runs[prog]), "scores_equal": equal[prog],
                     "command": shown[prog], "_command": cmd,
                     "layout": rec.LOGAN if prog == LOGAN_PROGRAM else rec.planned_layout(backend, xdrop, programs[prog])})
    return rows


def ours_kernels(rows: Sequence[dict], ncu: str, work: Path) -> None:
    """Our rows' kernel columns from one profiled process running every row's ``lassm xdrop align``
    (:func:`.timing.lassm_kernel_times`), instead of one ncu process per X (1.7 s apiece)."""
    got = lassm_kernel_times([r["_command"] for r in rows], ncu, work / "ncu-ours.csv", clock_control="none",
                             kernel=OUR_KERNEL)
    for row, launches in zip(rows, got):
        if launches:
            row["kernel_seconds"], row["kernel_launches"] = sum(s for _n, s, _i in launches), len(launches)


def todo(name: str, xdrops: Sequence[int], table: Path, sha: str, force: bool, backend: str = "cuda",
         layouts: Sequence[str] = ()) -> list[int]:
    """The X values whose rows (LOGAN's, ours of each plan of ``layouts``) are not all recorded at
    ``sha`` (all of them when ``force``)."""
    rows = rec.read_rows(table, rec.AGAINST_LOGAN_COLUMNS)
    return [x for x in xdrops if force or not all(rec.recorded(rows, sha, dataset=name, xdrop=x, program=p)
                                                  for p in (LOGAN_PROGRAM, *ours_programs(backend, layouts)))]


def run_all(built: Built, pairs: Pairs, name: str, xdrops: Sequence[int], table: Path, work: Path,
            how: Measuring) -> tuple[list[dict], list[str]]:
    """:func:`side_by_side` at each X, rows upserted into ``table`` and ``how.tick`` called after each:
    (status row per X and program, one line per failed X)."""
    from ...workloads.xdrop.pair_files import write_pairs_parquet

    backend, say = how.backend, how.say
    k = write_logan_input(pairs, work / "pairs.txt")
    write_pairs_parquet(pairs, work / "pairs.parquet")
    cmds = ([str(built["demo"]), str(work / "pairs.txt"), str(k), str(xdrops[0]), "1"],
            *([sys.executable, "-m", "lassm", "xdrop", "align", str(work / "pairs.parquet"), "--backend", backend,
               "--xdrop", str(xdrops[0]), *(["--layout", layout] if layout else []), "--out", str(work / "ours.parquet")]
              for layout in ours_programs(backend, how.layouts).values()))
    try:
        for cmd in cmds:  # CUDA's context, CuPy's kernel cache, the file system's cache: untimed
            run(cmd)
    except Exception as exc:  # nothing can be compared: every X is named failed
        line = " ".join(str(exc).split())[:400]
        failed = [f"originals: LOGAN on {name}: {type(exc).__name__}: {line}"]
        say(failed[0])  # said, not only returned: a tool that prints rows would otherwise print nothing
        return [{"part": "logan", "dataset": name, "xdrop": x, "status": f"failed: {line}"} for x in xdrops], failed
    programs = (LOGAN_PROGRAM, *ours_programs(backend, how.layouts))
    cases = [(f"LOGAN on {name} at X={x}", [{"part": "logan", "dataset": name, "xdrop": x, "program": p} for p in programs],
              lambda x=x: side_by_side(built, pairs, name, x, work, how, ours_later=how.ncu is not None)) for x in xdrops]
    return beside_each(cases, LOGAN_PROGRAM, how,
                       lambda rows: rec.upsert(table, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, rows), _said,
                       ("lassm xdrop align", lambda rows, ncu: ours_kernels(rows, ncu, work)))


@dataclass(frozen=True)
class Asked:
    """What ``lassm measure against-logan`` measures in the folder ``machine``: its options of the
    same names (``profile``: not ``--no-ncu``). A pairs file's rows carry the set's own name."""

    machine: str
    dataset: str = DATASET
    xdrops: tuple[int, ...] = (10, 20, 50, 100, 500, 1000, 5000)
    counters_xdrops: tuple[int, ...] = ()
    repeats: int = 1
    backend: str = "cuda"
    layouts: tuple[str, ...] = ()
    force: bool = False
    profile: bool = True


def counters_row(demo_cmd: list[str], raw: Path, *, dataset: str, xdrop: int, machine: str, sha: str, ncu: str,
                 command: str) -> dict:
    """LOGAN's kernels under the study's whole metric list: one ``counters.csv`` row (program ``LOGAN``)."""
    from ...analysis.counters import ncu as nsight
    from ..xdrop_counters import row_from_raw

    nsight.collect(demo_cmd, raw, dataset=dataset, k=xdrop, protocol="LOGAN",
                   session=nsight.Session(f"regex:{LOGAN_KERNEL}", ncu, timeout=600))
    return row_from_raw(raw, dataset=dataset, xdrop=xdrop, program="LOGAN", machine=machine, git_sha=sha,
                        command=command, layout=rec.LOGAN)


def against(asked: Asked, given: Given) -> tuple[Path, bool]:
    """LOGAN's demo beside ``lassm xdrop align`` as ``asked``, LOGAN from ``given``; rows recorded at
    this commit are skipped unless ``asked.force``. Returns ``against-logan.csv`` and whether every X
    (and counters run) ran and every score agreed; raises :class:`~lassm.errors.InputError`, before
    anything is built, where the folder's rows are of another device. Progress goes to stderr."""
    from ...runs.records import cpu_model, git_sha
    from ...workloads.xdrop import pair_sets
    from ..steps import find_ncu

    say = stderr.line
    sha = git_sha()
    ncu = find_ncu() if asked.profile else None
    table, counters = (rec.folder(asked.machine) / f for f in (rec.AGAINST_LOGAN_FILE, rec.COUNTERS_FILE))
    name, pairs = asked.dataset, None
    if Path(name).is_file():  # a pairs file: its rows carry the set's own name (``lassm xdrop generate --name``)
        pairs = pair_sets.load(name)
        name = pairs.name or name
    wanted = todo(name, asked.xdrops, table, sha, asked.force, asked.backend, asked.layouts)
    recorded = rec.read_rows(counters, rec.COUNTER_COLUMNS)
    counted = [x for x in asked.counters_xdrops if ncu and (asked.force or not rec.recorded(
        recorded, sha, dataset=name, xdrop=x, program="LOGAN"))]
    if not wanted and not counted:
        say(f"{name}: X to run: none (recorded at this commit)")
        return table, True
    device = gpu_device() if asked.backend != "cpu" else (cpu_model(), "")
    tables.same_device(table, rec.AGAINST_LOGAN_COLUMNS, device[0])
    say(f"{name}: X to run: {wanted or 'none'}" + (f"; LOGAN's counters at X = {counted}" if counted else ""))
    built = given.built(LOGAN)
    pairs = pairs if pairs is not None else pair_sets.load(name)
    failed: list[str] = []
    status: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="lassm-vs-logan-") as tmp:
        if wanted:
            how = Measuring(built.context(asked.machine, device, sha), repeats=asked.repeats, ncu=ncu,
                            backend=asked.backend, layouts=asked.layouts, say=say)
            status, failed = run_all(built, pairs, name, wanted, table, Path(tmp), how)
        k = write_logan_input(pairs, Path(tmp) / "pairs.txt")
        for x in counted:
            raw = rec.folder(asked.machine) / "counters" / f"ncu__{name}__x{x}__logan.csv"
            try:
                row = counters_row([str(built["demo"]), str(Path(tmp) / "pairs.txt"), str(k), str(x), "1"], raw,
                                   dataset=name, xdrop=x, machine=asked.machine, sha=sha, ncu=str(ncu),
                                   command=f"ncu --metrics <data/metric-names.csv> -- demo {name}.txt {k} {x} 1")
            except Exception as exc:  # LOGAN's counters are extra: named, not fatal
                failed.append(f"counters X={x}: {' '.join(str(exc).split())[:500]}")
                say(f"counters LOGAN X={x}: failed: {failed[-1]}")
                continue
            rec.upsert(counters, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
            say(f"counters LOGAN X={x}: {row['duration_s'] * 1e3:.2f} ms, {row['launches']} launches")
    return table, not failed and all(r["status"] == "ok" for r in status)


def _said(r: dict, status: list[dict], say: Callable[[str], None]) -> None:
    """A row's status line, and its line said."""
    ok = bool(r["scores_equal"])
    status.append({"part": "logan", "dataset": r["dataset"], "xdrop": r["xdrop"], "program": r["program"],
                   "whole_seconds": r["whole_seconds"], "kernel_seconds": r["kernel_seconds"],
                   "outputs_equal": ok, "status": "ok" if ok else "MISMATCH"})
    kern = f", kernel {r['kernel_seconds'] * 1e3:.3f} ms" if r["kernel_seconds"] is not None else ""
    say(f"{r['dataset']} X={r['xdrop']} {r['program']}: whole {r['whole_seconds']:.3f} s{kern}, scores equal: {ok}")


__all__ = ["Asked", "DATASET", "against", "counters_row", "LOGAN_KERNEL", "LOGAN_PROGRAM", "OURS", "OUR_KERNEL", "layout_env", "ours_label",
           "ours_programs", "parse_logan_output",
           "parse_scores",
           "ours_kernels", "run_all", "seed_length", "side_by_side", "todo", "write_logan_input"]

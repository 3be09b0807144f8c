# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's own X-drop demo and ``lassm xdrop align --backend cuda``, side by side, on the same pairs and X.

LOGAN (albertozeni/LOGAN) runs ``demo input k X 1`` on the pairs of a set written in its input
form (``seqV posV seqH posH strand``, one pair a line; V is SeqAn's query, H its database, as in
``lassm.workloads.xdrop``); ours runs on the same pairs as parquet. For each X:

- whole-command wall time, the median of ``repeats`` runs (one untimed run of each program
  before the first X: CUDA's context, CuPy's kernel cache);
- LOGAN's own "GPU only time" (its kernels and the copies around them, host timer; summed over
  its batches of 30,000 pairs);
- kernel time, where ncu is here: Nsight Compute's ``gpu__time_duration.sum`` summed over every
  launch of one run of each, ``--clock-control none`` (LOGAN launches its left and right
  extensions on two streams, which ncu serializes);
- whether LOGAN's score equals ours for every pair: the demo prints none, so our driver
  ``logan_scores`` (LOGAN's library called as the demo calls it) prints them.

Rows go to ``data/results/<machine>/xdrop/against-logan.csv``, upserted after each X.
"""
from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ...runs import xdrop as rec
from ...workloads.xdrop.pairs import Pairs
from .build import Built
from .timing import Measuring, interleaved, kernel_times, lassm_kernel_times, run

#: LOGAN's kernel and ours, for ncu's ``--kernel-name``.
LOGAN_KERNEL = "extendSeedLGappedXDropOneDirectionGlobal"
OUR_KERNEL = "xdrop_(lanes_)?kernel"  # a regular expression: both layouts
#: The two programs' labels in the table (ours names its backend: :func:`ours_label`).
LOGAN_PROGRAM, OURS = "LOGAN demo", "lassm xdrop align cuda"


def ours_label(backend: str) -> str:
    """Our program's label in the table: ``lassm xdrop align <backend>``."""
    return f"lassm xdrop align {backend}"

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


def parse_scores(text: str, n_pairs: int) -> np.ndarray:
    """The ``score`` lines of ``logan_scores`` as one int64 per pair, in input order.

    Raises
    ------
    ValueError
        When a pair has no score or two, or an index is out of range.
    """
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
    from ...workloads.xdrop.formats import read_alignments_table

    return np.asarray(read_alignments_table(path)["score"], dtype=np.int64)


def side_by_side(built: Built, pairs: Pairs, name: str, xdrop: int, work: Path, how: Measuring, *,
                 ours_later: bool = False) -> list[dict]:
    """LOGAN's demo and ours at one X: two rows of :data:`lassm.runs.xdrop.AGAINST_LOGAN_COLUMNS`.

    ``work`` must hold ``pairs.txt`` (:func:`write_logan_input`) and ``pairs.parquet``; ``how``
    holds the columns every row shares (machine, device, driver, original_source, nvcc, git_sha),
    the timed runs, Nsight Compute and our backend (:class:`.timing.Measuring`).
    ``ours_later``: our row's kernel columns are left for :func:`ours_kernels` (``run_all``: one
    profiled process for every X).
    """
    repeats, ncu, context, backend = how.repeats, how.ncu, how.context, how.backend
    logan_in, ours_in, ours_out = work / "pairs.txt", work / "pairs.parquet", work / "ours.parquet"
    k = seed_length(pairs)
    ours = ours_label(backend)
    cmds = {LOGAN_PROGRAM: [str(built["demo"]), str(logan_in), str(k), str(xdrop), "1"],
            ours: [sys.executable, "-m", "lassm", "xdrop", "align", str(ours_in), "--backend", backend,
                   "--xdrop", str(xdrop), "--out", str(ours_out)]}
    shown = {LOGAN_PROGRAM: f"demo {name}.txt {k} {xdrop} 1",
             ours: f"lassm xdrop align {name}.parquet --backend {backend} --xdrop {xdrop}"}
    runs = interleaved(cmds, repeats, warm=False)  # in turns; no untimed run first, as before
    _s, printed = run([str(built["logan_scores"]), str(logan_in), str(k), str(xdrop)])
    equal = bool(np.array_equal(parse_scores(printed, pairs.n_pairs), ours_scores(ours_out)))
    rows = []
    for prog, cmd in cmds.items():
        gpu_only = [parse_logan_output(out)[0] for _t, out in runs[prog]] if prog == LOGAN_PROGRAM else []
        kernel, launches = None, None
        if ncu and not (ours_later and prog == ours):
            got = kernel_times(cmd, ncu, work / "ncu.csv", clock_control="none",
                               kernel=LOGAN_KERNEL if prog == LOGAN_PROGRAM else OUR_KERNEL)
            kernel, launches = sum(s for _n, s, _i in got), len(got)
        rows.append({**context, "dataset": name, "n_pairs": pairs.n_pairs, "xdrop": xdrop, "program": prog,
                     "kernel_seconds": kernel, "kernel_launches": launches,
                     "logan_gpu_seconds": statistics.median(gpu_only) if gpu_only else None,
                     "whole_seconds": statistics.median(t for t, _out in runs[prog]), "scores_equal": equal,
                     "command": shown[prog], "_command": cmd,
                     "layout": rec.LOGAN if prog == LOGAN_PROGRAM else rec.planned_layout(backend, xdrop)})
    return rows


def ours_kernels(rows: Sequence[dict], ncu: str, work: Path) -> None:
    """Our rows' kernel columns from one profiled process running every row's ``lassm xdrop align``
    (:func:`.timing.lassm_kernel_times`), instead of one ncu process per X (1.7 s apiece)."""
    got = lassm_kernel_times([r["_command"] for r in rows], ncu, work / "ncu-ours.csv", clock_control="none",
                             kernel=OUR_KERNEL)
    for row, launches in zip(rows, got):
        if launches:
            row["kernel_seconds"], row["kernel_launches"] = sum(s for _n, s, _i in launches), len(launches)


def todo(name: str, xdrops: Sequence[int], table: Path, sha: str, force: bool, backend: str = "cuda") -> list[int]:
    """The X values whose two rows are not both recorded at ``sha`` (all of them when ``force``)."""
    rows = rec.read_rows(table, rec.AGAINST_LOGAN_COLUMNS)
    return [x for x in xdrops if force or not all(rec.recorded(rows, sha, dataset=name, xdrop=x, program=p)
                                                  for p in (LOGAN_PROGRAM, ours_label(backend)))]


def run_all(built: Built, pairs: Pairs, name: str, xdrops: Sequence[int], table: Path, work: Path,
            how: Measuring) -> tuple[list[dict], list[str]]:
    """:func:`side_by_side` at each X, rows upserted into ``table`` after each; ``how.tick`` after
    each X (the part's progress).

    Returns
    -------
    (list of dict, list of str)
        A status row per X and program, and one line per X that failed.
    """
    from ...workloads.xdrop.formats import write_pairs_parquet

    ncu, backend, say, tick = how.ncu, how.backend, how.say, how.tick
    k = write_logan_input(pairs, work / "pairs.txt")
    write_pairs_parquet(pairs, work / "pairs.parquet")
    cmds = ([str(built["demo"]), str(work / "pairs.txt"), str(k), str(xdrops[0]), "1"],
            [sys.executable, "-m", "lassm", "xdrop", "align", str(work / "pairs.parquet"), "--backend", backend,
             "--xdrop", str(xdrops[0]), "--out", str(work / "ours.parquet")])
    status, failed = [], []
    try:
        for cmd in cmds:  # CUDA's context, CuPy's kernel cache, the file system's cache: untimed
            run(cmd)
    except Exception as exc:  # nothing can be compared: every X is named failed
        line = " ".join(str(exc).split())[:400]
        failed = [f"originals: LOGAN on {name}: {type(exc).__name__}: {line}"]
        say(failed[0])  # said, not only returned: a tool that prints rows would otherwise print nothing
        return [{"part": "logan", "dataset": name, "xdrop": x, "status": f"failed: {line}"} for x in xdrops], failed
    ours: list[dict] = []  # our rows, their kernel columns measured in one profiled process at the end
    for x in xdrops:
        try:
            rows = side_by_side(built, pairs, name, x, work, how, ours_later=ncu is not None)
        except Exception as exc:  # one X that fails is named; the others go on
            line = " ".join(str(exc).split())[:400]
            failed.append(f"originals: LOGAN on {name} at X={x}: {type(exc).__name__}: {line}")
            status += [{"part": "logan", "dataset": name, "xdrop": x, "program": p, "status": f"failed: {line}"}
                       for p in (LOGAN_PROGRAM, ours_label(backend))]
            say(failed[-1])
            tick()
            continue
        rec.upsert(table, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, rows)  # a run cut short keeps these
        ours += [r for r in rows if r["program"] != LOGAN_PROGRAM]
        for r in rows:
            if r["program"] == LOGAN_PROGRAM or ncu is None:
                _said(r, status, say)
        tick()
    if ours and ncu is not None:
        try:
            ours_kernels(ours, ncu, work)
        except Exception as exc:  # noqa: BLE001  our whole times and scores stay; the reason is said
            failed.append(f"originals: lassm xdrop align under Nsight Compute: {type(exc).__name__}: "
                          f"{' '.join(str(exc).split())[:300]}")
            say(failed[-1])
        rec.upsert(table, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, ours)
        for r in ours:
            _said(r, status, say)
    return status, failed


def _said(r: dict, status: list[dict], say: Callable[[str], None]) -> None:
    """A row's status line, and its line said."""
    ok = bool(r["scores_equal"])
    status.append({"part": "logan", "dataset": r["dataset"], "xdrop": r["xdrop"], "program": r["program"],
                   "whole_seconds": r["whole_seconds"], "kernel_seconds": r["kernel_seconds"],
                   "outputs_equal": ok, "status": "ok" if ok else "MISMATCH"})
    kern = f", kernel {r['kernel_seconds'] * 1e3:.3f} ms" if r["kernel_seconds"] is not None else ""
    say(f"{r['dataset']} X={r['xdrop']} {r['program']}: whole {r['whole_seconds']:.3f} s{kern}, scores equal: {ok}")


__all__ = ["DATASET", "LOGAN_KERNEL", "LOGAN_PROGRAM", "OURS", "OUR_KERNEL", "ours_label", "parse_logan_output",
           "parse_scores",
           "ours_kernels", "run_all", "seed_length", "side_by_side", "todo", "write_logan_input"]

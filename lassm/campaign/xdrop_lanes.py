# SPDX-License-Identifier: BSD-3-Clause
"""The ablation of the X-drop kernel's layouts: LOGAN's block per direction against the lanes kernel.

Every layout at each X in one run on the same GPU and pairs (``lassm xdrop lanes``) into
``xdrop/lanes.csv`` (and ``counters.csv`` rows with counters), on which the plan
(:func:`lassm.backends.xdrop.xdrop_host.lanes_for`) and the chapter rest. A layout whose result differs
from the block's is recorded so and never counts as faster. Rows at this commit are skipped unless
forced; each X's rows are upserted whole."""
from __future__ import annotations

import statistics
from typing import Callable, Sequence

from .. import stderr
from ..backends.xdrop import xdrop_host
from ..runs import xdrop_records as rec
from ..workloads.xdrop.scoring import Scoring
from ..workloads.xdrop.pairs import Pairs

#: The layouts compared: LOGAN's block (0) and the lanes kernel's widths.
LAYOUTS: tuple[int, ...] = (0, *xdrop_host.LANES)


def rows(align: Callable, pairs: Pairs, name: str, scoring: Scoring, *, layouts: Sequence[int] = LAYOUTS,
         repeats: int = 3, context: dict | None = None) -> list[dict]:
    """One ``lanes.csv`` row per layout at ``scoring``'s X: median kernel time of ``repeats`` runs after
    one untimed run, cells, GCUPS, and whether the result equals the block layout's. ``align`` is the
    CUDA backend's (taking ``lanes=``); ``layouts`` start with 0, the reference; ``context`` holds the
    provenance columns."""
    if not layouts or layouts[0] != 0:
        raise ValueError("layouts must start with 0, the block layout the others are compared with")
    if repeats < 1:
        raise ValueError(f"repeats = {repeats} must be at least 1")
    out, reference = [], None
    for lanes in layouts:
        first = align(pairs, scoring, lanes=lanes)  # untimed: the build and the first touch of memory
        seconds = []
        for _ in range(repeats):
            res = align(pairs, scoring, lanes=lanes)
            assert res.extra.kernel_seconds is not None  # a GPU backend times its kernels
            seconds.append(float(res.extra.kernel_seconds))
            if res.differences(first):
                raise RuntimeError(f"{name} X={scoring.xdrop} lanes={lanes}: two runs of one layout differ")
        if reference is None:
            reference = first
        kernel = statistics.median(seconds)
        assert first.extra.cells is not None  # every GPU backend counts its cells
        cells = int(first.extra.cells)
        out.append({**(context or {}), "dataset": name, "n_pairs": pairs.n_pairs, "xdrop": scoring.xdrop,
                    "lanes": lanes, "planned": lanes == xdrop_host.lanes_for(scoring.xdrop), "kernel_seconds": kernel,
                    "repeats": repeats, "cells": cells, "gcups": rec.gcups(cells, kernel),
                    "equal_to_block": not reference.differences(first)})
    return out


def best(table: Sequence[dict]) -> dict[tuple[str, int], int]:
    """The fastest layout of each (dataset, X) among those equal to the block layout."""
    fastest: dict[tuple[str, int], tuple[float, int]] = {}
    for r in table:
        if str(r["equal_to_block"]) not in ("True", "true", "1"):
            continue
        key, t = (str(r["dataset"]), int(r["xdrop"])), float(r["kernel_seconds"])
        if key not in fastest or t < fastest[key][0]:
            fastest[key] = (t, int(r["lanes"]))
    return {k: v[1] for k, v in fastest.items()}


def measure(machine: str, dataset: str, xdrops: Sequence[int], repeats: int, force: bool, command: str) -> bool:
    """Every layout at each X on ``dataset``'s pairs, upserted into the machine's ``lanes.csv``
    after each X; True when every layout's result equalled the block's."""
    from ..backends.xdrop import xdrop_cuda
    from ..runs.records import git_sha
    from ..workloads.xdrop import pair_sets

    sha = git_sha()
    table = rec.folder(machine) / rec.LANES_FILE
    pairs = pair_sets.load(dataset)
    facts = xdrop_cuda.cu.device_info()
    context = {"machine": machine, "device": facts.get("device", ""), "driver": facts.get("driver", ""),
               "git_sha": sha, "command": command}
    agreed = True
    for x in xdrops:
        if not force and rec.recorded(rec.read_rows(table, rec.LANES_COLUMNS), sha, dataset=dataset, xdrop=x, lanes=0):
            stderr.line(f"{dataset} X={x}: recorded at this commit, skipped")
            continue
        got = rows(xdrop_cuda.align, pairs, dataset, Scoring(xdrop=x), repeats=repeats, context=context)
        rec.upsert(table, rec.LANES_COLUMNS, rec.LANES_KEY, got)
        for r in got:
            agreed &= bool(r["equal_to_block"])
            stderr.line(f"{dataset} X={x} lanes={r['lanes']:>2}: {r['kernel_seconds'] * 1e3:9.3f} ms "
                        f"{r['gcups']:8.2f} GCUPS equal={r['equal_to_block']}{'  (planned)' if r['planned'] else ''}")
    return agreed


def counters(machine: str, name: str, xdrops: Sequence[int], force: bool) -> None:
    """Every layout under the study's metric list at each X: ``counters.csv`` rows whose program
    is ``lassm cuda lanes=N`` (N = 0: LOGAN's block), raw files beside them."""
    import tempfile
    from pathlib import Path

    from ..runs.records import git_sha
    from ..workloads.xdrop import pair_sets
    from ..workloads.xdrop.pair_files import write_pairs_parquet
    from . import xdrop_counters as xc
    from .steps import find_ncu

    exe = find_ncu()
    if exe is None:
        stderr.line("lassm xdrop lanes: no ncu here, no counters")
        return
    sha, table, scheme = git_sha(), rec.folder(machine) / rec.COUNTERS_FILE, Scoring()
    with tempfile.TemporaryDirectory(prefix="lassm-lanes-ncu-") as tmp:
        source = Path(tmp) / "pairs.parquet"
        write_pairs_parquet(pair_sets.load(name), source)
        for x in xdrops:
            for lanes in LAYOUTS:
                program = f"lassm cuda lanes={lanes}"
                if not force and rec.recorded(rec.read_rows(table, rec.COUNTER_COLUMNS), sha, dataset=name, xdrop=x,
                                              program=program):
                    continue
                row = xc.count(source, name, x, (scheme.match, scheme.mismatch, scheme.gap), machine=machine,
                               sha=sha, ncu_exe=exe,
                               program=xc.Program(program, ("--lanes", str(lanes)), rec.layout_name(lanes)))
                stderr.line(f"counters {name} X={x} lanes={lanes}: {row['duration_s'] * 1e3:.2f} ms, "
                            f"{row['warp_inst']:.3g} warp instructions")


__all__ = ["LAYOUTS", "best", "counters", "measure", "rows"]

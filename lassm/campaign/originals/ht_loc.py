# SPDX-License-Identifier: BSD-3-Clause
"""MetaHipMer's local-assembly program ``ht_loc`` and ``lassm extend``, side by side, on one GPU.

Per dataset both read the same ``.dat``:

- whole-command wall time: the median of ``repeats`` runs after one untimed run of each, taken
  in turns (:func:`.timing.interleaved`);
- kernel time where ncu is here: ``gpu__time_duration.sum`` over every launch of one run, and over
  the local-assembly kernel alone (lassm also launches a gather and reverse complement);
- whether the outputs are the same lines (sorted), the original's the reference.

Rows go to ``data/results/<machine>/against-original.csv`` with provenance.
:func:`against` (``lassm measure against-original``) runs named datasets, such as ``gen-k21x20``,
which the campaign leaves out."""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from ... import stderr
from ...runs import tables
from ...runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_FILE, AGAINST_ORIGINAL_KEY
from .build import Built, Given
from .sources import HT_LOC
from .timing import Measuring, beside_each, gpu_device, interleaved, kernel_times, lassm_kernel_times

#: The two programs' labels in the table (ours names its build: :func:`ours_label`).
ORIGINAL, OURS = "original ht_loc", "lassm extend fast"


def ours_label(backend: str) -> str:
    """Our program's label: ``lassm extend fast`` on a GPU backend, ``lassm extend cpu`` on the oracle."""
    return "lassm extend cpu" if backend == "cpu" else OURS

#: The local-assembly kernel's name in both programs (lassm's keeps the original's); other
#: kernels (lassm's device gather and reverse complement) count in the total only.
WALK_KERNEL = "iterative_walks_kernel"
#: The campaign's datasets that ``ht_loc`` runs beside ours: all of them, the small real-genome
#: sets (5,000 to 30,000 contigs, where fixed start-up costs decide a whole command) included.
DATASETS: tuple[str, ...] = ("sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77", "sample-k77x20",
                             "real-mock5-k21", "real-mock5-k33", "real-mock5-k55", "real-mock5-k77")


def walk_apart(launches: Sequence[tuple[str, float, float]]) -> tuple[float, int, float]:
    """(seconds over every launch, launches, seconds of the :data:`WALK_KERNEL` launches alone)."""
    total = sum(s for _n, s, _i in launches)
    walk = sum(s for n, s, _i in launches if n.startswith(WALK_KERNEL))
    return total, len(launches), walk


def sorted_lines(path: Path) -> list[str]:
    """The output's non-empty lines, sorted (the two programs write the contigs in different orders)."""
    return sorted(ln.rstrip("\n") for ln in path.read_text().splitlines() if ln.strip())


def ours_command(dat: Path, k: int, out: Path, backend: str = "cuda") -> list[str]:
    """``lassm extend`` as the comparison runs it: the ``fast`` build on a GPU backend."""
    cmd = [sys.executable, "-m", "lassm", "extend", str(dat), "--k", str(k), "--backend", backend]
    return cmd + (["--protocol", "fast"] if backend != "cpu" else []) + ["--out", str(out)]


def side_by_side(program: Path, dataset: str, work: Path, how: Measuring, *,
                 ours_later: bool = False) -> list[dict]:
    """Both programs (``program``, the built ``ht_loc``) on one dataset: two rows of
    :data:`AGAINST_ORIGINAL_COLUMNS`. Writes into scratch folder ``work``; ``how``:
    :class:`.timing.Measuring`. With ``ours_later`` our kernel columns are left for
    :func:`ours_kernels` and the ``.dat`` is kept in ``work``."""
    from ...workloads.local_assembly import datasets, formats

    repeats, ncu, context, backend = how.repeats, how.ncu, how.context, how.backend
    ds, k = datasets.load(dataset)
    work = work / dataset if ours_later else work
    work.mkdir(parents=True, exist_ok=True)
    dat = work / f"{dataset}.dat"
    formats.write_dat(ds, dat)
    ours, theirs = work / "lassm.txt", work / "original.txt"
    label = ours_label(backend)
    cmds = {ORIGINAL: [str(program), str(dat), str(k), str(theirs)], label: ours_command(dat, k, ours, backend)}
    shown = {ORIGINAL: f"ht_loc {dat.name} {k} original.txt",
             label: " ".join(["lassm", *cmds[label][3:-1], "lassm.txt"]).replace(str(dat), dat.name)}
    # one untimed run of each (caches, the file system, the context), then the timed ones in turns
    walls = {prog: [seconds for seconds, _out in runs] for prog, runs in interleaved(cmds, repeats).items()}
    equal = sorted_lines(ours) == sorted_lines(theirs)
    rows = []
    for prog, cmd in cmds.items():
        total, launches, walk = (walk_apart(kernel_times(cmd, ncu, work / "ncu.csv"))
                                 if ncu and not (ours_later and prog == label) else (None, None, None))
        rows.append({**context, "dataset": dataset, "k": k, "program": prog,
                     "whole_seconds": statistics.median(walls[prog]),
                     "whole_runs": " ".join(f"{t:.4f}" for t in walls[prog]), "kernel_seconds": total,
                     "kernel_launches": launches, "walk_kernel_seconds": walk, "outputs_equal": equal,
                     "command": shown[prog], "_command": cmd})
    if not ours_later:
        dat.unlink(missing_ok=True)
    return rows


def ours_kernels(rows: Sequence[dict], ncu: str, work: Path) -> None:
    """Our rows' kernel columns from one profiled process running every row's ``lassm extend``
    (:func:`.timing.lassm_kernel_times`), instead of one ncu process each (1.7 s apiece)."""
    got = lassm_kernel_times([r["_command"] for r in rows], ncu, work / "ncu-ours.csv")
    for row, launches in zip(rows, got):
        if launches:
            row["kernel_seconds"], row["kernel_launches"], row["walk_kernel_seconds"] = walk_apart(launches)


def todo(names: Sequence[str], table: Path, sha: str, force: bool, backend: str = "cuda") -> list[str]:
    """The datasets whose two rows are not both recorded at ``sha`` (all of them when ``force``)."""
    rows = tables.read_rows(table, AGAINST_ORIGINAL_COLUMNS)
    return [d for d in names if force or not all(tables.recorded(rows, sha, dataset=d, program=p)
                                                 for p in (ORIGINAL, ours_label(backend)))]


def run_all(names: Sequence[str], table: Path, built: Built, work: Path,
            how: Measuring) -> tuple[list[dict], list[str]]:
    """:func:`side_by_side` on each dataset, rows upserted into ``table`` and ``how.tick`` called after
    each: (status row per dataset and program, one line per failed dataset)."""
    programs = (ORIGINAL, ours_label(how.backend))
    cases = [(f"ht_loc on {name}", [{"part": "ht_loc", "dataset": name, "program": p} for p in programs],
              lambda name=name: side_by_side(built["ht_loc"], name, work, how, ours_later=how.ncu is not None))
             for name in names]
    return beside_each(cases, ORIGINAL, how, lambda rows: _upsert(table, rows), _said,
                       ("lassm extend", lambda rows, ncu: ours_kernels(rows, ncu, work)))


def against(names: Sequence[str], machine: str, given: Given, *, repeats: int = 3, profile: bool = True,
            force: bool = False) -> tuple[Path, bool]:
    """``ht_loc`` (from ``given``; its ``tree`` the repository or its ``src/``) beside ``lassm extend``
    on ``names`` into ``machine``'s ``against-original.csv``, skipping datasets recorded at this
    commit unless ``force``. Returns the table and whether all ran and agreed;
    :class:`~lassm.errors.InputError` before building where the folder's rows are of another GPU.
    Progress goes to stderr."""
    from ... import paths
    from ...runs.records import git_sha
    from ..steps import find_ncu

    sha = git_sha()
    table = paths.results_dir(machine) / AGAINST_ORIGINAL_FILE
    wanted = todo(names, table, sha, force)
    device = gpu_device()
    tables.same_device(table, AGAINST_ORIGINAL_COLUMNS, device[0])
    if given.tree is not None and (given.tree / "main.cpp").is_file():  # its src/: the tree is above
        given = Given(given.tree.parent, given.programs, given.arch)
    built = given.built(HT_LOC)
    with tempfile.TemporaryDirectory(prefix="lassm-vs-original-") as tmp:
        how = Measuring(built.context(machine, device, sha), repeats=repeats, ncu=find_ncu() if profile else None,
                        say=stderr.line)
        status, failed = run_all(wanted, table, built, Path(tmp), how)
    return table, not failed and all(r["status"] == "ok" for r in status)


def _upsert(table: Path, rows: Sequence[dict]) -> None:
    """The rows into the table (their other keys, such as ``_command``, are not its columns)."""
    tables.upsert(table, AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_KEY, rows)


def _said(r: dict, status: list[dict], say: Callable[[str], None]) -> None:
    """A row's status line, and its line said."""
    ok = bool(r["outputs_equal"])
    status.append({"part": "ht_loc", "dataset": r["dataset"], "program": r["program"],
                   "whole_seconds": r["whole_seconds"], "kernel_seconds": r["kernel_seconds"],
                   "outputs_equal": ok, "status": "ok" if ok else "MISMATCH"})
    kern = f", kernels {r['kernel_seconds'] * 1e3:.3f} ms" if r["kernel_seconds"] is not None else ""
    say(f"{r['dataset']} k={r['k']} {r['program']}: whole {r['whole_seconds']:.3f} s{kern}, outputs equal: {ok}")


__all__ = ["DATASETS", "against", "ORIGINAL", "OURS", "WALK_KERNEL", "ours_command", "ours_kernels", "ours_label", "run_all", "side_by_side", "sorted_lines", "todo",
           "walk_apart"]

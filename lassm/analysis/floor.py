# SPDX-License-Identifier: BSD-3-Clause
"""A measured floor for ``fast``: the least time this GPU could take for what the kernel must do.

Three lower bounds per dataset, in seconds, each from a measurement of this machine:

* **bytes**: the input ``fast``'s one launch uploads (:func:`input_bytes`) over the measured HBM
  bandwidth (``ceilings.json``). The contig term over-counts (the kernel reads only each
  contig's last k bases); kept as uploaded so the bound is a plain, checkable size.
* **integer work**: ``fast``'s Nsight Compute ``int_ops`` over the measured INT32 peak.
* **critical path**: the kernel time of the contig end with the most read bases, launched alone
  (:func:`measure_ends`, into ``data/results/<machine>/floor-critical-path.csv``): no launch can
  end before its slowest end.

The floor is the largest known bound; an unmeasured one is NaN with the reason in ``note``."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from .. import stderr
from .. import paths
from ..atomic import atomic_path
from ..errors import LassmError
from ..runs.account import PART_ACCOUNTS, measured_by, read_entries
from ..workloads.local_assembly.dataset import Dataset, Reads

#: File name of the critical-path measurements in a machine folder.
CRITICAL_FILE = "floor-critical-path.csv"
#: The campaign's datasets (campaign.json's plan on the H100).
DEFAULT_DATASETS = ("sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77", "sample-k77x20",
                    "real-mock5-k21", "real-mock5-k33", "real-mock5-k55", "real-mock5-k77")
#: Columns of that file, in order (``contig`` is the contig id, ``side`` right or left).
CRITICAL_COLUMNS: tuple[str, ...] = ("dataset", "k", "contig", "side", "reads", "read_bases", "kernel_seconds",
                                     "repeats", "matches_oracle", "device", "driver", "git_sha", "command")
#: Bytes of one offset or depth entry (int64 / float64), as the host uploads them.
_WORD = 8


def input_bytes(ds: Dataset) -> dict[str, int]:
    """The bytes ``fast``'s one launch is given, term by term, padding left out.

    The host stacks the right and the (reverse-complemented) left end of each of the ``E`` contigs
    with reads: contig bases twice, int64 offsets (``2E + 1``) for contigs, reads and tables, a
    float64 depth per end, and the ``N`` reads' bases, qualities and ``N + 1`` offsets. Returns
    ``contig_bases``, ``read_bases``, ``read_quals``, ``offsets``, ``depths`` and ``total`` [B]."""
    run = ds.with_reads_mask()
    ends = 2 * int(run.sum())
    n_reads = ds.left.n_reads + ds.right.n_reads
    terms = {
        "contig_bases": 2 * int(ds.lengths[run].sum()),
        "read_bases": len(ds.left.seqs) + len(ds.right.seqs),
        "read_quals": len(ds.left.quals) + len(ds.right.quals),
        "offsets": _WORD * (3 * (ends + 1) + n_reads + 1),
        "depths": _WORD * ends,
    }
    terms["total"] = sum(terms.values())
    return terms


def _side_bases(reads: Reads) -> np.ndarray:
    """Read bases per contig on one side."""
    at = reads.offsets[reads.contig_offsets]
    return np.diff(at).astype(np.int64)


def heaviest_ends(ds: Dataset, top: int = 1) -> pd.DataFrame:
    """The ``top`` (>= 1) contig ends with the most read bases on their side, heaviest first.

    Ties go to the lower contig index, then the right end (as ``fast`` stacks them), so that a
    replicated dataset picks its first copy. Columns ``index``, ``contig``, ``side``, ``reads``,
    ``read_bases``."""
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    n = ds.n_contigs
    ends = pd.DataFrame({
        "index": np.concatenate((np.arange(n), np.arange(n))).astype(np.int64),
        "contig": np.concatenate((ds.cids, ds.cids)),
        "side": ["right"] * n + ["left"] * n,
        "order": np.concatenate((np.zeros(n, np.int64), np.ones(n, np.int64))),
        "reads": np.concatenate((ds.right.counts, ds.left.counts)).astype(np.int64),
        "read_bases": np.concatenate((_side_bases(ds.right), _side_bases(ds.left))),
    })
    ends = ends.sort_values(["read_bases", "index", "order"], ascending=[False, True, True], kind="stable")
    return ends.head(top).drop(columns="order").reset_index(drop=True)


def _no_reads() -> Reads:
    zero = np.zeros(1, dtype=np.int64)
    return Reads(np.zeros(0, np.uint8), np.zeros(0, np.uint8), zero, np.zeros(2, dtype=np.int64))


def one_end(ds: Dataset, index: int, side: str) -> Dataset:
    """A one-contig dataset: contig ``index`` of ``ds`` with only the reads of ``side`` (``right`` or
    ``left``); the other end has no reads and stops at once."""
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', got {side!r}")
    one = ds.subset(np.array([index], dtype=np.int64))
    return replace(one, left=_no_reads()) if side == "right" else replace(one, right=_no_reads())


def measure_ends(name: str, top: int, repeats: int, provenance: dict) -> list[dict]:
    """The ``top`` heaviest ends of dataset ``name``, each run alone with ``fast`` on CUDA: one
    warm-up, then ``repeats`` timed runs, each compared with the CPU oracle; one row of
    :data:`CRITICAL_COLUMNS` per end (``provenance``: device, driver, git SHA, command)."""
    import statistics

    from ..runs import extend as run
    from ..workloads.local_assembly import datasets
    from ..workloads.local_assembly.config import Params

    ds, k = datasets.load(name)
    params = Params(k=k)
    rows = []
    for end in heaviest_ends(ds, top).itertuples():
        one = one_end(ds, int(end.index), end.side)
        oracle = run.extend(one, params, backend="cpu")
        diffs = run.extend(one, params, backend="cuda", protocol="fast").compare(oracle)  # compile + warm-up
        times = []
        for _ in range(repeats):
            ext = run.extend(one, params, backend="cuda", protocol="fast")
            times.append(ext.kernel_seconds)
            diffs += ext.compare(oracle)
        med = statistics.median(times)
        rows.append({"dataset": name, "k": k, "contig": int(end.contig), "side": end.side, "reads": int(end.reads),
                     "read_bases": int(end.read_bases), "kernel_seconds": med, "repeats": repeats,
                     "matches_oracle": not diffs, **provenance})
        stderr.line(f"{name} k={k}: contig {end.contig} {end.side} ({end.read_bases} read bases) "
                    f"{med * 1e3:.3f} ms median of {repeats}, equal={not diffs}")
    return rows


def write_critical_path(rows: list[dict], path: str | Path) -> Path:
    """Writes the critical-path rows (every :data:`CRITICAL_COLUMNS` present) to ``path`` as CSV,
    atomically; returns ``path``."""
    for i, row in enumerate(rows):
        missing = [c for c in CRITICAL_COLUMNS if c not in row]
        if missing:
            raise ValueError(f"row {i} lacks {', '.join(missing)}")
    df = pd.DataFrame(rows, columns=list(CRITICAL_COLUMNS))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format="%.9g")
    return path


def read_critical_path(path: str | Path) -> pd.DataFrame:
    """Reads a :func:`write_critical_path` file, refusing one whose ``kernel_seconds`` is not positive
    and finite or whose ``k`` and ``repeats`` are not integers."""
    path = Path(path)
    df = pd.read_csv(path)
    missing = [c for c in CRITICAL_COLUMNS if c not in df.columns]
    if missing:
        raise LassmError(f"{path}: line 1: no column {', '.join(missing)}")
    for col in ("k", "read_bases", "kernel_seconds", "repeats"):
        values = pd.to_numeric(df[col], errors="coerce")
        bad = ~np.isfinite(values) | (values <= 0)
        if bad.any():
            line = int(np.flatnonzero(bad.to_numpy())[0]) + 2
            raise LassmError(f"{path}: line {line}: field {col} is {df[col].iloc[line - 2]!r}, not a positive number")
        df[col] = values
    sides = ~df["side"].isin(["right", "left"])
    if sides.any():
        line = int(np.flatnonzero(sides.to_numpy())[0]) + 2
        raise LassmError(f"{path}: line {line}: field side is {df['side'].iloc[line - 2]!r}, not right or left")
    df["k"] = df["k"].astype(np.int64)
    df["repeats"] = df["repeats"].astype(np.int64)
    return df


def bounds(points: pd.DataFrame) -> pd.DataFrame:
    """The three bounds, the floor, and ``fast``'s time over it, per row.

    ``points`` has ``input_bytes`` [B], ``int_ops``, ``bandwidth_gbs`` [1e9 B/s], ``peak_gintops``
    [G ops/s], ``critical_seconds`` and ``fast_seconds`` [s], NaN where unmeasured. Returns a copy
    with ``bytes_s``, ``int_s``, ``critical_s``, ``floor_s`` (largest known), ``binding`` (which)
    and ``fast_over_floor``."""
    need = ("input_bytes", "int_ops", "bandwidth_gbs", "peak_gintops", "critical_seconds", "fast_seconds")
    missing = [c for c in need if c not in points.columns]
    if missing:
        raise ValueError(f"bounds: missing column(s) {', '.join(missing)}")
    out = points.copy()
    for col in need:
        if not pd.api.types.is_numeric_dtype(out[col]):
            raise TypeError(f"bounds: column {col} must be numeric")
        if (out[col] <= 0).any():
            raise ValueError(f"bounds: column {col} must be positive where known")
    out["bytes_s"] = out["input_bytes"] / (out["bandwidth_gbs"] * 1e9)
    out["int_s"] = out["int_ops"] / (out["peak_gintops"] * 1e9)
    out["critical_s"] = out["critical_seconds"].astype(float)
    cols = {"bytes": "bytes_s", "integer work": "int_s", "critical path": "critical_s"}
    table = out[list(cols.values())]
    out["floor_s"] = table.max(axis=1, skipna=True)
    known = table.notna().any(axis=1)
    out["binding"] = None
    out.loc[known, "binding"] = table.loc[known].idxmax(axis=1).map({v: k for k, v in cols.items()})
    out["fast_over_floor"] = out["fast_seconds"] / out["floor_s"]
    return out


def _fast_seconds(machine: str) -> pd.DataFrame:
    path = paths.results_dir(machine) / PART_ACCOUNTS["local-assembly"]
    if not path.exists():
        raise LassmError(f"{path}: no campaign account; run the campaign on that machine first")
    rows = pd.DataFrame(measured_by(read_entries(path)))  # each point from the run that measured it
    fast = rows[(rows["backend"] == "cuda") & (rows["protocol"] == "fast") & (rows["status"] == "ok")]
    return fast[["dataset", "k", "kernel_seconds"]].rename(columns={"kernel_seconds": "fast_seconds"})


def machine_floor(machine: str, dataset_names: list[str] | None = None) -> pd.DataFrame:
    """The floor of every dataset ``machine``'s campaign timed ``fast`` on (or of ``dataset_names``).

    ``fast``'s time is ``campaign.json``'s CUDA median; its ``int_ops`` come from ``metrics.csv``;
    the ceilings from ``ceilings.json``; the critical path is :data:`CRITICAL_FILE`'s slowest end
    per (dataset, k). Returns :func:`bounds`'s columns plus ``dataset``, ``k``, ``critical_contig``,
    ``critical_side``, ``critical_read_bases`` and ``note`` (why a bound is missing)."""
    from ..workloads.local_assembly import datasets
    from ..runs.results import load_metrics
    from .derive import load_ceilings

    fast = _fast_seconds(machine)
    if dataset_names is not None:
        fast = fast.set_index("dataset").reindex(dataset_names).reset_index()
        if fast["k"].isna().any():
            raise LassmError(f"{machine}: no fast campaign row for {list(fast.loc[fast['k'].isna(), 'dataset'])}")
        fast["k"] = fast["k"].astype(np.int64)
    roof = load_ceilings(machine)
    m = load_metrics(machine)
    if "backend" in m.columns:  # metrics.csv holds the CUDA points; older files lack the column
        m = m[m["backend"] == "cuda"]
    ops = m[m["protocol"] == "fast"][["dataset", "k", "int_ops"]]
    df = fast.merge(ops, on=["dataset", "k"], how="left", validate="one_to_one")
    df["bandwidth_gbs"] = roof["bandwidth_gbs"]
    df["peak_gintops"] = roof["peak_gintops"]
    df["input_bytes"] = [float(input_bytes(datasets.load(name, int(k))[0])["total"])
                         for name, k in zip(df["dataset"], df["k"])]
    crit_path = paths.results_dir(machine) / CRITICAL_FILE
    if crit_path.exists():
        crit = read_critical_path(crit_path).sort_values("kernel_seconds", ascending=False)
        crit = crit.drop_duplicates(["dataset", "k"])[["dataset", "k", "contig", "side", "read_bases",
                                                       "kernel_seconds"]]
        crit.columns = ["dataset", "k", "critical_contig", "critical_side", "critical_read_bases", "critical_seconds"]
        df = df.merge(crit, on=["dataset", "k"], how="left")
    else:
        for col in ("critical_contig", "critical_side", "critical_read_bases", "critical_seconds"):
            df[col] = math.nan
    notes = []
    for _, row in df.iterrows():
        why = []
        if pd.isna(row["int_ops"]):
            why.append("integer work: no Nsight Compute counters of this point")
        if pd.isna(row["critical_seconds"]):
            why.append(f"critical path: not measured ({CRITICAL_FILE} "
                       + ("lacks this dataset)" if crit_path.exists() else "absent; run lassm measure floor)"))
        notes.append("; ".join(why))
    df["note"] = notes
    return bounds(df)

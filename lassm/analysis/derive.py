# SPDX-License-Identifier: BSD-3-Clause
"""From one machine's recorded counters and ceilings to the study's metrics.

``data/results/<machine>/counters/*.csv`` (raw Nsight Compute output with sidecars) and
``ceilings.json`` become ``metrics.csv``, one row per (dataset, k, protocol). The roofs are the
ceilings *measured* on the machine, not datasheet figures (the datasheet row is carried beside
them for comparison)."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd

from . import metrics
from .. import paths
from ..atomic import atomic_path
from ..errors import LassmError

#: Counter columns the metrics use (summed over the launches of a point by ``counters.aggregate``).
_SUMS = ("duration_s", "int_lane_ops", "warp_inst", "thread_inst", "dram_read_bytes",
         "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes")


def counter_backend(path: str | Path) -> str:
    """The backend of a raw counter file, from its name ``ncu__<dataset>__k<k>__<backend>__<protocol>.csv``
    (a name without those fields is a CUDA file, as every file was before the OpenCL backend)."""
    parts = Path(path).name.removesuffix(".csv").split("__")
    return parts[-2] if len(parts) >= 5 else "cuda"


def counter_backends(machine: str) -> list[str]:
    """The backends ``machine`` has raw counter files of, ``cuda`` first."""
    folder = paths.results_dir(machine) / "counters"
    found = {counter_backend(p) for p in folder.glob("*.csv") if not p.name.startswith(".")}
    return sorted(found, key=lambda b: (b != "cuda", b))


def load_counters(machine: str, backend: str = "cuda") -> pd.DataFrame:
    """Every Nsight Compute raw file of ``machine`` and ``backend``, one row per (dataset, k,
    protocol); one backend at a time, since two programs' launches must not sum into one point."""
    folder = paths.results_dir(machine) / "counters"
    files = sorted(p for p in folder.glob("*.csv") if not p.name.startswith(".") and counter_backend(p) == backend)
    if not files:
        raise LassmError(f"{folder}: no {backend} counter files; run 'lassm counters collect' on that machine first")
    points, launches = _points(tuple(files), _stamps(files))
    try:
        for path, count in zip(files, launches):
            refuse_fewer_than_recorded(path, count)
    except ValueError as exc:
        raise LassmError(f"{exc}; collect it again, or restore it") from None
    return points.copy()


def _stamps(files: list[Path]) -> tuple:
    """What says that raw files are unchanged: each one's and its sidecars' size and time."""
    from .counters.tidy import sidecar_paths

    out = []
    for path in files:
        for p in (path, *sidecar_paths(path)):
            st = p.stat() if p.exists() else None
            out.append((str(p), st.st_size if st else -1, st.st_mtime_ns if st else -1))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _points(files: tuple[Path, ...], _stamps: tuple) -> tuple[pd.DataFrame, list[int]]:
    """:func:`load_counters`' table of ``files`` and each file's launches, parsed once while the files
    stay as ``_stamps`` says (a chapter asks for one machine's counters several times); the run
    records they are checked against are read at every call."""
    from .counters import aggregate, parse_each

    try:
        frames = parse_each(list(files), "ncu")  # a table per file: one row per launch
        points = aggregate(pd.concat(frames, ignore_index=True))
        launches = [len(frame) for frame in frames]
    except ValueError as exc:  # a file cut short or damaged: named, never left out
        raise LassmError(f"{exc}; collect it again, or restore it") from None
    return points[["device", "dataset", "k", "protocol", "simd_width", *_SUMS, "launches"]], launches


def refuse_fewer_than_recorded(path: Path, launches: int | None = None) -> None:
    """Refuses (``ValueError`` naming file and record) a raw ncu file whose launches are not those its
    point's run record counts (``launches`` of ``<machine>/<run-id>/summary.json`` or its
    ``bench__<run-id>``).

    Why: a CSV cut at a row end reads as whole, and files without the launch count and SHA-256 in
    their sidecar have nothing else to be checked against. A point with no record or count passes."""
    from ..readback import json_object
    from ..runs.records import run_id_for
    from .counters import read_meta
    from .counters.ncu import read_raw

    meta = read_meta(path)
    if not all(meta.get(key) is not None for key in ("dataset", "k", "protocol")):
        return
    run_id = run_id_for(meta["dataset"], meta["k"], counter_backend(path), meta["protocol"])
    folder = path.parent.parent
    for record in (folder / run_id / "summary.json", folder / f"bench__{run_id}" / "summary.json"):
        recorded = json_object(record, "run record").get("launches") if record.is_file() else None
        if not isinstance(recorded, int) or isinstance(recorded, bool):
            continue
        launches = len(read_raw(path)[0]) if launches is None else launches
        if launches != recorded:
            raise ValueError(f"{path}: {launches} launches, where its point's record {record} counts {recorded} "
                             "in a run: cut short (a truncated copy?)")


def load_ceilings(machine: str) -> dict:
    """The measured ceilings of ``machine`` (``ceilings.json``): INT32 G ops/s and HBM GB/s."""
    path = paths.results_dir(machine) / "ceilings.json"
    if not path.exists():
        raise LassmError(f"{path}: no measured ceilings; run the 'ceilings' step on that machine first")
    try:
        data = json.loads(path.read_text())
        return {"peak_gintops": float(data["int32"]["int32_gops"]),
                "peak_gintops_mixed": float(data.get("int32_mixed", {}).get("int32_gops", float("nan"))),
                "bandwidth_gbs": float(data["hbm"]["hbm_gbs"]), "device": data.get("device", "")}
    except ValueError as exc:  # JSON's own errors are ValueErrors, with line and column
        raise LassmError(f"{path}: not the ceilings' JSON ({exc}); restore it, or measure them again") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise LassmError(f"{path}: no int32.int32_gops and hbm.hbm_gbs ({type(exc).__name__}: {exc}); "
                         "restore it, or measure them again") from None


def machine_metrics(machine: str, backend: str = "cuda") -> pd.DataFrame:
    """The study's metrics for every profiled point of ``machine`` and ``backend``: the summed
    counters plus ``ii`` [ops/B], ``gintops``, the roofs, ``attainable_gintops``, ``bound``,
    ``arch eff``, ``ii_theoretical`` (Table VI's model), ``alg eff``, ``predication_ratio``, ``x``,
    ``y``, ``speedup`` and ``beyond_model``."""
    from .paper import table6

    df = load_counters(machine, backend)
    roof = load_ceilings(machine)
    df["machine"] = machine
    df["backend"] = backend
    df = metrics.on_roofline(df, roof)
    theory = table6()[["k", "ii"]].rename(columns={"ii": "ii_theoretical"})
    df = df.merge(theory, on="k", how="left")
    if df["ii_theoretical"].isna().any():
        missing = sorted(df.loc[df["ii_theoretical"].isna(), "k"].unique())
        raise LassmError(f"the paper's intensity model has no row for k = {missing}")
    df = potential_speedups(metrics.algorithm_efficiency(df))
    return df.sort_values(["dataset", "k", "protocol"]).reset_index(drop=True)


def potential_speedups(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`lassm.analysis.metrics.potential_speedup` where the model holds, coordinates only beyond it.

    A kernel moving fewer bytes per operation than the model's ideal cache (x = alg eff > 1) lies
    beyond the model, which promises no speedup there: its speedups are NaN and ``beyond_model``
    True; rows within the model come first. Both kernels of the study use this one rule."""
    within = df["alg eff"] <= 1.0
    beyond = df.loc[~within].copy()
    beyond["x"], beyond["y"] = beyond["alg eff"], beyond["arch eff"]
    for col in ("speedup_memory", "speedup_compute", "speedup"):
        beyond[col] = float("nan")
    parts = [metrics.potential_speedup(df.loc[within])] + ([beyond] if len(beyond) else [])
    out = pd.concat(parts, ignore_index=True)
    out["beyond_model"] = ~(out["alg eff"] <= 1.0)
    return out


def per_insertion(machine: str, metrics_df: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`machine_metrics` with ``hash_insertions``, ``insertions_all_k`` (from any run record of
    that dataset and k: they do not depend on protocol), ``bytes_per_insertion`` and
    ``bytes_per_insertion_all_k``."""
    from ..runs.results import load_records

    m = machine_metrics(machine) if metrics_df is None else metrics_df
    work = (load_records(machine).drop_duplicates(["dataset", "k"])
            [["dataset", "k", "hash_insertions", "insertions_all_k"]])
    per = m.merge(work, on=["dataset", "k"], how="left", validate="many_to_one")
    missing = per.loc[per["hash_insertions"].isna(), ["dataset", "k"]].drop_duplicates()
    if len(missing):
        raise LassmError(f"no run record gives the work of {missing.to_dict('records')} on {machine}")
    per["bytes_per_insertion"] = per["dram_bytes"] / per["hash_insertions"]
    per["bytes_per_insertion_all_k"] = per["dram_bytes"] / per["insertions_all_k"]
    return per


def write_metrics(machine: str, out: str | Path | None = None) -> Path:
    """Writes :func:`machine_metrics` as CSV atomically and returns the path: ``metrics.csv`` for CUDA,
    ``metrics-<backend>.csv`` beside it for another backend unless ``out`` is given."""
    df = machine_metrics(machine)
    path = Path(out) if out else paths.results_dir(machine) / "metrics.csv"
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format="%.6g")
    if out is None:
        for backend in counter_backends(machine)[1:]:
            with atomic_path(path.with_name(f"metrics-{backend}.csv")) as tmp:
                machine_metrics(machine, backend).to_csv(tmp, index=False, float_format="%.6g")
    return path

# SPDX-License-Identifier: BSD-3-Clause
"""Our run records as tables: every ``summary.json`` under ``data/results/`` in one DataFrame;
scalar fields become columns, lists and dicts stay out.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .. import paths
from ..errors import LassmError
from ..readback import json_object
from .records import KERNEL as LOCAL_ASSEMBLY

#: Columns every record table has, whatever its records hold.
RECORD_COLUMNS: tuple[str, ...] = ("kernel", "machine", "run_id", "device", "backend", "protocol", "dataset", "k",
                                   "kernel_seconds", "benchmark")


def _results_root() -> Path:
    return paths.results_dir("_").parent


def load_records(machine: str | None = None, *, benchmark: bool | None = None) -> pd.DataFrame:
    """Every run record (``<machine>/<run-id>/summary.json``) of ``machine`` (default all) as one row.

    ``benchmark``: True only ``bench__*`` records, False only sweep records, None both. Columns are
    the scalar fields (:data:`RECORD_COLUMNS` always present), sorted by machine and run id. Raises
    LassmError when no record matches."""
    root = _results_root()
    folders = [root / machine] if machine else sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    rows = []
    for folder in folders:
        for summary in sorted(folder.glob("*/summary.json")):
            if summary.parent.name.startswith("."):  # a record still being written, or left by a kill
                continue
            rec = json_object(summary, "run record (run the point again)")
            row = {k: v for k, v in rec.items() if not isinstance(v, (list, dict))}
            row.setdefault("kernel", LOCAL_ASSEMBLY)  # records written before the key existed
            row.setdefault("machine", folder.name)
            row.setdefault("run_id", summary.parent.name)
            row["benchmark"] = bool(rec.get("benchmark", summary.parent.name.startswith("bench__")))
            rows.append(row)
    df = pd.DataFrame(rows)
    for c in RECORD_COLUMNS:
        if c not in df.columns:
            df[c] = pd.NA
    if benchmark is not None and len(df):
        df = df[df["benchmark"] == benchmark]
    if df.empty:
        raise LassmError(f"{root}: no run record for machine={machine!r}, benchmark={benchmark!r}")
    return df.sort_values(["machine", "run_id"]).reset_index(drop=True)


def load_metrics(machine: str) -> pd.DataFrame:
    """``data/results/<machine>/metrics.csv`` (from ``lassm metrics derive``): one row per (dataset,
    k, protocol); see :func:`lassm.analysis.derive.machine_metrics`."""
    path = paths.results_dir(machine) / "metrics.csv"
    if not path.exists():
        raise LassmError(f"{path}: no metrics; run 'lassm metrics derive --machine {machine}'")
    return pd.read_csv(path)


def reference_timings() -> pd.DataFrame:
    """``data/reference-timings.csv``: other programs' kernel times with their sources
    (``program, machine, device, dataset, k, kernel_seconds, source``)."""
    from ..datafiles import data_csv, read_data_csv

    return read_data_csv(data_csv("reference-timings.csv"))


def study_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of the paper's study: the faithful protocols (not the fast variant or its ablation
    builds, lassm.backends.nvrtc.VARIANTS) on the sample and generated datasets (not the real-genome
    ones), so that the chapters that re-run the study compare like with like."""
    from ..backends.nvrtc import VARIANTS

    keep = ~df["protocol"].isin(list(VARIANTS)) & ~df["dataset"].astype(str).str.startswith("real-")
    return df[keep].reset_index(drop=True)


def bench_table(machine: str) -> pd.DataFrame:
    """The benchmark records of ``machine``, in milliseconds, with the CPU and reference ratios.

    Per (dataset, k, protocol): ``kernel_ms``, ``cpu_ms`` (best CPU run), ``cpu_threads``,
    ``cpu_over_gpu``, ``matches_cpu``, and ``reference_ms`` / ``reference_over_ours`` where
    ``data/reference-timings.csv`` has another program's time for that machine and dataset (else NaN)."""
    df = load_records(machine, benchmark=True)
    out = pd.DataFrame({"dataset": df["dataset"], "k": df["k"].astype(int), "protocol": df["protocol"],
                        "backend": df["backend"], "kernel_ms": df["kernel_seconds"].astype(float) * 1e3,
                        "cpu_ms": pd.to_numeric(df.get("cpu_seconds"), errors="coerce") * 1e3,
                        "cpu_threads": df.get("cpu_threads"),
                        "cpu_over_gpu": pd.to_numeric(df.get("speedup_vs_cpu"), errors="coerce"),
                        "matches_cpu": df.get("matches_cpu")})
    ref = reference_timings()
    ref = ref[ref["machine"] == machine][["dataset", "kernel_seconds", "program"]]
    ref = ref.rename(columns={"kernel_seconds": "reference_s", "program": "reference"})
    out = out.merge(ref, on="dataset", how="left")
    out["reference_ms"] = out.pop("reference_s").astype(float) * 1e3
    out["reference_over_ours"] = out["reference_ms"] / out["kernel_ms"]
    return out.sort_values(["dataset", "protocol"]).reset_index(drop=True)


def scaling_table(machine: str, dataset: str = "gen-k21x20") -> pd.DataFrame:
    """The strong-scaling records of ``machine`` on ``dataset`` (``scaling__<dataset>__*__gpus<G>``),
    one row per GPU count.

    Speedups over the one-GPU record: ``speedup_wall`` (the whole sharded extend),
    ``speedup_compute`` (the workers' part), ``speedup_kernel`` (the slowest shard's kernel time).
    Columns: ``gpus``, ``wall_seconds``, ``compute_wall_seconds``, ``merge_seconds``,
    ``kernel_seconds``, the speedups, ``parallel_efficiency`` (wall speedup / gpus), ``matches_1gpu``,
    ``matches_cpu``; where recorded also ``plan_seconds``, ``write_seconds``,
    ``single_process_seconds``, ``speedup_vs_single_process``, ``peak_rss_bytes`` and
    ``device_high_water_bytes`` (:mod:`.memory`)."""
    recs = load_records(machine)
    rows = recs[recs["run_id"].str.startswith(f"scaling__{dataset}__")].copy()
    if rows.empty:
        raise LassmError(f"no scaling records of {dataset} under data/results/{machine}/")
    rows = rows.sort_values("gpus").reset_index(drop=True)
    one = rows[rows["gpus"] == 1]
    if one.empty:
        raise LassmError(f"{machine}: the scaling records have no 1-GPU run to compare with")
    base = one.iloc[0]
    for what, col in (("wall", "wall_seconds"), ("compute", "compute_wall_seconds"), ("kernel", "kernel_seconds")):
        rows[f"speedup_{what}"] = base[col] / rows[col]
    rows["parallel_efficiency"] = rows["speedup_wall"] / rows["gpus"]
    keep = ["gpus", "wall_seconds", "compute_wall_seconds", "merge_seconds", "kernel_seconds",
            "speedup_wall", "speedup_compute", "speedup_kernel", "parallel_efficiency",
            "matches_1gpu", "matches_cpu"]
    optional = [c for c in ("plan_seconds", "write_seconds", "single_process_seconds", "speedup_vs_single_process",
                            "files_seconds", "files_speedup_vs_1gpu", "files_speedup_vs_single_process",
                            "peak_rss_bytes", "device_high_water_bytes")
                if c in rows.columns and rows[c].notna().all()]
    return rows[keep + optional]


#: The wall's parts a scaling record splits out, as the scaling chapter names them.
SCALING_PHASES = {"compute_wall_seconds": "the workers' part (sharding, runs, results sent back)",
                  "merge_seconds": "the merge", "write_seconds": "writing the output"}


def scaling_facts(table: pd.DataFrame) -> dict:
    """What the scaling chapter says of :func:`scaling_table`'s widest run: the largest part of
    its wall (:data:`SCALING_PHASES`, those the records hold) and, where the records hold the
    plain single-process command, a sentence comparing it with the sharded run and its write."""
    top = table.iloc[-1]
    phases = {name: float(top[col]) for col, name in SCALING_PHASES.items() if col in table}
    facts = {"largest": max(phases, key=lambda name: phases[name])}
    if "speedup_vs_single_process" in table:
        facts["single_sentence"] = (
            f"A plain single-process lassm extend of the same input takes {top['single_process_seconds']:.2f} s "
            f"whole; the sharded run with its write ({top['write_seconds']:.2f} s, by the client alone) is "
            f"{top['speedup_vs_single_process']:.2f} times as fast.")
    else:
        facts["single_sentence"] = "These records hold no single-process time of the same input."
    if "files_speedup_vs_1gpu" in table:
        facts["files_sentence"] = (
            f"Where the workers write their own blocks of the output (what lassm extend --cluster runs), "
            f"the whole run, the file included, takes {float(table['files_seconds'].iloc[0]):.2f} s on one GPU and "
            f"{float(top['files_seconds']):.2f} s on {int(top['gpus'])}: {float(top['files_speedup_vs_1gpu']):.2f} times "
            f"as fast as one GPU on the same path, and {float(top['files_speedup_vs_single_process']):.2f} times "
            f"as fast as the plain single-process command.")
    else:
        facts["files_sentence"] = "These records hold no run whose workers write the output."
    return facts


def scaling_datasets(machine: str) -> list[str]:
    """The datasets with strong-scaling records under ``machine`` (``scaling__<dataset>__...``), sorted."""
    recs = load_records(machine)
    ids = recs["run_id"][recs["run_id"].str.startswith("scaling__")]
    return sorted({rid.split("__")[1] for rid in ids})


def scaling_others_sentence(machine: str, main: str = "gen-k21x20") -> str:
    """What the scaling chapter says of the datasets other than ``main`` measured on ``machine``:
    each one's :func:`scaling_facts` sentence on the path whose workers write the output."""
    others = [d for d in scaling_datasets(machine) if d != main]
    if not others:
        return "No other dataset was measured on this node."
    said = []
    for d in others:
        table = scaling_table(machine, d)
        if len(table) > 1:
            said.append(f"On {d}: {scaling_facts(table)['files_sentence']}")
        else:  # a run on one GPU count alone (its campaign stopped there) says nothing of scaling
            said.append(f"Of {d} only the run on {int(table['gpus'].iloc[0])} GPU was recorded on this node.")
    return " ".join(said)


def shard_contention(machine: str, dataset: str = "gen-k21x20") -> dict | None:
    """What ``lassm measure shard-contention`` measured of ``dataset`` on ``machine``, or None:
    ``whole_seconds`` (one process), the slowest shard alone (``alone_seconds``) and all at once
    (``together_seconds``), each on its own GPU without Dask; ``bare_speedup`` (whole over the
    slowest shard at once) bounds what sharding can gain on that node."""
    import json

    path = _results_root() / machine / f"shard-contention__{dataset}.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    return {"dataset": dataset, "gpus": int(doc["gpus"]), "protocol": doc["protocol"], **contention_bound(doc)}


def contention_bound(doc: dict) -> dict:
    """:func:`shard_contention`'s figures from the tool's ``whole``, ``alone`` and ``together``
    (each run's ``extend`` plus ``write`` seconds): what the file holds, and what the tool prints."""
    whole = doc["whole"]["extend"] + doc["whole"]["write"]
    alone = max(t["extend"] + t["write"] for t in doc["alone"])
    together = max(t["extend"] + t["write"] for t in doc["together"])
    return {"whole_seconds": whole, "alone_seconds": alone, "together_seconds": together,
            "bare_speedup": whole / together, "alone_speedup": whole / alone}


def contention_sentence(machine: str, dataset: str = "gen-k21x20") -> str:
    """The scaling chapter's sentence on :func:`shard_contention`."""
    c = shard_contention(machine, dataset)
    if c is None:
        return f"No run of the shards of {dataset} without Dask was measured on this node."
    return (f"Without Dask, each of the {c['gpus']} shards of {dataset} ({c['protocol']}), extended and written by a "
            f"process of its own on a GPU of its own, takes at most {c['together_seconds']:.2f} s when all run at once "
            f"({c['alone_seconds']:.2f} s alone), and the whole input {c['whole_seconds']:.2f} s in one such process: "
            f"{c['bare_speedup']:.2f} times as fast, before any plan, dispatch or join.")


def sweep_timings(machine: str) -> pd.DataFrame:
    """The sweep's wall time in one process and on ``--cluster local-cuda:N`` (``scaling__sweep__gpus<N>.json``)."""
    import json

    files = sorted((_results_root() / machine).glob("scaling__sweep__gpus*.json"))
    rows = [json.loads(p.read_text()) for p in files]
    df = pd.DataFrame([{key: r[key] for key in ("gpus", "direct_wall_seconds", "cluster_wall_seconds")}
                       | {"same_output": all(r["same_output"].values())} for r in rows])
    if not df.empty:
        df["speedup"] = df["direct_wall_seconds"] / df["cluster_wall_seconds"]
    return df


def ablation_costs(bench: pd.DataFrame, base: str = "fast", datasets: list[str] | None = None) -> pd.DataFrame:
    """Each ``base-*`` build's kernel time over ``base``'s per dataset (index: builds; columns:
    ``datasets``, default every one ``base`` ran on), from :func:`bench_table` rows: what undoing one
    change costs."""
    rows = bench[(bench["protocol"] == base) | bench["protocol"].str.startswith(base + "-")]
    times = rows.pivot_table(index="protocol", columns="dataset", values="kernel_ms", aggfunc="first")
    if base not in times.index:
        raise LassmError(f"no {base!r} benchmark to measure the ablation builds against")
    cols = [d for d in (datasets or list(times.columns)) if d in times.columns and pd.notna(times.loc[base, d])]
    return (times[cols] / times.loc[base, cols]).drop(index=base)


def against_published(ours: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Where our points sit on the potential-speedup plot against the published ports', per k.

    ``ours``: ``k``, ``x``, ``y``, ``beyond_model`` per k; ``published``:
    :func:`lassm.analysis.paper.speedup_points`. Per k: our x and y, the best published ones, and
    whether ours is strictly right of and above all of them, and beyond the model."""
    best = published.groupby("k")[["x", "y"]].max().rename(columns={"x": "published x (max)",
                                                                     "y": "published y (max)"})
    out = ours[["k", "x", "y", "beyond_model"]].merge(best, left_on="k", right_index=True, how="inner")
    out["right of all"] = out["x"] > out["published x (max)"]
    out["above all"] = out["y"] > out["published y (max)"]
    out = out.rename(columns={"beyond_model": "beyond the model"})
    return out[["k", "x", "y", "published x (max)", "published y (max)", "right of all", "above all",
                "beyond the model"]].sort_values("k").reset_index(drop=True)


__all__ = ["AGAINST_ORIGINAL_COLUMNS", "AGAINST_ORIGINAL_FILE", "AGAINST_ORIGINAL_KEY", "RECORD_COLUMNS",
           "SORTED_RULE_COLUMNS", "SORTED_RULE_FILE", "ablation_costs", "against_original", "against_published", "bench_table", "load_metrics", "load_records",
           "reference_timings", "scaling_table", "contention_bound", "shard_contention", "sorted_rule", "study_rows", "sweep_timings"]


#: MetaHipMer's ``ht_loc`` beside ``lassm extend`` (:mod:`lassm.campaign.originals.ht_loc`): one row per
#: dataset and program (the contract's columns, ``book/data-contract.md``; ``original_source`` and
#: ``nvcc`` were added at the end, so older tables read with them empty).
AGAINST_ORIGINAL_FILE = "against-original.csv"
AGAINST_ORIGINAL_COLUMNS: tuple[str, ...] = (
    "machine", "device", "driver", "dataset", "k", "program", "whole_seconds", "whole_runs", "kernel_seconds",
    "kernel_launches", "walk_kernel_seconds", "outputs_equal", "git_sha", "command", "original_source", "nvcc")
AGAINST_ORIGINAL_KEY: tuple[str, ...] = ("dataset", "k", "program")


def against_original(machine: str) -> pd.DataFrame | None:
    """``against-original.csv`` of ``machine`` as one row per dataset, or None: ``dataset``, ``k``,
    ``original_whole_s``, ``lassm_whole_s``, ``whole_ratio``, ``original_kernel_s``,
    ``lassm_kernel_s``, ``kernel_ratio``, ``walk_kernel_ratio`` (the walk kernel alone; NaN where
    not recorded), ``outputs_equal``, and ``git_sha`` where recorded."""
    path = paths.results_dir(machine) / AGAINST_ORIGINAL_FILE
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    df["who"] = df["program"].map(lambda p: "original" if p.startswith("original") else "lassm")
    wide = df.pivot_table(index=["dataset", "k"], columns="who", values=["whole_seconds", "kernel_seconds"])
    out = pd.DataFrame({"original_whole_s": wide[("whole_seconds", "original")],
                        "lassm_whole_s": wide[("whole_seconds", "lassm")],
                        "original_kernel_s": wide[("kernel_seconds", "original")],
                        "lassm_kernel_s": wide[("kernel_seconds", "lassm")]})
    out["whole_ratio"] = out["lassm_whole_s"] / out["original_whole_s"]
    out["kernel_ratio"] = out["lassm_kernel_s"] / out["original_kernel_s"]
    if "walk_kernel_seconds" in df:
        walk = df.pivot_table(index=["dataset", "k"], columns="who", values="walk_kernel_seconds")
        out["walk_kernel_ratio"] = walk["lassm"] / walk["original"]
    else:  # recorded before the walk kernel was timed apart
        out["walk_kernel_ratio"] = float("nan")
    out["outputs_equal"] = df.groupby(["dataset", "k"])["outputs_equal"].all()
    if "git_sha" in df:  # which code ran: a row of an earlier commit ran an earlier kernel
        out["git_sha"] = df.groupby(["dataset", "k"])["git_sha"].agg(lambda s: ",".join(sorted(set(map(str, s)))))
    return out.reset_index()


def against_original_device(machine: str) -> str:
    """The GPU that ``machine``'s ``against-original.csv`` rows ran on (one per folder: the
    writer refuses another device's rows), or "" where the folder has none."""
    path = paths.results_dir(machine) / AGAINST_ORIGINAL_FILE
    if not path.is_file():
        return ""
    df = pd.read_csv(path)
    devices = df["device"].dropna().unique() if "device" in df else []
    return str(devices[0]) if len(devices) else ""


def against_original_machines() -> list[str]:
    """Results folders that hold an ``against-original.csv``, sorted: a machine chapter's, and a
    host's folder of a model (:mod:`lassm.runs.host`) that may hold only that table."""
    return sorted(p.parent.name for p in _results_root().glob(f"*/{AGAINST_ORIGINAL_FILE}")
                  if not p.parent.name.startswith("_"))  # as the other listings: "_" folders are scratch


#: fast's sorted build timed sorting up to two values of k (``lassm measure fast-knobs --sort-max-k``).
SORTED_RULE_FILE = "sorted-rule.csv"
SORTED_RULE_COLUMNS: tuple[str, ...] = ("machine", "device", "driver", "dataset", "build", "sort_max_k", "kernel_ms",
                                        "outputs_equal", "git_sha", "command")


def sorted_rule(machine: str) -> pd.DataFrame | None:
    """``sorted-rule.csv`` of ``machine`` as one row per dataset (None where absent): the median
    kernel ms at the smallest and the largest ``sort_max_k`` timed, and their ratio (below 1: sorting
    to the larger k pays). Every output must have equalled the oracle's; a row that did not is refused."""
    path = paths.results_dir(machine) / SORTED_RULE_FILE
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    if tuple(df.columns) != SORTED_RULE_COLUMNS or not df["outputs_equal"].astype(bool).all():
        raise LassmError(f"{path}: not a sorted-rule table whose outputs all equal the oracle's")
    lo, hi = int(df["sort_max_k"].min()), int(df["sort_max_k"].max())
    wide = df.pivot_table(index="dataset", columns="sort_max_k", values="kernel_ms", aggfunc="median")
    out = pd.DataFrame({"low_k": lo, "high_k": hi, "low_ms": wide[lo], "high_ms": wide[hi]})
    out["ratio"] = out["high_ms"] / out["low_ms"]
    return out.reset_index()


#: A GPU command's first call against its warm calls (``lassm measure first-call``), per machine.
FIRST_CALL_FILE = "first-call.csv"


def first_call(machine: str) -> pd.DataFrame | None:
    """``first-call.csv`` of ``machine`` (None where absent): per command and start (``empty``: no
    kernel cache; ``built ahead``: ``lassm build-kernels`` first), the first call's and the warm
    calls' median seconds, their ratio, and the build's seconds."""
    path = paths.results_dir(machine) / FIRST_CALL_FILE
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    return df[["command", "dataset", "start", "build_seconds", "first_seconds", "warm_seconds", "first_over_warm"]]

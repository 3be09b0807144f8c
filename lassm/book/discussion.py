# SPDX-License-Identifier: BSD-3-Clause
"""The tables behind the discussion chapter (``notebooks/discussion.ipynb``): whether a larger L2
helps (H100 against H200), whether our datasets fill a GPU, whether synthetic inputs behave like
real ones. Each reads the committed records through the chapters' functions and is empty where
they are absent; :func:`facts` phrases them."""
from __future__ import annotations

import pandas as pd

from . import machines as mach
from .prose import span
from ..analysis import derive
from ..analysis.machine import load_machines
from ..runs import results

#: What a sentence says where no value was measured.
_NOT_MEASURED = "not measured"

#: The faithful kernel and the optimized one (lassm.book.across.VARIANTS).
FAITHFUL, FAST = "casptr", "fast"
#: Prefixes of the generated (Table II-sized) and the real-genome datasets.
GENERATED, REAL = "gen-k", "real-mock5-k"


def _gpu_machines() -> list[str]:
    """Machine folders with a GPU spec row in data/machines.csv and counters."""
    out = []
    for name in mach.chapter_machines():
        if mach.spec_row(mach.device(name)) and mach.metrics(name) is not None:
            out.append(name)
    return out


def caches(machines: list[str] | None = None) -> pd.DataFrame:
    """Per profiled GPU (``machines``, default every one with counters and a datasheet row) and
    generated dataset: ``machine, device, l2_mb, hbm_bandwidth_gbs, dataset, k``, then per variant
    ``<v> ms``, ``<v> B/ins`` (DRAM bytes per start-k insertion) and ``<v> L2/DRAM``."""
    sheet = load_machines().set_index("machine")
    rows = []
    for name in _gpu_machines() if machines is None else machines:
        spec = sheet.loc[mach.spec_row(mach.device(name))]
        per = derive.per_insertion(name)
        t = mach.times(name)
        per = per[per["dataset"].str.startswith(GENERATED)]
        for dataset, part in per.groupby("dataset"):
            row = {"machine": name, "device": mach.device(name), "l2_mb": float(spec["l2_mb"]),
                   "hbm_bandwidth_gbs": float(spec["hbm_bandwidth_gbs"]), "dataset": dataset,
                   "k": int(part["k"].iloc[0])}
            for v in (FAITHFUL, FAST):
                p = part[part["protocol"] == v]
                ms = t[(t["dataset"] == dataset) & (t["protocol"] == v)]["kernel_ms"]
                row[f"{v} ms"] = float(ms.min()) if len(ms) else float("nan")
                row[f"{v} B/ins"] = float(p["bytes_per_insertion"].iloc[0]) if len(p) else float("nan")
                row[f"{v} L2/DRAM"] = float(p["l2_bytes"].iloc[0] / p["dram_bytes"].iloc[0]) if len(p) else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def cache_pair(table: pd.DataFrame) -> pd.DataFrame:
    """The larger-L2 GPU over the smaller, per dataset (empty unless two GPUs differ in L2): ``dataset,
    k``, the devices, ``l2 ratio``, ``bandwidth ratio`` and the ratios of ``casptr ms``,
    ``casptr B/ins``, ``fast ms``."""
    if table.empty or table["l2_mb"].nunique() < 2:
        return pd.DataFrame()
    small, large = (table.sort_values("l2_mb")["machine"].iloc[i] for i in (0, -1))
    a = table[table["machine"] == small].set_index("dataset")
    b = table[table["machine"] == large].set_index("dataset")
    both = a.index.intersection(b.index)
    out = pd.DataFrame({"k": a.loc[both, "k"], "smaller L2": a.loc[both, "device"], "larger L2": b.loc[both, "device"],
                        "l2 ratio": b.loc[both, "l2_mb"] / a.loc[both, "l2_mb"],
                        "bandwidth ratio": b.loc[both, "hbm_bandwidth_gbs"] / a.loc[both, "hbm_bandwidth_gbs"]})
    for col in (f"{FAITHFUL} ms", f"{FAITHFUL} B/ins", f"{FAST} ms"):
        out[col] = b.loc[both, col] / a.loc[both, col]
    return out.reset_index().sort_values("k").reset_index(drop=True)


def fill() -> pd.DataFrame:
    """Contig ends (one warp each) per compute unit, per dataset with a record: ``dataset,
    contig_ends``, then one column per GPU machine."""
    sheet = load_machines().set_index("machine")
    try:
        rec = results.load_records()
    except Exception:  # no records at all: nothing to tabulate
        return pd.DataFrame()
    if "contig_ends" not in rec:
        return pd.DataFrame()
    ends = rec.dropna(subset=["contig_ends"]).groupby("dataset")["contig_ends"].max().astype(int)
    out = ends.rename("contig_ends").to_frame()
    for name in _gpu_machines():
        cus = float(sheet.loc[mach.spec_row(mach.device(name)), "compute_units"])
        out[f"per SM, {mach.device(name)}"] = out["contig_ends"] / cus
    return out.reset_index().sort_values("contig_ends").reset_index(drop=True)


def synthetic_vs_real(machine: str) -> pd.DataFrame:
    """Generated (Table II-sized) against real-genome datasets at the same k on one machine: ``k``, per
    variant ``<v> B/ins gen`` and ``<v> B/ins real``; empty where either kind is missing."""
    if machine not in _gpu_machines():
        return pd.DataFrame()
    per = derive.per_insertion(machine)
    rows = []
    for k in sorted(per["k"].unique()):
        row: dict[str, float] = {"k": int(k)}
        for v in (FAITHFUL, FAST):
            for kind, prefix in (("gen", GENERATED), ("real", REAL)):
                p = per[(per["dataset"] == f"{prefix}{k}") & (per["protocol"] == v)]
                row[f"{v} B/ins {kind}"] = float(p["bytes_per_insertion"].iloc[0]) if len(p) else float("nan")
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.dropna(subset=[f"{FAITHFUL} B/ins gen", f"{FAITHFUL} B/ins real"]).reset_index(drop=True)


def ranking(protocols: tuple[str, ...] = ("barrier", "casptr", "doneflag", "matchany")) -> pd.DataFrame:
    """The faithful ``protocols`` ordered by kernel time per GPU machine and dataset where all ran:
    ``machine, dataset, order`` (fastest first, joined by " < ")."""
    rows = []
    for name in _gpu_machines():
        t = mach.times(name)
        t = t[t["protocol"].isin(protocols)]
        for dataset, part in t.groupby("dataset"):
            if set(part["protocol"]) == set(protocols):
                order = part.sort_values("kernel_ms")["protocol"]
                rows.append({"machine": name, "dataset": dataset, "order": " < ".join(order)})
    return pd.DataFrame(rows, columns=["machine", "dataset", "order"])


def counter_definitions() -> pd.DataFrame:
    """Which profiler metric stands for each canonical quantity (``data/metric-names.csv``): one row per
    quantity, one column per vendor (``tool: metric``, empty where none)."""
    from ..datafiles import data_csv, read_data_csv

    names = read_data_csv(data_csv("metric-names.csv"))
    names["metric"] = names["tool"] + ": " + names["metric"]
    return names.groupby(["quantity", "vendor"])["metric"].agg("; ".join).unstack("vendor").fillna("")


def facts(pair: pd.DataFrame, fill_table: pd.DataFrame, synth: pd.DataFrame,
          ranks: pd.DataFrame | None = None) -> dict[str, str]:
    """The phrases the discussion quotes (``di_*`` keys), each with a fallback where data lack."""
    out: dict[str, str] = {}
    if ranks is None or ranks.empty:
        out.update(di_rank="not measured: no GPU ran every faithful protocol on one dataset", di_rank_n="0")
    else:
        orders = ranks["order"].unique()
        out["di_rank_n"] = f"{len(ranks):d}"
        out["di_rank"] = (f"the same on all of them: {orders[0]}" if len(orders) == 1 else
                          f"not the same: {len(orders):d} different orders")
    if pair.empty:
        out.update(di_small="the smaller-L2 GPU", di_large="the larger-L2 GPU", di_l2="not measured",
                   di_bw="not measured", di_casptr_bytes="not measured", di_casptr_ms="not measured",
                   di_fast_ms="not measured")
    else:
        out.update(di_small=str(pair["smaller L2"].iloc[0]), di_large=str(pair["larger L2"].iloc[0]),
                   di_l2=span(pair["l2 ratio"], ".2f", _NOT_MEASURED) + "×",
                   di_bw=span(pair["bandwidth ratio"], ".2f", _NOT_MEASURED) + "×",
                   di_casptr_bytes=span(pair[f"{FAITHFUL} B/ins"], ".2f", _NOT_MEASURED),
                   di_casptr_ms=span(pair[f"{FAITHFUL} ms"], ".2f", _NOT_MEASURED),
                   di_fast_ms=span(pair[f"{FAST} ms"], ".2f", _NOT_MEASURED))
    if fill_table.empty:
        out.update(di_fill_min="not measured", di_fill_max="not measured", di_fill_small="none")
    else:
        per = [c for c in fill_table if c.startswith("per SM")]
        lowest = fill_table.iloc[0]
        out["di_fill_min"] = f"{int(lowest['contig_ends']):,d} ({lowest['dataset']})"
        out["di_fill_max"] = f"{int(fill_table['contig_ends'].iloc[-1]):,d} ({fill_table['dataset'].iloc[-1]})"
        small = fill_table[(fill_table[per] < 1).any(axis=1)]["dataset"] if per else pd.Series([], dtype=str)
        out["di_fill_small"] = ", ".join(small) or "none"
    if synth.empty:
        out.update(di_synth_fast="not measured", di_synth_casptr="not measured")
    else:
        for key, variant, fmt in (("di_synth_fast", FAST, ".0f"), ("di_synth_casptr", FAITHFUL, ".2f")):
            ratio = synth[f"{variant} B/ins real"] / synth[f"{variant} B/ins gen"]
            out[key] = span(ratio, fmt, _NOT_MEASURED) + "×"
    return out


__all__ = ["FAITHFUL", "FAST", "cache_pair", "caches", "counter_definitions", "facts", "fill", "ranking", "synthetic_vs_real"]

# SPDX-License-Identifier: BSD-3-Clause
"""The tables and numbers of the protocols page (``book/kernel-protocols.ipynb``), from the records.

Every number of the page's "What it costs" tables comes from the machine's records (the
published ``doneflag`` race in ``published-race.csv``), as in the chapters.
"""
from __future__ import annotations

import re

import pandas as pd

from . import machines as mach
from .prose import span
from .. import paths
from ..errors import LassmError
from ..runs import results

#: The machine whose records the page quotes, and the input both tables use.
MACHINE = "nvidia-h100-80gb-hbm3"
DATASET, K = "sample-k77x20", 77
#: The faithful protocols, in the page's order.
PROTOCOLS = ("casptr", "matchany", "doneflag", "barrier")
NOT_MEASURED = "not measured"


def race_records(machine: str = MACHINE) -> pd.DataFrame:
    """``published-race.csv``: each run of a fixed and a published build (``lassm measure published-race``)."""
    path = paths.results_dir(machine) / "published-race.csv"
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _wrong(values: pd.Series) -> str:
    runs = [int(v) for v in values]
    return f"{runs[0]} in every run" if len(set(runs)) == 1 and runs[0] else ", ".join(map(str, runs))


def race_table(machine: str = MACHINE) -> pd.DataFrame:
    """Fixed against published per protocol and start k: median kernel ms of each build and the
    wrong contig ends of each published run."""
    r = race_records(machine)
    if r.empty:
        return pd.DataFrame({"": [f"no published-race.csv for {machine}"]})
    rows = []
    for (dataset, protocol, k), g in r.groupby(["dataset", "protocol", "k"], sort=False):
        fixed, pub = g[g["build"] == "fixed"], g[g["build"] == "published"]
        rows.append({"dataset": dataset, "protocol": f"`{protocol}`", "start k": int(k),
                     "contig ends": f"{int(g['contig_ends'].iloc[0]):,}",
                     "fixed (ms)": round(fixed["kernel_seconds"].median() * 1e3, 1),
                     "as published (ms)": round(pub["kernel_seconds"].median() * 1e3, 1),
                     "wrong contig ends, published (per run)": _wrong(pub["wrong_ends"])})
    return pd.DataFrame(rows).sort_values(["start k", "protocol"], ascending=[False, True]).reset_index(drop=True)


def _cuda_rows(machine: str) -> pd.DataFrame | str:
    """The machine's CUDA campaign rows on the page's input, or why there are none."""
    try:
        t = mach.times(machine)
    except LassmError as exc:  # no run records on this machine
        return str(exc)
    return t[(t["dataset"] == DATASET) & (t["k"] == K) & (t["backend"] == "cuda")]


def fixed_table(machine: str = MACHINE) -> pd.DataFrame:
    """Every faithful protocol, fixed, on the page's input: the campaign's median kernel ms and
    the CPU oracle's time over it, on the same machine."""
    t = _cuda_rows(machine)
    if isinstance(t, str):
        return pd.DataFrame({"": [t]})
    t = t[t["protocol"].isin(PROTOCOLS)]
    order = {p: i for i, p in enumerate(PROTOCOLS)}
    t = t.sort_values("protocol", key=lambda s: s.map(order))
    return pd.DataFrame({"protocol": [f"`{p}`" for p in t["protocol"]], "kernel ms": t["kernel_ms"].round(1).to_numpy(),
                         "CPU / GPU": t["oracle_over_ours"].round(1).to_numpy()})


def facts(machine: str = MACHINE) -> dict[str, str]:
    """The page's glued spans; ``not measured`` where the records lack them."""
    copies = re.search(r"x(\d+)$", DATASET)
    out = {"kp_copies": copies.group(1) if copies else "1", "kp_device": NOT_MEASURED, "kp_race_sha": NOT_MEASURED,
           "kp_saving": NOT_MEASURED, "kp_doneflag_per_copy": NOT_MEASURED, "kp_cpu_ms": NOT_MEASURED,
           "kp_campaign_sha": NOT_MEASURED, "kp_original_ms": NOT_MEASURED}
    r = race_records(machine)
    if not r.empty:
        out["kp_device"] = str(r["device"].iloc[0])
        out["kp_race_sha"] = str(r["git_sha"].iloc[0])[:7]
        med = r.groupby(["protocol", "k", "build"])["kernel_seconds"].median().unstack("build")
        out["kp_saving"] = span(1.0 - med["fixed"] / med["published"], ".0%")
        done = r[(r["protocol"] == "doneflag") & (r["build"] == "published") & (r["k"] == K)]
        if len(done) and done["dataset"].iloc[0] == DATASET:
            out["kp_doneflag_per_copy"] = f"{done['wrong_ends'].median() / int(out['kp_copies']):g}"
    t = _cuda_rows(machine)
    if not isinstance(t, str) and len(t):
        out["kp_cpu_ms"] = f"{t['oracle_ms'].iloc[0]:,.0f}"
    pts = mach.campaign_points(machine)  # the commit of the run that measured the table's points
    mine = pts[(pts["dataset"] == DATASET) & (pts["k"] == K) & (pts["backend"] == "cuda") & pts["protocol"].isin(PROTOCOLS)]
    shas = sorted({str(sha)[:7] for sha in mine["git_sha"].dropna()})
    if shas:
        out["kp_campaign_sha"] = ", ".join(shas)
    side = results.against_original(machine)
    if side is not None:
        row = side[side["dataset"] == DATASET]
        if len(row):
            out["kp_original_ms"] = f"{row['original_kernel_s'].iloc[0] * 1e3:.0f}"
    return out


__all__ = ["facts", "fixed_table", "race_records", "race_table"]

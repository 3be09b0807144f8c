# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop chapter's tables, charts and sentences (``notebooks/xdrop.ipynb``).

Every number of the prose comes from :func:`facts` as formatted text, so a machine without
X-drop records gets sentences that say so, not an error. Measures are
:mod:`lassm.analysis.xdrop`'s; LOGAN's numbers are always labelled as the paper's or the
repository's. The layouts' ablation is :mod:`.xdrop_lanes_section`'s.

This module is over 500 lines because it is the one chapter's whole account: :func:`facts` is
the one dict of every name the notebook glues (a test holds the notebook's glue names against
it), and each section's table, chart and facts sit beside the facts they feed."""
from __future__ import annotations

import json

import pandas as pd

from . import best, palette, plots
from .machines import platform_of, pool_by_device, spec_row
from .prose import span
from .. import paths
from ..analysis import derive
from ..analysis.machine import load_machines
from ..analysis.xdrop import measures, published, checked_records
from ..analysis.xdrop.layouts import family
from ..errors import LassmError
from .xdrop_common import GPU_BACKENDS, NOT_MEASURED, fmt, kernel_device, layouts_text, times
from .xdrop_lanes_section import LANES_PROGRAM, lanes_facts

#: Our kernel's program name in ``counters.csv``, and LOGAN's.
OUR_PROGRAM, LOGAN_PROGRAM = "lassm cuda", "LOGAN"
#: Local assembly's points on the shared roofline: the optimized variant and the faithful
#: protocol the study's chapters use most.
LA_PROTOCOLS = ("fast", "casptr")
#: "Near-optimal", made testable: within this fraction of the roof (the paper gives no number).
NEAR_OPTIMAL = 0.8


def all_times() -> pd.DataFrame:
    """Every machine's ``times.csv`` with GCUPS and speed-ups, for the across-machines table."""
    return measures.gcups(checked_records.load_all("times"))


def across_table() -> pd.DataFrame:
    """Every machine's X-drop times in one table: device, dataset, X, backend, the kernel's layout
    (two machines' rows compare kernels only where it is the same), seconds, GCUPS, speed-ups."""
    cols = ["machine", "device", "dataset", "xdrop", "backend", "layout", "seconds", "gcups", "speedup_vs_seqan",
            "speedup_vs_cpu"]
    t = all_times()
    return t[cols].assign(xdrop=t["xdrop"].astype(int)) if len(t) else t[cols]


def ceilings(machine: str) -> dict | None:
    """The machine's measured ceilings, or None where ``ceilings.json`` is absent."""
    try:
        return derive.load_ceilings(machine)
    except LassmError:
        return None


def roofline_metrics(machine: str) -> pd.DataFrame:
    """:func:`lassm.analysis.xdrop.measures.counter_metrics` of ``machine`` (empty without counters or ceilings)."""
    counters = checked_records.load(machine, "counters")
    roof = ceilings(machine)
    if counters.empty or roof is None:
        return pd.DataFrame()
    return measures.counter_metrics(counters, roof, checked_records.load(machine, "times"))


def against(machine: str) -> pd.DataFrame:
    """LOGAN's demo beside our kernel on ``machine`` (:func:`lassm.analysis.xdrop.measures.against_logan`)."""
    return measures.against_logan(checked_records.load(machine, "against"))


def gcups_table(machine: str) -> pd.DataFrame:
    """GCUPS per X (rows) and backend, with the GPU's and the oracle's speed-ups: the chapter's first table."""
    t = times(machine)
    if t.empty:
        return pd.DataFrame({"": [f"no X-drop times recorded for {machine}"]})
    t = t.assign(xdrop=t["xdrop"].astype(int))
    index = ["dataset", "scoring", "xdrop"] if t["scoring"].nunique() > 1 else ["dataset", "xdrop"]
    out = t.pivot_table(index=index, columns="backend", values="gcups", dropna=False)
    out.columns = [f"{b} GCUPS" for b in out.columns]
    for backend, base, col in ([(b, "SeqAn", "speedup_vs_seqan") for b in GPU_BACKENDS]
                               + [(b, "oracle", "speedup_vs_cpu") for b in GPU_BACKENDS]
                               + [(measures.ORACLE, "SeqAn", "speedup_vs_seqan")]):
        rows = t[t["backend"] == backend].set_index(index)[col]
        if len(rows):
            out[f"{backend} over {base}"] = rows
    return out.reset_index()


def show_gcups(machine: str):
    """The GCUPS chart as SVG, or a note where the machine has no X-drop times."""
    chart = gcups_chart(machine)
    return NOT_MEASURED + f": no X-drop times for {machine}" if chart is None else plots.to_svg(chart, "GCUPS per X")


def published_table() -> pd.DataFrame:
    """LOGAN's Table II with its speed-ups, as printed (the paper's numbers, not ours)."""
    t2 = published.table2()
    threads, gpus = int(published.SETUP["seqan_threads"]), int(published.SETUP["gpus_table2"])
    return t2[["xdrop", "seqan", "logan_1gpu", "logan_multi", "speedup_logan_1gpu", "speedup_logan_multi"]].rename(
        columns={"xdrop": "X", "seqan": f"SeqAn {threads} threads [s]", "logan_1gpu": "LOGAN 1 V100 [s]",
                 "logan_multi": f"LOGAN {gpus} V100 [s]", "speedup_logan_1gpu": "speed-up 1 GPU",
                 "speedup_logan_multi": f"speed-up {gpus} GPUs"})


def _la_points(machine: str, roof: str) -> pd.DataFrame:
    path = paths.results_dir(machine) / "metrics.csv"
    if not path.is_file():
        return pd.DataFrame()
    m = pd.read_csv(path)
    m = m[m["protocol"].isin(LA_PROTOCOLS)] if "protocol" in m else m.iloc[0:0]
    if "backend" in m:
        m = m[m["backend"].astype(str) == "cuda"]
    return pd.DataFrame({"label": "local assembly " + m["protocol"].astype(str) + ", " + m["dataset"].astype(str),
                         "ii": m["ii"], "gintops": m["gintops"], "kernel": "local assembly",
                         "program": "lassm " + m["protocol"].astype(str), "roof": roof})


def roofline_data(machine: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two kernels' shared roofline with LOGAN's V100 points: ``roofs`` (``roof, peak,
    bandwidth``: the machine's measured roof, named by device, and ``xdrop.m``'s V100 roof) and
    ``points`` (``label, ii, gintops, kernel, program, roof``; ``lanes=N`` builds left to their own
    chart)."""
    roof_rows = [published.v100_roof()]
    frames = []
    roof = ceilings(machine)
    if roof is not None:
        measured = f"{kernel_device(times(machine)) or machine} (measured)"
        roof_rows.insert(0, pd.DataFrame({"roof": [measured], "peak": [roof["peak_gintops"]],
                                          "bandwidth": [roof["bandwidth_gbs"]]}))
        frames.append(_la_points(machine, measured))
        m = roofline_metrics(machine)
        m = m[~m["program"].astype(str).str.startswith(LANES_PROGRAM)] if len(m) else m  # the layouts: own chart
        if len(m):
            program = _by_layout(m["program"], m["layout"])  # one colour per kernel that ran
            frames.append(pd.DataFrame({"label": "X-drop " + program + ", X=" + m["xdrop"].astype(int).astype(str),
                                        "ii": m["ii"], "gintops": m["gintops"], "kernel": "X-drop",
                                        "program": program, "roof": measured}))
    v = published.v100_roofline()
    frames.append(pd.DataFrame({"label": "LOGAN (published), X=" + v["xdrop"].astype(str), "ii": v["ii"],
                                "gintops": v["gintops"], "kernel": "X-drop", "program": "LOGAN on V100 (published)",
                                "roof": published.v100_roof()["roof"].iloc[0]}))
    points = pd.concat([f for f in frames if len(f)], ignore_index=True)
    return pd.concat(roof_rows, ignore_index=True), points


def roofline_chart(machine: str):
    """The shared roofline as an Altair chart (:func:`lassm.book.plots.roofline`)."""
    roofs, points = roofline_data(machine)
    return plots.roofline(roofs, points, color="program", shape="kernel",
                          title="Two kernels, one roofline: local assembly and X-drop")


def gcups_chart(machine: str):
    """GCUPS per X and backend, log-log (one line per backend); None without times."""
    t = times(machine)
    if t.empty:
        return None
    t = t.assign(build=t["backend"] + " (" + t["layout"].map(family) + ")")  # one line per kernel that ran
    alt = plots._alt()
    return alt.Chart(t).mark_line(point=True).encode(
        x=alt.X("xdrop:Q", scale=alt.Scale(type="log"), title="X"),
        y=alt.Y("gcups:Q", scale=alt.Scale(type="log"), title="GCUPS"),
        color=alt.Color("build:N", title="backend (layout)"),
        strokeDash=alt.StrokeDash("dataset:N", title="dataset", legend=palette.dash_legend()),
        tooltip=["dataset", "xdrop", "backend", "layout", alt.Tooltip("gcups:Q", format=".3g")],
    ).properties(width=plots.WIDTH_PX, height=plots.HEIGHT_PX, title=f"GCUPS per X on the {kernel_device(t) or machine}")


def speedup_points(machine: str) -> pd.DataFrame:
    """Both kernels' potential-speedup points within the model (x, y in (0, 1]): ``label, x, y,
    speedup, kernel, program``; X-drop's from :func:`roofline_metrics` (layout builds aside), local
    assembly's (``fast``, ``casptr``) from ``metrics.csv``."""
    frames = []
    m = roofline_metrics(machine)
    m = m[~m["program"].astype(str).str.startswith(LANES_PROGRAM)] if len(m) else m  # the layouts: own chart
    if len(m) and "x" in m:
        program = _by_layout(m["program"], m["layout"])
        frames.append(pd.DataFrame({"label": "X-drop " + program + ", X=" + m["xdrop"].astype(int).astype(str),
                                    "x": m["x"], "y": m["y"], "speedup": m["speedup"], "kernel": "X-drop",
                                    "program": program}))
    path = paths.results_dir(machine) / "metrics.csv"
    if path.is_file():
        la = pd.read_csv(path)
        if {"x", "y", "speedup", "protocol"} <= set(la.columns):
            la = la[la["protocol"].isin(LA_PROTOCOLS)]
            frames.append(pd.DataFrame({"label": "local assembly " + la["protocol"] + ", " + la["dataset"].astype(str),
                                        "x": la["x"], "y": la["y"], "speedup": la["speedup"],
                                        "kernel": "local assembly", "program": "lassm " + la["protocol"]}))
    pts = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["label", "x", "y", "speedup"])
    inside = (pts["x"] > 0) & (pts["x"] <= 1) & (pts["y"] > 0) & (pts["y"] <= 1)
    return pts[inside].reset_index(drop=True)


def show_speedup(machine: str):
    """The potential-speedup plot of both kernels as SVG, or a note where no point is within the model."""
    pts = speedup_points(machine)
    if pts.empty:
        return NOT_MEASURED + f": no point of {machine} lies within the model"
    return plots.to_svg(plots.potential_speedup(pts, color="program", shape="kernel",
                                                title="Potential speedup: local assembly and X-drop"),
                        "potential speedup of both kernels")


def portability(names: list[str] | None = None) -> pd.DataFrame:
    """Pennycook's PP of architectural efficiency over the machines with X-drop counters:
    ``problem, application, arch pp`` (empty without counters and ceilings).

    problem = (dataset, X), application = the program (ours with its layout, or LOGAN's), platform
    = the device, folders pooled (:func:`lassm.book.machines.pool_by_device`). Points above their
    roof (arch eff > 1) are no efficiencies and are left out."""
    from ..analysis import portability as pp_metrics

    frames = []
    for machine in checked_records.machines() if names is None else names:
        m = roofline_metrics(machine)
        if len(m):
            frames.append(pd.DataFrame({"problem": m["dataset"].astype(str) + ", X=" + m["xdrop"].astype(int).astype(str),
                                        "application": _by_layout(m["program"], m["layout"]), "folder": machine,
                                        "device": m["device"] if "device" in m else machine,
                                        "duration_s": m["duration_s"], "arch eff": m["arch eff"]}))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if df.empty:
        return pd.DataFrame(columns=["problem", "application", "arch pp"])
    pooled = pool_by_device(df[df["arch eff"] <= 1.0], ["problem", "application"], "duration_s")
    return pp_metrics.pp(pooled[["problem", "application", "platform", "arch eff"]])


def _by_layout(programs: pd.Series, layout: pd.Series) -> pd.Series:
    """Our kernel's program named with the kernel that ran (``lassm cuda (block)``), so that no PP
    pools two layouts as one application; other programs (LOGAN's, a forced layout's) as they are."""
    ours = programs.astype(str) == OUR_PROGRAM
    return programs.astype(str).where(~ours, programs.astype(str) + " (" + layout.map(family) + ")")


#: ``times.csv``'s backends as the efficiency tables name them; SeqAn is the one not ours.
IMPLEMENTATIONS: dict[str, str] = {"cuda": OUR_PROGRAM, "opencl": "lassm opencl",
                                   measures.ORACLE: "lassm numba (oracle)", measures.SEQAN: "SeqAn"}


def _implementation(backend: str, layout: object) -> str:
    """An implementation as the efficiency tables name it: our GPU builds with the kernel that ran
    (``lassm cuda (lanes)``), so that a table never shows two kernels under one name."""
    name = IMPLEMENTATIONS[backend]
    return f"{name} ({family(layout)})" if backend in GPU_BACKENDS and pd.notna(layout) else name


def _problem(dataset: object, x: float | str) -> str:
    """A (set, X) as the PP tables name it."""
    return f"{dataset}, X={int(float(x))}"


def implementations(names: list[str] | None = None) -> pd.DataFrame:
    """Every X-drop implementation measured, as :data:`lassm.book.best.COLUMNS` rows with ``folder``:
    per device and (set, X), each oracle-equal backend of ``times.csv`` (:data:`IMPLEMENTATIONS`)
    and LOGAN's kernel from ``against-logan.csv``, a device's folders pooled to the least time.

    LOGAN is timed beside our CUDA kernel by Nsight Compute, ``times.csv`` by events: where
    ``times.csv`` has our kernel in the layout that ran beside LOGAN, LOGAN is carried onto its clock
    (:func:`lassm.book.best.carried`); elsewhere the pair stands on Nsight Compute's clock."""
    rows = []
    for machine in checked_records.machines() if names is None else names:
        t = checked_records.load(machine, "times")
        if len(t):
            t = t[t["matches_oracle"].fillna(False).astype(bool) & t["backend"].isin(list(IMPLEMENTATIONS))]
        rows += [{"problem": _problem(r.dataset, r.xdrop), "device": r.device, "application": IMPLEMENTATIONS[r.backend],
                  "implementation": _implementation(r.backend, r.layout), "ours": r.backend != measures.SEQAN,
                  "seconds": float(r.seconds), "folder": machine} for r in t.itertuples()]
        side = against(machine)
        if side.empty:
            continue
        device = str(checked_records.load(machine, "against")["device"].iloc[0])
        cuda = t[t["backend"] == "cuda"] if len(t) else t
        anchor = {(str(d), int(float(x)), str(lay)): float(s) for d, x, lay, s in
                  zip(cuda.get("dataset", []), cuda.get("xdrop", []), cuda.get("layout", []), cuda.get("seconds", []))}
        for r in side.itertuples():
            base = {"problem": _problem(r.dataset, r.xdrop), "device": device, "folder": machine}
            there = anchor.get((str(r.dataset), int(r.xdrop), str(r.layout)))  # carried only onto the same kernel
            if there is None:
                rows.append({**base, "application": OUR_PROGRAM, "implementation": _implementation("cuda", r.layout),
                             "ours": True, "seconds": float(r.ours_kernel_s)})
                logan = float(r.logan_kernel_s)
            else:
                logan = best.carried(there, float(r.kernel_ratio))
            rows.append({**base, "application": LOGAN_PROGRAM, "implementation": LOGAN_PROGRAM, "ours": False,
                         "seconds": logan})
    cols = [*best.COLUMNS, "folder"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    df["platform"] = platform_of(df["folder"], df["device"])
    df = df.sort_values("seconds", kind="stable").drop_duplicates(["problem", "platform", "implementation"])
    return df.sort_index()[cols].reset_index(drop=True)


def efficiency_table(names: list[str] | None = None) -> pd.DataFrame:
    """Per device and (set, X): the fastest implementation measured (``reference``) and each one's
    application efficiency against it (NaN: not measured there)."""
    eff = best.efficiency(implementations(names))
    if eff.empty:
        return pd.DataFrame(columns=["platform", "problem", "reference"])
    wide = eff.pivot_table(index=["platform", "problem", "reference"], columns="implementation", values="app eff",
                           aggfunc="max", sort=False)
    order = [c for name in [*IMPLEMENTATIONS.values(), LOGAN_PROGRAM] for c in sorted(wide.columns)
             if c == name or str(c).startswith(name + " (")]
    return wide[order].reset_index().rename_axis(columns=None)


#: Where each implementation can run at all: our CUDA kernel and LOGAN's on NVIDIA GPUs, the numba
#: oracle and SeqAn on CPUs; our OpenCL kernel (not listed) anywhere. Elsewhere its PP is 0; on a
#: device it can run on but was not measured on, "not measured".
RUNS_ON: dict[str, frozenset[str]] = {OUR_PROGRAM: frozenset({best.NVIDIA}), LOGAN_PROGRAM: frozenset({best.NVIDIA}),
                                      IMPLEMENTATIONS[measures.ORACLE]: frozenset({best.CPU}),
                                      IMPLEMENTATIONS[measures.SEQAN]: frozenset({best.CPU})}


def app_portability(names: list[str] | None = None) -> pd.DataFrame:
    """Pennycook's PP of each implementation per (set, X), application efficiency against the best
    measured, over the devices that measured that (set, X); wide: one PP column per implementation."""
    pp = best.portability(best.efficiency(implementations(names)), RUNS_ON)
    if pp.empty:
        return pd.DataFrame(columns=["problem", "devices"])
    wide = pp.pivot_table(index="problem", columns="application", values="PP", aggfunc="first", sort=False)
    order = [c for c in [*IMPLEMENTATIONS.values(), LOGAN_PROGRAM] if c in wide.columns]
    devices = pp.groupby("problem", sort=False)["ran on"].first().str.split(" of ").str[1]
    return wide[order].assign(devices=devices).reset_index().rename_axis(columns=None)


def int32_cores(device: str, multiprocessors: float | None) -> float | None:
    """C of LOGAN's Eq. 1 for a device: its SMs times the INT32 lanes per SM of its ``data/machines.csv`` row."""
    name = spec_row(str(device))
    if not multiprocessors or name is None:
        return None
    specs = load_machines()
    return float(multiprocessors) * float(specs.loc[specs["machine"] == name, "int32_lanes_per_cu"].iloc[0])


def pp_sentence(pps: pd.Series, platforms: int) -> str:
    """The architectural PP of our kernel in words: its span over the (dataset, X) profiled on every
    machine with counters, or "not measured" and why where no (dataset, X) was (a NaN PP is a
    point missing on one machine, never a measured 0)."""
    measured = pps.dropna()
    every = "both" if platforms == 2 else f"all {platforms:d}"
    if measured.empty:
        return (f"{NOT_MEASURED}: no (dataset, X) of it was profiled on {every} machines with X-drop "
                "counters, so none has an efficiency on each" if platforms > 1 else NOT_MEASURED)
    if platforms <= 1:
        return span(measured, ".1%")
    return f"{span(measured, '.1%')} over the {len(measured):d} (dataset, X) profiled on {every} of them"


def _published_facts() -> dict[str, str]:
    t2 = published.table2()
    head = published.headline_check().set_index("claim")
    v = published.v100_roofline()
    diff = published.readme_differences()
    return {
        "xd_pub_speedup_1gpu": span(t2["speedup_logan_1gpu"], ".1f"),
        "xd_pub_speedup_multi": span(t2["speedup_logan_multi"], ".1f"),
        "xd_pub_claim_1gpu": f"{published.HEADLINES['speedup_seqan_1gpu']:.1f}",
        "xd_pub_claim_6gpu": f"{published.HEADLINES['speedup_seqan_6gpu']:.1f}",
        "xd_pub_best_1gpu": f"{head.loc['speedup_seqan_1gpu', 'table_best']:.2f}",
        "xd_pub_best_1gpu_x": f"{head.loc['speedup_seqan_1gpu', 'best_xdrop']:d}",
        "xd_pub_match_1gpu_x": head.loc["speedup_seqan_1gpu", "matching_xdrop"] or "no X",
        "xd_pub_best_6gpu": f"{head.loc['speedup_seqan_6gpu', 'table_best']:.2f}",
        "xd_pub_best_6gpu_high": f"{head.loc['speedup_seqan_6gpu', 'best_high']:.2f}",
        "xd_pub_gcups": f"{published.HEADLINES['gcups_max']:.1f}",
        "xd_pub_readme_cells": f"{len(diff):d}",
        "xd_pub_peak": f"{published.V100_INT_WARP_GIPS:.1f}",
        "xd_pub_roof_gips": span(v["warp_gips"], ".0f"),
        "xd_pub_roof_share": span(v["warp_gips"] / published.V100_INT_WARP_GIPS, ".0%"),
        "xd_pub_roof_ii": span(v["warp_ii"], ",.0f"),
        "xd_pub_roof_pred": span(v["predication_ratio"], ".1%"),
        "xd_pub_hbm": f"{published.V100_HBM_GBS:.0f}",
        "xd_pub_pairs": f"{published.SETUP['pairs']:,.0f}",
        "xd_pub_lengths": f"{published.SETUP['min_bases']:,.0f} to {published.SETUP['max_bases']:,.0f}",
        "xd_pub_errors": f"{published.SETUP['error_rate']:.0%}",
        "xd_pub_threads": f"{published.SETUP['seqan_threads']:.0f}",
        "xd_pub_gpus": f"{published.SETUP['gpus_table2']:.0f}",
    }


def opencl_share(gpu: pd.DataFrame) -> pd.Series:
    """The OpenCL build's GCUPS over the CUDA build's, one value per (dataset, X, scoring, layout)
    both ran on this machine (the portability cost of the second programming model on one GPU);
    a point where the two ran different kernels (the lanes kernel on CUDA) is no such cost, and left out."""
    key = [c for c in ("dataset", "xdrop", "scoring", "layout") if c in gpu.columns]
    if gpu.empty:
        return pd.Series(dtype="float64")
    by = gpu.pivot_table(index=key, columns="backend", values="gcups", aggfunc="first")
    if not {"cuda", "opencl"} <= set(by.columns):
        return pd.Series(dtype="float64")
    return (by["opencl"] / by["cuda"]).dropna()


def host_device(t: pd.DataFrame) -> str | None:
    """The CPU that ran SeqAn (or the CPU oracle) in ``times`` rows: the host of the GPU."""
    for backend in (measures.SEQAN, "cpu"):
        rows = t[t["backend"] == backend] if len(t) else t
        if len(rows):
            return str(rows["device"].iloc[0])
    return None


def facts(machine: str) -> dict[str, str]:
    """Every number of the chapter's prose for folder ``machine``, glue name -> text;
    :data:`NOT_MEASURED` where the records lack it."""
    f = {"xd_machine": machine, "xd_machines": ", ".join(checked_records.machines()) or "none", **_published_facts()}
    t = times(machine)
    gpu = t[t["backend"].isin(GPU_BACKENDS)] if len(t) else t
    cuda = gpu[gpu["backend"] == "cuda"] if len(gpu) else gpu
    f["xd_device"] = kernel_device(t) or machine
    f["xd_layouts"] = layouts_text(cuda)
    f["xd_host"] = host_device(t) or NOT_MEASURED
    f["xd_points"] = f"{len(t):d}"
    f["xd_x_values"] = ", ".join(str(int(x)) for x in sorted(t["xdrop"].unique())) if len(t) else "none"
    f["xd_datasets"] = ", ".join(sorted(t["dataset"].astype(str).unique())) if len(t) else "none"
    f["xd_matches"] = (f"{int(t['matches_oracle'].sum()):d} of {len(t):d}" if len(t) else NOT_MEASURED)
    f["xd_gcups"] = span(cuda["gcups"], ".1f", NOT_MEASURED) if len(cuda) else NOT_MEASURED
    f["xd_gcups_max"] = fmt(cuda["gcups"].max() if len(cuda) else None, ".1f")
    share = opencl_share(gpu)
    f["xd_opencl_share"] = span(share, ".2f", NOT_MEASURED)
    f["xd_opencl_points"] = f"{len(share):d}"
    f["xd_speedup_seqan"] = span(cuda["speedup_vs_seqan"], ".1f", NOT_MEASURED) if len(cuda) else NOT_MEASURED
    f["xd_speedup_cpu"] = span(cuda["speedup_vs_cpu"], ".1f", NOT_MEASURED) if len(cuda) else NOT_MEASURED
    seqan_threads = t.loc[t["backend"] == measures.SEQAN, "threads"] if len(t) else pd.Series(dtype=str)
    f["xd_seqan_threads"] = ", ".join(sorted(set(seqan_threads.astype(str)))) or NOT_MEASURED
    if len(cuda):
        by_x = cuda.groupby("xdrop")["speedup_vs_seqan"].max().dropna()
        grows = len(by_x) > 1 and by_x.iloc[-1] > by_x.iloc[0]
        f["xd_grows"] = "grows" if grows else "does not grow"
        top = cuda["speedup_vs_seqan"].max()
        f["xd_claim_1gpu_holds"] = (NOT_MEASURED if pd.isna(top) else
                                    "reaches" if top >= published.HEADLINES["speedup_seqan_1gpu"] else "falls short of")
        f["xd_grows"] = f["xd_grows"] if len(by_x) > 1 else NOT_MEASURED
        f["xd_claim_gcups_holds"] = ("reaches" if cuda["gcups"].max() >= published.HEADLINES["gcups_max"]
                                     else "falls short of")
    else:
        f["xd_grows"] = f["xd_claim_1gpu_holds"] = f["xd_claim_gcups_holds"] = NOT_MEASURED
    m = roofline_metrics(machine)
    ours = m[m["program"] == OUR_PROGRAM] if len(m) else m
    f["xd_profiled"] = f"{len(ours):d}"
    f["xd_ii"] = span(ours["ii"], ",.0f", NOT_MEASURED) if len(ours) else NOT_MEASURED
    f["xd_arch_eff"] = span(ours["arch eff"], ".1%", NOT_MEASURED) if len(ours) else NOT_MEASURED
    f["xd_compute_bound"] = (f"{int((ours['bound'] == 'compute').sum()):d} of {len(ours):d}" if len(ours)
                             else NOT_MEASURED)
    f["xd_predication"] = span(ours["predication_ratio"], ".1%", NOT_MEASURED) if len(ours) else NOT_MEASURED
    f["xd_near_optimal"] = f"{NEAR_OPTIMAL:.0%}"
    f["xd_bound_verdict"] = (NOT_MEASURED if not len(ours) else
                             "holds" if bool((ours["bound"] == "compute").all()) else "does not hold")
    f["xd_near_verdict"] = (NOT_MEASURED if not len(ours) else
                            "holds" if bool((ours["arch eff"] >= NEAR_OPTIMAL).all()) else "does not hold")
    f["xd_side"] = (NOT_MEASURED + " (no counters recorded)" if not len(ours) else
                    "on the compute side of the ridge" if bool((ours["bound"] == "compute").all()) else
                    "on the memory side of the ridge" if bool((ours["bound"] == "memory").all()) else
                    "on both sides of the ridge")
    within = ours[~ours["beyond_model"].astype(bool)] if "beyond_model" in ours else ours.iloc[0:0]
    f["xd_potential"] = span(within["speedup"], ".1f", NOT_MEASURED) if len(within) else NOT_MEASURED
    f["xd_beyond"] = (f"{int(ours['beyond_model'].astype(bool).sum()):d} of {len(ours):d}"
                      if "beyond_model" in ours and len(ours) else NOT_MEASURED)
    pp = portability()
    profiled = sum(1 for name in checked_records.machines() if len(roofline_metrics(name)))
    f["xd_pp_platforms"] = f"{profiled:d}"
    ours_pp = pp.loc[pp["application"].astype(str).str.startswith(OUR_PROGRAM + " ("), "arch pp"] if len(pp) else pp
    f["xd_pp"] = pp_sentence(ours_pp, profiled)
    f["xd_alg_eff"] = (span(ours["alg eff"], ".2f", NOT_MEASURED) if "alg eff" in ours and len(ours) else NOT_MEASURED)
    logan = m[m["program"] == LOGAN_PROGRAM] if len(m) else m
    f["xd_logan_arch_eff"] = span(logan["arch eff"], ".1%", NOT_MEASURED) if len(logan) else NOT_MEASURED
    roof = ceilings(machine)
    f["xd_peak"] = fmt(roof["peak_gintops"] if roof else None, ",.0f")
    f["xd_balance"] = fmt(roof["peak_gintops"] / roof["bandwidth_gbs"] if roof else None, ".2f")
    f.update(_ceiling_facts(machine, roof, checked_records.load(machine, "counters"), t))
    a = against(machine)
    f["xd_against_points"] = f"{len(a):d}"
    f["xd_against_ratio"] = span(a["kernel_ratio"], ".2f", NOT_MEASURED) if len(a) else NOT_MEASURED
    f["xd_against_goal"] = (f"{int(a['goal_met'].sum()):d} of {len(a):d}" if len(a) else NOT_MEASURED)
    f["xd_against_whole"] = span(a["whole_ratio"], ".2f", NOT_MEASURED) if len(a) else NOT_MEASURED
    eff = best.efficiency(implementations())
    f["xd_reference"] = best.verdict(eff, "point")
    f["xd_app_devices"] = f"{eff['platform'].nunique():d}: {', '.join(dict.fromkeys(eff['platform']))}" if len(eff) else "none"
    f.update(lanes_facts(machine))
    return f


def _ceiling_facts(machine: str, roof: dict | None, counters: pd.DataFrame, t: pd.DataFrame) -> dict[str, str]:
    """LOGAN's Eq. 1 (our reading) on LOGAN's V100 run and on this machine, where B = the tasks of one
    launch (a left and a right per pair), T the kernel's block, C the INT32 lanes (SMs x lanes/SM)."""
    from ..backends.xdrop.xdrop_host import DEFAULT_GROUP

    v100 = measures.adapted_ceiling_span(published.V100_INT_WARP_GIPS, published.SETUP["pairs"],
                                         published.LOGAN_THREADS, published.V100_SMS * published.V100_INT32_PER_SM)
    out = {"xd_eq_threads": f"{DEFAULT_GROUP:d}", "xd_eq_v100": span(pd.Series(v100), ".1f"),
           "xd_eq_v100_blocks": f"{published.SETUP['pairs']:,.0f}", "xd_eq_v100_threads": f"{published.LOGAN_THREADS:d}",
           "xd_eq_v100_cores": f"{published.V100_SMS * published.V100_INT32_PER_SM:,d}"}
    ours = counters[counters["program"] == OUR_PROGRAM] if len(counters) else counters
    mp = None
    if roof is not None:
        mp = json.loads((paths.results_dir(machine) / "ceilings.json").read_text()).get("int32", {}).get("multiprocessors")
    cores = int32_cores(roof["device"], mp) if roof else None
    pairs = t.drop_duplicates("dataset").set_index("dataset")["n_pairs"] if len(t) else pd.Series(dtype=float)
    ours = ours[ours["dataset"].isin(pairs.index)] if len(ours) else ours
    if roof is None or cores is None or ours.empty:
        out.update({"xd_eq_blocks": NOT_MEASURED, "xd_eq_cores": fmt(cores, ",.0f"), "xd_eq_low": NOT_MEASURED,
                    "xd_eq_high": NOT_MEASURED})
        return out
    blocks = 2 * ours["dataset"].map(pairs).astype(float) / ours["launches"].astype(float)
    spans = [measures.adapted_ceiling_span(roof["peak_gintops"], b, DEFAULT_GROUP, cores) for b in blocks]
    out.update({"xd_eq_blocks": span(blocks, ",.0f"), "xd_eq_cores": f"{cores:,.0f}",
                "xd_eq_low": f"{min(lo for lo, _ in spans):,.0f}", "xd_eq_high": f"{max(hi for _, hi in spans):,.0f}"})
    return out


def claims(machine: str) -> pd.DataFrame:
    """LOGAN's reproducible claims beside ours: ``claim, LOGAN (published), ours, holds here``."""
    f = facts(machine)
    rows = [
        ("speed-up over SeqAn (all cores), one GPU, largest over X",
         f"{f['xd_pub_claim_1gpu']}× (Table II: {f['xd_pub_best_1gpu']}× at X = {f['xd_pub_best_1gpu_x']})",
         f["xd_speedup_seqan"], f["xd_claim_1gpu_holds"]),
        ("speed-up grows with X", f"{f['xd_pub_speedup_1gpu']}× over X", f["xd_speedup_seqan"], f["xd_grows"]),
        ("GCUPS", f"up to {f['xd_pub_gcups']} ({f['xd_pub_gpus']} V100s)", f["xd_gcups"], f["xd_claim_gcups_holds"]),
        ("roofline: compute-bound", "not memory-bound (V100)", f["xd_compute_bound"], f["xd_bound_verdict"]),
        ("roofline: near the (adapted) ceiling", f"{f['xd_pub_roof_share']} of P in its own data",
         f["xd_arch_eff"], f["xd_near_verdict"]),
    ]
    return pd.DataFrame(rows, columns=["claim", "LOGAN (published)", f"ours ({machine}; CUDA: {f['xd_layouts']})",
                                       "on our machine"])


__all__ = ["IMPLEMENTATIONS", "LA_PROTOCOLS", "NEAR_OPTIMAL", "across_table", "against", "all_times", "app_portability", "ceilings", "claims", "efficiency_table", "facts", "gcups_chart", "gcups_table", "implementations", "int32_cores", "portability", "pp_sentence", "published_table", "roofline_chart", "roofline_data", "roofline_metrics", "show_gcups", "show_speedup", "speedup_points"]

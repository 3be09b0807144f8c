# SPDX-License-Identifier: BSD-3-Clause
"""The pieces of one machine's chapter (``notebooks/machine.ipynb``), whatever the folder holds:
each returns a table, a chart, or a Markdown note naming what is missing and how to measure it,
and :func:`facts` gives formatted fragments, so a CPU-only laptop and a profiled GPU share one
template."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # imported where a chart is drawn
    import altair

from . import machines as mach
from . import hosts, machine_records, plots, xdrop_chapter
from .prose import count, faster_or_slower, note
from .. import paths
from ..analysis import paper
from ..runs import results

#: Datasets named ``gen-k<k>`` are generated to the sizes of the paper's Table II.
GENERATED = "gen-k"


def shown(table):
    """A table as the chapter shows it: pandas' row numbers hidden (a RangeIndex names no row),
    counts as integers and measured values to four significant digits (:func:`.long_tables.styled`);
    an indexed table or a note passes through as it is."""
    if not isinstance(table, pd.DataFrame) or not isinstance(table.index, pd.RangeIndex):
        return table
    from .long_tables import styled

    return styled(table)


def _range(values: pd.Series, fmt: str, unit: str = "") -> str:
    lo, hi = float(values.min()), float(values.max())
    return f"{lo:{fmt}}{unit}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}{unit} to {hi:{fmt}}{unit}"


def _kernel_rows(machine: str) -> pd.DataFrame:
    t = mach.times(machine)
    return t[t["backend"] != mach.ORACLE]


def _generated(t: pd.DataFrame) -> pd.DataFrame:
    return t[t["dataset"] == GENERATED + t["k"].astype(str)]


def published_ratio(machine: str) -> tuple[pd.Series, list[str]]:
    """Per k, the fastest published port's time (the paper's measured data) over the fastest
    faithful build here on the dataset generated to Table II's size (> 1: ours faster), and the
    builds (``backend protocol``) that were fastest; empty where no such run is recorded."""
    kernel = _kernel_rows(machine)
    gen = results.study_rows(_generated(kernel)) if len(kernel) else kernel
    if gen.empty:
        return pd.Series(dtype="float64"), []
    pub = paper.measured().groupby("k")["duration_s"].min() * 1e3
    best = gen.loc[gen.groupby("k")["kernel_ms"].idxmin()]
    return (pub / best.set_index("k")["kernel_ms"]).dropna(), sorted(set(best["backend"] + " " + best["protocol"]))


def _metrics_points(machine: str) -> pd.DataFrame | None:
    m = mach.metrics(machine)
    if m is None or not (paths.results_dir(machine) / "ceilings.json").is_file():
        return None
    m = m.copy()
    m["label"] = m["dataset"] + " " + m["protocol"]
    return m


def inventory_table(machine: str) -> pd.DataFrame:
    """What the folder holds, one row per item (lists joined)."""
    inv = mach.inventory(machine)
    return pd.DataFrame({"value": [", ".join(v) if isinstance(v, list) else str(v) for v in inv.values()]},
                        index=list(inv))


def lacks_note(machine: str):
    """The folder's :func:`lassm.book.machines.lacks` as a Markdown list (or that it lacks nothing)."""
    lines = mach.lacks(machine)
    return note("\n".join(f"- {line}" for line in lines) if lines else "- Nothing: every step of the campaign ran.")


def time_table(machine: str) -> pd.DataFrame:
    """Kernel time [ms] per dataset and backend (rows) and protocol (columns), with the oracle's:
    narrow enough for the text column (a column per backend and protocol was not)."""
    t = mach.times(machine)
    kernel = main_protocols(t[t["backend"] != mach.ORACLE])
    if kernel.empty:  # only the oracle ran here
        oracle = t[t["backend"] == mach.ORACLE]
        return oracle[["dataset", "k", "kernel_ms"]].rename(columns={"kernel_ms": "CPU oracle"}).round(2)
    wide = kernel.pivot_table(index=["dataset", "k", "backend"], columns="protocol", values="kernel_ms",
                              aggfunc="first")
    wide.columns.name = None
    wide = wide[[p for p in CHAPTER_PROTOCOLS if p in wide.columns]]
    wide["CPU oracle"] = t.groupby(["dataset", "k"])["oracle_ms"].first().reindex(
        wide.index.droplevel("backend")).to_numpy()
    return wide.round(2).reset_index()


#: Longest line of a chart's subtitle, in characters: it fits the chart's width.
SUBTITLE_CHARS = 90
#: The protocols a machine chapter plots (:data:`lassm.book.machines.CHAPTER_PROTOCOLS`).
CHAPTER_PROTOCOLS = mach.CHAPTER_PROTOCOLS


def main_protocols(t: pd.DataFrame) -> pd.DataFrame:
    """The rows of the four faithful protocols and `fast` (:data:`CHAPTER_PROTOCOLS`)."""
    return t[t["protocol"].isin(CHAPTER_PROTOCOLS)]


def time_chart(machine: str):
    """Kernel time per dataset: one panel per backend, one bar per protocol, each bar one record."""
    t = main_protocols(_kernel_rows(machine))
    if not mach.figure_data(machine)["fig-machine-times"]:
        return note("No kernel variant ran here, only the CPU oracle: there is no kernel time to plot.")
    return plots.to_svg(plots.kernel_times(t, x="dataset", color="protocol", row="backend",
                                           title=f"Kernel time per dataset on the {mach.device(machine)}"),
                        "kernel time per dataset, one panel per backend")


def published_rows(machine: str) -> pd.DataFrame:
    """The bars of the Fig. 5-style chart, one record each: the paper's three published ports per
    k, and per backend of this machine its fastest faithful protocol and ``fast`` on the generated
    Table II-sized datasets. Columns ``platform, k, kernel_ms, source`` (``source``: the record's
    protocol, or "published")."""
    ours = _generated(_kernel_rows(machine))
    pub = paper.measured()
    pub = pd.DataFrame({"platform": pub["machine"] + " (published)", "k": pub["k"],
                        "kernel_ms": pub["duration_s"] * 1e3, "source": "published"})
    if ours.empty:
        return pub.reset_index(drop=True)
    name = mach.device_label(mach.device(machine))
    faithful = results.study_rows(ours)
    best = faithful.loc[faithful.groupby(["backend", "k"])["kernel_ms"].idxmin()]
    fast = ours[ours["protocol"] == "fast"]
    frames = [pub,
              pd.DataFrame({"platform": name + ", " + best["backend"] + ", fastest faithful", "k": best["k"],
                            "kernel_ms": best["kernel_ms"], "source": best["protocol"]}),
              pd.DataFrame({"platform": name + ", " + fast["backend"] + ", fast", "k": fast["k"],
                            "kernel_ms": fast["kernel_ms"], "source": fast["protocol"]})]
    return pd.concat(frames, ignore_index=True)


def published_chart(machine: str):
    """Fig. 5 style: our times on the generated datasets beside the published ports, per k."""
    rows = published_rows(machine)
    if not mach.figure_data(machine)["fig-machine-published"]:
        return note("No generated Table II-sized dataset (`gen-k21` ... `gen-k77`) ran a kernel variant here, "
                     "so there is nothing to set beside the published times.")
    return plots.to_svg(plots.kernel_times(rows, title="Kernel time per k, beside the published ports"),
                        "kernel times per k, beside the published ports")


def reference_table(machine: str):
    """Our times where ``data/reference-timings.csv`` has another program's time on this machine."""
    ref = results.reference_timings()
    ref = ref[ref["machine"] == machine]
    if ref.empty:
        return note("`data/reference-timings.csv` holds no time of another program on this machine.")
    t = _kernel_rows(machine).merge(ref[["dataset", "kernel_seconds", "program"]], on="dataset")
    t["reference_ms"] = t.pop("kernel_seconds") * 1e3
    t["reference_over_ours"] = t["reference_ms"] / t["kernel_ms"]
    return t[["dataset", "k", "backend", "protocol", "kernel_ms", "reference_ms", "reference_over_ours", "program"]]


def originals_table(machine: str):
    """The original programs beside ours on this machine (``lassm run``'s third part): MetaHipMer's
    ``ht_loc`` per dataset (``against-original.csv``) and LOGAN's demo per X (``xdrop/against-logan.csv``),
    both commands' whole times and kernel times with ours over theirs, and whether the outputs agree."""
    parts = []
    ht = results.against_original(machine)
    if ht is not None and len(ht):
        parts.append(pd.DataFrame({
            "original": "ht_loc", "input": ht["dataset"] + ", k = " + ht["k"].astype(str),
            "original whole [s]": ht["original_whole_s"], "ours whole [s]": ht["lassm_whole_s"],
            "whole: ours / original": ht["whole_ratio"], "original kernel [ms]": ht["original_kernel_s"] * 1e3,
            "ours kernel [ms]": ht["lassm_kernel_s"] * 1e3, "kernel: ours / original": ht["kernel_ratio"],
            "outputs equal": ht["outputs_equal"].astype(bool)}))
    lg = xdrop_chapter.against(machine)
    if len(lg):
        parts.append(pd.DataFrame({
            "original": "LOGAN demo", "input": lg["dataset"] + ", X = " + lg["xdrop"].astype(int).astype(str),
            "original whole [s]": lg["logan_whole_s"], "ours whole [s]": lg["ours_whole_s"],
            "whole: ours / original": lg["whole_ratio"], "original kernel [ms]": lg["logan_kernel_s"] * 1e3,
            "ours kernel [ms]": lg["ours_kernel_s"] * 1e3, "kernel: ours / original": lg["kernel_ratio"],
            "outputs equal": lg["scores_equal"]}))
    if not parts:
        return note(f"No original program ran beside ours here: {_originals_absent(machine)}.")
    return pd.concat(parts, ignore_index=True).round(3)


def _originals_absent(machine: str) -> str:
    """Why the originals did not run here, from the campaign's lacks, or how to run them."""
    why = [line for line in mach.campaign_lacks(machine) if line.startswith("originals:")]
    return (why[0].split(": ", 1)[1] if why else
            "`lassm run` builds them where an NVIDIA GPU and nvcc are here (its third part)")


def _originals_fact(machine: str) -> str:
    """One sentence on the originals beside ours, or why there are none."""
    said = []
    ht = results.against_original(machine)
    if ht is not None and len(ht):
        equal = bool(ht["outputs_equal"].all())
        said.append(f"MetaHipMer's ht_loc on {count(len(ht), 'dataset')} ("
                    + ("outputs equal on every one" if equal else "outputs DIFFER on some")
                    + f"; lassm extend's whole command {_range(ht['whole_ratio'], '.2f', '×')} the original's"
                    + (f", its kernels {_range(ht['kernel_ratio'].dropna(), '.2f', '×')}"
                       if ht["kernel_ratio"].notna().any() else "") + ")")
    lg = xdrop_chapter.against(machine)
    if len(lg):
        flags = lg["scores_equal"].dropna()
        checked = ("scores DIFFER at some X" if len(flags) and not bool(flags.all())
                   else "every pair's score equal at every X" if len(flags) == len(lg)
                   else f"every pair's score equal at the {len(flags)} of {len(lg)} (set, X) points compared"
                   if len(flags) else "scores not compared")
        xs = ", ".join(str(int(x)) for x in sorted(lg["xdrop"].unique()))
        said.append(f"LOGAN's demo on {', '.join(sorted(lg['dataset'].unique()))} at X = {xs} ({checked}; "
                    f"our kernel {_range(lg['kernel_ratio'].dropna(), '.2f', '×')} LOGAN's, "
                    f"our whole command {_range(lg['whole_ratio'], '.2f', '×')})" if lg["kernel_ratio"].notna().any()
                    else f"LOGAN's demo on {', '.join(sorted(lg['dataset'].unique()))} at X = {xs} ({checked})")
    return "; ".join(said) if said else f"none: {_originals_absent(machine)}"


def machine_roofs(machine: str, level: str = "lane") -> pd.DataFrame:
    """The machine's roofs: the measured one (``ceilings.json``), named by its device, and the
    datasheet's where ``data/machines.csv`` knows the device. Columns ``roof, peak, bandwidth``."""
    from ..analysis import derive as analysis
    from ..analysis.machine import load_machines, roofs

    ceilings = analysis.load_ceilings(machine)
    name = mach.device_label(mach.device(machine))
    frames = [pd.DataFrame({"roof": [f"{name} (measured)"], "peak": [ceilings["peak_gintops"]],
                            "bandwidth": [ceilings["bandwidth_gbs"]]})]
    spec = mach.spec_row(mach.device(machine))
    if spec:
        sheet = load_machines()
        frames.append(roofs(sheet[sheet["machine"] == spec], level=level)[["roof", "peak", "bandwidth"]])
    return pd.concat(frames, ignore_index=True)


def roofline_chart(machine: str, level: str = "lane"):
    """The profiled points on the measured roof (and the datasheet roof where the device is known)."""
    pts = _metrics_points(machine)
    if pts is None or not mach.figure_data(machine)["fig-machine-roofline"]:
        return note("No roofline: it needs the profiler's counters and the measured ceilings "
                     "(`counters/`, `ceilings.json`, then `lassm metrics derive`).")
    name = mach.device_label(mach.device(machine))
    return plots.to_svg(plots.roofline(machine_roofs(machine, level), main_protocols(pts), color="protocol",
                                       title=f"The {name}'s roofline, with its profiled points"),
                        "roofline of this machine")


def speedup_chart(machine: str):
    """This machine's points on the potential-speedup plot, beside the published ports'."""
    pts = _metrics_points(machine)
    if pts is None or not mach.figure_data(machine)["fig-machine-speedup"]:
        return note("No potential-speedup points: they need the counters and ceilings (see the roofline above).")
    inside = main_protocols(pts[~pts["beyond_model"].astype(bool) & pts["x"].notna()]).copy()
    name = mach.device_label(mach.device(machine))
    inside["platform"] = name + ", " + inside["protocol"]
    published = paper.speedup_points()
    published["label"] = published["platform"] + ", k=" + published["k"].astype(str)
    published["platform"] = published["platform"] + " (published)"
    cols = ["platform", "k", "label", "x", "y", "speedup"]
    both = pd.concat([published[cols], inside[cols]], ignore_index=True)
    title: str | altair.TitleParams = f"Potential speedup: the {name} and the published ports"
    left = main_protocols(pts[pts["beyond_model"].astype(bool) | pts["x"].isna()])
    if len(left):  # said on the chart, not dropped in silence
        import textwrap

        import altair as alt

        title = alt.TitleParams(title, subtitle=[
            f"Not drawn: {len(left)} of {len(main_protocols(pts))} profiled points, whose algorithm efficiency exceeds 1",
            "(fewer operations than the model counts: no potential speedup is defined):",
            *textwrap.wrap(", ".join(f"{r.protocol} {r.dataset}" for r in left.itertuples()), SUBTITLE_CHARS,
                           break_on_hyphens=False)])
    return plots.to_svg(plots.potential_speedup(both, title=title), "potential speedup plot")


def counters_table(machine: str):
    """The profiled points: operations, bytes, II and predication ratio."""
    m = mach.metrics(machine)
    if m is None:
        return note("No counters: no profiler ran on this machine (Nsight Compute on NVIDIA, rocprofv3 on AMD, "
                     "unitrace on Intel), or `lassm metrics derive` was not run.")
    cols = ["dataset", "k", "protocol", "launches", "int_ops", "dram_bytes", "ii", "predication_ratio", "arch eff",
            "alg eff"]
    return m[[c for c in cols if c in m.columns]]


def facts(machine: str) -> dict[str, str]:
    """Every value the chapter's prose quotes (``mc_*`` keys), formatted, with a plain phrase where it
    is missing."""
    inv = mach.inventory(machine)
    t = mach.times(machine)
    kernel = t[t["backend"] != mach.ORACLE]
    out = {"mc_machine": machine, "mc_device": mach.device_label(inv["device"]), "mc_records": f"{inv['records']:d}",
           "mc_datasets": f"{len(inv['datasets']):d}", "mc_backends": ", ".join(inv["backends"]),
           "mc_repeats": "once" if inv["repeats"] == 1 else f"{inv['repeats']:d} times",
           "mc_lacks": count(len(mach.lacks(machine)), "item")}
    if kernel.empty:
        out["mc_fastest"] = "not measured: no kernel variant ran here, only the CPU oracle"
        out["mc_oracle_ratio"] = "not measured"
    else:
        best = kernel.loc[kernel["kernel_ms"].idxmin()]
        out["mc_fastest"] = f"{best['kernel_ms']:.2f} ms ({best['backend']} {best['protocol']}, {best['dataset']})"
        ratio = kernel["oracle_over_ours"].dropna()
        out["mc_oracle_ratio"] = _range(ratio, ".1f", "×") if len(ratio) else "not measured (no oracle time)"
    bad = int((~t["matches_oracle"].astype(bool)).sum())
    out["mc_all_match"] = "yes, every point" if bad == 0 else f"no: {bad} points differ"
    out["mc_match_sentence"] = ("every output equals the CPU oracle's, byte for byte" if bad == 0
                                else f"{bad:d} of {len(t):d} outputs differ from the CPU oracle's")
    ratio, builds = published_ratio(machine)
    if not builds:
        out["mc_published"] = "not comparable: no faithful protocol ran on a Table II-sized dataset here"
        out["mc_published_by"] = "none"
    else:
        out["mc_published"] = faster_or_slower(ratio) if len(ratio) else "not comparable"
        out["mc_published_by"] = " and ".join(builds)
    pts = _metrics_points(machine)
    if pts is None:
        out["mc_roofline"] = "not drawn: no counters or no measured ceilings"
        out["mc_speedup"] = "not computed: no counters or no measured ceilings"
    else:
        mem = int((pts["bound"] == "memory").sum())
        out["mc_roofline"] = (f"{mem:d} of {len(pts):d} points memory-bound, at "
                              f"{_range(pts['arch eff'], '.1%')} of the measured roof")
        s = pts["speedup"].dropna()
        out["mc_speedup"] = f"{_range(s, '.0f', '×')} left on the table" if len(s) else "beyond the model for every point"
    m = mach.metrics(machine)
    out["mc_counters"] = (f"{len(m):d} profiled points, II from {_range(m['ii'], '.2f', ' ops/B')}" if m is not None
                          else "none: no profiler ran")
    out["mc_xdrop"] = _xdrop_fact(machine)
    out["mc_originals"] = _originals_fact(machine)
    out["mc_suite"] = _suite_fact(machine)
    out["mc_campaign"] = machine_records.campaign_fact(machine)
    out["mc_whose"] = hosts.whose(machine)
    out["mc_hosts"] = hosts.hosts_fact(machine)
    return out


def _xdrop_fact(machine: str) -> str:
    """What the machine's X-drop records (the second kernel, ``lassm run --kernel xdrop``) hold."""
    t = xdrop_chapter.times(machine)
    if t.empty:
        return "none: no X-drop campaign (`lassm run --kernel xdrop`) ran here"
    xs = ", ".join(str(x) for x in sorted(t["xdrop"].astype(int).unique()))
    bad = int((t["matches_oracle"].astype(str) == "False").sum())
    return (f"{len(t):d} timed points ({', '.join(sorted(t['backend'].unique()))}) over X = {xs}, "
            f"{_range(t['gcups'].dropna(), '.3g')} GCUPS; "
            + ("every result equal to the oracle's" if bad == 0 else f"results that differ from the oracle's: {bad:d}"))


def suite_table(machine: str):
    """Jin and Vetter's kernels on this machine (:func:`lassm.book.suite_chapter.gaps`), or a note where it has none."""
    from . import suite_chapter

    g = suite_chapter.gaps(machine)
    if g.empty:
        return note(f"No suite records here: {_suite_fact(machine)}.")
    return g[["kernel", "published", "ported_ratio", "best_ratio", "cuda_best", "opencl_best"]].round(3)


def _suite_fact(machine: str) -> str:
    """What the machine's suite records hold, in a sentence."""
    from . import suite_chapter

    t = suite_chapter.times(machine)
    if t.empty:
        return "none: the suite part of `lassm run` did not record here"
    bad = int((~t["matches_reference"]).sum())
    return (f"{len(t):d} variants of {t['kernel'].nunique():d} kernels ({', '.join(sorted(t['backend'].unique()))}), "
            + ("every output equal to its reference" if bad == 0 else f"{bad:d} differ from their reference"))


def xdrop_table(machine: str):
    """The X-drop chapter's GCUPS table for this machine (:func:`lassm.book.xdrop_chapter.gcups_table`)."""
    return xdrop_chapter.gcups_table(machine)


__all__ = ["CHAPTER_PROTOCOLS", "machine_roofs", "main_protocols", "counters_table", "facts",
           "inventory_table", "lacks_note", "originals_table", "published_chart", "published_rows",
           "reference_table", "roofline_chart", "shown", "speedup_chart", "suite_table", "time_chart",
           "time_table", "xdrop_table"]

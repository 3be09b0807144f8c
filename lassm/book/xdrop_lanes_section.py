# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop chapter's layouts section: LOGAN's block per direction against a few lanes of a warp
per direction, from ``lanes.csv`` and the layouts' rows of ``counters.csv``
(``lassm xdrop lanes``); :func:`lassm.book.xdrop_chapter.facts` gathers :func:`lanes_facts`."""
from __future__ import annotations

import pandas as pd

from . import plots
from ..analysis.xdrop import checked_records
from ..backends.xdrop import xdrop_host as plan
from ..campaign import xdrop_lanes
from .prose import span
from .xdrop_common import NOT_MEASURED, fmt, kernel_device, times

#: ``counters.csv``'s program of one forced layout (``lassm xdrop lanes --counters-xdrops``).
LANES_PROGRAM = "lassm cuda lanes="
#: The lanes value of LOGAN's layout, one block per direction: the ablation's reference.
BLOCK = 0


def layout_name(lanes: int) -> str:
    """A layout as the chapter names it; one spelling for the table, the chart and the prose."""
    return f"block ({plan.DEFAULT_GROUP} threads)" if int(lanes) == BLOCK else f"{int(lanes)} lanes"


def layout_order() -> list[str]:
    """The layouts from the widest group per direction (the block) to the narrowest, for legends."""
    return [layout_name(BLOCK)] + [layout_name(w) for w in sorted(plan.LANES, reverse=True)]


def plan_text() -> str:
    """The plan in words, read from :data:`lassm.backends.xdrop.xdrop_host.LANES_BY_X`: the prose states the
    code's plan, which may differ from the ``planned`` column recorded in ``lanes.csv``."""
    if not plan.LANES_BY_X:
        return f"{layout_name(BLOCK)} at every X"
    parts = [f"{lanes} lanes up to X = {largest:,d}" for largest, lanes in plan.LANES_BY_X]
    return ", ".join(parts) + f", LOGAN's block above X = {plan.LANES_BY_X[-1][0]:,d}"


def lanes_rows(machine: str) -> pd.DataFrame:
    """``xdrop/lanes.csv`` of ``machine``, X and lanes as ints, empty without the file;
    ``equal_to_block`` is a plain bool, so an unrecorded comparison never counts as equal."""
    df = checked_records.load(machine, "lanes")
    if df.empty:
        return df
    return df.assign(xdrop=df["xdrop"].astype(int), lanes=df["lanes"].astype(int),
                     equal_to_block=df["equal_to_block"].fillna(False).astype(bool))


def lanes_long(machine: str) -> pd.DataFrame:
    """The ablation, one row per (dataset, X, layout): ``dataset, xdrop, lanes, layout, kernel_ms,
    gcups, equal_to_block``, ``planned`` (what :func:`lassm.backends.xdrop.xdrop_host.lanes_for` picks
    now), ``fastest`` (:func:`lassm.campaign.xdrop_lanes.best`) and ``over_block`` (block time over
    this layout's; NaN where the result differs: a wrong answer has no speed-up)."""
    cols = ["dataset", "xdrop", "lanes", "layout", "kernel_ms", "gcups", "equal_to_block", "planned", "fastest",
            "over_block"]
    df = lanes_rows(machine)
    if df.empty:
        return pd.DataFrame(columns=cols)
    fastest = xdrop_lanes.best(df.to_dict("records"))
    block = {(str(d), int(x)): float(t) for d, x, t in
             df.loc[df["lanes"] == BLOCK, ["dataset", "xdrop", "kernel_seconds"]].itertuples(index=False)}
    keys = list(zip(df["dataset"].astype(str), df["xdrop"]))
    out = pd.DataFrame({
        "dataset": df["dataset"].astype(str), "xdrop": df["xdrop"], "lanes": df["lanes"],
        "layout": df["lanes"].map(layout_name), "kernel_ms": df["kernel_seconds"] * 1e3, "gcups": df["gcups"],
        "equal_to_block": df["equal_to_block"],
        "planned": [plan.lanes_for(int(x)) == int(n) for x, n in zip(df["xdrop"], df["lanes"])],
        "fastest": [fastest.get(k) == int(n) for k, n in zip(keys, df["lanes"])],
    })
    block_s = pd.Series([block.get(k, float("nan")) for k in keys], index=df.index)
    out["over_block"] = (block_s / df["kernel_seconds"]).where(df["equal_to_block"])
    return out[cols].sort_values(["dataset", "xdrop", "lanes"]).reset_index(drop=True)


def lanes_points(long: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, X): ``fastest``, ``fastest_lanes`` (None where no layout equals the block),
    ``fastest over block``, ``planned``, ``planned_lanes``, ``planned over block`` (NaN where not
    measured or unequal), ``planned over fastest`` (1 where the plan picks the fastest) and
    ``all equal``."""
    nan = float("nan")
    rows = []
    for (dataset, x), g in long.groupby(["dataset", "xdrop"], sort=True):
        fast = g[g["fastest"]]
        want = plan.lanes_for(int(x))
        mine = g[(g["lanes"] == want) & g["equal_to_block"]]
        fast_ms = float(fast["kernel_ms"].iloc[0]) if len(fast) else nan
        rows.append({"dataset": dataset, "xdrop": int(x),
                     "fastest": fast["layout"].iloc[0] if len(fast) else "none",
                     "fastest_lanes": int(fast["lanes"].iloc[0]) if len(fast) else None,
                     "fastest over block": float(fast["over_block"].iloc[0]) if len(fast) else nan,
                     "planned": layout_name(want), "planned_lanes": want,
                     "planned over block": float(mine["over_block"].iloc[0]) if len(mine) else nan,
                     "planned over fastest": float(mine["kernel_ms"].iloc[0]) / fast_ms if len(mine) else nan,
                     "all equal": bool(g["equal_to_block"].all())})
    return pd.DataFrame(rows, columns=["dataset", "xdrop", "fastest", "fastest_lanes", "fastest over block", "planned",
                                       "planned_lanes", "planned over block", "planned over fastest", "all equal"])


def lanes_table(machine: str) -> pd.DataFrame:
    """The chapter's table of the ablation: kernel ms per layout at each X, the fastest and the planned
    layout and their speed-ups over the block; a one-cell note where ``lanes.csv`` is absent."""
    long = lanes_long(machine)
    if long.empty:
        return pd.DataFrame({"": [f"no layouts' ablation (xdrop/lanes.csv) recorded for {machine}"]})
    wide = long.pivot_table(index=["dataset", "xdrop"], columns="lanes", values="kernel_ms")
    wide.columns = [f"{layout_name(n)} [ms]" for n in wide.columns]
    pts = lanes_points(long).drop(columns=["fastest_lanes", "planned_lanes"]).set_index(["dataset", "xdrop"])
    out = wide.join(pts).reset_index().rename(columns={"xdrop": "X"})
    return out.drop(columns="dataset") if out["dataset"].nunique() == 1 else out


def lanes_chart(machine: str):
    """Kernel ms against X, log-log, one line per layout; the planned layout's points ringed, a
    result that differs from the block's crossed. None without ``lanes.csv``."""
    long = lanes_long(machine)
    if long.empty:
        return None
    alt = plots._alt()
    data = long.assign(result=long["equal_to_block"].map({True: "equal to the block's", False: "differs"}),
                       plan=long["planned"].map({True: "planned", False: "not planned"}))
    x = alt.X("xdrop:Q", scale=alt.Scale(type="log", nice=False), title="X")
    y = alt.Y("kernel_ms:Q", scale=alt.Scale(type="log"), title="kernel time (ms)")
    color = alt.Color("layout:N", sort=layout_order(), title="layout")
    tooltip = ["dataset", "xdrop", "layout", alt.Tooltip("kernel_ms:Q", format=".3g"), "result", "plan"]
    enc = {"x": x, "y": y, "color": color, "tooltip": tooltip}
    if data["dataset"].nunique() > 1:
        enc["strokeDash"] = alt.StrokeDash("dataset:N")
    base = alt.Chart(data)
    lines = base.mark_line(point=True).encode(**enc)
    ring = base.transform_filter(alt.datum.planned).mark_point(size=4 * plots.MARKER_PX, strokeWidth=2).encode(
        x=x, y=y, color=color, shape=alt.Shape("plan:N", title="plan"), tooltip=tooltip)
    cross = base.transform_filter(~alt.datum.equal_to_block).mark_point(shape="cross", size=2 * plots.MARKER_PX,
                                                                        filled=True, color="black").encode(
        x=x, y=y, tooltip=tooltip)
    device = kernel_device(times(machine)) or machine
    return alt.layer(lines, ring, cross).properties(width=plots.WIDTH_PX, height=plots.HEIGHT_PX,
                                                    title=f"The layouts' kernel time per X on the {device}")


def show_lanes(machine: str):
    """:func:`lanes_chart` as SVG, or a note where the machine has no ``lanes.csv``."""
    chart = lanes_chart(machine)
    return (NOT_MEASURED + f": no layouts' ablation for {machine}" if chart is None
            else plots.to_svg(chart, "kernel time per X and layout"))


def lanes_counters(machine: str) -> pd.DataFrame:
    """Nsight Compute's counts of each forced layout (``lassm cuda lanes=N``) beside the block's at the
    same X.

    A layout's speed-up S over the block is exactly I x R: I the block's warp instructions over the
    layout's (work removed), R the layout's warp instructions per second over the block's (work
    issued faster); which is larger says what the gain is made of. Columns ``dataset, xdrop, lanes,
    layout, planned, duration_ms, warp_inst, active_lanes, warp_gips, dram_mb, speedup,
    inst_factor, rate_factor`` (the last three NaN where the block was not profiled at that X);
    empty without such rows."""
    cols = ["dataset", "xdrop", "lanes", "layout", "planned", "duration_ms", "warp_inst", "active_lanes", "warp_gips",
            "dram_mb", "speedup", "inst_factor", "rate_factor"]
    c = checked_records.load(machine, "counters")
    if c.empty:
        return pd.DataFrame(columns=cols)
    program = c["program"].astype(str)
    width = pd.to_numeric(program.str.slice(len(LANES_PROGRAM)).where(program.str.startswith(LANES_PROGRAM)),
                          errors="coerce")
    mine = c[width.notna()].assign(lanes=width[width.notna()].astype(int))
    if mine.empty:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame({"dataset": mine["dataset"].astype(str), "xdrop": mine["xdrop"].astype(int),
                        "lanes": mine["lanes"], "layout": mine["lanes"].map(layout_name),
                        "duration_ms": mine["duration_s"] * 1e3, "warp_inst": mine["warp_inst"],
                        "active_lanes": mine["thread_inst"] / mine["warp_inst"],
                        "warp_gips": mine["warp_inst"] / mine["duration_s"] / 1e9, "dram_mb": mine["dram_bytes"] / 1e6})
    out["planned"] = [plan.lanes_for(int(x)) == int(n) for x, n in zip(out["xdrop"], out["lanes"])]
    block = out.loc[out["lanes"] == BLOCK, ["dataset", "xdrop", "duration_ms", "warp_inst"]]
    out = out.merge(block.rename(columns={"duration_ms": "block_ms", "warp_inst": "block_inst"}),
                    on=["dataset", "xdrop"], how="left")
    out["speedup"] = out["block_ms"] / out["duration_ms"]
    out["inst_factor"] = out["block_inst"] / out["warp_inst"]
    out["rate_factor"] = out["speedup"] / out["inst_factor"]
    return out[cols].sort_values(["dataset", "xdrop", "lanes"]).reset_index(drop=True)


def lanes_counters_table(machine: str) -> pd.DataFrame:
    """:func:`lanes_counters` as the chapter shows it, or a one-cell note where none was profiled."""
    c = lanes_counters(machine)
    if c.empty:
        return pd.DataFrame({"": [f"the layouts' counters ({LANES_PROGRAM}N rows of xdrop/counters.csv) are "
                                  f"{NOT_MEASURED} on {machine} yet"]})
    shown = c.drop(columns="lanes").rename(columns={
        "xdrop": "X", "duration_ms": "duration [ms]", "warp_inst": "warp instructions",
        "active_lanes": "threads per warp instruction", "warp_gips": "warp GIPS", "dram_mb": "HBM [MB]",
        "speedup": "S: block time / layout's", "inst_factor": "I: block instructions / layout's",
        "rate_factor": "R: issue rate / block's"})
    return shown.drop(columns="dataset") if shown["dataset"].nunique() == 1 else shown


def _x_text(xs, measured) -> str:
    """X values in prose: ``a to b`` where they are a run of consecutive measured X, else a list."""
    xs, measured = sorted({int(x) for x in xs}), sorted({int(x) for x in measured})
    if not xs:
        return "none"
    if len(xs) == 1:
        return f"{xs[0]:,d}"
    start = measured.index(xs[0])
    if measured[start:start + len(xs)] == xs:
        return f"{xs[0]:,d} to {xs[-1]:,d}"
    return ", ".join(f"{x:,d}" for x in xs)


#: The ablation's glue names that need ``lanes.csv`` (each width of :data:`plan.LANES` adds three).
LANES_FACTS = ("xd_lanes_dataset", "xd_lanes_pairs", "xd_lanes_repeats", "xd_lanes_x_values", "xd_lanes_equal",
               "xd_lanes_equal_verdict", "xd_lanes_small_x", "xd_lanes_small_block_ms", "xd_lanes_small_layout",
               "xd_lanes_small_planned_ms", "xd_lanes_small_speedup", "xd_lanes_speedup", "xd_lanes_win_x",
               "xd_lanes_block_x", "xd_lanes_plan_fastest", "xd_lanes_plan_gap", "xd_lanes_replanned")


def _width_facts(one: pd.DataFrame, xs: list[int]) -> dict[str, str]:
    """Per lanes width: the X where it beats the block with the block's result, and its worst time over the block's."""
    out = {}
    block = one[one["lanes"] == BLOCK].set_index("xdrop")["kernel_ms"]
    for w in plan.LANES:
        rows = one[one["lanes"] == w].set_index("xdrop")
        ratio = (rows["kernel_ms"] / block.reindex(rows.index)).dropna()
        wins = ratio[(ratio < 1) & rows.loc[ratio.index, "equal_to_block"]]
        out[f"xd_lanes_{w}_wins_x"] = _x_text(wins.index, xs) if len(ratio) else NOT_MEASURED
        out[f"xd_lanes_{w}_worst"] = f"{ratio.max():.1f}" if len(ratio) else NOT_MEASURED
        out[f"xd_lanes_{w}_worst_x"] = f"{int(ratio.idxmax()):,d}" if len(ratio) else NOT_MEASURED
    return out


def lanes_facts(machine: str) -> dict[str, str]:
    """Every number the layouts section quotes (:data:`NOT_MEASURED` where lacking), all read on the
    one dataset measured at the most X (first by name on a tie)."""
    f = {"xd_lanes_plan": plan_text(),
         "xd_lanes_block_above": f"{plan.LANES_BY_X[-1][0]:,d}" if plan.LANES_BY_X else "0"}
    f.update(_lanes_counter_facts(machine))
    long = lanes_long(machine)
    if long.empty:
        f.update({k: NOT_MEASURED for k in LANES_FACTS})
        f.update(_width_facts(long, []))
        return f
    counts = long.groupby("dataset")["xdrop"].nunique()
    dataset = sorted(counts[counts == counts.max()].index)[0]
    one = long[long["dataset"] == dataset]
    raw = lanes_rows(machine)
    raw = raw[raw["dataset"].astype(str) == dataset]
    pts = lanes_points(one).set_index("xdrop")
    xs = sorted(int(x) for x in pts.index)
    lanes_only = one[one["lanes"] != BLOCK]
    small = xs[0]
    block_small = one[(one["xdrop"] == small) & (one["lanes"] == BLOCK)]["kernel_ms"]
    planned_small = one[(one["xdrop"] == small) & one["planned"]]["kernel_ms"]
    lanes_x = [x for x in xs if pts.loc[x, "planned_lanes"] != BLOCK]
    recorded = raw[raw["planned"].fillna(False).astype(bool)].set_index("xdrop")["lanes"]
    f.update({
        "xd_lanes_dataset": dataset,
        "xd_lanes_pairs": f"{int(raw['n_pairs'].iloc[0]):,d}",
        "xd_lanes_repeats": span(raw["repeats"], ".0f", NOT_MEASURED),
        "xd_lanes_x_values": ", ".join(f"{x:,d}" for x in xs),
        "xd_lanes_equal": f"{int(lanes_only['equal_to_block'].sum()):d} of {len(lanes_only):d}",
        "xd_lanes_equal_verdict": ("returned the block layout's result at every X" if bool(one["equal_to_block"].all())
                                   else "did not always return the block layout's result"),
        "xd_lanes_small_x": f"{small:,d}",
        "xd_lanes_small_block_ms": fmt(block_small.iloc[0] if len(block_small) else None, ".1f"),
        "xd_lanes_small_layout": pts.loc[small, "planned"],
        "xd_lanes_small_planned_ms": fmt(planned_small.iloc[0] if len(planned_small) else None, ".1f"),
        "xd_lanes_small_speedup": fmt(pts.loc[small, "planned over block"], ".1f"),
        "xd_lanes_speedup": span(pts.loc[lanes_x, "planned over block"], ".1f", NOT_MEASURED),
        "xd_lanes_win_x": _x_text([x for x in xs if pts.loc[x, "fastest_lanes"] not in (None, BLOCK)
                                   and not pd.isna(pts.loc[x, "fastest_lanes"])], xs),
        "xd_lanes_block_x": _x_text([x for x in xs if pts.loc[x, "fastest_lanes"] == BLOCK], xs),
        "xd_lanes_plan_fastest": f"{int((pts['planned_lanes'] == pts['fastest_lanes']).sum()):d} of {len(xs):d}",
        "xd_lanes_plan_gap": fmt(pts["planned over fastest"].max() - 1 if pts["planned over fastest"].notna().any()
                                  else None, ".0%"),
        "xd_lanes_replanned": f"{sum(1 for x in xs if x in recorded.index and int(recorded[x]) != plan.lanes_for(x))}",
    })
    f.update(_width_facts(one, xs))
    return f


def _lanes_counter_facts(machine: str) -> dict[str, str]:
    """The S = I x R decomposition at the profiled X where the plan picks a lanes layout, and one
    sentence saying which factor carries the gain, or that the counters were not measured yet."""
    c = lanes_counters(machine)
    both = c[c["planned"] & (c["lanes"] != BLOCK) & c["speedup"].notna()] if len(c) else c
    names = ("xd_lanes_ctr_x", "xd_lanes_ctr_speedup", "xd_lanes_ctr_inst", "xd_lanes_ctr_rate",
             "xd_lanes_ctr_active_block", "xd_lanes_ctr_active_planned")
    if both.empty:
        why = (f"its counters hold no '{LANES_PROGRAM}N' rows" if c.empty else
               f"its '{LANES_PROGRAM}N' rows hold no planned lanes layout beside the block at one X")
        out = {k: NOT_MEASURED for k in names}
        out["xd_lanes_ctr_sentence"] = (f"What the gain is made of is {NOT_MEASURED} yet on {machine} ({why}): "
                                        "Nsight Compute's counts of every layout would say it.")
        return out
    block = c[(c["lanes"] == BLOCK) & c.set_index(["dataset", "xdrop"]).index.isin(
        both.set_index(["dataset", "xdrop"]).index)]
    xs = ", ".join(f"{x:,d}" for x in sorted(both["xdrop"].unique()))
    out = {"xd_lanes_ctr_x": xs, "xd_lanes_ctr_speedup": span(both["speedup"], ".1f"),
           "xd_lanes_ctr_inst": span(both["inst_factor"], ".1f"), "xd_lanes_ctr_rate": span(both["rate_factor"], ".1f"),
           "xd_lanes_ctr_active_block": span(block["active_lanes"], ".1f"),
           "xd_lanes_ctr_active_planned": span(both["active_lanes"], ".1f")}
    by_inst = both[both["inst_factor"] >= both["rate_factor"]]["xdrop"]
    by_rate = both[both["inst_factor"] < both["rate_factor"]]["xdrop"]
    if by_rate.empty:
        cause = ("Fewer instructions carry the larger part of the gain at every profiled X: the work a block "
                 "spends per anti-diagonal on its barrier, its shared-memory tree and its idle threads is gone.")
    elif by_inst.empty:
        cause = ("A higher issue rate carries the larger part of the gain at every profiled X: with several "
                 "directions per warp and no block barrier to wait at, more warps are ready to issue.")
    else:
        cause = (f"Fewer instructions carry the larger part at X = {', '.join(f'{x:,d}' for x in sorted(by_inst))}, "
                 f"a higher issue rate at X = {', '.join(f'{x:,d}' for x in sorted(by_rate))}.")
    each = "; ".join(f"at X = {int(r.xdrop):,d} ({r.layout}), {r.speedup:.2f} = {r.inst_factor:.2f} × "
                     f"{r.rate_factor:.2f}" for r in both.sort_values("xdrop").itertuples())
    out["xd_lanes_ctr_sentence"] = (
        "Under Nsight Compute, the planned layout's speed-up over the block, S, is I (the block's warp instructions "
        f"over the layout's) times R (the layout's warp instructions per second over the block's): {each}. A warp "
        f"instruction keeps {out['xd_lanes_ctr_active_planned']} threads busy against the block's "
        f"{out['xd_lanes_ctr_active_block']}. {cause}")
    return out


__all__ = ["BLOCK", "LANES_FACTS", "LANES_PROGRAM", "lanes_chart", "lanes_counters", "lanes_counters_table", "lanes_facts", "lanes_long", "lanes_points", "lanes_rows", "lanes_table", "layout_name", "layout_order", "plan_text", "show_lanes"]

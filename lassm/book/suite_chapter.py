# SPDX-License-Identifier: BSD-3-Clause
"""The suite chapter (``notebooks/suite.ipynb``): Jin and Vetter's five kernels, their gaps and causes, here.

Everything comes from one machine's ``suite/times.csv`` (every variant of every kernel in CUDA
and OpenCL, each checked against its reference) and ``suite/ptx-mix.csv``, beside Jin and
Vetter's published ratios (``data/paper-artifacts/jin-vetter-gaps.csv``). The "as ported" pair
is the one they compared (:data:`PORTED`); a model's best variant is its fastest that matches
the reference. Whether a named cause shows here is decided from PTX counts (:func:`causes`).

This module is over 500 lines because it is the one chapter's whole account: the gaps, causes,
originals, efficiencies and PP each feed :func:`facts`, the one dict the notebook glues."""
from __future__ import annotations

import pandas as pd

from . import best
from . import machines as mach
from .. import paths
from ..analysis.portability import SIZE
from ..datafiles import read_data_csv
from ..runs import suite_records as rec
from .suite_roofline import SECTOR_BYTES, counters, curand_launches, roofline_chart, roofline_data

#: Per kernel, the CUDA variant and the OpenCL variant Jin and Vetter's comparison corresponds to.
PORTED: dict[str, tuple[str, str]] = {
    "all_pairs": ("char4", "char4"),
    "epistasis": ("auto", "auto"),
    "cmap": ("curand", "clrandom"),
    "nw": ("stream", "out-of-order"),
    "minkowski": ("powf-fast-math", "pow-fast-math"),
}
#: Per kernel, the (cuda, opencl, opencl-ptx) variants that part a gap: CUDA against the OpenCL
#: compiler's code on a CUDA stream (the compiler's share), then that code on OpenCL's queue (the
#: runtime's share). k3 uses the one generator all three run (our Philox).
SPLIT: dict[str, tuple[str, str, str]] = {
    "all_pairs": ("char4", "char4", "char4"),
    "epistasis": ("auto", "auto", "auto"),
    "cmap": ("philox", "philox", "philox"),
    "nw": ("stream", "out-of-order", "stream"),
    "minkowski": ("powf-fast-math", "pow-fast-math", "pow-fast-math"),
}
#: Per kernel, the same three for the fastest shape we wrote in both models (the best CUDA, the
#: same kernel in OpenCL on CUDA's stream, then on OpenCL's queue): the split recomputed best
#: against best.
BEST_SPLIT: dict[str, tuple[str, str, str]] = {
    kernel: (shape,) * 3 for kernel, shape in
    {"all_pairs": "tiles", "epistasis": "margins", "cmap": "fused", "nw": "strips", "minkowski": "tiles"}.items()}
#: Kernels whose original prints only its whole processing time (cm-cuda): without Nsight
#: Compute's time of its kernels it is not set beside our kernel time.
WHOLE_TIMES: frozenset[str] = frozenset({"cmap"})
#: OpenCL over CUDA at most this is no gap: Jin and Vetter's finding (a slower portable build) is gone.
NO_GAP = 1.05
#: The programming models compared, by backend: the builds whose best is "ours" on a platform.
MODELS: dict[str, str] = {"cuda": "CUDA", "opencl": "OpenCL"}
#: The application HeCBench's programs stand for in PP, and how a reference names one.
ORIGINAL_APPLICATION, ORIGINAL_PREFIX = "HeCBench (original)", "HeCBench "
#: Jin and Vetter's names of the kernels, in their order.
ORDER: tuple[str, ...] = ("all_pairs", "epistasis", "cmap", "nw", "minkowski")


def published() -> pd.DataFrame:
    """Jin and Vetter's ratios, causes and sections, one row per kernel."""
    return read_data_csv(paths.data_dir() / "paper-artifacts" / "jin-vetter-gaps.csv")


def times(machine: str) -> pd.DataFrame:
    """``suite/times.csv`` of ``machine`` with ``ms`` (the device span in milliseconds); empty without it."""
    path = rec.folder(machine) / rec.TIMES_FILE
    if not path.is_file():
        return pd.DataFrame(columns=[*rec.COLUMNS, "ms"])
    t = pd.read_csv(path)
    t["matches_reference"] = t["matches_reference"].astype(str).str.lower().eq("true")
    return t.assign(ms=t["seconds"] * 1e3)


def _time(t: pd.DataFrame, kernel: str, backend: str, variant: str) -> float:
    row = t[(t["kernel"] == kernel) & (t["backend"] == backend) & (t["variant"] == variant) & t["matches_reference"]]
    return float(row["ms"].iloc[0]) if len(row) else float("nan")


def fastest(t: pd.DataFrame, kernel: str, backend: str) -> tuple[str | None, float]:
    """The variant of ``backend`` with the least time on ``kernel`` among those that match the
    reference, and that time in ms; (None, NaN) where none does. The one rule for "a model's best"."""
    mine = t[(t["kernel"] == kernel) & (t["backend"] == backend) & t["matches_reference"]].sort_values("ms")
    return (str(mine["variant"].iloc[0]), float(mine["ms"].iloc[0])) if len(mine) else (None, float("nan"))


def gaps(machine: str) -> pd.DataFrame:
    """Per kernel: Jin and Vetter's ratio; ours as ported (OpenCL over CUDA, the :data:`PORTED` pair) and
    best against best; each model's best variant."""
    t = times(machine)
    pub = published().set_index("kernel")
    rows = []
    for kernel in ORDER:
        cu, cl = PORTED[kernel]
        best = {b: fastest(t, kernel, b) for b in MODELS}
        if any(v is None for v, _ms in best.values()):
            continue
        rows.append({
            "kernel": kernel, "name in Jin and Vetter": pub.loc[kernel, "seed_name"],
            "published": (">" if pub.loc[kernel, "bound"] == ">" else "") + f"{pub.loc[kernel, 'published_ratio']:g}",
            "published_ratio": float(pub.loc[kernel, "published_ratio"]),
            "cuda_ms": _time(t, kernel, "cuda", cu), "opencl_ms": _time(t, kernel, "opencl", cl),
            "cuda_best": best["cuda"][0], "opencl_best": best["opencl"][0],
            "cuda_best_ms": best["cuda"][1], "opencl_best_ms": best["opencl"][1],
        })
    out = pd.DataFrame(rows)
    if len(out):
        out["ported_ratio"] = out["opencl_ms"] / out["cuda_ms"]
        out["best_ratio"] = out["opencl_best_ms"] / out["cuda_best_ms"]
    return out


def ptx_mix(machine: str) -> pd.DataFrame:
    """``suite/ptx-mix.csv`` of ``machine`` (empty without it)."""
    path = rec.folder(machine) / "ptx-mix.csv"
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _count(mix: pd.DataFrame, kernel: str, backend: str, variant: str, **where) -> int:
    m = mix[(mix["kernel"] == kernel) & (mix["backend"] == backend) & (mix["variant"] == variant)]
    for col, test in where.items():
        m = m[test(m[col])]
    return int(m["count"].sum())


def ptx_features(machine: str) -> pd.DataFrame:
    """The PTX counts Jin and Vetter's causes are about, per kernel, model and variant: vector and byte
    global loads, shared-memory accesses through 64-bit registers, 64-bit address arithmetic,
    ``lg2``/``ex2``, popcounts (one per unrolled combination), accesses to local memory."""
    mix = ptx_mix(machine)
    if mix.empty:
        return mix
    rows = []
    for (kernel, backend, variant), _m in mix.groupby(["kernel", "backend", "variant"], sort=False):
        c = lambda **w: _count(mix, kernel, backend, variant, **w)  # noqa: E731
        load = lambda s: s.eq("load")  # noqa: E731
        rows.append({
            "kernel": kernel, "backend": backend, "variant": variant,
            "vector loads": c(category=load, space=lambda s: s.eq("global"), vector=lambda s: s > 1),
            "byte loads": c(category=load, space=lambda s: s.eq("global"), width=lambda s: s.eq(8)),
            "shared via 64-bit": c(space=lambda s: s.eq("shared"), addr_bits=lambda s: s.eq(64)),
            "64-bit address ops": c(category=lambda s: s.eq("int64_addr")),
            "lg2": c(opcode=lambda s: s.str.startswith("lg2")), "ex2": c(opcode=lambda s: s.str.startswith("ex2")),
            "popc": c(opcode=lambda s: s.str.startswith("popc")), "local": c(space=lambda s: s.eq("local")),
            "instructions": c(category=lambda s: s.ne("pragma")),
        })
    return pd.DataFrame(rows)


def causes(machine: str) -> pd.DataFrame:
    """Per kernel: Jin and Vetter's cause, what our records show of it, and whether it shows (a bool, or NA
    where the records cannot say)."""
    f = ptx_features(machine)
    t = times(machine)
    g = gaps(machine).set_index("kernel") if len(t) else pd.DataFrame()
    pub = published().set_index("kernel")

    def feat(kernel: str, backend: str, variant: str, col: str) -> float:
        row = f[(f["kernel"] == kernel) & (f["backend"] == backend) & (f["variant"] == variant)] if len(f) else f
        return float(row[col].iloc[0]) if len(row) else float("nan")

    rows = []
    if len(f):
        cu_v, cl_v = feat("all_pairs", "cuda", "char4", "vector loads"), feat("all_pairs", "opencl", "char4", "vector loads")
        cl_b = feat("all_pairs", "opencl", "char4", "byte loads")
        rows.append(("all_pairs", f"char4: CUDA's PTX {cu_v:.0f} vector loads; OpenCL's {cl_v:.0f}, and {cl_b:.0f} byte loads",
                     bool(cu_v > 0 and cl_v == 0 and cl_b > 0)))
        pc_cu, pc_cl = feat("epistasis", "cuda", "auto", "popc"), feat("epistasis", "opencl", "auto", "popc")
        loc = feat("epistasis", "opencl", "auto", "local")
        rows.append(("epistasis", f"no pragma: {pc_cu:.0f} popcounts in CUDA's PTX, {pc_cl:.0f} in OpenCL's, "
                                  f"{loc:.0f} local-memory accesses in OpenCL's", bool(pc_cl < pc_cu or loc > 0)))
        lg_cu, lg_cl = feat("minkowski", "cuda", "powf-fast-math", "lg2"), feat("minkowski", "opencl", "pow-fast-math", "lg2")
        lg_r = feat("minkowski", "opencl", "powr-fast-math", "lg2")
        rows.append(("minkowski", f"fast math: lg2 {lg_cu:.0f} in CUDA's powf, {lg_cl:.0f} in OpenCL's pow, {lg_r:.0f} in "
                                  f"its powr", bool(lg_cu > 0 and lg_cl == 0)))
    if "nw" in g.index:
        nw = t[t["kernel"] == "nw"].set_index(["backend", "variant"])
        per = {k: 1e3 * float(nw.loc[k, "host_seconds"]) / float(nw.loc[k, "launches"]) for k in nw.index}
        cu = per.get(("cuda", "stream"), float("nan"))
        ino, ooo = per.get(("opencl", "in-order"), float("nan")), per.get(("opencl", "out-of-order"), float("nan"))
        rows.append(("nw", f"host time per launch: CUDA's stream {cu * 1e3:.1f} µs, OpenCL in order {ino * 1e3:.1f} µs, "
                           f"out of order {ooo * 1e3:.1f} µs", bool(ooo > ino)))
    if "cmap" in g.index:
        cm = t[t["kernel"] == "cmap"].set_index(["backend", "variant"])
        portable = int(cm.loc[("opencl", "clrandom"), "launches"]) - 2 if ("opencl", "clrandom") in cm.index else None
        library = curand_launches(machine)
        shows = pd.NA if portable is None or library is None else bool(portable > library)
        rows.append(("cmap", f"one draw: pyopencl's generator {portable} launch(es) (OpenCL events), cuRAND's "
                             f"{'not counted here' if library is None else library} (Nsight Compute)", shows))
    out = pd.DataFrame(rows, columns=["kernel", "here", "shows"])
    out.insert(1, "cause Jin and Vetter gave", out["kernel"].map(pub["cause"]))
    return out.set_index("kernel").reindex([k for k in ORDER if k in set(out["kernel"])]).reset_index()


def distribution(machine: str) -> pd.DataFrame:
    """OpenCL's time over CUDA's on one GPU for every kernel of the study (local assembly per dataset
    and protocol, X-drop per set and X where both ran one layout, the suite as ported and best
    against best): one row per comparison, ``kernel``, ``point``, ``ratio``."""
    from ..analysis.xdrop.checked_records import load as xdrop_load
    from . import models

    rows = []
    try:
        la = models.model_ratios(models.campaign_times(machine))
        rows += [{"kernel": "local assembly", "point": f"{r.dataset} {r.protocol}", "ratio": r.ratio}
                 for r in la.itertuples() if r.both_match]
    except Exception:  # a machine without the local-assembly campaign: no such rows
        pass
    xd = xdrop_load(machine, "times")
    if len(xd):
        # one kernel in both models: a CUDA row of the lanes kernel has no OpenCL twin
        pivot = xd.pivot_table(index=["dataset", "xdrop", "layout"], columns="backend", values="seconds",
                               aggfunc="first")
        if {"cuda", "opencl"} <= set(pivot.columns):
            both = pivot.dropna(subset=["cuda", "opencl"])
            rows += [{"kernel": "X-drop", "point": f"{d} X={int(x)} ({lay})", "ratio": o / c}
                     for (d, x, lay), c, o in zip(both.index, both["cuda"], both["opencl"])]
    g = gaps(machine)
    for r in g.itertuples():
        rows.append({"kernel": r.kernel, "point": "as ported", "ratio": r.ported_ratio})
        rows.append({"kernel": r.kernel, "point": "best against best", "ratio": r.best_ratio})
    return pd.DataFrame(rows, columns=["kernel", "point", "ratio"])


def machines() -> list[str]:
    """The results folders with suite records, by name."""
    root = mach.results_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / rec.FOLDER / rec.TIMES_FILE).is_file())


def implementations(machine: str) -> pd.DataFrame:
    """Every implementation of the five kernels on ``machine`` as :data:`lassm.book.best.COLUMNS` rows
    with ``size``: each model's reference-matching variants, and HeCBench's programs carried onto
    the clock of the CUDA build they ran beside (:func:`lassm.book.best.carried`)."""
    t = times(machine)
    if t.empty:
        return pd.DataFrame(columns=[*best.COLUMNS, SIZE])
    platform = mach.device_label(t["device"].iloc[0])
    ok = t[t["kernel"].isin(ORDER) & t["backend"].isin(list(MODELS)) & t["matches_reference"]]
    rows = [{"problem": r.kernel, "platform": platform, "application": MODELS[r.backend],
             "implementation": f"{r.backend} {r.variant}", "ours": True, "seconds": r.ms / 1e3, SIZE: r.size}
            for r in ok.itertuples()]
    size = {(r.kernel, r.variant): r.size for r in ok[ok["backend"] == "cuda"].itertuples()}
    o = originals(machine)
    o = o[o["ours_over_original"].notna() & o["ours_ms"].notna()]
    rows += [{"problem": r.kernel, "platform": platform, "application": ORIGINAL_APPLICATION,
              "implementation": ORIGINAL_PREFIX + r.program, "ours": False,
              "seconds": best.carried(r.ours_ms, r.ours_over_original) / 1e3, SIZE: size[(r.kernel, r.ours_variant)]}
             for r in o.itertuples()]
    return pd.DataFrame(rows, columns=[*best.COLUMNS, SIZE])


def efficiency(machine: str) -> pd.DataFrame:
    """Per kernel, the application efficiency on this GPU of each model's best variant and of
    HeCBench's program (:func:`lassm.book.best.efficiency`); with one platform, this is the PP.

    Columns ``kernel, platform, reference`` (the fastest, e.g. ``HeCBench nw-cuda``), ``cuda,
    opencl, original`` (NaN: not measured), ``cuda_variant, opencl_variant``, ``ratio_clock``."""
    cols = ["kernel", "platform", "reference", "cuda", "opencl", "original", "cuda_variant", "opencl_variant",
            "ratio_clock"]
    eff = best.efficiency(implementations(machine))
    if eff.empty:
        return pd.DataFrame(columns=cols)
    clocks = originals(machine).set_index("kernel")["ratio_clock"]
    rows = []
    for kernel, part in eff.groupby("problem", sort=False):
        top = part.sort_values("app eff", ascending=False).drop_duplicates("application").set_index("application")
        get = lambda app, col: top.loc[app, col] if app in top.index else None  # noqa: E731
        rows.append({"kernel": kernel, "platform": part["platform"].iloc[0], "reference": part["reference"].iloc[0],
                     "cuda": get("CUDA", "app eff"), "opencl": get("OpenCL", "app eff"),
                     "original": get(ORIGINAL_APPLICATION, "app eff"),
                     "cuda_variant": (get("CUDA", "implementation") or "").removeprefix("cuda ") or None,
                     "opencl_variant": (get("OpenCL", "implementation") or "").removeprefix("opencl ") or None,
                     "ratio_clock": clocks.get(kernel) if ORIGINAL_APPLICATION in top.index else None})
    out = pd.DataFrame(rows, columns=cols)
    for c in ("cuda", "opencl", "original"):
        out[c] = out[c].astype("float64")
    return out


#: Where each application can run at all (OpenCL, not listed: anywhere); elsewhere its PP is 0.
RUNS_ON: dict[str, frozenset[str]] = {"CUDA": frozenset({best.NVIDIA}), ORIGINAL_APPLICATION: frozenset({best.NVIDIA})}


def portability(names: list[str] | None = None) -> pd.DataFrame:
    """Pennycook's PP per (kernel, size) of each application over the platforms with suite records of
    that size (:func:`machines`); 0 where it cannot run (:data:`RUNS_ON`), NaN where not measured."""
    frames = [implementations(m) for m in (machines() if names is None else names)]
    frames = [f for f in frames if len(f)]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*best.COLUMNS, SIZE])
    return best.portability(best.efficiency(rows), RUNS_ON).rename(columns={"problem": "kernel"})


def distribution_chart(dist: pd.DataFrame):
    """Each comparison's ratio as a point, one row per kernel, the line at 1 (equal time)."""
    import altair as alt

    points = alt.Chart(dist).mark_circle(size=60, opacity=0.7).encode(
        x=alt.X("ratio:Q", scale=alt.Scale(type="log"), title="OpenCL time / CUDA time (log)"),
        y=alt.Y("kernel:N", title=None, sort=list(dict.fromkeys(dist["kernel"]))),
        tooltip=["kernel", "point", alt.Tooltip("ratio:Q", format=".2f")])
    rule = alt.Chart(pd.DataFrame({"ratio": [1.0]})).mark_rule(strokeDash=[4, 4]).encode(x="ratio:Q")
    return (rule + points).properties(width=520, height=220, title="OpenCL over CUDA on one GPU, every kernel")


#: The columns of :func:`originals`.
ORIGINALS_COLUMNS: tuple[str, ...] = (
    "kernel", "program", "original_ms", "original_clock", "ours_variant", "ours_ms", "ours_ncu_ms",
    "ours_over_original", "ratio_clock", "ours_over_original_ncu", "verified", "output")


def originals(machine: str) -> pd.DataFrame:
    """HeCBench's CUDA programs beside our fastest reference-matching CUDA build of the same kernel.

    The original's time is Nsight Compute's (``ncu_seconds``) where recorded, else its own printed
    per-iteration time (``original_clock``). Ours: ``ours_variant``, ``ours_ms`` (CUDA events),
    ``ours_ncu_ms`` where profiled. ``ours_over_original`` is on Nsight Compute's clock when both
    have it, else events over the original's own (``ratio_clock``)."""
    from ..campaign.originals import hecbench

    path = hecbench.table(machine)
    if not path.is_file():
        return pd.DataFrame(columns=list(ORIGINALS_COLUMNS))
    o = pd.read_csv(path, keep_default_na=False)
    t = times(machine)
    c = counters(machine)
    rows = []
    for r in o.to_dict("records"):
        original_s, original_clock = best.clock(r.get("ncu_seconds"), r["seconds"])
        variant, ours_ms = fastest(t, r["kernel"], "cuda")
        ncu = c[(c["kernel"] == r["kernel"]) & (c["backend"] == "cuda") & (c["variant"] == variant)] if len(c) else c
        ours_ncu_ms = float(ncu["duration_s"].iloc[0]) * 1e3 if len(ncu) else float("nan")
        both = original_clock == best.NCU and pd.notna(ours_ncu_ms)
        on_ncu = ours_ncu_ms / (original_s * 1e3) if both else float("nan")
        whole = original_clock != best.NCU and r["kernel"] in WHOLE_TIMES  # no kernel time to set ours beside
        if whole:
            original_clock = "its whole processing (it times no kernel)"
        ratio = on_ncu if both else float("nan") if whole else ours_ms / (original_s * 1e3)
        rows.append({"kernel": r["kernel"], "program": r["program"], "original_ms": original_s * 1e3,
                     "original_clock": original_clock, "ours_variant": variant, "ours_ms": ours_ms,
                     "ours_ncu_ms": ours_ncu_ms, "ours_over_original": ratio,
                     "ratio_clock": (best.NCU if both else "none: a whole program's time is no kernel's" if whole
                                     else f"{best.EVENTS} (ours) over {original_clock} (the original)"),
                     "ours_over_original_ncu": on_ncu, "verified": r["verified"], "output": _output(r)})
    return pd.DataFrame(rows, columns=list(ORIGINALS_COLUMNS))


def _output(row: dict) -> str:
    """The program's output against ours, in words (older rows have no such columns)."""
    equal = str(row.get("outputs_equal", ""))
    if equal in ("True", "False"):
        return ("equal to ours" if equal == "True" else "differs from ours") + f" ({row.get('outputs_compared', '')})"
    return str(row.get("outputs_compared", "")) or "not compared"


def split(machine: str, pairs: dict[str, tuple[str, str, str]] | None = None) -> pd.DataFrame:
    """Per kernel, OpenCL over CUDA parted in two (``pairs``: :data:`SPLIT`, as ported, or
    :data:`BEST_SPLIT`): ``compiler`` (the OpenCL compiler's PTX launched by CUDA over CUDA's build)
    and ``runtime`` (the OpenCL queue over that same PTX on a CUDA stream); their product is the
    whole ``gap``. Empty without opencl-ptx rows."""
    t = times(machine)
    pairs = SPLIT if pairs is None else pairs
    rows = []
    for kernel in ORDER:
        cu, cl, px = (_time(t, kernel, b, v) for b, v in zip(("cuda", "opencl", "opencl-ptx"), pairs[kernel]))
        if pd.notna(px) and pd.notna(cu) and pd.notna(cl):
            rows.append({"kernel": kernel, "variants": " / ".join(pairs[kernel]), "cuda_ms": cu, "opencl_ptx_ms": px,
                         "opencl_ms": cl, "compiler": px / cu, "runtime": cl / px, "gap": cl / cu})
    return pd.DataFrame(rows, columns=["kernel", "variants", "cuda_ms", "opencl_ptx_ms", "opencl_ms", "compiler",
                                       "runtime", "gap"])


def findings(machine: str) -> pd.DataFrame:
    """Jin and Vetter's five findings re-tested here, per kernel: their ratio; as ported over as
    ported; that OpenCL build over the best CUDA (``against_best_cuda``); best over best
    (``best_ratio``); whether their cause shows; and ``verdict``: the gap stands (more than
    :data:`NO_GAP`) with or without its cause, or it is gone."""
    g = gaps(machine)
    if g.empty:
        return pd.DataFrame(columns=["kernel", "name in Jin and Vetter", "published", "ported_ratio", "against_best_cuda",
                                     "best_ratio",
                                     "cause_shows", "verdict"])
    shows = causes(machine).set_index("kernel")["shows"]
    rows = []
    for r, name in zip(g.itertuples(), g["name in Jin and Vetter"]):
        cause = shows.get(r.kernel, pd.NA)
        if r.ported_ratio <= NO_GAP:
            verdict = f"gone: as ported {r.ported_ratio:.2f} (Jin and Vetter: {r.published})"
        else:
            why = "cause not measured" if pd.isna(cause) else "its cause shows" if bool(cause) else "its cause does not show"
            verdict = f"stands at {r.ported_ratio:.2f} (Jin and Vetter: {r.published}), {why}"
        verdict += (f"; against the best CUDA ({r.cuda_best}) {r.opencl_ms / r.cuda_best_ms:.2f}; best against best "
                    f"{r.best_ratio:.2f}")
        rows.append({"kernel": r.kernel, "name in Jin and Vetter": name, "published": r.published,
                     "ported_ratio": r.ported_ratio,
                     "against_best_cuda": r.opencl_ms / r.cuda_best_ms, "best_ratio": r.best_ratio,
                     "cause_shows": cause, "verdict": verdict})
    return pd.DataFrame(rows)


def _span(values: pd.Series, fmt: str = ".2f") -> str:
    lo, hi = float(values.min()), float(values.max())
    return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}} to {hi:{fmt}}"


def _device(t: pd.DataFrame, machine: str) -> str:
    """The device the suite's records name (a refused row names none), without its runtime's tag."""
    named = t["device"].dropna() if "device" in t else pd.Series(dtype=str)
    return mach.device_label(str(named.iloc[0])) if len(named) else machine


def facts(machine: str) -> dict[str, str]:
    """Every number the chapter's prose quotes, formatted (``su_*``), or a plain phrase where it is missing."""
    t = times(machine)
    found = machines()
    out = {"su_machine": machine,
           "su_platforms": (f"{len(found):d}: {', '.join(_device(times(m), m) for m in found)}" if found else "none")}
    if t.empty:
        return {**out, "su_points": "none: no suite records on this machine (lassm run --kernel suite)",
                "su_all_match": "not measured", "su_device": "not measured", "su_sha": "not measured",
                "su_reference": "Nothing was measured here to compare."}
    out["su_points"] = f"{len(t):d}"
    out["su_device"] = _device(t, machine)
    out["su_sha"] = str(t["git_sha"].iloc[0])[:10]
    ran = t[~t["status"].astype(str).str.startswith("refused")] if "status" in t else t
    bad = int((~ran["matches_reference"].fillna(False).astype(bool)).sum())
    out["su_all_match"] = ("yes, every variant that ran" if bad == 0 else
                           f"no: {bad} variant{'s' if bad != 1 else ''} differ{'' if bad != 1 else 's'}")
    g = gaps(machine).set_index("kernel")
    for k in g.index:
        out[f"su_{k}_ported"] = f"{g.loc[k, 'ported_ratio']:.2f}"
        out[f"su_{k}_best"] = f"{g.loc[k, 'best_ratio']:.2f}"
        out[f"su_{k}_published"] = str(g.loc[k, "published"])
    c = causes(machine)
    shows = c["shows"].dropna().astype(bool)
    out["su_causes_shown"] = f"{int(shows.sum()):d} of {len(shows):d}"
    out["su_causes_shown_names"] = ", ".join(c[c["shows"].fillna(False).astype(bool)]["kernel"]) or "none"
    o = originals(machine).dropna(subset=["ours_over_original"])
    clocks = o["ratio_clock"].value_counts(sort=False)
    clock = (f"clock: {clocks.index[0]}" if len(clocks) == 1 else
             "clocks: " + ", ".join(f"{c} for {n:d}" for c, n in clocks.items()))
    checks = o["verified"].astype(str).value_counts()
    out["su_originals"] = (f"{len(o):d} of HeCBench's programs ran here (their own checks: "
                           f"{', '.join(f'{n:d} {v}' for v, n in checks.items())}); our fastest CUDA build over theirs "
                           f"{_span(o['ours_over_original'])} ({clock})"
                           if len(o) else "none ran here (they need an NVIDIA GPU and nvcc: lassm run's originals part)")
    out["su_reference"] = best.verdict(best.efficiency(implementations(machine)), "kernel")
    eq = o[o["output"].str.startswith("equal to ours")]
    out["su_originals_outputs"] = (f"{len(eq):d} of {len(o):d} programs' outputs equal ours on their own inputs"
                                   if len(o) else "not compared here")
    for prefix, pairs in (("", SPLIT), ("best_", BEST_SPLIT)):
        sp = split(machine, pairs).set_index("kernel")
        for k in sp.index:
            out[f"su_{k}_{prefix}compiler"] = f"{sp.loc[k, 'compiler']:.2f}"
            out[f"su_{k}_{prefix}runtime"] = f"{sp.loc[k, 'runtime']:.2f}"
        for k in ORDER:
            out.setdefault(f"su_{k}_{prefix}compiler", "not measured")
            out.setdefault(f"su_{k}_{prefix}runtime", "not measured")
    rec_row = t[(t["kernel"] == "nw") & (t["backend"] == "opencl") & (t["variant"] == "recorded")]
    out["su_command_buffers"] = (
        "not measured on this machine" if rec_row.empty else
        f"{float(rec_row['ms'].iloc[0]):.2f} ms for the 2,047 launches" if str(rec_row["status"].iloc[0]) == "ok" else
        f"refused: {str(rec_row['status'].iloc[0]).removeprefix('refused: ')}")
    fi = findings(machine).set_index("kernel")
    for k in ORDER:
        out[f"su_{k}_verdict"] = str(fi.loc[k, "verdict"]) if k in fi.index else "not measured here"
    stands = fi[fi["ported_ratio"] > NO_GAP] if len(fi) else fi
    out["su_findings_stand"] = (f"{len(stands):d} of {len(fi):d}" if len(fi) else "none measured")
    lib = curand_launches(machine)
    out["su_curand_launches"] = "not counted here" if lib is None else f"{lib:d}"
    cn = counters(machine)
    out["su_counted"] = f"{len(cn):d}" if len(cn) else "none"
    if len(cn):
        out["su_gips_share"] = _span(cn["gips_share"] * 100, ".0f") + " %"
        ap = cn[(cn["kernel"] == "all_pairs") & (cn["variant"] == "char4")].set_index("backend")
        out["su_l1_char4"] = (f"{ap.loc['opencl-ptx', 'l1_bytes'] / ap.loc['cuda', 'l1_bytes']:.1f}"
                              if {"cuda", "opencl-ptx"} <= set(ap.index) else "not measured")
    else:
        out["su_gips_share"] = out["su_l1_char4"] = "not measured"
    d = distribution(machine)
    out["su_distribution_kernels"] = f"{d['kernel'].nunique():d}"
    out["su_distribution_span"] = _span(d["ratio"]) if len(d) else "not measured"
    return out


__all__ = ["BEST_SPLIT", "MODELS", "NO_GAP", "ORDER", "ORIGINALS_COLUMNS", "ORIGINAL_APPLICATION", "ORIGINAL_PREFIX",
           "PORTED", "SECTOR_BYTES", "SPLIT", "WHOLE_TIMES", "causes", "counters", "curand_launches", "distribution", "distribution_chart",
           "efficiency", "facts", "fastest", "findings", "gaps", "implementations", "machines", "originals", "portability", "ptx_features", "ptx_mix",
           "published", "roofline_chart", "roofline_data", "split", "times"]

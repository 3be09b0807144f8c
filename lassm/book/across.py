# SPDX-License-Identifier: BSD-3-Clause
"""Every measured machine side by side with the paper's ports, and Pennycook's PP over them.

A *platform* is one device: folders naming the same device (:func:`lassm.book.machines.device_key`)
are pooled, per point, to the best time (:func:`lassm.book.machines.pool_by_device`), so one GPU
model is not counted twice in H. H holds the platforms that ran a kernel variant (the CPU oracle
is another program). Per variant (``casptr``, ``fast``) and dataset, a platform's time is its
fastest backend's; :func:`folder_points` keeps every folder's own times on view.

Efficiencies per point: ``arch eff``, GINTOP/s over the measured roof (``metrics.csv``, where
profiled); ``app eff``, the fastest implementation on that platform
(:data:`lassm.book.best.REFERENCE_RULE`, named in ``reference``) over this variant's time. Each PP
(:func:`lassm.analysis.portability.pp`) takes one kind only; a platform of H without the point is
"not measured" (NaN), as both variants can run everywhere in H."""
from __future__ import annotations

import pandas as pd

from . import best
from . import machines as mach
from .prose import span
from ..analysis import paper
from ..analysis import portability as pp_metrics

#: The kernel variants compared across platforms: the faithful kernel and the optimized one.
VARIANTS: tuple[str, ...] = ("casptr", "fast")
#: Label suffix of the paper's platforms.
PUBLISHED = " (published)"


def platforms(names: list[str] | None = None) -> pd.DataFrame:
    """Every measured device (folders default :func:`lassm.book.machines.chapter_machines`), pooled:
    ``platform``, ``folders``, ``backends``, ``variants`` (of :data:`VARIANTS`), ``counters``
    (architectural efficiency available), ``efficiency`` (the headline's definition on it) and
    ``in_H`` (it ran a kernel variant)."""
    rows = []
    for name in sorted(mach.chapter_machines() if names is None else names):
        inv = mach.inventory(name)
        t = mach.times(name)
        kernel = t[t["backend"] != mach.ORACLE]
        rows.append({"folder": name, "device": inv["device"], "backends": set(inv["backends"]),
                     "variants": {v for v in VARIANTS if (kernel["protocol"] == v).any()},
                     "counters": inv["metrics"], "kernel": bool(len(kernel))})
    out = []
    if rows:
        folders = pd.DataFrame(rows)
        folders["platform"] = mach.platform_of(folders["folder"], folders["device"])
        for plat, part in folders.groupby("platform", sort=False):
            ran = [v for v in VARIANTS if any(v in got for got in part["variants"])]
            kernel, has_m = bool(part["kernel"].any()), bool(part["counters"].any())
            out.append({"platform": plat, "folders": ", ".join(part["folder"]),
                        "backends": ", ".join(sorted(set().union(*part["backends"]))),
                        "variants": ", ".join(ran) if ran else ("none: the CPU oracle only" if not kernel else "none"),
                        "counters": has_m,
                        "efficiency": ("arch eff (counters)" if has_m else "app eff (no counters)") if kernel else "none",
                        "in_H": kernel})
    return pd.DataFrame(out, columns=["platform", "folders", "backends", "variants", "counters", "efficiency", "in_H"])


def folder_points(names: list[str] | None = None, variants: tuple[str, ...] = VARIANTS) -> pd.DataFrame:
    """Each folder's own kernel times before pooling: ``platform``, ``folder``, ``variant``,
    ``dataset``, ``k``, ``backend`` (its fastest for the variant), ``kernel_ms``; empty where no
    folder ran a kernel variant."""
    t = _kernel_times(names)
    if t.empty:
        return pd.DataFrame(columns=["platform", "folder", "variant", "dataset", "k", "backend", "kernel_ms"])
    t["platform"] = mach.platform_of(t["folder"], t["device"])
    t = t[t["protocol"].isin(variants)].sort_values("kernel_ms").drop_duplicates(["folder", "dataset", "k", "protocol"])
    t = t.rename(columns={"protocol": "variant"})
    cols = ["platform", "folder", "variant", "dataset", "k", "backend", "kernel_ms"]
    return t[cols].sort_values(["variant", "dataset", "platform", "folder"]).reset_index(drop=True)


def folder_table(folder_pts: pd.DataFrame, datasets: list[str] | tuple[str, ...] | None = None) -> pd.DataFrame:
    """:func:`folder_points` wide: one row per (variant, dataset, k), one column per (platform, folder)."""
    sel = folder_pts if datasets is None else folder_pts[folder_pts["dataset"].isin(datasets)]
    return sel.pivot_table(index=["variant", "dataset", "k"], columns=["platform", "folder"], values="kernel_ms",
                           aggfunc="first")


def _kernel_times(names: list[str] | None) -> pd.DataFrame:
    """:func:`lassm.book.machines.times` of every folder's kernel builds (the oracle aside), with
    ``folder`` and the folder's ``device``."""
    frames = []
    for name in mach.chapter_machines() if names is None else names:
        t = mach.times(name)
        kernel = t[t["backend"] != mach.ORACLE]
        if len(kernel):
            frames.append(kernel.assign(folder=name, device=mach.device(name)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _folder_metrics(folders) -> pd.DataFrame:
    """``metrics.csv`` of each folder that has one, with ``folder``; the columns :func:`points` adds."""
    cols = ["folder", "dataset", "k", "variant", "ii", "arch eff", "alg eff"]
    frames = [m.rename(columns={"protocol": "variant"}).assign(folder=name)[cols]
              for name in folders if (m := mach.metrics(name)) is not None]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def points(names: list[str] | None = None, variants: tuple[str, ...] = VARIANTS) -> pd.DataFrame:
    """One row per (platform, variant, dataset) measured: time and efficiencies.

    Times are pooled per device first (:func:`lassm.book.machines.pool_by_device`); counters are
    those of the ``folder`` the time came from. ``variants`` are the protocols kept. Columns
    ``platform, folder, device, variant, dataset, k, backend, kernel_ms, repeats, matches_oracle,
    oracle_ms, ii, arch eff, alg eff, app eff, reference``; ``ii`` and ``arch``/``alg eff`` NaN
    without counters."""
    cols = ["platform", "folder", "device", "variant", "dataset", "k", "backend", "kernel_ms", "repeats",
            "matches_oracle", "oracle_ms", "ii", "arch eff", "alg eff", "app eff", "reference"]
    t = _kernel_times(names)
    if t.empty:
        return pd.DataFrame(columns=cols)
    kernel = mach.pool_by_device(t, ["dataset", "k", "backend", "protocol"], "kernel_ms")
    kernel["device"] = kernel["platform"]
    fastest = best.efficiency(_candidates(t, kernel, names)).drop_duplicates(["problem", "platform"])
    fastest = fastest[["problem", "platform", "reference", "reference time"]]
    chosen = (kernel[kernel["protocol"].isin(variants)].sort_values("kernel_ms")
              .drop_duplicates(["platform", "dataset", "k", "protocol"]))
    df = chosen.merge(fastest, left_on=["dataset", "platform"], right_on=["problem", "platform"]).drop(columns="problem")
    df = df.rename(columns={"protocol": "variant"})
    df["app eff"] = df.pop("reference time") * 1e3 / df["kernel_ms"]
    df = df.merge(_folder_metrics(df["folder"].unique()), on=["folder", "dataset", "k", "variant"], how="left")
    return df[cols].sort_values(["variant", "dataset", "platform"]).reset_index(drop=True)


def _oracle_times(names: list[str] | None) -> pd.DataFrame:
    """The CPU oracle's times that equal nothing but themselves (it is the oracle), per folder, with
    the device it ran on: on a CPU folder that device is the platform; a GPU folder's oracle ran
    on its host, another device."""
    frames = []
    for name in mach.chapter_machines() if names is None else names:
        t = mach.times(name)
        oracle = t[t["backend"] == mach.ORACLE]
        if len(oracle):
            frames.append(oracle.assign(folder=name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["folder", "device", "dataset",
                                                                                      "kernel_ms"])


def _candidates(t: pd.DataFrame, kernel: pd.DataFrame, names: list[str] | None = None) -> pd.DataFrame:
    """What an application efficiency is taken against (:data:`lassm.book.best.REFERENCE_RULE`), as
    :data:`lassm.book.best.COLUMNS` rows (problem = dataset): every build a platform ran, named
    ``<backend> <protocol>``; the CPU oracle on its device; MetaHipMer's ``ht_loc`` where it ran
    (:func:`lassm.book.models.original_times`, carried through each folder's CUDA ``fast`` times)."""
    from . import models

    rows = [pd.DataFrame({"problem": kernel["dataset"], "platform": kernel["platform"],
                          "application": kernel["protocol"], "implementation": kernel["backend"] + " " + kernel["protocol"],
                          "ours": True, "seconds": kernel["kernel_ms"].astype(float) / 1e3})]
    oracle = _oracle_times(names)
    if len(oracle):
        rows.append(pd.DataFrame({"problem": oracle["dataset"], "platform": oracle["device"].map(mach.device_label),
                                  "application": models.ORACLE_MODEL, "implementation": models.ORACLE_MODEL,
                                  "ours": True, "seconds": oracle["kernel_ms"].astype(float) / 1e3}))
    platform = dict(zip(t["folder"], mach.platform_of(t["folder"], t["device"])))
    backend, protocol = models.ORIGINAL_BESIDE
    for folder, part in t.groupby("folder"):
        mine = part[(part["backend"] == backend) & (part["protocol"] == protocol)]
        beside = mine.groupby("dataset")["kernel_ms"].min()
        o = models.original_times(folder, tuple(part["dataset"].unique()), beside)
        rows.append(pd.DataFrame({"problem": o["dataset"], "platform": platform[folder], "application": models.ORIGINAL,
                                  "implementation": models.ORIGINAL, "ours": False,
                                  "seconds": o["kernel_ms"].astype(float) / 1e3}))
    return pd.concat(rows, ignore_index=True)[list(best.COLUMNS)]


def references(names: list[str] | None = None) -> pd.DataFrame:
    """Every build and ``ht_loc`` per platform and dataset with its application efficiency against
    the fastest of them (:func:`lassm.book.best.efficiency`): what :func:`points` takes ``app eff`` from."""
    t = _kernel_times(names)
    if t.empty:
        return best.efficiency(pd.DataFrame(columns=list(best.COLUMNS)))
    kernel = mach.pool_by_device(t, ["dataset", "k", "backend", "protocol"], "kernel_ms")
    return best.efficiency(_candidates(t, kernel, names))


def published_points(time_source: str = "rate") -> pd.DataFrame:
    """The paper's three ports in :func:`points`' columns (``platform`` "<datasheet name>
    (published)", ``variant`` "casptr", ``dataset``, ``k``, ``kernel_ms``, ``ii``, ``arch eff``,
    ``alg eff``); each row takes the name ``gen-k<k>`` of our like-sized generated dataset."""
    t4 = paper.table4_recomputed("lane", time_source)[["platform", "k", "machine", "ii", "arch eff", "duration_s"]]
    t7 = paper.table7_recomputed(time_source)[["platform", "k", "alg eff"]]
    df = t4.merge(t7, on=["platform", "k"])
    return pd.DataFrame({"platform": df["machine"] + PUBLISHED, "device": df["machine"], "variant": "casptr",
                         "dataset": "gen-k" + df["k"].astype(str), "k": df["k"].astype(int),
                         "kernel_ms": df["duration_s"] * 1e3, "ii": df["ii"], "arch eff": df["arch eff"],
                         "alg eff": df["alg eff"]})


def side_by_side(ours: pd.DataFrame, published: pd.DataFrame | None, value: str) -> pd.DataFrame:
    """A wide table of column ``value``: one row per (variant, dataset, k), one column per platform,
    measured (:func:`points`) first, then published (may be None); NaN where a platform has none."""
    parts = [ours] + ([published] if published is not None else [])
    both = pd.concat([p[["platform", "variant", "dataset", "k", value]] for p in parts], ignore_index=True)
    wide = both.pivot_table(index=["variant", "dataset", "k"], columns="platform", values=value, aggfunc="first")
    order = list(dict.fromkeys(ours["platform"])) + ([p for p in dict.fromkeys(published["platform"])]
                                                     if published is not None else [])
    return wide.reindex(columns=[c for c in order if c in wide.columns])


def _pp(rows: pd.DataFrame, column: str, H: list[str]) -> float:
    """PP of one (variant, dataset) over H, of one efficiency (``app eff`` or ``arch eff``); NaN
    where a platform of H has no value (not measured)."""
    if column not in pp_metrics.EFFICIENCY_COLUMNS:
        raise ValueError(f"PP takes one kind of efficiency, not {column!r}")
    frame = pd.DataFrame({"problem": "p", "application": "a", "platform": rows["platform"],
                          column: rows[column].astype(float)})
    return float(pp_metrics.pp(frame, platforms=H)[column.replace("eff", "pp")].iloc[0])


#: The datasets PP is computed on by default: the real sample and the four Table II-sized ones.
STUDY_DATASETS: tuple[str, ...] = ("sample-k77", "gen-k21", "gen-k33", "gen-k55", "gen-k77")
#: The PP columns of :func:`portability`: each one efficiency (never two kinds in one mean) over
#: one platform set.
PP_DEFINITIONS: dict[str, tuple[str, str]] = {
    "PP (app eff, H)": ("app eff", "application efficiency over H; not measured where a platform of H lacks the point"),
    "PP (app eff, where measured)": ("app eff", "application efficiency over the platforms of H that measured the "
                                                "variant on the dataset"),
    "PP (arch eff, H with counters)": ("arch eff", "architectural efficiency over the platforms of H with counters; "
                                                   "not measured where one of them lacks the point"),
}


def definitions_table() -> pd.DataFrame:
    """:data:`PP_DEFINITIONS` as a table: each PP column, its efficiency and its platform set."""
    return pd.DataFrame({"column": list(PP_DEFINITIONS),
                         "efficiency and platform set": [text for _eff, text in PP_DEFINITIONS.values()]})


def portability(pts: pd.DataFrame, H: list[str], datasets: tuple[str, ...] | None = STUDY_DATASETS) -> pd.DataFrame:
    """Pennycook's PP per (variant, dataset, k) over the platform set ``H`` (``in_H`` of
    :func:`platforms`), one column per :data:`PP_DEFINITIONS`, with ``ran on``; NaN (not measured)
    where a platform of H lacks the point. ``datasets`` defaults to :data:`STUDY_DATASETS` (None:
    all)."""
    with_counters = sorted(pts.loc[pts["arch eff"].notna(), "platform"].unique())
    with_counters = [p for p in with_counters if p in H]
    sel = pts if datasets is None else pts[pts["dataset"].isin(datasets)]
    rows = []
    for (variant, dataset, k), part in sel.groupby(["variant", "dataset", "k"], sort=True):
        ran = sorted(part["platform"].unique())
        row = {"variant": variant, "dataset": dataset, "k": int(k), "ran on": ", ".join(ran)}
        for column, plats in zip(PP_DEFINITIONS, [H, ran, with_counters]):
            eff = PP_DEFINITIONS[column][0]
            row[column] = _pp(part, eff, list(plats)) if plats else float("nan")
        rows.append(row)
    return pd.DataFrame(rows, columns=["variant", "dataset", "k", "ran on", *PP_DEFINITIONS])


def cascade_frame(pts: pd.DataFrame, published: pd.DataFrame | None = None, *, eff: str = "arch eff",
                  variant: str = "casptr") -> pd.DataFrame:
    """The rows of :func:`lassm.book.plots.pp_cascade` (``by="dataset"``): ``platform``, ``dataset``,
    ``eff`` of one variant, rows without it dropped. Published points are other problems (their own
    datasets, datasheet roofs), so they get panels of their own (:func:`published_problem`)."""
    parts = [pts[pts["variant"] == variant][["platform", "dataset", eff]]] if eff in pts else []
    if published is not None and eff in published:
        pub = published[published["variant"] == variant]
        parts.append(pd.DataFrame({"platform": pub["platform"], "dataset": pub["k"].map(published_problem),
                                   eff: pub[eff]}))
    both = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["platform", "dataset", eff])
    return both.dropna(subset=[eff]).reset_index(drop=True)


def published_problem(k: int) -> str:
    """The paper's dataset of k-mer length ``k`` as a cascade panel names it: a problem of its own."""
    return f"paper's k={int(k):d}"


def cascade_chart(pts: pd.DataFrame, published: pd.DataFrame | None = None, *, eff: str = "arch eff",
                  variant: str = "casptr"):
    """The cascade plot of one efficiency and variant, one line per dataset, or a note when no
    platform has that efficiency."""
    from . import plots

    frame = cascade_frame(pts, published, eff=eff, variant=variant)
    if frame.empty:
        from IPython.display import Markdown

        return Markdown(f"No platform has an {eff} of `{variant}`: no cascade to draw.")
    return plots.to_svg(plots.pp_cascade(frame, eff=eff, by="dataset", title=f"Cascade: {plots.title_of(eff)}, {variant}"),
                        f"cascade plot of {eff}, {variant}")


def pooling_text(plat: pd.DataFrame) -> str:
    """How the folders became platforms, in words: which devices pooled how many folders, by which rule."""
    pooled = plat[plat["folders"].str.contains(", ", regex=False)]
    if pooled.empty:
        return (f"platforms are devices; each device here has one folder, so nothing is pooled (a device's "
                f"folders would be pooled, {mach.POOLING})")
    each = "; ".join(f"{len(r.folders.split(', '))} folders of the {r.platform} ({r.folders})"
                     for r in pooled.itertuples())
    return f"platforms are devices: {each} pooled, {mach.POOLING}"


def facts(plat: pd.DataFrame, pts: pd.DataFrame, pp_table: pd.DataFrame) -> dict[str, str]:
    """Every value the cross-machine chapter's prose quotes, formatted (``ac_*`` keys), from the
    outputs of :func:`platforms`, :func:`points` and :func:`portability`."""
    H = plat[plat["in_H"]]
    out = {"ac_machines": f"{int(plat['folders'].str.split(', ').str.len().sum()):d}", "ac_platforms": f"{len(plat):d}", "ac_H_n": f"{len(H):d}",
           "ac_pooling": pooling_text(plat),
           "ac_H": ", ".join(H["platform"]) or "none",
           "ac_not_H": ", ".join(plat.loc[~plat["in_H"], "platform"]) or "none",
           "ac_counters": ", ".join(plat.loc[plat["counters"], "platform"]) or "none"}
    ref = references()
    out["ac_reference"] = best.verdict(ref[ref["problem"].isin(set(pts["dataset"]))], "dataset")
    for variant in VARIANTS:
        part = pp_table[pp_table["variant"] == variant]
        out[f"ac_pp_H_{variant}"] = span(part["PP (app eff, H)"], ".3f", pp_metrics.NOT_MEASURED)
        out[f"ac_pp_ran_{variant}"] = span(part["PP (app eff, where measured)"], ".3f", pp_metrics.NOT_MEASURED)
        out[f"ac_pp_arch_{variant}"] = span(part["PP (arch eff, H with counters)"], ".3f", pp_metrics.NOT_MEASURED)
        out[f"ac_eff_{variant}"] = span(pts.loc[pts["variant"] == variant, "arch eff"], ".1%")
    return out


__all__ = ["PP_DEFINITIONS", "PUBLISHED", "STUDY_DATASETS", "VARIANTS", "cascade_chart", "cascade_frame", "definitions_table", "facts",
           "folder_points", "folder_table", "platforms", "points", "pooling_text", "portability", "published_points", "published_problem",
           "references", "side_by_side"]

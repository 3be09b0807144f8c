# SPDX-License-Identifier: BSD-3-Clause
"""One GPU, two programming models: the CUDA and the OpenCL kernel on one device, from one run.

Every ratio is taken within one campaign entry, so both programs met the same clocks, driver and
data. Counters come from Nsight Compute per backend (``cuda``, and ``opencl-ptx``: the OpenCL
compiler's PTX launched by CUDA, since ncu profiles no OpenCL launch); the instruction mix from
each compiler's PTX (``data/results/<machine>/ptx/``, :mod:`lassm.analysis.ptx`).

PP over models x platforms uses application efficiency against
:data:`lassm.book.best.REFERENCE_RULE` on each platform, ``ht_loc`` included
(:func:`original_times`). A model that cannot run on a platform of H (:data:`RUNS_ON`) scores 0;
one that can but was not measured is "not measured"."""
from __future__ import annotations

import pandas as pd

from . import best
from . import machines as mach
from .. import paths
from ..analysis import portability as pp_metrics
from ..errors import LassmError
from .prose import span

#: What a sentence says where no value was measured.
_NOT_MEASURED = "none measured"

#: Backend -> the programming model (and kernel source) it stands for.
MODELS: dict[str, str] = {
    "cuda": "CUDA (faithful.cu, fast.cu)",
    "opencl": "OpenCL C 1.2 (portable.cl)",
    "opencl-ptx": "OpenCL's PTX launched by CUDA",
    "sycl": "OpenCL C with sub-groups (faithful.cl)",
    "cpu": "numba (the CPU oracle)",
}
#: Counter columns compared between two backends of one point.
COUNTER_COLUMNS: tuple[str, ...] = ("duration_s", "thread_inst", "warp_inst", "int_ops", "dram_bytes",
                                    "l2_bytes", "l1_bytes", "ii", "gintops", "arch eff", "predication_ratio")


def campaign_times(machine: str) -> pd.DataFrame:
    """The kernel times of ``machine``'s campaign, one row per point with a time, each from the
    ``campaign.json`` entry that measured it (:func:`lassm.book.machines.campaign_points`): a re-run
    that skipped a recorded point does not take it over. Shared-device points are left out. Columns
    ``dataset``, ``k``, ``backend``, ``protocol``, ``matches_oracle``, ``kernel_ms``, ``git_sha``,
    ``created``, ``entry`` (NA: none)."""
    path = paths.results_dir(machine) / mach.CAMPAIGN_FILE
    if not path.is_file():
        raise LassmError(f"{path}: no campaign; run 'lassm run' on that machine")
    pts = mach.campaign_points(machine)
    status = pts["status"].astype(str)
    pts = pts[pts["kernel_seconds"].notna() & (status.eq("ok") | status.str.startswith("skipped"))
              & ~pts["shared_device"]]  # timed beside another process on the device: not the point's time
    out = pts.assign(kernel_ms=pts["kernel_seconds"].astype(float) * 1e3)
    return out[["dataset", "k", "backend", "protocol", "matches_oracle", "kernel_ms", "git_sha", "created",
                "entry"]].reset_index(drop=True)


def model_ratios(times: pd.DataFrame, base: str = "cuda", other: str = "opencl") -> pd.DataFrame:
    """``other``'s kernel time over ``base``'s per (dataset, k, protocol), only where both come from
    the same campaign entry (clocks and driver may differ between runs): ``<base>_ms``,
    ``<other>_ms``, ``ratio`` and ``both_match`` (both equal the oracle)."""
    keys = ["dataset", "k", "protocol", "entry"]
    a = times[times["backend"] == base][keys + ["kernel_ms", "matches_oracle"]]
    b = times[times["backend"] == other][keys + ["kernel_ms", "matches_oracle"]]
    out = a.merge(b, on=keys, suffixes=(f"_{base}", f"_{other}"))
    out = out.rename(columns={f"kernel_ms_{base}": f"{base}_ms", f"kernel_ms_{other}": f"{other}_ms"})
    out["ratio"] = out[f"{other}_ms"] / out[f"{base}_ms"]
    out["both_match"] = out.pop(f"matches_oracle_{base}").astype(bool) & out.pop(f"matches_oracle_{other}").astype(bool)
    return out.sort_values(keys).reset_index(drop=True)


def counter_comparison(machine: str, base: str = "cuda", other: str = "opencl-ptx",
                       columns: tuple[str, ...] = COUNTER_COLUMNS) -> pd.DataFrame:
    """The counters and derived metrics of two backends at every point both were profiled, long form:
    ``dataset``, ``k``, ``protocol``, ``quantity``, ``<base>``, ``<other>``, ``ratio`` (other/base)."""
    from ..analysis.derive import machine_metrics

    keys = ["dataset", "k", "protocol"]
    a, b = machine_metrics(machine, base), machine_metrics(machine, other)
    cols = [c for c in columns if c in a.columns and c in b.columns]
    wide = a[keys + cols].merge(b[keys + cols], on=keys, suffixes=(f"|{base}", f"|{other}"))
    rows = []
    for _, r in wide.iterrows():
        for c in cols:
            x, y = float(r[f"{c}|{base}"]), float(r[f"{c}|{other}"])
            rows.append({**{k: r[k] for k in keys}, "quantity": c, base: x, other: y,
                         "ratio": y / x if x else float("nan")})
    return pd.DataFrame(rows, columns=keys + ["quantity", base, other, "ratio"])


def ptx_summary(machine: str) -> pd.DataFrame | None:
    """The static instruction mix per category of each compiler's PTX (``ptx/summary.csv``), or None."""
    path = paths.results_dir(machine) / "ptx" / "summary.csv"
    return pd.read_csv(path) if path.is_file() else None


#: MetaHipMer's local-assembly program as an application of PP and the reference it may be.
ORIGINAL = "ht_loc (MetaHipMer's original)"
#: The CPU oracle as a reference names it.
ORACLE_MODEL = "numba (the CPU oracle)"
#: The application of builds that only count as a reference (another variant or protocol).
OTHER_BUILDS = "other builds (reference only)"
#: Where each backend, and ``ht_loc`` (a CUDA program), can run at all. A backend not listed
#: (OpenCL C, OpenCL C with sub-groups) may run on any platform with a driver for it: where it
#: has no time it is "not measured", never 0.
RUNS_ON: dict[str, frozenset[str]] = {"cuda": frozenset({best.NVIDIA}), "opencl-ptx": frozenset({best.NVIDIA}),
                                      "cpu": frozenset({best.CPU}), ORIGINAL: frozenset({best.NVIDIA})}
#: The build of ours ``ht_loc`` ran beside (``lassm extend`` on the GPU, ``fast``): backend, protocol.
ORIGINAL_BESIDE: tuple[str, str] = ("cuda", "fast")


def original_times(machine: str, datasets: tuple[str, ...], beside: pd.Series | None = None) -> pd.DataFrame:
    """``ht_loc``'s kernel time per dataset on ``machine``, on the clock of our builds' times.

    ``against-original.csv`` times ``ht_loc`` and ``lassm extend`` (:data:`ORIGINAL_BESIDE`) with
    Nsight Compute; our tables time by events. Where ``beside`` (dataset -> that build's ms;
    default the campaign's) has the dataset, ``ht_loc`` is carried onto that clock at the
    side-by-side ratio (:func:`lassm.book.best.carried`); elsewhere it keeps Nsight Compute's time.
    Columns ``dataset``, ``kernel_ms``, ``clock``; empty where ``ht_loc`` did not run here."""
    from ..runs import results

    cols = ["dataset", "kernel_ms", "clock"]
    side = results.against_original(machine)
    if side is None or side.empty:
        return pd.DataFrame(columns=cols)
    side = side[side["dataset"].isin(datasets) & side["kernel_ratio"].notna()]
    backend, protocol = ORIGINAL_BESIDE
    anchor = _beside_in_campaign(machine) if beside is None else beside
    rows = []
    for r in side.itertuples():
        if r.dataset in anchor.index:
            rows.append({"dataset": r.dataset, "kernel_ms": best.carried(float(anchor[r.dataset]), r.kernel_ratio),
                         "clock": f"{best.EVENTS}, through {backend} {protocol} at the side-by-side ratio"})
        else:
            rows.append({"dataset": r.dataset, "kernel_ms": r.original_kernel_s * 1e3, "clock": best.NCU})
    return pd.DataFrame(rows, columns=cols)


def _beside_in_campaign(machine: str) -> pd.Series:
    """The campaign's kernel ms per dataset of the build ``ht_loc`` ran beside (empty without a campaign)."""
    try:
        t = campaign_times(machine)
    except LassmError:
        return pd.Series(dtype="float64")
    backend, protocol = ORIGINAL_BESIDE
    ours = t[(t["backend"] == backend) & (t["protocol"] == protocol) & t["matches_oracle"].astype(bool)]
    return ours.groupby("dataset")["kernel_ms"].min()


def implementations(platforms: dict[str, str], models: dict[str, tuple[str, ...]], variant: str,
                    datasets: tuple[str, ...]) -> pd.DataFrame:
    """Every implementation measured on each platform, as :data:`lassm.book.best.COLUMNS` rows
    (problem = dataset): each model's fastest backend of ``variant`` equal to the oracle (the CPU
    oracle, protocol ``none``, stands for the faithful variant); other equal builds as
    :data:`OTHER_BUILDS` (references only); ``ht_loc`` (:data:`ORIGINAL`) where it ran. Parameters
    as :func:`portability`."""
    rows = []
    for plat, machine in platforms.items():
        t = campaign_times(machine)
        t = t[t["dataset"].isin(datasets) & t["matches_oracle"].astype(bool)]
        want = t["protocol"].eq(variant) | (t["backend"].eq(mach.ORACLE) & (variant == "casptr"))
        taken = pd.Series(False, index=t.index)
        for model, backends in models.items():
            theirs = want & t["backend"].isin(backends)
            taken |= theirs
            mine = t[theirs].groupby("dataset")["kernel_ms"].min()
            rows += [{"problem": d, "platform": plat, "application": model, "implementation": model, "ours": True,
                      "seconds": ms / 1e3} for d, ms in mine.items()]
        rows += [{"problem": r.dataset, "platform": plat, "application": OTHER_BUILDS,
                  "implementation": ORACLE_MODEL if r.backend == mach.ORACLE else f"{r.backend} {r.protocol}",
                  "ours": True, "seconds": r.kernel_ms / 1e3} for r in t[~taken].itertuples()]
        rows += [{"problem": r.dataset, "platform": plat, "application": ORIGINAL, "implementation": ORIGINAL,
                  "ours": False, "seconds": r.kernel_ms / 1e3} for r in original_times(machine, datasets).itertuples()]
    return pd.DataFrame(rows, columns=list(best.COLUMNS))


def portability(platforms: dict[str, str], models: dict[str, tuple[str, ...]], variant: str,
                datasets: tuple[str, ...]) -> pd.DataFrame:
    """PP of each programming model over the platforms, per dataset, with application efficiency
    against the fastest implementation measured on each platform, ``ht_loc`` included.

    ``platforms``: label -> machine folder; ``models``: label -> backends (protocol ``variant``, the
    CPU oracle standing for ``casptr``). One row per (dataset, model) measured somewhere,
    ``ht_loc`` last: per platform the time, ``app eff`` and ``reference`` (NaN: not measured), and
    ``PP`` (0: cannot run on one, :func:`cannot_run`; NaN: not measured on one it can run on)."""
    eff = best.efficiency(implementations(platforms, models, variant, datasets))
    refs = eff.drop_duplicates(["problem", "platform"]).pivot(index="problem", columns="platform", values="reference") \
        if len(eff) else pd.DataFrame()
    df = eff[eff["application"] != OTHER_BUILDS]
    df = df.assign(ms=df["seconds"] * 1e3)
    pp = pp_metrics.pp(df[["problem", "platform", "application", "app eff"]], list(platforms),
                       cannot_run(platforms, models)) if len(df) else \
        pd.DataFrame(columns=["problem", "application", "app pp"])
    wide = df.pivot_table(index=["problem", "application"], columns="platform", values=["ms", "app eff"])
    wide.columns = [f"{plat} {what}" for what, plat in wide.columns]
    out = pp.merge(wide.reset_index(), on=["problem", "application"], how="left")
    apps = [m for m in [*models, ORIGINAL] if (df["application"] == m).any()]
    full = pd.MultiIndex.from_product([datasets, apps], names=["problem", "application"])
    out = out.set_index(["problem", "application"]).reindex(full).reset_index()
    for plat in platforms:
        if plat in refs.columns:
            out[f"{plat} reference"] = out["problem"].map(refs[plat])
    out["app pp"] = out["app pp"].astype("float64")
    return out.rename(columns={"problem": "dataset", "application": "model", "app pp": "PP"})


def _device_or_folder(machine: str) -> str:
    """The device ``machine``'s run records name, or, where it has a campaign but no run record,
    its folder's name (``cpu-amd-epyc``, ``nvidia-h100-80gb-hbm3``), which names the device kind too."""
    try:
        return mach.device_label(mach.device(machine))
    except LassmError:
        return machine


def cannot_run(platforms: dict[str, str], models: dict[str, tuple[str, ...]]) -> set[tuple[str, str]]:
    """The (model, platform) pairs where a model cannot run at all: none of its backends
    (:data:`RUNS_ON`) runs on the platform's kind (:func:`lassm.book.best.platform_kind` of its
    device); ``ht_loc`` where no NVIDIA GPU is."""
    kinds = {plat: best.platform_kind(_device_or_folder(machine)) for plat, machine in platforms.items()}
    anywhere = frozenset({best.CPU, best.NVIDIA, best.OTHER_GPU})
    runs_on = {model: frozenset().union(*(RUNS_ON.get(b, anywhere) for b in backends)) for model, backends in models.items()}
    return best.cannot_run(runs_on | {ORIGINAL: RUNS_ON[ORIGINAL]}, kinds)


def reference_sentence(platforms: dict[str, str], models: dict[str, tuple[str, ...]], variant: str,
                       datasets: tuple[str, ...]) -> str:
    """Where ``ht_loc`` is the fastest measured and where one of our builds is, per platform, in
    words (:func:`lassm.book.best.verdict`); the arguments are those of :func:`portability`."""
    eff = best.efficiency(implementations(platforms, models, variant, datasets))
    return best.verdict(eff[eff["application"] != OTHER_BUILDS], "dataset")


def ptx_mix(machine: str) -> pd.DataFrame | None:
    """The tidy PTX mix of ``machine`` (``ptx/mix.csv``: one row per function x opcode form), or None."""
    path = paths.results_dir(machine) / "ptx" / "mix.csv"
    return pd.read_csv(path) if path.is_file() else None


def _count(mix: pd.DataFrame, **where) -> int:
    keep = pd.Series(True, index=mix.index)
    for col, want in where.items():
        keep &= mix[col].isin(want) if isinstance(want, (list, tuple, set)) else mix[col].eq(want)
    return int(mix.loc[keep, "count"].sum())


def jin_vetter_checks(mix: pd.DataFrame, protocol: str = "casptr", base: str = "cuda",
                      other: str = "opencl") -> pd.DataFrame:
    """Jin & Vetter's PTX findings (CUDA vs SYCL on a V100) as static counts in this kernel's two PTX
    files: ``finding``, ``count``, ``<base>``, ``<other>`` and ``recurs`` (the portable compiler's
    count is the larger, or for vector loads the smaller)."""
    rows = []
    instr = mix[mix["category"] != "pragma"]  # a directive, not an instruction
    mine = {b: instr[(instr["backend"] == b) & (instr["protocol"] == protocol)] for b in (base, other)}
    checks: tuple[tuple[str, str, dict[str, object], str], ...] = (
        ("64-bit integer address arithmetic", "add/sub/mul/mad/shl on 64-bit operands",
         {"category": "int64_addr"}, "more"),
        ("shared memory addressed through 64-bit registers", "shared loads and stores with a 64-bit address",
         {"category": ["load", "store"], "space": "shared", "addr_bits": 64}, "more"),
        ("vector loads replaced by scalar ones", "vector (.v2/.v4) loads", {"category": "load", "vector": [2, 4]},
         "fewer"),
        ("more instructions overall", "every instruction", {}, "more"),
        ("type conversions (byte extraction)", "cvt", {"category": "conversion"}, "more"),
    )
    for finding, what, where, direction in checks:
        a, b = (_count(mine[x], **where) for x in (base, other))
        recurs = b > a if direction == "more" else b < a
        rows.append({"finding": finding, "count": what, base: a, other: b, "recurs": recurs})
    return pd.DataFrame(rows)


def ratio_chart(ratios: pd.DataFrame, title: str = "OpenCL over CUDA, kernel time"):
    """Dots of the OpenCL/CUDA time ratio per dataset, one colour per protocol, a rule at 1."""
    import altair as alt

    from . import plots

    dots = alt.Chart(ratios).mark_point(filled=True, size=60).encode(
        x=alt.X("ratio:Q", title="OpenCL time / CUDA time", scale=alt.Scale(zero=False)),
        y=alt.Y("dataset:N", title=None), color=alt.Color("protocol:N", title="protocol"),
        tooltip=["dataset", "protocol", alt.Tooltip("ratio:Q", format=".3f")])
    rule = alt.Chart(pd.DataFrame({"ratio": [1.0]})).mark_rule(strokeDash=[4, 4]).encode(x="ratio:Q")
    return plots.to_svg((rule + dots).properties(title=title, width=420), title)


def mix_chart(summary: pd.DataFrame, protocol: str = "casptr"):
    """Bars of each PTX's static instruction count per category, the two compilers side by side."""
    import altair as alt

    from . import plots

    cats = [c for c in summary.columns if c not in ("backend", "protocol", "pragma", "instructions")]
    long = summary[summary["protocol"] == protocol].melt(id_vars=["backend"], value_vars=cats,
                                                         var_name="category", value_name="count")
    long = long[long["count"] > 0]
    title = f"Static PTX instructions per category, {protocol}"
    chart = alt.Chart(long).mark_bar().encode(
        y=alt.Y("category:N", title=None, sort=cats), x=alt.X("count:Q", title="instructions"),
        yOffset="backend:N", color=alt.Color("backend:N", title="compiler"),
        tooltip=["backend", "category", "count"])
    return plots.to_svg(chart.properties(title=title, width=420), title)


def facts(times: pd.DataFrame, variants: tuple[str, ...] = ("casptr", "fast")) -> dict[str, str]:
    """The chapter's numbers as text: ``cm_points``, ``cm_all_match``, ``cm_sha``, ``cm_when``,
    ``cm_<variant>_span`` and ``_median`` (OpenCL over CUDA), ``cm_missing`` (variants OpenCL lacks),
    ``cm_ptx_span`` (OpenCL PTX through CUDA over the OpenCL queue), ``cm_x20`` (the ×20 sample's
    casptr ratio)."""
    shas = sorted({str(x)[:7] for x in times["git_sha"].dropna()})
    days = sorted({str(x)[:10] for x in times["created"].dropna()})
    out = {"cm_points": str(len(times)), "cm_all_match": "yes" if times["matches_oracle"].astype(bool).all() else "no",
           "cm_sha": ", ".join(shas) if shas else "none", "cm_when": ", ".join(days) if days else "never"}
    ratios = model_ratios(times)
    missing = []
    for v in variants:
        r = ratios.loc[ratios["protocol"] == v, "ratio"]
        out[f"cm_{v}_span"] = span(r, ".2f", _NOT_MEASURED)
        out[f"cm_{v}_median"] = f"{r.median():.2f}" if len(r) else "none measured"
        if r.empty:
            missing.append(v)
    out["cm_missing"] = ", ".join(f"`{v}`" for v in missing) if missing else "none"
    out["cm_ptx_span"] = span(model_ratios(times, base="opencl", other="opencl-ptx")["ratio"], ".2f", _NOT_MEASURED)
    x20 = ratios.loc[(ratios["protocol"] == "casptr") & ratios["dataset"].str.endswith("x20"), "ratio"]
    out["cm_x20"] = f"{x20.iloc[0]:.2f}" if len(x20) else "not measured"
    return out


def counter_facts(counters: pd.DataFrame) -> dict[str, str]:
    """Spans of the counter ratios (OpenCL over CUDA) the chapter's sentences quote, per variant:
    ``cm_<variant>_inst`` (thread instructions), ``cm_<variant>_dram`` (DRAM bytes)."""
    out = {}
    for variant in ("casptr", "fast"):
        mine = counters[counters["protocol"] == variant]
        for key, quantity in (("inst", "thread_inst"), ("dram", "dram_bytes")):
            ratio = mine.loc[mine["quantity"] == quantity, "ratio"]
            out[f"cm_{variant}_{key}"] = span(ratio, ".2f", _NOT_MEASURED)
    return out


def pp_span(pp: pd.DataFrame, model: str) -> str:
    """The span of one model's PP over the datasets of a :func:`portability` table, as text."""
    return span(pp.loc[pp["model"] == model, "PP"], ".2f", _NOT_MEASURED)

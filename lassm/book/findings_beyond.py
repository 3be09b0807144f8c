# SPDX-License-Identifier: BSD-3-Clause
"""The findings beyond the paper's question: two programming models on one GPU, several GPUs, and
the other kernels beside their own programs, each a :class:`.finding.Finding` whose scope names
exactly the record rows it quotes."""
from __future__ import annotations

import pandas as pd

from . import machines as mach
from .finding import Finding, Number, Scope
from .. import paths
from ..analysis.xdrop import measures, checked_records as xrec
from ..analysis.xdrop.layouts import family
from .xdrop_common import LAYOUT_WORDS
from ..errors import LassmError
from ..runs import results

#: The protocols whose OpenCL/CUDA ratio the finding quotes: the race-free faithful one and ``fast``.
MODEL_PROTOCOLS = ("casptr", "fast")


def opencl_over_cuda() -> list[Finding]:
    """OpenCL's kernel time over CUDA's on one GPU, the same kernel source, per protocol."""
    from . import models

    out = []
    for machine in mach.chapter_machines():
        try:
            r = models.model_ratios(models.campaign_times(machine))
        except (LassmError, KeyError, ValueError):
            continue
        r = r[r["both_match"] & r["protocol"].isin(MODEL_PROTOCOLS)] if len(r) else r
        if r.empty or set(r["protocol"]) != set(MODEL_PROTOCOLS):
            continue
        device = mach.device_label(mach.device(machine))
        numbers: dict[str, Number] = {"device": device, "points": len(r), "datasets": r["dataset"].nunique()}
        for p in MODEL_PROTOCOLS:
            numbers[f"{p}_lo"] = float(r.loc[r["protocol"] == p, "ratio"].min())
            numbers[f"{p}_hi"] = float(r.loc[r["protocol"] == p, "ratio"].max())
        text = ("One GPU, two programming models: on the {device}, the OpenCL build of the same kernel takes "
                "{casptr_lo:.2f} to {casptr_hi:.2f} times CUDA's kernel time for `casptr` and {fast_lo:.2f} to "
                "{fast_hi:.2f} for `fast` ({datasets:d} datasets, both outputs equal to the oracle's).")
        out.append(Finding(f"opencl_cuda_{machine}", text, "notebooks/programming_models", True, numbers,
                           Scope.of(devices=[device], datasets=r["dataset"], backends=["cuda", "opencl"],
                                    variants=r["protocol"], files=[f"data/results/{machine}/campaign.json",
                                                                   f"data/results/{machine}/"]),
                           f"measured: data/results/{machine}/ (one campaign run per pair)",
                           float(numbers["fast_hi"])))
    return out


def scaling() -> list[Finding]:
    """Strong scaling of the sharded extension over the GPUs of one node, per folder with such records."""
    out = []
    for machine in _scaling_folders():
        for dataset in _scaling_datasets(machine):
            try:
                t = results.scaling_table(machine, dataset)
            except LassmError:
                continue
            if len(t) < 2:
                continue
            top = t.loc[t["gpus"].idxmax()]
            device = mach.device_label(str(results.load_records(machine)["device"].iloc[0]))
            numbers: dict[str, Number] = {"device": device, "dataset": dataset, "gpus": int(top["gpus"]),
                       "wall": float(top["speedup_wall"]), "kernel": float(top["speedup_kernel"]),
                       "match": int(t["matches_cpu"].fillna(False).astype(bool).sum()), "runs": len(t)}
            text = ("Several GPUs: on {gpus:d} {device} GPUs of one node, the sharded extension of `{dataset}` runs "
                    "{wall:.2f} times as fast as on one for the whole command and {kernel:.2f} times for the kernels "
                    "alone; {match:d} of its {runs:d} runs give the CPU oracle's output.")
            rec = results.load_records(machine)
            rec = rec[rec["run_id"].str.startswith(f"scaling__{dataset}__")]
            out.append(Finding(f"scaling_{machine}_{dataset}", text, "notebooks/scaling", True, numbers,
                               Scope.of(devices=[device], datasets=[dataset], backends=rec["backend"],
                                        variants=rec["protocol"], files=[f"data/results/{machine}/"],
                                        commits=rec.get("git_sha", [])),
                               f"measured: data/results/{machine}/scaling__*", float(numbers["wall"])))
    return out


def _scaling_folders() -> list[str]:
    root = mach.results_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("scaling__*"))) if root.is_dir() else []


def _scaling_datasets(machine: str) -> list[str]:
    names = {p.name.split("__")[1] for p in paths.results_dir(machine).glob("scaling__*__gpus*")}
    return sorted(names)


def _layouts_words(rows: pd.DataFrame) -> str:
    from .xdrop_common import layouts_text

    return layouts_text(rows)


def xdrop_kernel() -> list[Finding]:
    """The second kernel: our X-drop GPU kernel's GCUPS per kernel layout (the block and the lanes
    kernel are not one measurement), and its speed-up over SeqAn on its host where SeqAn ran
    beside it, else over our CPU oracle, per machine."""
    out = []
    for machine in xrec.machines():
        t = measures.gcups(xrec.load(machine, "times"))
        cuda = t[(t["backend"] == "cuda") & t["gcups"].notna()] if len(t) else t
        if cuda.empty:
            continue
        numbers: dict = {"device": mach.device_label(cuda["device"].iloc[0])}
        parts = []
        for fam, rows in cuda.groupby(cuda["layout"].map(family), sort=True):
            xs = rows["xdrop"].astype(int)
            numbers.update({f"{fam}_lo": float(rows["gcups"].min()), f"{fam}_hi": float(rows["gcups"].max()),
                            f"{fam}_x": f"{xs.min():,d}" + ("" if xs.min() == xs.max() else f" to {xs.max():,d}"),
                            f"{fam}_words": LAYOUT_WORDS.get(fam, fam)})
            parts.append(f"{{{fam}_lo:.1f}} to {{{fam}_hi:.1f}} GCUPS with {{{fam}_words}} (X = {{{fam}_x}})")
        base, col = (measures.SEQAN, "speedup_vs_seqan") if cuda["speedup_vs_seqan"].notna().any() else \
            (measures.ORACLE, "speedup_vs_cpu")
        sped = cuda[cuda[col].notna()]
        ref = t[t["backend"] == base]
        numbers.update(points=len(sped), lo=float(sped[col].min()) if len(sped) else float("nan"),
                       hi=float(sped[col].max()) if len(sped) else float("nan"),
                       threads=", ".join(sorted({str(int(float(x))) for x in ref["threads"] if str(x) not in ("", "nan")}))
                       or "its", host=str(ref["device"].iloc[0]) if len(ref) else "")
        who = "SeqAn" if base == measures.SEQAN else "our CPU oracle (SeqAn did not run here)"
        text = ("The method carries over to a second kernel: on the {device} (CUDA backend), our X-drop kernel "
                "computes " + "; ".join(parts) + (f"; on the {{points:d}} points where {who} ran beside it, on "
                "{threads} threads of the host ({host}), it is {lo:.1f} to {hi:.1f} times as fast." if len(sped) else "."))
        out.append(Finding(f"xdrop_{machine}", text, "notebooks/xdrop", True, numbers,
                           Scope.of(devices=[numbers["device"], numbers["host"]], datasets=cuda["dataset"],
                                    backends=["cuda", base], variants=cuda["layout"],
                                    files=[f"data/results/{machine}/xdrop/times.csv"],
                                    commits=cuda.get("git_sha", [])),
                           f"measured: data/results/{machine}/xdrop/times.csv", float(numbers["hi"])))
    if not out:
        out.append(Finding("xdrop", "None of the {n:d} result folders holds X-drop times of a GPU yet.",
                           "notebooks/xdrop", False, {"n": len(mach.chapter_machines())}))
    return out


def xdrop_logan() -> list[Finding]:
    """Our X-drop kernel against LOGAN's own program, built and run beside it on one GPU."""
    out = []
    for machine in xrec.machines():
        raw = xrec.load(machine, "against")
        side = measures.against_logan(raw)
        side = side[side["kernel_ratio"].notna()] if len(side) else side
        if side.empty:
            continue
        device = mach.device_label(raw["device"].iloc[0])
        eq = side["scores_equal"].dropna().astype(bool)
        numbers: dict[str, Number] = {"device": device, "lo": float(side["kernel_ratio"].min()), "hi": float(side["kernel_ratio"].max()),
                   "points": len(side), "equal": int(eq.sum()), "compared": len(eq),
                   "layouts": _layouts_words(side),
                   "datasets": ", ".join(f"`{d}`" for d in sorted(set(side["dataset"])))}
        text = ("Against LOGAN's own program on the {device} ({datasets}, {points:d} values of X), our X-drop kernel "
                "(CUDA: {layouts}) takes {lo:.2f} to {hi:.2f} of its kernel time (Nsight Compute's clock for "
                "both); LOGAN's score equals ours for every pair in {equal:d} of the {compared:d} points compared.")
        out.append(Finding(f"xdrop_logan_{machine}", text, "notebooks/xdrop", True, numbers,
                           Scope.of(devices=[device], datasets=side["dataset"], backends=["cuda"],
                                    variants=[*side["layout"].dropna(), "logan"],
                                    files=[f"data/results/{machine}/xdrop/against-logan.csv"],
                                    commits=raw.get("git_sha", [])),
                           f"measured: data/results/{machine}/xdrop/against-logan.csv", float(numbers["hi"])))
    return out


def suite_originals() -> list[Finding]:
    """Jin and Vetter's kernels, our CUDA build against HeCBench's own CUDA program of each."""
    from . import suite_chapter

    out = []
    for machine in suite_chapter.machines():
        o = suite_chapter.originals(machine)
        o = o[o["ours_over_original"].notna()] if len(o) else o
        if o.empty:
            continue
        device = mach.device_label(suite_chapter.times(machine)["device"].iloc[0])
        faster = o[o["ours_over_original"] <= 1.0]
        numbers: dict[str, Number] = {"device": device, "n": len(o), "lo": float(o["ours_over_original"].min()),
                   "hi": float(o["ours_over_original"].max()), "faster": len(faster),
                   "kernels": ", ".join(f"`{k}`" for k in o["kernel"])}
        text = ("Against HeCBench's original CUDA programs on the {device} ({kernels}), our fastest CUDA build of "
                "each kernel takes {lo:.2f} to {hi:.2f} of the original's time, at most the original's for {faster:d} "
                "of the {n:d}.")
        out.append(Finding(f"suite_originals_{machine}", text, "notebooks/suite", True, numbers,
                           Scope.of(devices=[device], datasets=o["kernel"], backends=["cuda"],
                                    variants=o["ours_variant"], files=[f"data/results/{machine}/suite/originals.csv",
                                                                       f"data/results/{machine}/suite/times.csv"]),
                           f"measured: data/results/{machine}/suite/originals.csv", float(numbers["hi"])))
    return out


__all__ = ["MODEL_PROTOCOLS", "opencl_over_cuda", "scaling", "suite_originals", "xdrop_kernel", "xdrop_logan"]

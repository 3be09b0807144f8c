# SPDX-License-Identifier: BSD-3-Clause
"""The study's findings at a glance: one sentence each, its number computed from the records.

The introduction lists them, each linking its chapter. Values come from ``data/results/`` or
``data/paper-artifacts/`` through the chapters' own functions; where data are absent the
sentence says so (``measured`` False) instead of raising."""
from __future__ import annotations

import pandas as pd

from . import discussion as di
from . import machine_chapter as mc
from . import machines as mach
from .finding import Finding, Number, Scope, markdown
from .prose import span
from .. import paths
from ..analysis import paper
from ..errors import LassmError
from ..runs import results

#: The faithful protocol of the published HIP port whose published form is racy on NVIDIA.
RACY = "doneflag"
#: The optimized variant (book/fast-kernel.md).
FAST = "fast"
#: Backends that run the kernel on a GPU (the OpenCL CPU driver is no GPU of the paper's kind).
GPU_BACKENDS = ("cuda", "hip")


def _records() -> pd.DataFrame:
    """Every run record of every machine, or an empty table (a fresh clone holds none)."""
    try:
        return results.load_records()
    except (LassmError, FileNotFoundError):
        return pd.DataFrame(columns=list(results.RECORD_COLUMNS))


def _files(rec: pd.DataFrame) -> list[str]:
    """The record folders of ``rec``'s rows, as the repository names them."""
    return [f"data/results/{m}/{r}/summary.json" for m, r in zip(rec["machine"], rec["run_id"])] \
        if "run_id" in rec else [f"data/results/{m}/" for m in rec["machine"]]


def _devices(rec: pd.DataFrame) -> pd.Series:
    """Each record's device, its machine folder where a table has no device column."""
    return (rec["device"] if "device" in rec else rec["machine"]).astype(str)


def _scope(rec: pd.DataFrame, devices=None, variants: str = "protocol") -> Scope:
    """The scope of run-record rows: their devices, datasets, backends, protocols, folders and commits."""
    if rec.empty:
        return Scope()
    dev = devices if devices is not None else mach.platform_of(rec["machine"], _devices(rec))
    return Scope.of(devices=dev, datasets=rec.get("dataset", ()), backends=rec["backend"],
                    variants=rec[variants] if variants in rec else (), files=sorted({f.rsplit("/", 2)[0] + "/"
                                                                                     for f in _files(rec)}),
                    commits=rec["git_sha"] if "git_sha" in rec else ())


def _gpus_and_cpus(rec: pd.DataFrame, platforms: pd.Series) -> tuple[list[str], list[str]]:
    """The platforms of ``rec`` that are GPUs (every record of them ran on a GPU) and the others."""
    kinds = mach.device_kinds(rec) if "device" in rec else pd.Series("gpu", index=rec.index)
    is_gpu = (kinds == "gpu").groupby(platforms.to_numpy()).all()
    return sorted(is_gpu.index[is_gpu]), sorted(is_gpu.index[~is_gpu])


#: Dataset names of MetaHipMer's embedded sample (the one input with MetaHipMer's own output).
SAMPLE_PREFIX = "sample-"


def bit_exact(rec: pd.DataFrame) -> Finding:
    """Every port against the CPU oracle, and the sample's records against MetaHipMer's output."""
    ports = rec[rec["backend"].astype(str) != mach.ORACLE] if len(rec) else rec
    if ports.empty:
        return Finding("bit_exact", "No GPU or OpenCL run is recorded yet, so no port has been checked against "
                       "the CPU oracle here.", "book/method", False)
    same = ports["matches_cpu"].fillna(False).astype(bool) if "matches_cpu" in ports else pd.Series(False, ports.index)
    platforms = mach.platform_of(ports["machine"], _devices(ports))
    gpus, cpus = _gpus_and_cpus(ports, platforms)
    sample = rec[rec["dataset"].astype(str).str.startswith(SAMPLE_PREFIX)] if "dataset" in rec else rec.iloc[0:0]
    ref = sample["matches_reference"] if "matches_reference" in sample else pd.Series([], dtype=object)
    checked = ref.dropna().astype(bool)
    numbers: dict[str, Number] = {"lead": "Every port is bit-exact" if bool(same.all()) else "Not every port is bit-exact",
               "same": int(same.sum()), "ports": len(ports), "n_gpus": len(gpus), "gpus": ", ".join(gpus) or "none",
               "cpus": ", ".join(cpus) or "none", "ref_same": int(checked.sum()), "ref_checked": len(checked),
               "sample": len(sample)}
    text = ("{lead}: {same:d} of {ports:d} recorded runs of a port give the CPU oracle's output byte for byte, on "
            "{n_gpus:d} GPUs ({gpus}) and, through OpenCL's CPU drivers, on {cpus}")
    text += ("; {ref_checked:d} of the {sample:d} records of MetaHipMer's embedded sample were also compared with "
             "MetaHipMer's own output, and {ref_same:d} of them equal it." if len(sample) else ".")
    return Finding("bit_exact", text, "book/method", True, numbers, _scope(ports, platforms),
                   "measured: data/results/*/*/summary.json", float(same.mean()))


def measured_here(rec: pd.DataFrame) -> Finding:
    """What ran on hardware and what did not: the GPUs and CPUs of the records, and the vendors
    whose GPUs only the paper's published data speak for."""
    if rec.empty:
        return Finding("measured_here", "Nothing has been measured on hardware here yet: every number comes from the "
                       "paper's published data.", "book/method", False)
    platforms = mach.platform_of(rec["machine"], rec["device"].astype(str))
    gpus, cpus = _gpus_and_cpus(rec, platforms)
    vendors = {v for v in ("NVIDIA", "AMD", "Intel") if any(g.upper().startswith(v.upper()) for g in gpus)}
    absent = [v for v in ("AMD", "Intel") if v not in vendors]
    on_gpu = platforms.isin(gpus)
    ports = rec["backend"].astype(str) != mach.ORACLE
    cpu_only = sorted(set(rec.loc[ports, "backend"].astype(str)) - set(rec.loc[ports & on_gpu, "backend"].astype(str)))
    numbers: dict[str, Number] = {"n_gpus": len(gpus), "gpus": ", ".join(gpus) or "none", "n_cpus": len(cpus),
               "cpus": ", ".join(cpus) or "none", "absent": " or ".join(absent) or "no",
               "paper": ", ".join(paper_gpus()), "cpu_only": ", ".join(cpu_only) or "none"}
    text = ("Measured on hardware: {n_gpus:d} GPUs ({gpus}) and {n_cpus:d} CPUs ({cpus}). No {absent} GPU ran: "
            "what the book says of the paper's GPUs ({paper}) comes from the paper's published data; the backends "
            "that ran on CPU runtimes only: {cpu_only}." if absent else
            "Measured on hardware: {n_gpus:d} GPUs ({gpus}) and {n_cpus:d} CPUs ({cpus}).")
    return Finding("measured_here", text, "book/method", True, numbers, _scope(rec, platforms),
                   "measured: data/results/*/*/summary.json", float(len(gpus)))


def paper_gpus() -> list[str]:
    """The GPUs of the paper's published measurements, as its data name them."""
    return sorted(set(paper.measured()["machine"].astype(str))) if "machine" in paper.measured() else []


#: Written by ``lassm measure published-race``: the published protocols' runs against the fixed ones.
RACE_FILE = "published-race.csv"


def race_runs() -> pd.DataFrame:
    """Every machine's ``published-race.csv`` in one table (empty where none was measured)."""
    frames = []
    for machine in mach.chapter_machines():
        path = paths.results_dir(machine) / RACE_FILE
        if path.is_file():
            frames.append(pd.read_csv(path).assign(machine=machine))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def doneflag_race(rec: pd.DataFrame, race: pd.DataFrame | None = None) -> Finding:
    """The HIP port's published ``doneflag`` run on NVIDIA, against the fixed one, from ``rec`` (run
    records) and ``race`` (rows of :data:`RACE_FILE`, default every machine's).

    Written for lock-step wavefronts, its claim and compares are unordered under NVIDIA's
    independent thread scheduling (``ht_insert.cuh``); the lanes of one warp race in an order the
    compiled code fixes, so the same ends go wrong in every run."""
    race = race_runs() if race is None else race
    runs = rec[rec["protocol"].astype(str) == RACY] if len(rec) else rec
    ok = int(runs["matches_cpu"].fillna(False).astype(bool).sum()) if len(runs) else 0
    numbers: dict[str, Number] = {"racy": RACY, "ok": ok, "runs": len(runs)}
    fixed = "with a warp barrier added, `{racy}` equals the oracle in {ok:d} of {runs:d} recorded runs"
    published = race[(race["protocol"] == RACY) & (race["build"] == "published")] if len(race) else race
    if published.empty:
        text = ("The published `{racy}` protocol of the HIP port, written for lock-step wavefronts, is racy under "
                "NVIDIA's independent thread scheduling; " + fixed + ". No run of its published build is recorded "
                "yet (`lassm measure published-race`), so its error rate is not measured here.")
        return Finding("doneflag_race", text, "book/kernel-protocols", False, numbers, _scope(runs))
    wrong = published[published["wrong_ends"] > 0]
    per_set = published.groupby("dataset").agg(lo=("wrong_ends", "min"), hi=("wrong_ends", "max"),
                                                ends=("contig_ends", "max"), n=("wrong_ends", "size"))
    steady = bool((per_set["lo"] == per_set["hi"]).all())
    counts = "; ".join(f"{int(r.hi):,d} of {int(r.ends):,d} on `{d}` in {int(r.n)} runs" for d, r in per_set.iterrows())
    devices = sorted(set(published["device"].astype(str).map(mach.device_label)))
    numbers.update(devices=", ".join(devices), wrong=len(wrong), published=len(published),
                   share=float((wrong["wrong_ends"] / wrong["contig_ends"]).max()) if len(wrong) else 0.0,
                   counts=counts,
                   datasets=", ".join(sorted(set(published["dataset"].astype(str)))))
    same = ("the same count of wrong ends in every run of a dataset ({counts}): each warp fills its own contig "
            "end's table, so the race is between the lanes of one warp, whose divergent paths run in an order the "
            "compiled code fixes, not the timing of other warps" if steady else "wrong ends per dataset at most {counts}")
    text = ("The `{racy}` protocol of the HIP port, written for AMD's lock-step wavefronts, run as published on the "
            "{devices} (CUDA backend): {wrong:d} of {published:d} runs gave wrong contig ends, at most {share:.2%}, "
            + same + "; " + fixed + ".")
    scope = Scope.of(devices=devices, datasets=published["dataset"], backends=["cuda"], variants=[f"{RACY} (published)",
                     f"{RACY} (fixed)"], files=[f"data/results/{m}/{RACE_FILE}" for m in published.get("machine", [])],
                     commits=published.get("git_sha", []))
    return Finding("doneflag_race", text, "book/kernel-protocols", True, numbers, scope, f"measured: {RACE_FILE}",
                   len(wrong) / len(published))


def errata(time_source: str = "rate") -> Finding:
    """Tables IV and VII recomputed from the published raw data (always available)."""
    t4 = paper.table4_recomputed("lane", time_source)
    t7 = paper.table7_recomputed(time_source)
    cells = pd.concat([t4["published"] - t4["arch eff"], t7["published"] - t7["alg eff"]], ignore_index=True)
    agree = int((cells.abs() <= paper.PRINT_TOLERANCE).sum())
    numbers: dict[str, Number] = {"agree": agree, "cells": len(cells), "errata": len(paper.errata())}
    text = ("Tables IV and VII do not reproduce: recomputed from the study's own raw data, {agree:d} of {cells:d} "
            "printed efficiencies agree to the last printed digit, and the analysis has {errata:d} errata.")
    return Finding("errata", text, "notebooks/errata", True, numbers, Scope.of(files=["data/paper-artifacts/"]),
                   "published: Lindsey et al. 2024, Tables IV and VII and its artifact data", agree / len(cells))


#: The input the side-by-side finding quotes first: MetaHipMer's sample, replicated 20 times.
HEADLINE_INPUT = "sample-k77x20"


def fast_vs_original() -> list[Finding]:
    """``fast`` against MetaHipMer's original CUDA program, from the side-by-side record where one
    exists (both programs timed in one run); a hand-kept time of the original
    (``data/reference-timings.csv``) only where no such record covers the machine and input."""
    out = []
    for machine in results.against_original_machines():  # a host's folder may hold this table alone
        side = results.against_original(machine)
        if side is None or side.empty:
            continue
        f = side_by_side(side)
        raw = pd.read_csv(paths.results_dir(machine) / results.AGAINST_ORIGINAL_FILE)
        device = mach.device_label(str(raw["device"].iloc[0]))
        head = side[side["dataset"] == HEADLINE_INPUT]
        row = head.iloc[0] if len(head) else side.iloc[0]
        numbers: dict[str, Number] = {"device": device, "inputs": len(side), "walk": f["walk"], "commits": f["commits"],
                                      "whole": f["whole"],
                   "wins": f["whole_wins"], "input": str(row["dataset"]), "fast_ms": 1e3 * float(row["lassm_kernel_s"]),
                   "orig_ms": 1e3 * float(row["original_kernel_s"]), "ratio": float(row["kernel_ratio"]), "fast": FAST}
        text = ("Run side by side with MetaHipMer's original CUDA program on the {device} (CUDA backend, {inputs:d} "
                "inputs, one run each, every kernel timed by Nsight Compute), `{fast}`'s kernels take {fast_ms:.2f} ms "
                "against its {orig_ms:.1f} ms on "
                "`{input}` ({ratio:.3f} of its kernel time), its walk kernel {walk} of its kernel time over the inputs "
                "({commits}); "
                "the whole `lassm extend` command takes {whole} times its whole run, at most the original's on {wins} "
                "inputs.")
        out.append(Finding(f"fast_side_by_side_{machine}", text, "notebooks/fast_kernel", True, numbers,
                           Scope.of(devices=[device], datasets=side["dataset"], backends=["cuda"],
                                    variants=[FAST, "original ht_loc"],
                                    files=[f"data/results/{machine}/{results.AGAINST_ORIGINAL_FILE}"],
                                    commits=raw.get("git_sha", [])),
                           f"measured: data/results/{machine}/{results.AGAINST_ORIGINAL_FILE}", float(row["kernel_ratio"])))
    covered = {(f.key.removeprefix("fast_side_by_side_"), d) for f in out for d in f.scope.datasets}
    ref = results.reference_timings()
    for machine in sorted(set(ref["machine"]) & set(mach.chapter_machines())):
        try:
            bench = results.bench_table(machine)
        except LassmError:
            continue
        rows = bench[(bench["protocol"] == FAST) & bench["reference_ms"].notna()]
        for _, row in rows.iterrows():
            if (machine, row["dataset"]) in covered:
                continue  # one number per fact: the side-by-side record speaks for this input
            device = mach.device_label(mach.device(machine))
            numbers = {"device": device, "backend": str(row["backend"]), "fast": FAST, "dataset": str(row["dataset"]),
                       "ratio": float(row["kernel_ms"] / row["reference_ms"]), "fast_ms": float(row["kernel_ms"]),
                       "orig_ms": float(row["reference_ms"])}
            out.append(Finding(
                f"fast_vs_original_{machine}_{row['dataset']}",
                "On the {device} ({backend} backend), `{fast}` runs in {ratio:.2f} of the original MetaHipMer CUDA "
                "program's kernel time on `{dataset}` ({fast_ms:.1f} ms against {orig_ms:.0f} ms, the original timed "
                "apart).", "notebooks/fast_kernel", True, numbers,
                Scope.of(devices=[device], datasets=[row["dataset"]], backends=[row["backend"]], variants=[FAST],
                         files=["data/reference-timings.csv", f"data/results/{machine}/"]),
                "measured: data/reference-timings.csv", float(numbers["ratio"])))
    if not out:
        out.append(Finding("fast_vs_original", f"No machine has both a `{FAST}` benchmark and a timing of the "
                           "original MetaHipMer program in the records yet.", "notebooks/fast_kernel", False))
    return out


def first_call_sentence(table) -> str:
    """What the fast chapter says of :func:`lassm.runs.results.first_call`: the first call over the
    warm ones, with an empty kernel cache and with the kernels built ahead."""
    def part(start: str) -> str:
        rows = table[table["start"] == start]
        return span(rows["first_over_warm"], ".2f") if len(rows) else "not measured"

    built = table.loc[table["start"] == "built ahead", "build_seconds"]
    ahead = f" (`lassm build-kernels` took {span(built, '.1f')} s)" if len(built) else ""
    return (f"A command's first call on this machine takes {part('empty')} times its warm calls with an empty "
            f"kernel cache, and {part('built ahead')} times once the kernels were built ahead{ahead}, "
            f"over {len(table['command'].unique())} commands.")


def side_by_side(side) -> dict[str, str]:
    """The spans the fast chapter and the findings quote from :func:`lassm.runs.results.against_original`:
    ratio ranges of every kernel, of the walk kernel alone (every kernel where it was not timed
    apart), and of the whole command, and on how many inputs lassm's whole command is at most the original's."""
    walk = "walk_kernel_ratio" if side["walk_kernel_ratio"].notna().all() else "kernel_ratio"
    wins = int((side["whole_ratio"] <= 1.0).sum())
    if wins == len(side):
        why = ("On every input the whole command is done first: the reading, the launches and the writing, in "
               "bulk, and a driver started while the interpreter imports, outweigh what Python adds.")
    else:
        behind = ", ".join(f"`{d}`" for d in side.loc[side["whole_ratio"] > 1.0, "dataset"])
        why = (f"Where it is behind ({behind}), what Python pays before any work (the interpreter's start and "
               "its imports) and the GPU context outweigh the bulk reading, launches and writing.")
    return {"inputs": str(len(side)), "kernel": span(side["kernel_ratio"], ".3f"), "walk": span(side[walk], ".3f"),
            "whole": span(side["whole_ratio"], ".2f"), "whole_wins": f"{wins} of {len(side)}", "whole_why": why,
            "commits": commits_phrase(side.get("git_sha", pd.Series(dtype=str)))}


def commits_phrase(shas: pd.Series) -> str:
    """The commits a span's rows were measured at, in words: a span over rows of several commits
    spans several builds of ``fast``, and its sentence says so (empty where none is recorded)."""
    named = list(dict.fromkeys(str(x)[:7] for x in shas.dropna() if str(x).strip()))
    if not named:
        return ""
    if len(named) == 1:
        return f"measured at commit {named[0]}"
    counts = shas.astype(str).str[:7].value_counts()
    each = ", ".join(f"{counts[c]:d} at {c}" for c in named)
    return f"rows measured at {len(named):d} commits ({each}), each with the `fast` of its commit"


def against_published() -> list[Finding]:
    """Our faithful kernel against the paper's fastest published time, per GPU with Table II data."""
    out = []
    for machine in mach.chapter_machines():
        if not mach.times(machine)["backend"].isin(GPU_BACKENDS).any():
            continue
        ratio, builds = mc.published_ratio(machine)
        if ratio.empty:
            continue
        device = mach.device_label(mach.device(machine))
        faster = bool((ratio >= 1).all())
        shown = ratio if faster else 1 / ratio
        numbers: dict[str, Number] = {"device": device, "builds": " and ".join(builds), "lo": float(shown.min()), "hi": float(shown.max()),
                   "word": "faster" if faster else "slower", "ks": ", ".join(str(int(k)) for k in ratio.index)}
        text = ("On the {device}, the fastest faithful build ({builds}) runs datasets of Table II's sizes (k = {ks}) "
                "{lo:.1f}× to {hi:.1f}× {word} than the fastest of the paper's published ports, each on its own GPU "
                "(Lindsey et al.'s measured times).")
        rec = results.study_rows(mach.times(machine))
        out.append(Finding(f"published_{machine}", text, f"machines/{machine}", True, numbers,
                           Scope.of(devices=[device, *paper_gpus()], datasets=[f"gen-k{int(k)}" for k in ratio.index],
                                    backends=sorted({b.split()[0] for b in builds}),
                                    variants=sorted({b.split()[1] for b in builds}),
                                    files=[f"data/results/{machine}/", "data/paper-artifacts/"],
                                    commits=rec.get("git_sha", [])),
                           f"measured: data/results/{machine}/; published: Lindsey et al. 2024, Fig. 5 data",
                           float(ratio.max())))
    return out


#: The faithful protocols (the published ports' and this project's race-free one).
FAITHFUL = ("casptr", "matchany", "doneflag", "barrier")


def roofline() -> list[Finding]:
    """Where every faithful point of each profiled machine's ``metrics.csv`` sits on its measured roofline."""
    out = []
    for machine in mach.chapter_machines():
        path = paths.results_dir(machine) / "metrics.csv"
        if not path.is_file() or not (paths.results_dir(machine) / "ceilings.json").is_file():
            continue
        pts = pd.read_csv(path)
        pts = pts[pts["protocol"].isin(FAITHFUL)]
        if pts.empty:
            continue
        device = mach.device_label(mach.device(machine))
        compute = pts[pts["bound"] == "compute"]
        mem = pts[pts["bound"] == "memory"]
        numbers: dict[str, Number] = {"device": device, "backends": ", ".join(sorted(set(pts["backend"].astype(str)))),
                   "mem": len(mem), "points": len(pts), "datasets": pts["dataset"].nunique(),
                   "lo": float(mem["arch eff"].min()) if len(mem) else float("nan"),
                   "hi": float(mem["arch eff"].max()) if len(mem) else float("nan"), "compute": len(compute),
                   "compute_sets": ", ".join(f"`{d}`" for d in sorted(set(compute["dataset"].astype(str)))) or "none"}
        text = ("On the {device}'s measured roofline ({backends} backend, Nsight Compute's counters), {mem:d} of the "
                "faithful protocols' {points:d} profiled points ({datasets:d} datasets) are memory-bound, at {lo:.1%} "
                "to {hi:.1%} of the roof")
        text += "; {compute:d} lie on the compute side ({compute_sets})." if len(compute) else "."
        out.append(Finding(f"roofline_{machine}", text, f"machines/{machine}", True, numbers,
                           Scope.of(devices=[device], datasets=pts["dataset"], backends=pts["backend"],
                                    variants=pts["protocol"], files=[f"data/results/{machine}/metrics.csv"]),
                           f"measured: data/results/{machine}/metrics.csv", float(numbers["hi"])))
    if not out:
        out.append(Finding("roofline", "No machine has counters and measured ceilings in the records yet: no "
                           "point is placed on a roofline.", "notebooks/roofline", False))
    return out


def larger_caches() -> Finding:
    """The paper's larger-caches claim, on two GPUs of the same SMs, different L2 and bandwidth."""
    table = di.caches()
    pair = di.cache_pair(table)
    if pair.empty:
        return Finding("larger_caches", "The paper's claim that larger caches would help most is not tested here "
                       "yet: no two profiled GPUs with different L2 sizes are in the records.",
                       "notebooks/discussion", False)
    large, small = (mach.device_label(pair[c].iloc[0]) for c in ("larger L2", "smaller L2"))
    f = di.FAITHFUL
    numbers: dict[str, Number] = {"large": large, "small": small, "l2": float(pair["l2 ratio"].iloc[0]),
               "bw": float(pair["bandwidth ratio"].iloc[0]), "faithful": f,
               "bytes_lo": float(pair[f"{f} B/ins"].min()), "bytes_hi": float(pair[f"{f} B/ins"].max()),
               "ms_lo": float(pair[f"{f} ms"].min()), "ms_hi": float(pair[f"{f} ms"].max())}
    text = ("The paper's larger-caches claim, tested: the {large}, with {l2:.2f}× the L2 and {bw:.2f}× the HBM "
            "bandwidth of the {small}, cuts `{faithful}`'s DRAM bytes per insertion to {bytes_lo:.2f} to {bytes_hi:.2f} "
            "of the smaller GPU's and its kernel time to {ms_lo:.2f} to {ms_hi:.2f}; with both larger, the time alone "
            "cannot credit the L2.")
    return Finding("larger_caches", text, "notebooks/discussion", True, numbers,
                   Scope.of(devices=[large, small], datasets=pair["dataset"], backends=["cuda"], variants=[f],
                            files=[f"data/results/{m}/metrics.csv" for m in table["machine"]] + ["data/machines.csv"]),
                   "measured: data/results/*/metrics.csv; datasheets: data/machines.csv",
                   float(pair[f"{f} ms"].max()))


def findings(time_source: str = "rate") -> list[Finding]:
    """Every :class:`Finding` in the introduction's order, with numbers, scope, chapter and
    ``measured``; ``time_source`` as :func:`lassm.analysis.paper.measured`."""
    from . import findings_beyond as beyond

    rec = _records()
    return [measured_here(rec), bit_exact(rec), doneflag_race(rec), errata(time_source), *fast_vs_original(),
            *against_published(), *roofline(), larger_caches(), *beyond.opencl_over_cuda(), *beyond.scaling(),
            *beyond.xdrop_kernel(), *beyond.xdrop_logan(), *beyond.suite_originals()]


def table(items: list[Finding]) -> pd.DataFrame:
    """The findings as one row each: ``key, sentence, link, measured, value, scope``."""
    return pd.DataFrame([{"key": f.key, "sentence": f.sentence, "link": f.link, "measured": f.measured,
                          "value": f.value, "scope": f.scope.text()} for f in items],
                        columns=["key", "sentence", "link", "measured", "value", "scope"])


__all__ = ["FAITHFUL", "FAST", "Finding", "RACE_FILE", "RACY", "Scope", "against_published", "bit_exact",
           "doneflag_race", "errata", "fast_vs_original", "findings", "first_call_sentence", "larger_caches",
           "markdown", "measured_here", "race_runs", "roofline", "side_by_side", "table"]

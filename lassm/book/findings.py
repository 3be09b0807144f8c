# SPDX-License-Identifier: BSD-3-Clause
"""The study's findings at a glance: one sentence each, its number computed from the records.

The introduction lists these so that a reader learns the results without opening nine
chapters; each finding links the chapter that shows it. Every value comes from the committed
records (``data/results/``) or the paper's published data (``data/paper-artifacts/``) through
the same functions the chapters call, so the list grows when a new machine's records arrive.
Where a finding's data are absent (a fresh clone, a CPU-only machine), its sentence says so
instead of raising: ``measured`` is then False.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from . import discussion as di
from . import machine_chapter as mc
from . import machines as mach
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


@dataclass(frozen=True)
class Finding:
    """One finding: a sentence with its numbers in place, the chapter that shows it."""

    key: str
    sentence: str
    link: str
    measured: bool
    value: float | None = None
    #: The device that ran what the sentence reports (as the records name it), where it names one.
    device: str | None = None
    #: The backend that ran it, where one did.
    backend: str | None = None
    #: Where its numbers come from: ``measured: <records>`` or ``published: <source>``.
    source: str = ""


def _records() -> pd.DataFrame:
    """Every run record of every machine, or an empty table (a fresh clone holds none)."""
    try:
        return results.load_records()
    except (LassmError, FileNotFoundError):
        return pd.DataFrame(columns=list(results.RECORD_COLUMNS))


def bit_exact(rec: pd.DataFrame) -> Finding:
    """Every GPU/OpenCL point against the CPU oracle, and the sample against MetaHipMer's output."""
    ports = rec[rec["backend"].astype(str) != mach.ORACLE]
    if ports.empty:
        return Finding("bit_exact", "No GPU or OpenCL run is recorded yet, so no port has been checked "
                       "against the CPU oracle here.", "book/method", False)
    same = ports["matches_cpu"].fillna(False).astype(bool) if "matches_cpu" in ports else pd.Series(False, ports.index)
    ref = rec["matches_reference"].dropna().astype(bool) if "matches_reference" in rec else pd.Series([], dtype=bool)
    devices = ports["device"].astype(str) if "device" in ports else ports["machine"].astype(str)
    names = sorted(set(mach.platform_of(ports["machine"], devices)))
    lead = "Every port is bit-exact" if bool(same.all()) else "Not every port is bit-exact"
    text = (f"{lead}: {int(same.sum()):d} of {len(ports):d} recorded GPU and OpenCL runs, on the "
            f"{len(names):d} device{'s' if len(names) != 1 else ''} that ran a port ({', '.join(names)}), "
            "give the CPU oracle's output byte for byte")
    text += (f", and {int(ref.sum()):d} of {len(ref):d} runs of the embedded sample give MetaHipMer's own output."
             if len(ref) else ".")
    return Finding("bit_exact", text, "book/method", True, float(same.mean()),
                   source="measured: data/results/*/ (every run record)")


#: Written by tools/published_race.py: the published protocols' runs against the fixed ones.
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
    """The published ``doneflag`` against the fixed one: the records' checks and the race runs.

    Parameters
    ----------
    rec : the run records (:func:`lassm.runs.results.load_records`); the fixed protocol's checks.
    race : the rows of :data:`RACE_FILE` (default: every machine's, :func:`race_runs`).

    Returns
    -------
    Finding
    """
    race = race_runs() if race is None else race
    runs = rec[rec["protocol"].astype(str) == RACY] if len(rec) else rec
    ok = int(runs["matches_cpu"].fillna(False).astype(bool).sum()) if len(runs) else 0
    fixed = f"with a warp barrier added, `{RACY}` equals the oracle in {ok:d} of {len(runs):d} recorded runs"
    published = race[(race["protocol"] == RACY) & (race["build"] == "published")] if len(race) else race
    if published.empty:
        text = (f"The published `{RACY}` protocol is racy under independent thread scheduling; {fixed}. No run of "
                "the published build is recorded yet (tools/published_race.py), "
                "so its error rate is not measured here.")
        return Finding("doneflag_race", text, "book/kernel-protocols", False, None)
    wrong = published[published["wrong_ends"] > 0]
    share = wrong["wrong_ends"] / wrong["contig_ends"]
    worst = f", up to {share.max():.2%} of the contig ends in one run" if len(wrong) else ""
    devices = ", ".join(sorted(set(published["device"].astype(str).map(mach.device_label)))) or "the GPU"
    text = (f"The published `{RACY}` protocol is racy: on the {devices}, {len(wrong):d} of {len(published):d} runs of "
            f"its published build gave wrong contig ends{worst}; {fixed}.")
    backend = ", ".join(sorted(set(published["backend"].astype(str)))) if "backend" in published else "cuda"
    return Finding("doneflag_race", text, "book/kernel-protocols", True, len(wrong) / len(published),
                   device=devices, backend=backend, source=f"measured: {RACE_FILE}")


def errata(time_source: str = "rate") -> Finding:
    """Tables IV and VII recomputed from the published raw data (always available)."""
    t4 = paper.table4_recomputed("lane", time_source)
    t7 = paper.table7_recomputed(time_source)
    cells = pd.concat([t4["published"] - t4["arch eff"], t7["published"] - t7["alg eff"]], ignore_index=True)
    agree = int((cells.abs() <= paper.PRINT_TOLERANCE).sum())
    n_err = len(paper.errata())
    text = (f"Tables IV and VII do not reproduce: recomputed from the study's own raw data, {agree:d} of "
            f"{len(cells):d} printed efficiencies agree to the last printed digit, and the analysis has "
            f"{n_err:d} errata.")
    return Finding("errata", text, "notebooks/errata", True, agree / len(cells),
                   source="published: Lindsey et al. 2024, Tables IV and VII and its artifact data")


def fast_vs_original() -> list[Finding]:
    """``fast`` against the original MetaHipMer CUDA program, where both were timed on one machine."""
    out = []
    ref = results.reference_timings()
    for machine in sorted(set(ref["machine"]) & set(mach.chapter_machines())):
        try:
            bench = results.bench_table(machine)
        except LassmError:
            continue
        rows = bench[(bench["protocol"] == FAST) & bench["reference_ms"].notna()]
        for _, row in rows.iterrows():
            ratio = float(row["kernel_ms"] / row["reference_ms"])
            device = mach.device_label(mach.device(machine))
            out.append(Finding(
                f"fast_vs_original_{machine}_{row['dataset']}",
                f"On the {device} ({row['backend']} backend), `{FAST}` runs in {ratio:.2f} of the original "
                f"MetaHipMer CUDA program's kernel time on `{row['dataset']}` ({row['kernel_ms']:.1f} ms against "
                f"{row['reference_ms']:.0f} ms).", "notebooks/fast_kernel", True, ratio,
                device=device, backend=str(row["backend"]), source="measured: data/reference-timings.csv"))
    for machine in mach.chapter_machines():
        side = results.against_original(machine)
        if side is None or side.empty:
            continue
        f = side_by_side(side)
        device = mach.device_label(mach.device(machine))
        out.append(Finding(
            f"fast_side_by_side_{machine}",
            f"Run side by side with the original program on the {device} (CUDA backend, "
            f"{f['inputs']} inputs, one run), `{FAST}`'s walk kernel takes {f['walk']} of its kernel time; "
            f"the whole `lassm extend` command takes {f['whole']} times its whole run, at most the "
            f"original's on {f['whole_wins']} inputs.", "notebooks/fast_kernel", True, float(side["kernel_ratio"].max()),
            device=device, backend="cuda", source=f"measured: data/results/{machine}/against-original.csv"))
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
            "whole": span(side["whole_ratio"], ".2f"), "whole_wins": f"{wins} of {len(side)}", "whole_why": why}


def against_published() -> list[Finding]:
    """Our faithful kernel against the paper's fastest published time, per GPU with Table II data."""
    out = []
    for machine in mach.chapter_machines():
        if not mach.times(machine)["backend"].isin(GPU_BACKENDS).any():
            continue
        f = mc.facts(machine)
        if f["mc_published"].startswith("not"):
            continue
        out.append(Finding(f"published_{machine}", f"On the {f['mc_device']}, the fastest faithful build "
                           f"({f['mc_published_by']}) runs datasets of Table II's sizes {f['mc_published']} faster than "
                           "the fastest of the paper's published ports, each on its own GPU (Lindsey et al.'s measured "
                           "times).", f"machines/{machine}", True, device=f["mc_device"],
                           backend=", ".join(sorted({b.split()[0] for b in f["mc_published_by"].split(" and ")})),
                           source=f"measured: data/results/{machine}/; published: Lindsey et al. 2024, Fig. 5 data"))
    return out


def roofline() -> list[Finding]:
    """Where each profiled machine's points sit on its measured roofline."""
    out = []
    for machine in mach.chapter_machines():
        m = mach.metrics(machine)
        if m is None or not (paths.results_dir(machine) / "ceilings.json").is_file():
            continue
        pts = results.study_rows(m)
        if pts.empty:
            continue
        mem = int((pts["bound"] == "memory").sum())
        eff = pts["arch eff"].dropna()
        lo, hi = f"{eff.min():.1%}", f"{eff.max():.1%}"
        device = mach.device_label(mach.device(machine))
        backends = ", ".join(sorted(set(pts["backend"].astype(str)))) if "backend" in pts else "cuda"
        out.append(Finding(f"roofline_{machine}", f"On the {device}'s measured roofline ({backends} backend, Nsight "
                           f"Compute's counters), {mem:d} of the faithful protocols' {len(pts):d} profiled points are "
                           f"memory-bound, and the points reach {lo if lo == hi else f'{lo} to {hi}'} of the roof.",
                           f"machines/{machine}", True, float(eff.max()) if len(eff) else None, device=device,
                           backend=backends, source=f"measured: data/results/{machine}/metrics.csv"))
    if not out:
        out.append(Finding("roofline", "No machine has counters and measured ceilings in the records yet: no "
                           "point is placed on a roofline.", "notebooks/roofline", False))
    return out


def larger_caches() -> Finding:
    """The paper's larger-caches claim, tested on two GPUs of the same SMs and different L2."""
    pair = di.cache_pair(di.caches())
    if pair.empty:
        return Finding("larger_caches", "The paper's claim that larger caches would help most is not tested here "
                       "yet: no two profiled GPUs with different L2 sizes are in the records.",
                       "notebooks/discussion", False)
    f = di.facts(pair, pd.DataFrame(), pd.DataFrame())
    text = (f"The paper's larger-caches claim, tested: the {f['di_large']}, with {f['di_l2']} the L2 of the {f['di_small']}, "
            f"cuts the faithful kernel's DRAM bytes per insertion to {f['di_casptr_bytes']} of the smaller GPU's "
            f"and its kernel time to {f['di_casptr_ms']}.")
    return Finding("larger_caches", text, "notebooks/discussion", True, float(pair[f"{di.FAITHFUL} ms"].max()),
                   device=f"{f['di_large']}; {f['di_small']}", backend="cuda",
                   source="measured: data/results/*/metrics.csv")


def xdrop_kernel() -> list[Finding]:
    """The second kernel: our X-drop GPU kernel against SeqAn on all cores, per machine with X-drop times."""
    from . import xdrop as xd
    from ..analysis.xdrop import records as xrec

    out = []
    for machine in xrec.machines():
        f = xd.facts(machine)
        if f["xd_speedup_seqan"] == xd.NOT_MEASURED:
            continue
        out.append(Finding(f"xdrop_{machine}", f"The method carries over to a second kernel: on the {f['xd_device']} "
                           f"(CUDA backend), our X-drop kernel computes {f['xd_gcups']} GCUPS, {f['xd_speedup_seqan']} "
                           f"times SeqAn on all {f['xd_seqan_threads']} cores of its host ({f['xd_host']}) over "
                           f"X = {f['xd_x_values']}; of its profiled points {f['xd_compute_bound']} are compute-bound, "
                           f"at {f['xd_arch_eff']} of the measured roof.", "notebooks/xdrop", True,
                           device=f["xd_device"], backend="cuda", source=f"measured: data/results/{machine}/xdrop/"))
    if not out:
        from ..analysis.xdrop import published

        n = len(mach.chapter_machines())
        out.append(Finding("xdrop", f"LOGAN's published speed-up over SeqAn, up to "
                           f"{published.HEADLINES['speedup_seqan_1gpu']:.1f}x on one V100, is not tested here yet: none "
                           f"of the {n:d} result folders holds X-drop times.", "notebooks/xdrop", False))
    return out


def findings(time_source: str = "rate") -> list[Finding]:
    """Every finding, in the order the introduction lists them.

    Parameters
    ----------
    time_source : str
        How the paper's kernel times are read (:func:`lassm.analysis.paper.measured`).

    Returns
    -------
    list of Finding
        Each with its sentence formatted, the chapter (document name) that shows it, and
        ``measured`` False where the records lack its data.
    """
    rec = _records()
    return [bit_exact(rec), doneflag_race(rec), errata(time_source), *fast_vs_original(), *against_published(),
            *roofline(), larger_caches(), *xdrop_kernel()]


def table(items: list[Finding]) -> pd.DataFrame:
    """The findings as records (one row each), for tests and for a reader who wants the table.

    Returns
    -------
    pandas.DataFrame
        ``key, sentence, link, measured, value``.
    """
    return pd.DataFrame([asdict(f) for f in items], columns=["key", "sentence", "link", "measured", "value"])


def markdown(items: list[Finding]) -> str:
    """A MyST bullet list: each sentence, then a link to its chapter.

    Returns
    -------
    str
        One ``- sentence ({doc}`/link`)`` line per finding.
    """
    return "\n".join(f"- {f.sentence} ({{doc}}`/{f.link}`)" for f in items)


__all__ = ["FAST", "Finding", "RACY", "against_published", "bit_exact", "doneflag_race", "errata",
           "RACE_FILE", "fast_vs_original", "findings", "larger_caches", "markdown", "race_runs", "roofline", "table",
           "xdrop_kernel"]

# SPDX-License-Identifier: BSD-3-Clause
"""The introduction's findings (lassm.book.findings): computed from the records, linked, and
honest where the records lack their data."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm.book import findings as fi

from .test_book import ROOT, _toc_paths

RESULTS = ROOT / "data" / "results"


@pytest.fixture(scope="module")
def committed() -> list[fi.Finding]:
    return fi.findings()


def _summaries() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*/*/summary.json")) if not p.parent.name.startswith(".")]


def test_bit_exact_counts_every_committed_port_run(committed):
    """Recount the GPU/OpenCL records from the files themselves: the sentence must quote that count."""
    ports = [r for r in _summaries() if r.get("backend") != "cpu"]
    same = sum(bool(r.get("matches_cpu")) for r in ports)
    first = next(f for f in committed if f.key == "bit_exact")
    assert first.measured
    assert f"{same:d} of {len(ports):d} recorded" in first.sentence
    sample = [r for r in _summaries() if str(r.get("dataset", "")).startswith("sample-")]
    refs = [r["matches_reference"] for r in sample if r.get("matches_reference") is not None]
    assert f"{len(refs):d} of the {len(sample):d} records of MetaHipMer's embedded sample" in first.sentence
    assert f"and {sum(refs):d} of them equal it" in first.sentence


def test_errata_counts_follow_the_paper_module(committed):
    from lassm.analysis import paper

    e = next(f for f in committed if f.key == "errata")
    assert f"{len(paper.errata()):d} errata" in e.sentence
    assert 0 <= e.value <= 1


def test_every_link_names_a_page_of_the_book(committed):
    pages = {str(p.relative_to(ROOT).with_suffix("")) for p in _toc_paths()}
    machines = {f"machines/{p.name}" for p in RESULTS.iterdir() if p.is_dir()}
    bad = [f.link for f in committed if f.link not in pages | machines]
    assert not bad, f"findings link pages that are not in the book: {bad}"


def test_one_roofline_finding_per_profiled_machine(committed):
    profiled = sorted(p.parent.name for p in RESULTS.glob("*/metrics.csv") if (p.parent / "ceilings.json").is_file())
    assert profiled, "the committed records have no profiled machine to check against"
    keys = [f.key for f in committed if f.key.startswith("roofline_")]
    assert keys == [f"roofline_{m}" for m in profiled]


def test_one_number_per_fact_the_side_by_side_record_wins(committed):
    """Where a side-by-side record holds an input, no finding quotes the hand-kept time of the original."""
    side = [f for f in committed if f.key.startswith("fast_side_by_side_")]
    assert side
    for f in committed:
        if f.key.startswith("fast_vs_original_"):
            machine = next(m for m in (s.key.removeprefix("fast_side_by_side_") for s in side) if m in f.key)
            other = next(s for s in side if s.key.endswith(machine))
            assert not set(f.scope.datasets) & set(other.scope.datasets)


def test_markdown_lists_every_sentence_with_its_link_and_scope(committed):
    md = fi.markdown(committed)
    lines = md.splitlines()
    assert len(lines) == len(committed)
    for f, line in zip(committed, lines):
        assert line.startswith(f"- {f.sentence} ({{doc}}`/{f.link}`; {{abbr}}`scope (")
        assert line.endswith(f"{f.scope.text()})`)")
    assert list(fi.table(committed)["key"]) == [f.key for f in committed]


def test_every_measured_finding_has_a_scope(committed):
    for f in committed:
        if f.measured and f.key != "errata":
            assert f.scope.devices and f.scope.files, f.key


def test_an_empty_results_root_gives_sentences_not_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    got = {f.key: f for f in fi.findings()}
    assert not got["bit_exact"].measured and "No GPU" in got["bit_exact"].sentence
    assert not got["fast_vs_original"].measured and not got["roofline"].measured
    assert got["errata"].measured  # the paper's own data ship with the repository
    assert not any(k.startswith(("published_", "roofline_")) for k in got)


def test_a_measured_race_is_counted():
    rec = pd.DataFrame([{"machine": "m", "backend": "cuda", "protocol": "doneflag", "matches_cpu": True},
                        {"machine": "m", "backend": "cuda", "protocol": "casptr", "matches_cpu": True}])
    race = pd.DataFrame([
        {"device": "GPU X", "dataset": "d", "protocol": "doneflag", "build": "published", "contig_ends": 1000,
         "wrong_ends": 20},
        {"device": "GPU X", "dataset": "d", "protocol": "doneflag", "build": "published", "contig_ends": 1000,
         "wrong_ends": 0},
        {"device": "GPU X", "dataset": "d", "protocol": "doneflag", "build": "fixed", "contig_ends": 1000,
         "wrong_ends": 0},
        {"device": "GPU X", "dataset": "d", "protocol": "matchany", "build": "published", "contig_ends": 1000,
         "wrong_ends": 5},
    ])
    f = fi.doneflag_race(rec, race)
    assert f.measured and f.value == pytest.approx(0.5)
    assert "on the GPU X (CUDA backend): 1 of 2 runs gave wrong contig ends, at most 2.00%" in f.sentence
    assert "in 1 of 1 recorded runs" in f.sentence and "lock-step" in f.sentence


def test_without_a_race_run_the_race_is_not_claimed_as_measured():
    rec = pd.DataFrame([{"machine": "m", "backend": "cuda", "protocol": "doneflag", "matches_cpu": True}])
    f = fi.doneflag_race(rec, pd.DataFrame())
    assert not f.measured and "not measured" in f.sentence and "1 of 1" in f.sentence


def test_race_tool_counts_the_ends_that_differ():
    """``lassm measure published-race``'s comparison: zero against itself, one per changed end."""
    import copy

    from lassm.campaign import published_race as tool
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly import datasets
    from lassm.workloads.local_assembly.config import Params

    ds, k = datasets.load("sample-k21")
    oracle = extend(ds, Params(k=k), backend="cpu")
    assert tool.wrong_ends(oracle, oracle) == 0
    other = copy.deepcopy(oracle)
    walked, still = (other.right, other.left) if other.right.walk_len.max() > 0 else (other.left, other.right)
    i = int(np.flatnonzero(walked.walk_len > 0)[0])
    walked.walks.reshape(-1, walked.max_walk)[i, 0] ^= 1  # one base of one walk
    still.steps[0] += 1  # one field of an end on the other side
    assert tool.wrong_ends(other, oracle) == 2


def test_a_port_that_differs_is_not_called_bit_exact():
    rec = pd.DataFrame([{"machine": "m", "backend": "cuda", "protocol": "casptr", "matches_cpu": False},
                        {"machine": "m", "backend": "cuda", "protocol": "fast", "matches_cpu": True}])
    f = fi.bit_exact(rec)
    assert f.value == pytest.approx(0.5) and "1 of 2" in f.sentence
    assert not f.sentence.startswith("Every port is bit-exact")


# --- the discussion chapter's tables (lassm.book.discussion) --------------------------------

def test_cache_pair_divides_the_larger_l2_by_the_smaller():
    from lassm.book import discussion as di

    base = {"dataset": "gen-k21", "k": 21, "casptr ms": 10.0, "casptr B/ins": 400.0, "fast ms": 2.0}
    table = pd.DataFrame([{**base, "machine": "big", "device": "Big", "l2_mb": 60.0, "hbm_bandwidth_gbs": 4000.0,
                           "casptr ms": 9.0, "casptr B/ins": 300.0},
                          {**base, "machine": "small", "device": "Small", "l2_mb": 40.0, "hbm_bandwidth_gbs": 2000.0}])
    pair = di.cache_pair(table)
    assert list(pair["larger L2"]) == ["Big"] and list(pair["smaller L2"]) == ["Small"]
    assert pair["l2 ratio"].iloc[0] == pytest.approx(1.5) and pair["bandwidth ratio"].iloc[0] == pytest.approx(2.0)
    assert pair["casptr ms"].iloc[0] == pytest.approx(0.9) and pair["casptr B/ins"].iloc[0] == pytest.approx(0.75)
    assert di.cache_pair(table[table["machine"] == "big"]).empty


def test_discussion_facts_say_what_is_missing():
    from lassm.book import discussion as di

    got = di.facts(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    assert got["di_l2"] == "not measured" and got["di_synth_fast"] == "not measured"
    assert got["di_rank"].startswith("not measured") and got["di_fill_small"] == "none"


def test_fill_counts_contig_ends_from_the_records():
    from lassm.book import discussion as di

    fill = di.fill().set_index("dataset")
    ends = {r["dataset"]: r["contig_ends"] for r in _summaries() if "contig_ends" in r}
    assert ends and all(fill.loc[d, "contig_ends"] >= n for d, n in ends.items())
    assert list(fill["contig_ends"]) == sorted(fill["contig_ends"])


def test_ranking_orders_protocols_by_time():
    from lassm.book import discussion as di
    from lassm.book import machines as mach

    ranks = di.ranking()
    assert not ranks.empty
    row = ranks.iloc[0]
    t = mach.times(row["machine"])
    t = t[(t["dataset"] == row["dataset"]) & t["protocol"].isin(row["order"].split(" < "))]
    assert " < ".join(t.sort_values("kernel_ms")["protocol"]) == row["order"]


def test_larger_caches_names_both_ratios(committed):
    from lassm.book import discussion as di

    pair = di.cache_pair(di.caches())
    f = next(f for f in committed if f.key == "larger_caches")
    assert f.measured == (not pair.empty)
    if not pair.empty:
        assert f.value == pytest.approx(pair["casptr ms"].max())
        assert f"{pair['l2 ratio'].iloc[0]:.2f}× the L2 and {pair['bandwidth ratio'].iloc[0]:.2f}× the HBM" in f.sentence


def test_side_by_side_with_the_original_quotes_the_measured_spans(committed):
    from lassm.runs import results

    side = [f for f in committed if f.key.startswith("fast_side_by_side_")]
    for f in side:
        t = results.against_original(f.key.removeprefix("fast_side_by_side_"))
        walk = t["walk_kernel_ratio"] if t["walk_kernel_ratio"].notna().all() else t["kernel_ratio"]
        assert f"walk kernel {walk.min():.3f} to {walk.max():.3f} of its kernel time" in f.sentence
        shas = t["git_sha"].astype(str).str[:7].unique()
        assert (f"{len(shas):d} commits" if len(shas) > 1 else f"commit {shas[0]}") in f.sentence, "the span's scope"
        assert set(shas) <= set(f.scope.commits), "every commit of the span is in the finding's scope"
        assert f"takes {t['whole_ratio'].min():.2f} to {t['whole_ratio'].max():.2f} times its whole run" in f.sentence
        assert f"on {int((t['whole_ratio'] <= 1).sum())} of {len(t)} inputs" in f.sentence
    assert side, "data/results/nvidia-h100-80gb-hbm3/against-original.csv is committed: a finding quotes it"


def test_side_by_side_spans_by_hand() -> None:
    import pandas as pd

    from lassm.book.findings import side_by_side

    t = pd.DataFrame({"dataset": ["a", "b"], "kernel_ratio": [0.1, 0.3], "walk_kernel_ratio": [0.05, 0.25],
                      "whole_ratio": [0.9, 2.0]})
    got = side_by_side(t)
    assert got.pop("whole_why").startswith("Where it is behind (`b`)")
    assert got == {"inputs": "2", "kernel": "0.100 to 0.300", "walk": "0.050 to 0.250",
                   "whole": "0.90 to 2.00", "whole_wins": "1 of 2", "commits": ""}
    # a span over rows of several commits names them: it spans several builds of fast
    t["git_sha"] = ["aaaaaaa", "bbbbbbbccc"]
    assert side_by_side(t)["commits"] == ("rows measured at 2 commits (1 at aaaaaaa, 1 at bbbbbbb), each with the "
                                          "`fast` of its commit")
    assert side_by_side(t.iloc[:1])["commits"] == "measured at commit aaaaaaa"
    t = t.drop(columns="git_sha")
    assert side_by_side(t.iloc[:1])["whole_why"].startswith("On every input the whole command is done first")
    t["walk_kernel_ratio"] = [float("nan"), 0.25]  # not timed apart everywhere: every kernel is quoted
    assert side_by_side(t)["walk"] == "0.100 to 0.300"
    assert side_by_side(t.iloc[:1])["whole"] == "0.90"


def test_first_call_sentence_quotes_both_starts() -> None:
    import pandas as pd

    from lassm.book.findings import first_call_sentence
    from lassm.runs import results

    t = pd.DataFrame({"command": ["a", "b", "a", "b"], "start": ["empty", "empty", "built ahead", "built ahead"],
                      "build_seconds": [None, None, 0.6, 0.7], "first_over_warm": [1.24, 1.08, 0.88, 1.04]})
    assert first_call_sentence(t) == (
        "A command's first call on this machine takes 1.08 to 1.24 times its warm calls with an empty kernel "
        "cache, and 0.88 to 1.04 times once the kernels were built ahead (`lassm build-kernels` took 0.6 to "
        "0.7 s), over 2 commands.")
    committed = results.first_call("nvidia-h100-80gb-hbm3")
    assert committed is not None and set(committed["start"]) == {"empty", "built ahead"}
    assert f"{committed['first_over_warm'].max():.2f}" in first_call_sentence(committed)


# --- each finding names the device that ran what it reports ----------------------------------

def test_xdrop_finding_names_the_gpu_not_the_host():
    """The X-drop records of a GPU folder start with SeqAn's rows, which name the host CPU: the
    finding names the GPU for the kernel and the host for SeqAn."""
    from lassm.analysis.xdrop import checked_records as xrec
    from lassm.book import findings_beyond

    items = [f for f in findings_beyond.xdrop_kernel() if f.measured]
    if not items:
        pytest.skip("no folder holds X-drop GPU times")
    for f in items:
        machine = f.key.removeprefix("xdrop_")
        t = xrec.load(machine, "times")
        gpu = t[t["backend"] == "cuda"]
        assert f.sentence.startswith(f"The method carries over to a second kernel: on the {f.numbers['device']} (CUDA")
        assert f.numbers["device"] in gpu["device"].iloc[0] and f.numbers["host"] != f.numbers["device"]
        assert set(f.scope.variants) == set(gpu["layout"])


def test_every_measured_finding_names_its_source(committed):
    for f in committed:
        if f.measured:
            assert f.source, f"{f.key}: no source"


def test_findings_count_devices_as_the_across_chapter_does():
    """The front page said "6 machines" where the machines page said 4 devices: the bit-exact
    finding now names the devices that ran a port, pooled the way the across-machines chapter pools them."""
    from lassm.book import machines as mach
    from lassm.runs import results

    rec = results.load_records()
    ports = rec[rec["backend"] != mach.ORACLE]
    names = set(mach.platform_of(ports["machine"], ports["device"].astype(str)))
    sentence = fi.bit_exact(rec).sentence
    assert all(n in sentence for n in names)


def test_a_point_timed_by_several_runs_names_each_with_its_commit_and_clock() -> None:
    """One number per fact: the fast chapter quotes the benchmark's time of `fast` on the ×20
    sample, and names every other run of that point (the campaign, the run beside ht_loc) with its
    own time, commit and clock, so that two pages' numbers read as two runs, not one fact."""
    from lassm.book import machine_records as mr

    runs = mr.point_runs("nvidia-h100-80gb-hbm3", "sample-k77x20", 77, "cuda", "fast")
    assert {mr.BENCH_RUN, mr.CAMPAIGN_RUN, mr.SIDE_RUN} <= set(runs["run"])
    assert runs["commit"].str.fullmatch(r"[0-9a-f]{7}").all()
    said = mr.runs_sentence(runs, mr.BENCH_RUN)
    for r in runs[runs["run"] != mr.BENCH_RUN].itertuples():
        assert f"{r.kernel_ms:.2f} ms in {r.run} at commit {r.commit} ({r.clock})" in said
    bench = runs[runs["run"] == mr.BENCH_RUN]
    assert f"{bench['kernel_ms'].iloc[0]:.2f} ms in {mr.BENCH_RUN}" not in said
    assert mr.runs_sentence(bench, mr.BENCH_RUN) == ""

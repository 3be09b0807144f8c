# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run --kernel xdrop``: the plan, the times table, resuming after a kill, the counters row.

Runs the cpu backend (and a stand-in GPU backend made of it) on sets of a few short pairs.
"""
from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from lassm.backends import xdrop as registry
from lassm.backends.xdrop import xdrop_cpu
from lassm.campaign import xdrop_counters, xdrop_plan, xdrop_run
from lassm.campaign.part import Ask
from lassm.campaign.xdrop_plan import XdropPlan, describe, make_plan
from lassm.cli import main
from lassm.errors import BackendUnavailable, InputError
from lassm.runs import xdrop_records as rec
from lassm.runs.account import read_entries

FIX = Path(__file__).parent.parent / "fixtures" / "counters"


class Counting:
    """A backend module standing in for ``name``: the oracle's answers, its calls counted; as a GPU
    backend it reports cells and kernel seconds the way the CUDA backend does."""

    def __init__(self, name: str, gpu: bool = False, wrong: bool = False):
        self.name, self.gpu, self.wrong, self.calls = name, gpu, wrong, []

    def align(self, pairs, scoring, threads=None):
        self.calls.append((pairs.name, pairs.n_pairs, scoring.xdrop))
        res = xdrop_cpu.align(pairs, scoring, threads=threads)
        extra = dataclasses.replace(res.extra, device="stand-in GPU", kernel_seconds=0.5) if self.gpu \
            else dataclasses.replace(res.extra, threads=threads)
        if self.wrong:
            res = dataclasses.replace(res, end_h=res.end_h + (np.arange(res.n_pairs) == 1))
        return dataclasses.replace(res, backend=self.name, extra=extra)


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> dict[str, Counting]:
    mods = {"cpu": Counting("cpu"), "seqan": Counting("seqan"), "cuda": Counting("cuda", gpu=True)}

    def get(name: str):
        if name not in mods:
            raise BackendUnavailable(f"X-drop backend {name!r} cannot run here: not in this test")
        return mods[name]

    monkeypatch.setattr(registry, "get", get)
    return mods


def _plan(**kw) -> XdropPlan:
    base = dict(datasets=("xdrop-short-6",), xdrops=(5, 40), backends=("cpu", "seqan"), sizes={"xdrop-short-6": 6},
                repeats=2, warmup=1, profile=False, threads=2)
    return XdropPlan(**{**base, **kw})


def _rows(results: Path, machine: str = "box") -> list[dict]:
    with open(results / machine / "xdrop" / "times.csv", newline="") as fh:
        return list(csv.DictReader(fh))


# --- the plan ---------------------------------------------------------------------------------

def test_a_gpu_machine_times_the_cpu_backends_on_the_small_sets_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm.workloads.xdrop import pair_sets as datasets

    monkeypatch.setattr(datasets, "unavailable", lambda name: None)  # a machine with pbsim and the genome
    plan = make_plan(Ask(backends=["seqan", "cpu", "cuda"]), gpu=True, threads=16)
    assert plan.backends == ("cuda", "cpu", "seqan") and plan.xdrops == xdrop_plan.XDROPS
    assert plan.datasets == xdrop_plan.GPU_DATASETS and plan.sizes["xdrop-sim-20k"] == 20_000
    assert plan.backends_for("xdrop-sim-2k") == ("cuda", "cpu", "seqan")
    assert plan.backends_for("xdrop-sim-20k") == ("cuda",)
    assert plan.checked_pairs("xdrop-sim-20k") == xdrop_plan.CHECK_PAIRS < 20_000
    assert plan.checked_pairs("xdrop-sim-2k") == 2000
    assert plan.profiled() == [(d, x) for d in ("xdrop-sim-2k", "xdrop-real-lambda-2k") for x in xdrop_plan.XDROPS]
    assert json.loads(json.dumps(plan.as_dict()))["datasets"] == list(plan.datasets)
    assert describe(plan).splitlines()[-1] == f"{7 * (3 + 1 + 3)} points"


def test_without_a_gpu_every_backend_runs_every_pair() -> None:
    plan = make_plan(Ask(backends=["cpu", "seqan"]), gpu=False, threads=2)
    assert plan.datasets == xdrop_plan.CPU_DATASETS and plan.cpu_max_pairs is None and plan.check_pairs is None
    assert plan.backends_for("xdrop-sim-200") == ("cpu", "seqan") and plan.checked_pairs("xdrop-sim-200") == 200
    assert plan.profiled() == []
    quick = make_plan(Ask(True, backends=["cuda", "cpu"], xdrops=[10]), gpu=True)
    assert quick.datasets == xdrop_plan.QUICK_DATASETS and not quick.profile and quick.xdrops == (10,)


def test_without_a_gpu_opencl_is_timed_once_per_x_after_one_pair() -> None:
    """OpenCL on a CPU device ran 1 + 5 times per X, 80 of the part's 100 s on 2 cores."""
    on_cpu = make_plan(Ask(backends=["opencl", "cpu", "seqan"]), gpu=False, threads=2)
    assert (on_cpu.repeats, on_cpu.warmup) == (xdrop_plan.NO_GPU_REPEATS, xdrop_plan.NO_GPU_WARMUP) == (1, 0)
    assert "no untimed one (the rule without a GPU)" in describe(on_cpu)
    asked = make_plan(Ask(backends=["opencl", "cpu"], repeats=3, warmup=1), gpu=False)
    assert (asked.repeats, asked.warmup) == (3, 1)
    gpu = make_plan(Ask(backends=["cuda", "opencl", "cpu", "seqan"], datasets=["xdrop-short-6"]), gpu=True)
    assert (gpu.repeats, gpu.warmup) == (xdrop_plan.GPU_REPEATS, xdrop_plan.GPU_WARMUP) == (5, 1)
    assert "GPU 1 warm-up + 3 to 5 timed runs (stopping at 3 when they lie within 5% of their median)" in describe(gpu)


# --- the times table --------------------------------------------------------------------------

def test_every_backend_of_each_x_is_timed_and_checked(results: Path, fakes) -> None:
    out = xdrop_run.run_xdrop_campaign(_plan(), machine="box", progress=False)
    rows = _rows(results)
    assert list(rows[0]) == list(rec.TIMES_COLUMNS)
    assert [(r["xdrop"], r["backend"]) for r in rows] == [("5", "cpu"), ("5", "seqan"), ("40", "cpu"), ("40", "seqan")]
    for r in rows:
        assert r["kernel"] == "xdrop" and r["scoring"] == "1,-1,-1" and r["n_pairs"] == "6" == r["checked_pairs"]
        assert r["matches_oracle"] == "True" and r["git_sha"] == "sha-one" and r["threads"] == "2"
        assert float(r["gcups"]) == pytest.approx(int(r["cells"]) / float(r["seconds"]) / 1e9)
        assert r["repeats"] == "1" and r["driver"] == ""
    assert int(rows[2]["cells"]) > int(rows[0]["cells"]) > 0  # a larger X computes more cells
    assert rows[0]["cells"] == rows[1]["cells"]  # one count per (set, X), every exact backend's
    assert not out.failed and out.files["campaign"].is_file()
    (account,) = read_entries(out.files["campaign"])
    assert account["kernel"] == "xdrop" and account["plan"]["xdrops"] == [5, 40] and "times" in account["steps"]


def test_a_gpu_backend_on_a_large_set_is_checked_on_its_head(results: Path, fakes) -> None:
    plan = _plan(datasets=("xdrop-short-9",), sizes={"xdrop-short-9": 9}, backends=("cuda", "cpu", "seqan"),
                 cpu_max_pairs=5, check_pairs=4, xdrops=(30,))
    xdrop_run.run_xdrop_campaign(plan, machine="box", progress=False)
    (row,) = _rows(results)
    assert (row["backend"], row["checked_pairs"], row["matches_oracle"], row["threads"]) == ("cuda", "4", "True", "")
    assert row["device"] == "stand-in GPU" and row["repeats"] == "2" and float(row["seconds"]) == 0.5
    assert fakes["cpu"].calls[-1] == ("xdrop-short-9[:4]", 4, 30)  # the oracle ran on the head alone
    assert len(fakes["cuda"].calls) == 3 and not fakes["seqan"].calls  # 1 warm-up + 2 timed; no CPU timing


def test_a_gpu_backend_without_warm_ups_is_warmed_once_on_one_pair(results: Path, fakes) -> None:
    plan = _plan(backends=("cuda", "cpu"), repeats=1, warmup=0)
    xdrop_run.run_xdrop_campaign(plan, machine="box", progress=False)
    assert [c[:2] for c in fakes["cuda"].calls] == [("pairs", 1), ("xdrop-short-6", 6), ("xdrop-short-6", 6)]
    assert fakes["cpu"].calls[0][:2] == ("pairs", 1)  # the CPU backends' warm-up, as before
    assert {r["repeats"] for r in _rows(results)} == {"1"}


def test_the_head_of_a_set_already_run_is_not_aligned_again(results: Path, fakes) -> None:
    """xdrop-short-9's first 4 pairs are xdrop-short-4: its oracle result serves the head check."""
    plan = _plan(datasets=("xdrop-short-4", "xdrop-short-9"), sizes={"xdrop-short-4": 4, "xdrop-short-9": 9},
                 backends=("cuda", "cpu"), cpu_max_pairs=5, check_pairs=4, xdrops=(30,))
    xdrop_run.run_xdrop_campaign(plan, machine="box", progress=False)
    assert [c[:2] for c in fakes["cpu"].calls] == [("pairs", 1), ("xdrop-short-4", 4)]  # the warm-up, then one set
    rows = _rows(results)
    assert [(r["dataset"], r["backend"], r["checked_pairs"], r["matches_oracle"]) for r in rows] == [
        ("xdrop-short-4", "cuda", "4", "True"), ("xdrop-short-4", "cpu", "4", "True"),
        ("xdrop-short-9", "cuda", "4", "True")]


def test_a_wrong_backend_is_a_mismatch_and_exit_1(results: Path, fakes, monkeypatch: pytest.MonkeyPatch) -> None:
    fakes["seqan"].wrong = True
    out = xdrop_run.run_xdrop_campaign(_plan(xdrops=(20,)), machine="box", progress=False)
    assert [r["status"] for r in out.rows] == ["ok", "MISMATCH"]
    assert [r["matches_oracle"] for r in _rows(results)] == ["True", "False"]
    code = main(["run", "--kernel", "xdrop", "--machine", "box2", "--backends", "cpu,seqan", "--datasets", "xdrop-short-4",
                 "--xdrops", "20", "--quiet"])
    assert code == 1


# --- resuming ---------------------------------------------------------------------------------

def test_a_rerun_skips_what_is_recorded_at_this_commit(results: Path, fakes, monkeypatch: pytest.MonkeyPatch) -> None:
    xdrop_run.run_xdrop_campaign(_plan(xdrops=(5,)), machine="box", progress=False)
    before = len(fakes["cpu"].calls)
    out = xdrop_run.run_xdrop_campaign(_plan(), machine="box", progress=False)
    assert [(r["xdrop"], r["status"]) for r in out.rows] == [(5, "skipped (recorded)")] * 2 + [(40, "ok")] * 2
    assert [c[2] for c in fakes["cpu"].calls[before:]] == [100, 40]  # the warm-up pair, then X = 40 alone
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-two")
    out = xdrop_run.run_xdrop_campaign(_plan(), machine="box", progress=False)
    assert {r["status"] for r in out.rows} == {"ok"}  # another commit measures again
    assert {r["git_sha"] for r in _rows(results)} == {"sha-two"} and len(_rows(results)) == 4


def test_a_killed_campaign_keeps_its_finished_groups(results: Path, fakes, monkeypatch: pytest.MonkeyPatch) -> None:
    real_upsert = rec.upsert
    done = []

    def dies_second_time(*args, **kw):
        if done:
            raise KeyboardInterrupt  # killed while writing the second group
        done.append(1)
        real_upsert(*args, **kw)

    monkeypatch.setattr(rec, "upsert", dies_second_time)
    with pytest.raises(KeyboardInterrupt):
        xdrop_run.run_xdrop_campaign(_plan(), machine="box", progress=False)
    assert [r["xdrop"] for r in _rows(results)] == ["5", "5"]
    assert [p.name for p in (results / "box" / "xdrop").iterdir()] == ["times.csv"]  # no temporary left behind
    monkeypatch.setattr(rec, "upsert", real_upsert)
    first = len(fakes["seqan"].calls)
    out = xdrop_run.run_xdrop_campaign(_plan(), machine="box", progress=False)
    assert [r["status"] for r in out.rows] == ["skipped (recorded)"] * 2 + ["ok"] * 2
    assert [c[2] for c in fakes["seqan"].calls[first:]] == [100, 40]  # the warm-up pair, then X = 40 alone
    assert [r["xdrop"] for r in _rows(results)] == ["5", "5", "40", "40"]


def test_force_measures_again(results: Path, fakes) -> None:
    xdrop_run.run_xdrop_campaign(_plan(xdrops=(5,)), machine="box", progress=False)
    out = xdrop_run.run_xdrop_campaign(_plan(xdrops=(5,)), machine="box", force=True, progress=False)
    assert {r["status"] for r in out.rows} == {"ok"} and len(_rows(results)) == 2


# --- the CSV writers --------------------------------------------------------------------------

def test_upsert_replaces_rows_of_the_same_key_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    cols, key = ("a", "b", "v"), ("a", "b")
    rec.upsert(path, cols, key, [{"a": "x", "b": 1, "v": 1.5}, {"a": "y", "b": 1, "v": None}])
    rec.upsert(path, cols, key, [{"a": "x", "b": 1, "v": 2.25}, {"a": "z", "b": 2, "v": 3}])
    assert path.read_text() == "a,b,v\ny,1,\nx,1,2.25\nz,2,3\n"
    assert rec.recorded(rec.read_rows(path, cols), "", a="y") is False  # no git_sha column: never recorded
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_a_table_of_another_form_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "times.csv"
    path.write_text("dataset,seconds\nd,1\n")
    with pytest.raises(InputError, match="times.csv.*header"):
        rec.read_rows(path, rec.TIMES_COLUMNS)


# --- counters ---------------------------------------------------------------------------------

def test_a_counters_row_sums_the_launches_of_a_run() -> None:
    raw = FIX / "ncu_raw_h100_measured.csv"
    lines = [ln for ln in raw.read_text().splitlines() if ln.startswith('"')]
    table = list(csv.reader(lines))
    col = table[0].index("gpu__time_duration.sum")
    launches = [r for r in table[1:] if r[0].strip()]  # the units row has no ID
    want = sum(float(r[col].replace(",", "")) for r in launches) * 1e-9
    row = xdrop_counters.row_from_raw(raw, dataset="xdrop-sim-20k", xdrop=100, program="lassm cuda", machine="m",
                                      git_sha="s", command="c")
    assert list(row) and set(row) == set(rec.COUNTER_COLUMNS)
    assert row["launches"] == len(launches) == 2 and row["duration_s"] == pytest.approx(want)
    assert (row["dataset"], row["xdrop"], row["program"], row["simd_width"]) == ("xdrop-sim-20k", 100, "lassm cuda", 32)
    assert row["device"] == "NVIDIA H100 80GB HBM3" and row["dram_bytes"] == row["dram_read_bytes"] + row["dram_write_bytes"]


def test_the_profiled_command_is_our_align(tmp_path: Path) -> None:
    cmd = xdrop_counters.align_command(tmp_path / "p.parquet", 50, (2, -3, -1), tmp_path / "o.parquet", python="py")
    assert cmd[:6] == ["py", "-m", "lassm.cli", "xdrop", "align", str(tmp_path / "p.parquet")]
    assert cmd[cmd.index("--xdrop") + 1] == "50" and cmd[cmd.index("--mismatch") + 1] == "-3"
    assert xdrop_counters.raw_file("m", "xdrop-sim-20k", 50).name == "ncu__xdrop-sim-20k__x50__lassm-cuda.csv"


def test_without_ncu_the_counters_step_says_so(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = _plan(backends=("cuda", "cpu"), profile=True, datasets=("xdrop-sim-2k",), sizes={"xdrop-sim-2k": 2_000})
    assert plan.profiled() == [("xdrop-sim-2k", 5), ("xdrop-sim-2k", 40)]
    monkeypatch.setattr(xdrop_counters, "find_ncu", lambda: None)
    (line,) = xdrop_counters.collect(plan, "box", sha="s")
    assert line.startswith("counters: ncu not found") and not results.exists()


# --- the command line -------------------------------------------------------------------------

@pytest.mark.parametrize("kernel, argv, words", [
    ("xdrop", ["--protocols", "casptr"], "--protocols: a local-assembly option"),
    ("xdrop", ["--ks", "21"], "--ks: a local-assembly option"),
    ("xdrop", ["--datasets", "sample-k21"], "--datasets sample-k21: not an X-drop pair set"),
    ("xdrop", ["--backends", "sycl"], "--backends sycl: not an X-drop backend"),
    ("local-assembly", ["--xdrops", "10"], "--xdrops: X is the xdrop kernel's"),
    ("local-assembly", ["--backends", "seqan"], "--backends seqan: an X-drop backend"),
    ("local-assembly", ["--datasets", "xdrop-sim-20k"], "--datasets xdrop-sim-20k: an X-drop pair set"),
])
def test_each_kernel_refuses_the_other_kernels_names(kernel: str, argv: list[str], words: str, results: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    """``lassm run --kernel K`` refuses the options and names that belong to the other kernel."""
    assert main(["run", "--kernel", kernel, "--dry-run", *argv]) == 2
    assert words in capsys.readouterr().err


def test_run_kernel_xdrop_dry_run_names_its_plan(results: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["run", "--kernel", "xdrop", "--dry-run", "--backends", "cpu", "--datasets", "xdrop-short-5,xdrop-sim-1k",
                 "--xdrops", "10,100"]) == 0
    out = capsys.readouterr().out
    assert "X         10, 100" in out and "xdrop-sim-1k" in out and "\n4 points\nestimate  " in out
    assert not results.exists()


# --- the kernel field of local assembly's run records -----------------------------------------

def test_run_records_name_their_kernel_and_old_ones_read_as_local_assembly(results: Path) -> None:
    from lassm.runs import results as tables
    from lassm.runs.records import SUMMARY_KEYS

    assert "kernel" in SUMMARY_KEYS
    for run_id, summary in (("old__k21__cpu__none", {"backend": "cpu", "kernel_seconds": 1.0}),
                            ("new__k21__cpu__none", {"backend": "cpu", "kernel_seconds": 2.0, "kernel": "local-assembly"}),
                            ("odd__k21__cpu__none", {"backend": "cpu", "kernel_seconds": 3.0, "kernel": "other"})):
        (results / "box" / run_id).mkdir(parents=True)
        (results / "box" / run_id / "summary.json").write_text(json.dumps(summary))
    got = tables.load_records("box").set_index("run_id")["kernel"].to_dict()
    assert got == {"old__k21__cpu__none": "local-assembly", "new__k21__cpu__none": "local-assembly",
                   "odd__k21__cpu__none": "other"}


def test_the_chapters_reader_takes_what_the_campaign_writes(results: Path, fakes) -> None:
    """The contract from both sides: lassm.analysis.xdrop reads the campaign's tables as written."""
    from lassm.analysis.xdrop import measures, checked_records

    plan = _plan(datasets=("xdrop-short-4", "xdrop-short-9"), sizes={"xdrop-short-4": 4, "xdrop-short-9": 9},
                 backends=("cuda", "cpu", "seqan"), cpu_max_pairs=5, check_pairs=4, xdrops=(5, 30))
    xdrop_run.run_xdrop_campaign(plan, machine="box", progress=False)
    row = xdrop_counters.row_from_raw(FIX / "ncu_raw_h100_measured.csv", dataset="xdrop-short-9", xdrop=30,
                                      program="lassm cuda", machine="box", git_sha="s", command="c")
    rec.upsert(rec.folder("box") / rec.COUNTERS_FILE, rec.COUNTER_COLUMNS, rec.COUNTERS_KEY, [row])
    times = checked_records.load("box", "times")
    assert len(times) == 2 * (3 + 1) and times["matches_oracle"].all()
    g = measures.gcups(times).set_index(["dataset", "xdrop", "backend"])
    assert g.loc[("xdrop-short-4", 30, "cuda"), "speedup_vs_seqan"] > 0
    assert np.isnan(g.loc[("xdrop-short-9", 30, "cuda"), "speedup_vs_seqan"])  # no SeqAn on the large set
    assert checked_records.load("box", "counters")["launches"].tolist() == [2]


def test_a_default_real_set_this_machine_cannot_build_is_left_out_named(results: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU node without the genome's package or pbsim: the real set leaves the defaults with a
    line in lacks (the campaign still exits clean); named on the command line, it is kept (and fails)."""
    from lassm.workloads.xdrop import pair_sets as datasets

    monkeypatch.setitem(datasets.GENOMES, "lambda",
                        dataclasses.replace(datasets.GENOMES["lambda"], path=str(results / "no-such-genome.fa.gz")))
    plan = make_plan(Ask(backends=["cpu"]), gpu=True, threads=1)
    assert "xdrop-real-lambda-2k" not in plan.datasets and plan.datasets == ("xdrop-sim-2k", "xdrop-sim-20k")
    assert plan.left_out == (f"xdrop-real-lambda-2k: its genome {results / 'no-such-genome.fa.gz'} is absent "
                             f"(Debian package bowtie2-examples); left out of the X-drop campaign",)
    assert "left out  xdrop-real-lambda-2k: its genome" in describe(plan)
    named = make_plan(Ask(backends=["cpu"], datasets=["xdrop-real-lambda-2k"]), gpu=True, threads=1)
    assert named.datasets == ("xdrop-real-lambda-2k",) and named.left_out == ()

# SPDX-License-Identifier: BSD-3-Clause
"""lassm.analysis.counters: ncu / rocprof / unitrace CSV -> one tidy table, selected by name, never position.

Fixtures (tests/fixtures/counters/): ``*_measured.csv`` are real ncu 2025.3.1 output of a small
CuPy kernel named ``iterative_walks_kernel`` on an H100; ``*_handwritten.*`` are written by hand
to the documented formats (their first line says so), with counts that sum to the paper's
published raw data so that the whole pipeline can be checked against it.
"""
from __future__ import annotations

import argparse
import json
import math
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest

from lassm.analysis import counters, metrics
from lassm.cli import counters as cli_counters
from lassm.analysis.counters import ncu, rocprof, unitrace
from lassm.errors import LassmError

FIX = Path(__file__).parent.parent / "fixtures" / "counters"
ARTIFACTS = Path(__file__).resolve().parents[2] / "data" / "paper-artifacts"


def _paper_row(platform: str, k: int) -> pd.Series:
    raw = pd.read_csv(ARTIFACTS / "Raw_local_benchmarking_results.csv")
    return raw[(raw["platform"] == platform) & (raw["kmer_size"] == k)].iloc[0]


# ----------------------------------------------------------------------------------------------
# The metric-name map


def test_metric_map_has_the_documented_columns_and_the_issue_metrics() -> None:
    m = counters.load_metric_names()
    for col in ("vendor", "tool", "tool_version_min", "metric", "quantity", "unit", "aggregate"):
        assert col in m.columns
    names = set(m["metric"])
    for name in ("smsp__sass_thread_inst_executed_op_integer_pred_on.sum", "smsp__inst_executed.sum",
                 "smsp__thread_inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                 "lts__t_bytes.sum", "l1tex__t_bytes.sum", "gpu__time_duration.sum",
                 "sm__sass_thread_inst_executed_op_integer_pred_on.sum.peak_sustained",
                 "dram__bytes.sum.peak_sustained", "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second",
                 "SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64", "SQ_INSTS_SALU", "TCC_EA_RDREQ", "TCC_EA_RDREQ_32B",
                 "TCC_EA_WRREQ", "TCC_EA_WRREQ_64B", "GPU_MEMORY_BYTE_READ", "GPU_MEMORY_BYTE_WRITE"):
        assert name in names, name
    assert set(m["aggregate"]) <= {"sum", "max"}
    assert not m.duplicated(["tool", "metric"]).any()


def test_ncu_metric_list_comes_from_the_map() -> None:
    listed = ncu.metrics()
    assert listed == list(dict.fromkeys(counters.load_metric_names(tool="ncu")["metric"]))


# ----------------------------------------------------------------------------------------------
# Numbers and units


@pytest.mark.parametrize("text,value", [("1,228,657,034", 1228657034.0), ('"16,781,568"', 16781568.0),
                                        ("2,613,953,488.37", 2613953488.37), ("32", 32.0), ("2.5e3", 2500.0),
                                        (7, 7.0)])
def test_parse_number(text, value) -> None:
    assert counters.parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "n/a", None])
def test_parse_number_blank_is_nan(text) -> None:
    assert math.isnan(counters.parse_number(text))


def test_parse_number_rejects_words() -> None:
    with pytest.raises(ValueError):
        counters.parse_number("fast")


def test_units_convert_within_a_kind_only() -> None:
    assert counters.convert(13760.0, "ns", "second") == pytest.approx(13.76e-6)
    assert counters.convert(2.0, "msecond", "second") == pytest.approx(2e-3)
    assert counters.convert(1.5, "Kbyte", "byte") == pytest.approx(1500.0)
    assert counters.convert(2.0, "cycle/nsecond", "hz") == pytest.approx(2e9)
    assert counters.convert(5.0, "events", "inst") == 5.0
    with pytest.raises(ValueError):
        counters.convert(1.0, "byte", "second")


# ----------------------------------------------------------------------------------------------
# ncu


def test_build_command_matches_the_issue() -> None:
    target = ncu.extend_command("data.dat", k=21, protocol="matchany", out="/tmp/x.txt", python="python")
    cmd = ncu.build_command(target, log_file="raw.csv")
    assert cmd[:10] == ["ncu", "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
                        "--kernel-name", "iterative_walks_kernel"]
    assert cmd[cmd.index("--metrics") + 1] == ",".join(ncu.metrics())
    dash = cmd.index("--")
    assert cmd[dash + 1:] == ["python", "-m", "lassm.cli", "extend", "data.dat", "--backend", "cuda", "--k", "21",
                              "--protocol", "matchany", "--out", "/tmp/x.txt"]
    assert cmd[dash - 2:dash] == ["--log-file", "raw.csv"]
    with pytest.raises(ValueError):
        ncu.build_command([])


def test_parse_measured_h100_raw_page() -> None:
    df = ncu.parse(FIX / "ncu_raw_h100_measured.csv", dataset="synthetic", k=21, protocol="none")
    assert list(df.columns) == list(counters.COUNTER_COLUMNS)
    assert len(df) == 2
    r = df.iloc[0]
    assert r["device"] == "NVIDIA H100 80GB HBM3" and r["kernel"] == "iterative_walks_kernel"
    assert r["simd_width"] == 32
    assert r["int_lane_ops"] == 21102592 and r["warp_inst"] == 2490368 and r["thread_inst"] == 79691776
    assert r["dram_read_bytes"] == 16781568 and r["dram_write_bytes"] == 1624320
    assert r["dram_bytes"] == 16781568 + 1624320
    assert r["duration_s"] == pytest.approx(13760e-9)
    assert r["global_ldst_inst"] == 131072 * 2 and r["global_ldst_sectors"] == 524288 * 2
    # ceilings: peak per cycle x clock (16,896 inst/cycle = 132 SMs x 128; 528 = 132 x 4)
    assert r["peak_int_lane_ops_per_s"] == pytest.approx(16896 * 1985323070.82)
    assert r["peak_warp_inst_per_s"] == pytest.approx(528 * 1985323070.82)
    assert r["peak_dram_bytes_per_s"] == pytest.approx(1280 * 2613953488.37)
    assert math.isnan(r["int_simd_inst"])  # ncu does not give integer SIMD instructions: NaN, not 0


def test_measured_lassm_run_with_its_sidecars() -> None:
    """What collect() wrote for 'lassm extend' (k = 77 sample, casptr) on an H200: labels from the sidecar."""
    raw = FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv"
    df = ncu.parse(raw)
    assert len(df) == 4 and set(df["kernel"]) == {"iterative_walks_kernel"}
    assert set(df["dataset"]) == {"sample-k77"} and set(df["k"]) == {77} and set(df["protocol"]) == {"casptr"}
    assert set(df["tool_version"]) == {"2025.3.1.0"} and set(df["device"]) == {"NVIDIA H200"}
    point = counters.aggregate(df)
    assert point["launches"].iloc[0] == 4 and point["int_lane_ops"].iloc[0] == 2656415678
    m = metrics.predication_ratio(metrics.intop_intensity(metrics.select_int_ops(point, "lanes")))
    assert m["ii"].iloc[0] == pytest.approx(1.3334, abs=1e-4)
    assert m["predication_ratio"].iloc[0] == pytest.approx(0.2887, abs=1e-4)


def test_measured_unit_stride_kernel_sits_on_the_stride_1_wall() -> None:
    """The measured kernel reads and writes one 32-bit word per thread, unit stride: 1/4 (Ding and Williams 2019)."""
    from lassm.analysis import roofline

    df = ncu.parse(FIX / "ncu_raw_h100_measured.csv", dataset="synthetic", k=21, protocol="none")
    pattern = metrics.global_memory_pattern(df)["ldst_intensity"]
    walls = roofline.memory_walls(int(df["simd_width"].iloc[0]), 32).set_index("label")["x"]
    assert (pattern == walls["stride-1 (32-bit)"]).all()


def test_parse_measured_h100_details_page() -> None:
    df = ncu.parse(FIX / "ncu_details_h100_measured.csv")
    assert df["launch"].tolist() == [0, 1]
    assert df["dram_read_bytes"].tolist() == [16781312, 16780544]
    assert df["duration_s"].tolist() == pytest.approx([14048e-9, 13056e-9])
    assert df["warp_inst"].tolist() == [2490368, 2490368]


def test_columns_are_selected_by_name_not_position() -> None:
    text = (FIX / "ncu_raw_a100_k21_handwritten.csv").read_text().splitlines()
    start = next(i for i, ln in enumerate(text) if ln.startswith('"ID"'))
    import csv
    import io

    rows = list(csv.reader(text[start:]))
    order = list(range(11)) + list(reversed(range(11, len(rows[0]))))
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([[r[i] for i in order] for r in rows])
    a = ncu.parse("\n".join(text[:start]) + "\n" + buf.getvalue())
    b = ncu.parse(FIX / "ncu_raw_a100_k21_handwritten.csv")
    cols = [c for c in counters.QUANTITY_COLUMNS]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_handwritten_a100_reproduces_the_papers_a100_k21_point() -> None:
    df = ncu.parse(FIX / "ncu_raw_a100_k21_handwritten.csv", dataset="paper", k=21, protocol="matchany")
    point = counters.aggregate(df)
    assert len(point) == 1 and point["launches"].iloc[0] == 2
    paper = _paper_row("NVIDIA", 21)
    p = point.iloc[0]
    assert p["int_lane_ops"] == paper["integer_operations_by_thread"]
    assert p["warp_inst"] == paper["integer_operations_by_warp"]
    assert p["dram_bytes"] == paper["dram_bytes"]
    assert p["peak_int_lane_ops_per_s"] == pytest.approx(108 * 64 * 1.41e9)  # a rate: max, not sum
    m = metrics.throughput(metrics.intop_intensity(metrics.select_int_ops(point, "lanes")))
    assert round(m["ii"].iloc[0], 3) == paper["AI"] == 0.826
    assert m["gintops"].iloc[0] == pytest.approx(paper["GIntOP_per_sec"], rel=1e-3)
    ratio = metrics.predication_ratio(point)["predication_ratio"].iloc[0]
    assert ratio == pytest.approx(9.83e9 / (1228657034 * 32))


def test_units_row_is_used(tmp_path: Path) -> None:
    text = (FIX / "ncu_raw_a100_k21_handwritten.csv").read_text().replace('"ns"', '"msecond"')
    text = text.replace('"11,130,000"', '"11.13"')
    df = ncu.parse(text)
    assert df["duration_s"].tolist() == pytest.approx([0.01113, 0.01113])


def test_malformed_ncu_csv_raises() -> None:
    with pytest.raises(ValueError, match="header"):
        ncu.read_raw("==PROF== nothing here\nnot,a,table\n")
    bad = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n"0","k","1","extra"\n'
    with pytest.raises(ValueError, match="fields"):
        ncu.read_raw(bad)


def test_missing_warp_width_is_an_error_unless_given() -> None:
    text = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n"0","k","1,000"\n'
    with pytest.raises(ValueError, match="warp width"):
        ncu.parse(text)
    assert ncu.parse(text, simd_width=32)["simd_width"].iloc[0] == 32


def test_err_nvgpuctrperm_is_a_lassm_error() -> None:
    text = (FIX / "ncu_err_nvgpuctrperm_handwritten.txt").read_text()
    with pytest.raises(LassmError, match="ERR_NVGPUCTRPERM"):
        ncu.check_output(text)
    ncu.check_output("==PROF== Connected\n")  # a clean log passes


def test_version_number() -> None:
    text = ("NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\n"
            "Version 2025.3.1.0 (build 36398880) (public-release)\n")
    assert ncu.version_number(text) == "2025.3.1.0"
    assert ncu.version_number("garbage") == ""


def test_collect_without_ncu_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LassmError, match="not on PATH"):
        ncu.collect(["true"], tmp_path / "raw.csv", dataset="d", k=21, protocol="p",
                    session=ncu.Session(ncu="no-such-ncu-here"))
    assert not (tmp_path / "raw.csv").exists()


def _fake_ncu(tmp_path: Path, log_text: str, rc: int = 0) -> str:
    """A stand-in ncu that answers --version and copies a canned log to --log-file."""
    log = tmp_path / "canned.log"
    log.write_text(log_text)
    script = tmp_path / "fake-ncu"
    script.write_text(
        f"#!{sys.executable}\n"
        "import shutil, sys\n"
        "a = sys.argv[1:]\n"
        "if a == ['--version']:\n"
        "    print('NVIDIA (R) Nsight Compute Command Line Profiler'); print('Version 2099.1.0.0 (build 1)'); sys.exit(0)\n"
        f"shutil.copy({str(log)!r}, a[a.index('--log-file') + 1])\n"
        f"sys.exit({rc})\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_collect_writes_raw_version_and_meta(tmp_path: Path) -> None:
    exe = _fake_ncu(tmp_path, (FIX / "ncu_raw_a100_k21_handwritten.csv").read_text())
    raw = ncu.collect(["python", "-c", "pass"], tmp_path / "out" / "raw.csv", dataset="gen-k21", k=21,
                      protocol="matchany", session=ncu.Session(ncu=exe))
    vfile, mfile = counters.sidecar_paths(raw)
    assert raw.exists() and "2099.1.0.0" in vfile.read_text()
    meta = json.loads(mfile.read_text())
    assert meta["tool_version"] == "2099.1.0.0" and meta["dataset"] == "gen-k21" and meta["k"] == 21
    assert meta["command"][0] == exe and "--metrics" in meta["command"]
    df = ncu.parse(raw)  # labels come from the sidecar
    assert set(df["dataset"]) == {"gen-k21"} and set(df["protocol"]) == {"matchany"} and set(df["k"]) == {21}
    assert set(df["tool_version"]) == {"2099.1.0.0"}


def test_collect_refused_profiling_leaves_no_file(tmp_path: Path) -> None:
    exe = _fake_ncu(tmp_path, (FIX / "ncu_err_nvgpuctrperm_handwritten.txt").read_text())
    with pytest.raises(LassmError, match="ERR_NVGPUCTRPERM"):
        ncu.collect(["python", "-c", "pass"], tmp_path / "raw.csv", dataset="d", k=21, protocol="p",
                    session=ncu.Session(ncu=exe))
    assert not (tmp_path / "raw.csv").exists()
    assert not list(tmp_path.glob(".raw.csv*"))


def test_collect_failing_target_is_a_lassm_error(tmp_path: Path) -> None:
    exe = _fake_ncu(tmp_path, "==PROF== Connected\n", rc=3)
    with pytest.raises(LassmError, match="exited 3"):
        ncu.collect(["python", "-c", "pass"], tmp_path / "raw.csv", dataset="d", k=21, protocol="p",
                    session=ncu.Session(ncu=exe))


# ----------------------------------------------------------------------------------------------
# rocprof


def test_rocprof_v1_reproduces_the_papers_amd_k21_point() -> None:
    df = rocprof.parse(FIX / "rocprof_v1_mi250x_k21_handwritten.csv", kernel_regex="iterative_walks_kernel")
    assert len(df) == 1
    r = df.iloc[0]
    paper = _paper_row("AMD", 21)
    assert r["simd_width"] == 64  # from the wave_size column
    assert r["int_simd_inst"] == paper["integer_operations_by_warp"]
    assert r["int_simd_ops"] == paper["integer_operations_by_thread"]  # 64 x (INT32 + INT64)
    assert r["dram_bytes"] == paper["dram_bytes"]
    # 64 (RDREQ - RDREQ_32B) + 32 RDREQ_32B and 64 WRREQ_64B + 32 (WRREQ - WRREQ_64B)
    assert r["dram_read_bytes"] == 64 * (90_000_000 - 10_000_000) + 32 * 10_000_000
    assert r["dram_write_bytes"] == 64 * 20_000_000 + 32 * (21_597_514 - 20_000_000)
    assert r["duration_s"] == pytest.approx(0.031595)
    assert math.isnan(r["int_lane_ops"])  # no predicate-aware count on AMD
    all_rows = rocprof.parse(FIX / "rocprof_v1_mi250x_k21_handwritten.csv")
    assert len(all_rows) == 2


def test_rocprofv3_two_passes_merge_by_dispatch() -> None:
    files = [FIX / "rocprofv3_pass1_handwritten.csv", FIX / "rocprofv3_pass2_handwritten.csv"]
    df = rocprof.parse(files, simd_width=64, dataset="paper", k=21, protocol="doneflag")
    assert df["tool"].tolist() == ["rocprofv3", "rocprofv3"] and df["launch"].tolist() == [1, 2]
    p = counters.aggregate(df).iloc[0]
    paper = _paper_row("AMD", 21)
    assert p["int_simd_ops"] == paper["integer_operations_by_thread"]
    assert p["dram_bytes"] == paper["dram_bytes"]
    assert p["duration_s"] == pytest.approx(0.031595)
    with pytest.raises(ValueError, match="width"):
        rocprof.parse(files)  # rocprofv3 CSV has no wave_size
    with pytest.raises(ValueError, match="two files"):
        rocprof.parse([files[0], files[0]], simd_width=64)


def test_rocprof_input_file_and_command() -> None:
    text = rocprof.input_text("v3")
    assert text.splitlines() == ["pmc: SQ_INSTS_VALU_INT32 SQ_INSTS_VALU_INT64 SQ_INSTS_SALU",
                                 "pmc: TCC_EA_RDREQ TCC_EA_RDREQ_32B TCC_EA_WRREQ TCC_EA_WRREQ_64B"]
    assert "TCC_EA_RDREQ_sum" in rocprof.input_text("v1")
    cmd = rocprof.build_command(["app"], input_file="in.txt", out_dir="out")
    assert cmd[0] == "rocprofv3" and cmd[-2:] == ["--", "app"] and "--kernel-include-regex" in cmd


# ----------------------------------------------------------------------------------------------
# unitrace


def test_unitrace_groups_merge_and_reproduce_the_papers_intel_k21_point() -> None:
    files = [FIX / "unitrace_computebasic_max1550_k21_handwritten.csv",
             FIX / "unitrace_vectorengine_max1550_k21_handwritten.csv"]
    df = unitrace.parse(files, kernel_regex="iterative_walks_kernel")
    assert len(df) == 2 and set(df["simd_width"]) == {16}  # from "[SIMD16" in the kernel name
    p = counters.aggregate(df).iloc[0]
    paper = _paper_row("INTEL", 21)
    assert p["int_simd_inst"] == paper["integer_operations_by_warp"]
    assert p["int_simd_ops"] == paper["integer_operations_by_thread"]
    assert p["dram_bytes"] == paper["dram_bytes"]
    assert p["duration_s"] == pytest.approx(paper["kernel_time"])  # ComputeBasic's time, the first file's
    assert p["l2_bytes"] == 2 * (9_000_000_000 + 1_400_000_000)
    assert p["warp_inst"] == 2 * (180_000_000 + 90_000_000 + 60_000_000 + 30_000_000)


def test_unitrace_needs_a_width() -> None:
    text = "Kernel,GpuTime[ns],GPU_MEMORY_BYTE_READ[bytes]\nk,10,5\n"
    with pytest.raises(ValueError, match="width"):
        unitrace.parse(text)
    assert unitrace.parse(text, simd_width=16)["duration_s"].iloc[0] == pytest.approx(1e-8)


# ----------------------------------------------------------------------------------------------
# Aggregation and the CLI pieces


def test_aggregate_nan_in_one_launch_makes_the_point_nan() -> None:
    df = ncu.parse(FIX / "ncu_raw_a100_k21_handwritten.csv", dataset="d", k=21, protocol="p")
    df.loc[1, "l2_bytes"] = float("nan")
    before = df.copy()
    point = counters.aggregate(df)
    pd.testing.assert_frame_equal(df, before)
    assert math.isnan(point["l2_bytes"].iloc[0])
    assert point["dram_bytes"].iloc[0] == 4765081856


def test_aggregate_groups_by_point() -> None:
    a = ncu.parse(FIX / "ncu_raw_a100_k21_handwritten.csv", dataset="d", k=21, protocol="p")
    b = ncu.parse(FIX / "ncu_raw_a100_k21_handwritten.csv", dataset="d", k=33, protocol="p")
    out = counters.aggregate(pd.concat([a, b], ignore_index=True))
    assert out["k"].tolist() == [21, 33] and out["launches"].tolist() == [2, 2]
    with pytest.raises(ValueError):
        counters.aggregate(a.drop(columns=["dram_bytes"]))


def _cli() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lassm")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_counters.add_subcommands(sub)
    return parser


def test_cli_parse_writes_a_tidy_csv(tmp_path: Path, capsys) -> None:
    out = tmp_path / "tidy.csv"
    args = _cli().parse_args(["counters", "parse", str(FIX / "rocprof_v1_mi250x_k21_handwritten.csv"),
                              "--tool", "rocprof", "--aggregate", "--k", "21", "--dataset", "paper",
                              "--out", str(out)])
    assert args.func(args) == 0
    df = pd.read_csv(out)
    assert len(df) == 1 and df["launches"].iloc[0] == 2 and df["k"].iloc[0] == 21


def test_cli_collect_without_ncu_is_a_lassm_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "x.dat"
    data.write_text("1 ACGT 1 0 0\n")
    monkeypatch.setenv("PATH", str(tmp_path))  # no ncu on it
    args = _cli().parse_args(["counters", "collect", str(data), "--k", "21", "--out", str(tmp_path / "raw.csv")])
    with pytest.raises(LassmError, match="not on PATH"):
        args.func(args)
    with pytest.raises(SystemExit):  # an --ncu that is no program is refused as it is parsed
        _cli().parse_args(["counters", "collect", str(data), "--k", "21", "--ncu", "no-such-ncu-here",
                           "--out", str(tmp_path / "raw.csv")])


# ----------------------------------------------------------------------------------------------
# A profile whole, and once


def test_the_same_profile_given_twice_is_refused(tmp_path: Path, capsys) -> None:
    """``counters parse a.csv a.csv`` counted every launch twice and doubled every sum; a copy
    under another name did the same. Both are one line now; two different files are still summed."""
    raw = FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv"
    copy = tmp_path / "copy.csv"
    copy.write_bytes(raw.read_bytes())
    for twice, said in (([raw, raw], "the same file as"), ([raw, copy], "the same bytes as")):
        args = _cli().parse_args(["counters", "parse", *map(str, twice), "--tool", "ncu", "--aggregate"])
        with pytest.raises(LassmError, match=f"{said} .*given already: one profile counted twice"):
            args.func(args)
    other = FIX / "ncu_raw_h100_measured.csv"
    assert len(counters.parse([raw, other], "ncu")) == len(ncu.parse(raw)) + len(ncu.parse(other))
    capsys.readouterr()


def test_a_collected_profile_cut_at_a_line_end_is_refused(tmp_path: Path) -> None:
    """A raw file cut exactly at a line end still parses, as the metrics of 3 launches of 4:
    ``collect`` records the launches and the file's SHA-256 beside it, and ``parse`` holds the
    file to them; the file as collected still parses."""
    exe = _fake_ncu(tmp_path, (FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv").read_text())
    raw = ncu.collect(["python", "-c", "pass"], tmp_path / "raw.csv", dataset="sample-k77", k=77,
                      protocol="casptr", session=ncu.Session(ncu=exe))
    meta = json.loads(counters.sidecar_paths(raw)[1].read_text())
    assert meta["launches"] == 4 and len(counters.parse([raw], "ncu")) == 4
    whole = raw.read_text()
    raw.write_text("".join(whole.splitlines(keepends=True)[:-1]))
    with pytest.raises(ValueError, match=r"raw.csv: its SHA-256 is not the one its raw.csv.meta.json records"):
        counters.parse([raw], "ncu")
    meta.pop("raw_sha256")
    counters.sidecar_paths(raw)[1].write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"raw.csv: 3 launches, where its raw.csv.meta.json records 4"):
        counters.parse([raw], "ncu")


def test_a_profile_short_of_a_launch_or_a_metric_is_refused(tmp_path: Path) -> None:
    """Without a record, what the file holds: a details page whose last launch lacks a metric, a
    raw page with a launch's row gone from the middle, rocprofv3 passes one dispatch short."""
    details = (FIX / "ncu_details_h100_measured.csv").read_text().splitlines(keepends=True)
    (tmp_path / "d.csv").write_text("".join(details[:-1]))
    with pytest.raises(ValueError, match=r"d.csv: launch 1: 3 of the 4 metrics"):
        counters.parse([tmp_path / "d.csv"], "ncu")
    lines = (FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv").read_text().splitlines(keepends=True)
    gap = [ln for ln in lines if not ln.startswith('"1",')]
    (tmp_path / "g.csv").write_text("".join(gap))
    with pytest.raises(ValueError, match=r"g.csv: launch 2 follows launch 0"):
        counters.parse([tmp_path / "g.csv"], "ncu", simd_width=32)
    pass2 = (FIX / "rocprofv3_pass2_handwritten.csv").read_text().splitlines(keepends=True)
    (tmp_path / "p2.csv").write_text("".join(pass2[:-1]))
    with pytest.raises(ValueError, match=r"dispatch 2 lacks .*a pass cut short"):
        counters.parse([FIX / "rocprofv3_pass1_handwritten.csv", tmp_path / "p2.csv"], "rocprof", simd_width=64)

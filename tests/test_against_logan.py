# SPDX-License-Identifier: BSD-3-Clause
"""tools/against_logan.py without a GPU: LOGAN's input, its printed times, ncu's table, its build line."""
from __future__ import annotations

import importlib.util
import os
import stat
from pathlib import Path

import pytest

from lassm.workloads.xdrop.pairs import Pairs

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("against_logan", ROOT / "tools" / "against_logan.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

#: LOGAN's demo stdout for 35,000 pairs: two batches (30,000 + 5,000), hand-written in its format
#: (``std::cout << "GPU only time:\t\t" << seconds`` per batch, then the total).
DEMO_OUT = "GPU only time:\t\t0.25\nGPU only time:\t\t0.0625\nTotal Execution time:\t3.5\n"
#: ncu's raw page for LOGAN's two kernels (left and right), hand-written in the format of the
#: measured fixture tests/fixtures/counters/ncu_raw_h100_measured.csv, the demo's stdout mixed in.
NCU_RAW = """==PROF== Connected to process 42 (/tmp/LOGAN/demo)
GPU only time:\t\t0.3
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Device","CC","gpu__time_duration.sum","smsp__thread_inst_executed.sum"
"","","","","","","","","","nsecond","inst"
"0","42","demo","127.0.0.1","extendSeedLGappedXDropOneDirectionGlobal","1","13","0","9.0","125,000,000","1,500,000,000,000"
"1","42","demo","127.0.0.1","extendSeedLGappedXDropOneDirectionGlobal","1","14","0","9.0","62,500,000","500,000,000,000"
==PROF== Disconnected from process 42
"""


def test_logan_input_is_v_then_h_on_one_strand(tmp_path: Path) -> None:
    pairs = Pairs.from_lists([(b"ACGTAC", 1, b"TTACGTA", 2, 3), (b"GGGCCC", 0, b"GGGCC", 0, 3)])
    path = tmp_path / "in.txt"
    assert tool.write_logan_input(pairs, path) == 3
    assert path.read_text() == "TTACGTA\t2\tACGTAC\t1\tn\nGGGCC\t0\tGGGCCC\t0\tn\n"


def test_seeds_of_several_lengths_are_refused() -> None:
    pairs = Pairs.from_lists([(b"ACGTAC", 1, b"ACGTAC", 1, 3), (b"ACGTAC", 0, b"ACGTAC", 0, 4)])
    with pytest.raises(ValueError, match="2 lengths.*one k"):
        tool.seed_length(pairs)


def test_logans_times_are_summed_over_its_batches() -> None:
    assert tool.parse_logan_output(DEMO_OUT) == (0.3125, 3.5)
    with pytest.raises(ValueError, match="1 'GPU only time' and 0 'Total"):
        tool.parse_logan_output("GPU only time:\t\t0.25\nGPUassert: out of memory\n")


def test_ncu_kernel_time_sums_every_launch() -> None:
    seconds, launches, inst = tool.parse_ncu_times(NCU_RAW)
    assert launches == 2 and seconds == pytest.approx(0.1875) and inst == pytest.approx(2e12)
    with pytest.raises(ValueError, match="no ncu CSV header"):
        tool.parse_ncu_times("==PROF== No kernels were profiled.\n")


def test_logan_is_built_as_its_makefile_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in nvcc records its arguments; the source tree is copied, never written."""
    source = tmp_path / "LOGAN"
    (source / "src").mkdir(parents=True)
    for name in tool.LOGAN_SOURCES:
        (source / "src" / f"{name}.cu").write_text("// source\n")
    log = tmp_path / "nvcc.log"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    nvcc = bindir / "nvcc"
    nvcc.write_text(f'#!/bin/sh\necho "$@" >> {log}\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && touch "$2"; shift; done\n')
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    work = tmp_path / "work"
    work.mkdir()
    exe = tool.build_logan(source, work, "sm_90")
    assert exe == work / "LOGAN" / "demo" and exe.is_file()
    lines = log.read_text().splitlines()
    flags = "-O3 -maxrregcount=32 -std=c++14 -Isrc -Xcompiler -fopenmp -arch=sm_90"
    assert sorted(lines[:4]) == sorted(f"-c {flags} -dc src/{n}.cu -o src/{n}.o" for n in tool.LOGAN_SOURCES)
    assert lines[4] == f"{flags} " + " ".join(f"src/{n}.o" for n in tool.LOGAN_SOURCES) + " -o demo"
    assert sorted(p.name for p in (source / "src").iterdir()) == sorted(f"{n}.cu" for n in tool.LOGAN_SOURCES)


def test_a_dry_run_writes_the_table_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    """The whole script without a GPU: a stand-in demo (it checks its input and prints LOGAN's
    lines), our cpu backend, no ncu; a second call finds every row recorded at this commit."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_XDROP_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-x")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    calls = tmp_path / "calls.txt"
    demo = tmp_path / "demo"
    demo.write_text(f'#!/bin/sh\necho "$2 $3 $4 $(wc -l < "$1")" >> {calls}\n'
                    'printf "GPU only time:\\t\\t0.5\\nTotal Execution time:\\t2\\n"\n')
    demo.chmod(demo.stat().st_mode | stat.S_IXUSR)
    argv = ["--program", str(demo), "--machine", "box", "--dataset", "xdrop-short-6", "--xdrops", "5,40",
            "--backend", "cpu", "--no-ncu"]
    assert tool.main(argv) == 0
    assert calls.read_text().splitlines() == ["17 5 1 6"] * 2 + ["17 40 1 6"]  # one untimed run before the first X
    import csv

    with open(tmp_path / "results" / "box" / "xdrop" / "against-logan.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(tool.rec.AGAINST_LOGAN_COLUMNS)
    assert [(r["xdrop"], r["program"]) for r in rows] == [(x, p) for x in ("5", "40")
                                                          for p in ("LOGAN demo", "lassm xdrop align cpu")]
    assert [r["logan_gpu_seconds"] for r in rows] == ["0.5", ""] * 2
    assert all(r["kernel_seconds"] == "" and float(r["whole_seconds"]) > 0 and r["n_pairs"] == "6" for r in rows)
    assert rows[0]["command"] == "demo xdrop-short-6.txt 17 5 1" and rows[0]["git_sha"] == "sha-x"
    capsys.readouterr()
    assert tool.main(argv) == 0
    assert "X to run: none" in capsys.readouterr().out and len(calls.read_text().splitlines()) == 3

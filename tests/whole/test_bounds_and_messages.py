# SPDX-License-Identifier: BSD-3-Clause
"""Through the real command line: a size the machine cannot hold is
refused at once, naming the option and the largest value that fits; a fault is blamed on the
option, the file or the line that holds it. Each case: exit code 2, one ``lassm: error:`` line, no
traceback, nothing written."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "counters"
GB = 10 ** 9


def _refused(argv: list[str], cwd: Path, timeout: float = 30) -> str:
    """Runs ``lassm argv`` in ``cwd`` with 1 GB of memory standing in for the machine's; returns its
    one error line, once sure that nothing was written there."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "LASSM_MEMORY_BYTES": str(GB),
           "LASSM_RESULTS": str(cwd / "results")}
    before = sorted(p.name for p in cwd.iterdir())
    proc = subprocess.run([sys.executable, "-m", "lassm", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("lassm: error: "), (proc.returncode, lines)
    assert "Traceback" not in proc.stderr and not proc.stdout
    assert sorted(p.name for p in cwd.iterdir()) == before, "nothing written"
    return lines[0]


# ------------------------------------------------------------------------------ item 5: sizes

@pytest.mark.parametrize("argv, option", [
    (["data", "generate", "--k", "21", "--scale", "1e30", "--out", "g.dat"], "--scale"),
    (["data", "generate", "--k", "21", "--scale", "1e9", "--out", "g.dat"], "--scale"),
    (["xdrop", "generate", "--n-pairs", "999999999999", "--out", "p.parquet"], "--n-pairs"),
    (["xdrop", "generate", "--n-pairs", "1", "--max-length", "999999999999", "--out", "p.parquet"], "--max-length"),
    (["xdrop", "generate", "--n-pairs", "1", "--min-length", "999999999999", "--max-length", "999999999999",
      "--out", "p.parquet"], "--min-length"),
    (["run", "--kernel", "xdrop", "--datasets", "xdrop-sim-999999999999", "--dry-run"], "xdrop-sim-999999999999"),
    (["run", "--datasets", "sample-k77x100000000", "--dry-run"], "sample-k77x100000000"),
])
def test_a_size_beyond_the_memory_is_refused_at_once(argv: list[str], option: str, tmp_path: Path) -> None:
    line = _refused(argv, tmp_path, timeout=10)
    assert option in line and "at most" in line and "1 GB" in line
    assert "e+" not in line.split("at most")[1] or option == "--scale", "a count is answered with a whole number"


def test_the_memory_asked_is_in_a_unit_not_a_thousandth_of_it(tmp_path: Path) -> None:
    from lassm.workloads.local_assembly.generate import PEAK_BYTES_PER_CONTIG
    from lassm.workloads.local_assembly.synthetic.profiles import profile_for

    line = _refused(["data", "generate", "--k", "21", "--scale", "1e30", "--out", "g.dat"], tmp_path, timeout=10)
    need_yb = 1e30 * profile_for(21).contigs * PEAK_BYTES_PER_CONTIG / 1e24
    assert f"needs about {need_yb:.3g} YB" in line


GENOME = Path("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz")
needs_pbsim = pytest.mark.skipif(shutil.which("pbsim") is None or not GENOME.is_file(),
                                 reason="pbsim and the lambda genome (bowtie2-examples)")


@needs_pbsim
@pytest.mark.parametrize("options, option", [
    (["--depth", "1e12"], "--depth"),
    (["--pairs", "999999999999"], "--pairs"),
    (["--max-length", "2000000"], "--max-length"),
    (["--length-mean", "2000000"], "--length-mean"),
    (["--min-length", "200000", "--max-length", "200000"], "--min-length"),
])
def test_xdrop_real_refuses_sizes_before_pbsim_runs(options: list[str], option: str, tmp_path: Path) -> None:
    line = _refused(["xdrop", "real", "--genome", str(GENOME), *options, "--out", "r.parquet"], tmp_path, timeout=10)
    assert option in line and "pbsim failed" not in line and "min_length" not in line


# ------------------------------------------------------------------------------ item 6: the right place

@pytest.mark.parametrize("source", ["localassm_562299.dat", "localassm_extend_9-77.dat"])
def test_a_sixth_header_field_is_blamed_on_line_1(source: str, tmp_path: Path) -> None:
    lines = (paths.data_dir() / "metahipmer-sample" / source).read_text().splitlines(keepends=True)
    lines[0] = lines[0].rstrip("\n") + " extra\n"
    bad = tmp_path / "six.dat"
    bad.write_text("".join(lines))
    line = _refused(["data", "convert", "six.dat", "out.parquet"], tmp_path)
    assert line.startswith("lassm: error: six.dat:1: ") and "header" in line and "'extra'" in line
    assert "base" not in line


def test_a_header_of_its_own_line_with_a_sixth_field(tmp_path: Path) -> None:
    (tmp_path / "two.dat").write_text("7 ACGTACGTACGTACGTACGTACGT 3.0 1 0 9\nr1 ACGTACGT IIIIIIII\n")
    line = _refused(["extend", "two.dat", "--k", "21", "--out", "o.dat"], tmp_path)
    assert "two.dat:1: contig 7 record header" in line and "field 6 ('9')" in line


@pytest.mark.parametrize("good, bad_first", [("rocprofv3_pass1_handwritten.csv", False),
                                             ("rocprofv3_pass1_handwritten.csv", True)])
def test_rocprof_parse_names_the_pass_at_fault(good: str, bad_first: bool, tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("not a profiler's table\n")
    files = [str(FIXTURES / good), "bad.csv"]
    line = _refused(["counters", "parse", *(files[::-1] if bad_first else files), "--tool", "rocprof"], tmp_path)
    assert line.startswith("lassm: error: bad.csv: ") and good not in line


def test_rocprof_parse_names_a_missing_column_and_its_file(tmp_path: Path) -> None:
    (tmp_path / "nodispatch.csv").write_text("Counter_Name,Counter_Value\nSQ_WAVES,1\n")
    line = _refused(["counters", "parse", str(FIXTURES / "rocprofv3_pass1_handwritten.csv"), "nodispatch.csv",
                     "--tool", "rocprof"], tmp_path)
    assert line.startswith("lassm: error: nodispatch.csv: ") and "Dispatch_Id" in line


def test_ncu_parse_names_the_file_at_fault(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("not a profiler's table\n")
    good = str(FIXTURES / "ncu_raw_h200_lassm_k77_casptr_measured.csv")
    line = _refused(["counters", "parse", good, "bad.csv", "--tool", "ncu"], tmp_path)
    assert line.startswith("lassm: error: bad.csv: ") and good not in line


def test_collect_on_the_cpu_names_the_backend(tmp_path: Path) -> None:
    line = _refused(["counters", "collect", str(paths.sample("k77")), "--k", "77", "--backend", "cpu",
                     "--out", "c.csv"], tmp_path)
    assert "--backend cpu" in line and "protocol" not in line


@pytest.mark.parametrize("argv, option", [
    (["xdrop", "align", "xdrop-short-10", "--xdrop", "99999999999", "--out", "a.parquet"], "--xdrop"),
    (["xdrop", "generate", "--n-pairs", "10", "--error-rate", "0.9", "--out", "p.parquet"], "--error-rate"),
    (["xdrop", "generate", "--n-pairs", "10", "--min-length", "5000", "--max-length", "100", "--out", "p.parquet"],
     "--min-length"),
    (["xdrop", "generate", "--n-pairs", "10", "--min-length", "99999999999", "--max-length", "100",
      "--out", "p.parquet"], "--max-length"),
])
def test_late_range_checks_name_the_option(argv: list[str], option: str, tmp_path: Path) -> None:
    line = _refused(argv, tmp_path)
    assert option in line and not re.search(r"(?<![-\w])(xdrop|error_rate|min_length|max_length)\b", line)

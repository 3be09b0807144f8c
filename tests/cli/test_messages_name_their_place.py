# SPDX-License-Identifier: BSD-3-Clause
"""Error lines that point at the right place: the file of several, the option as
typed, the line of the fault."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm import paths
from lassm.cli import main


def _line(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    code = main(argv)
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("lassm: error: "), (code, err)
    return err[0]


def test_counters_parse_names_the_file_at_fault(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    good = tmp_path / "good.csv"
    good.write_text('"ID","Kernel Name","device__attribute_warp_size"\n"","",""\n"0","k","32"\n')
    bad = tmp_path / "bad.csv"
    bad.write_text("not a profiler's table\n")
    for order in ([good, bad], [bad, good]):
        line = _line(["counters", "parse", *map(str, order), "--tool", "ncu", "--out", str(tmp_path / "t.csv")], capsys)
        assert f"{bad}:" in line and str(good) not in line


def test_collect_on_the_cpu_blames_the_backend_not_a_protocol_never_given(capsys: pytest.CaptureFixture) -> None:
    line = _line(["counters", "collect", str(paths.sample("k77")), "--k", "77", "--backend", "cpu", "--out", "c.dat"],
                 capsys)
    assert "--backend cpu" in line and "protocol" not in line


@pytest.mark.parametrize("options, named", [
    (["--min-length", "5000", "--max-length", "100"], ("--min-length", "--max-length", "--seed-length")),
    (["--error-rate", "0.9"], ("--error-rate", "--seed-length")),
])
def test_xdrop_generate_names_the_options_as_typed(options: list[str], named: tuple[str, ...], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "p.parquet"
    line = _line(["xdrop", "generate", *options, "--out", str(out)], capsys)
    assert all(name in line for name in named) and "_length" not in line and "error_rate" not in line
    assert not out.exists()


def test_a_pair_count_beyond_the_memory_names_the_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("LASSM_MEMORY_BYTES", str(10 ** 9))
    line = _line(["xdrop", "generate", "--n-pairs", "999999999999", "--out", str(tmp_path / "p.parquet")], capsys)
    assert line.startswith("lassm: error: --n-pairs: ") and "at most" in line


def test_an_extra_header_field_is_named_on_its_own_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    lines = paths.sample("k77").read_text().splitlines(keepends=True)
    lines[0] = lines[0].rstrip("\n") + " extra\n"
    src = tmp_path / "six.dat"
    src.write_text("".join(lines))
    line = _line(["extend", str(src), "--k", "77", "--out", str(tmp_path / "o.dat")], capsys)
    assert f"{src}:1:" in line

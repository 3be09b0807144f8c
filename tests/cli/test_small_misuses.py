# SPDX-License-Identifier: BSD-3-Clause
"""Small misuses of the command line: each one line and exit 2, or said in the help."""
from __future__ import annotations

import pytest

from lassm.cli import main


def _one_line(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    code = main(argv)
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("lassm: error: "), (code, err)
    return err[0]


@pytest.mark.parametrize("argv, twice", [
    (["run", "--xdrops", "10,20,10", "--dry-run"], "10 given twice"),
    (["run", "--datasets", "sample-k77,sample-k21,sample-k77", "--dry-run"], "sample-k77 given twice"),
    (["run", "--ks", "21,21", "--dry-run"], "21 given twice"),
])
def test_an_item_given_twice_is_refused_not_counted_twice(argv: list[str], twice: str,
                                                          capsys: pytest.CaptureFixture) -> None:
    assert twice in _one_line(argv, capsys)


@pytest.mark.parametrize("flag, value", [("--block-warps", "4"), ("--max-bytes", "1000"),
                                         ("--datasets", "sample-k77"), ("--protocols", "fast")])
def test_the_cpu_bench_refuses_the_gpu_options_it_would_ignore(flag: str, value: str,
                                                                capsys: pytest.CaptureFixture) -> None:
    assert flag in _one_line(["bench", "--backend", "cpu", flag, value], capsys)


def test_run_help_says_which_wins_and_does_not_promise_five_repeats(capsys: pytest.CaptureFixture) -> None:
    assert main(["run", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--datasets, where given, wins" in text
    assert "default 5" not in text and "--dry-run prints the number" in text

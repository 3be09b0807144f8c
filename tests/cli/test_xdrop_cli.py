# SPDX-License-Identifier: BSD-3-Clause
"""``lassm xdrop generate|align``: files in, files out, one error line (exit 2) for a mistake."""
from __future__ import annotations

import numpy as np
import pytest

from lassm import cli
from lassm.backends.xdrop import seqan
from lassm.workloads.xdrop import pair_files

GEN = ["xdrop", "generate", "--n-pairs", "6", "--min-length", "120", "--max-length", "300", "--seed", "4"]


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


@pytest.fixture
def pairs(tmp_path) -> str:
    path = str(tmp_path / "pairs.parquet")
    assert cli.main(GEN + ["--unrelated", "0.3", "--out", path]) == 0
    return path


def test_generate_then_align(tmp_path, pairs: str, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "aligned.tsv"
    assert cli.main(["xdrop", "align", pairs, "--xdrop", "20", "--mismatch", "-2", "--gap", "-2", "--out", str(out)]) == 0
    assert "aligned 6 pairs with cpu at X = 20" in capsys.readouterr().err
    cols = pair_files.read_alignments_table(out)
    read = pair_files.read_pairs(pairs)
    assert len(cols["score"]) == 6 and (cols["end_h"] <= read.lengths_h).all() and (cols["begin_v"] >= 0).all()
    assert np.array_equal(cols["score"], cols["score_left"] + cols["score_right"] + 17)  # exact 17-mer seeds


def test_generate_tsv_is_the_drivers_input(tmp_path) -> None:
    path = tmp_path / "pairs.tsv"
    assert cli.main(GEN + ["--out", str(path)]) == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and all(len(line.split("\t")) == 5 for line in lines)


@pytest.mark.skipif(not seqan.available()[0], reason="SeqAn 2 is absent; install the Debian package libseqan2-dev")
def test_align_against_seqan(tmp_path, pairs: str, capsys: pytest.CaptureFixture) -> None:
    """The SeqAn driver comes from LASSM_CACHE, where it is kept by its source, flags and compiler."""
    out = str(tmp_path / "a.parquet")
    assert cli.main(["xdrop", "align", pairs, "--against", "seqan", "--xdrop", "10", "--out", out]) == 0
    assert "all 6 pairs equal seqan's" in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["--out", "{tmp}/a.csv"], "--out {tmp}/a.csv: unknown format '.csv'"),
    (["--match", "2000", "--out", "{tmp}/a.tsv"], "match = 2000 must be in 1..1000"),
    (["--out", "{pairs}"], "--out {pairs}: is the input"),
    (["--mismatch", "0", "--out", "{tmp}/a.tsv"], "argument --mismatch: 0 must be below 0"),
    (["--backend", "tpu", "--out", "{tmp}/a.tsv"], "argument --backend: invalid choice"),
])
def test_align_mistakes_are_one_line(tmp_path, pairs: str, argv: list[str], says: str,
                                     capsys: pytest.CaptureFixture) -> None:
    fill = {"tmp": str(tmp_path), "pairs": pairs}
    before = sorted(p.name for p in tmp_path.iterdir())
    assert cli.main(["xdrop", "align", pairs] + [a.format(**fill) for a in argv]) == 2
    assert says.format(**fill) in _one_error_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_bad_pairs_file_is_located(tmp_path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("ACGT\t0\tACGT\t0\t2\nACGT\t0\tACGT\t1\t9\n")
    assert cli.main(["xdrop", "align", str(bad), "--out", str(tmp_path / "a.tsv")]) == 2
    assert f"{bad}:2: seed: the seed (0, 1, length 9)" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "a.tsv").exists()


def test_seqan_missing_is_named(tmp_path, pairs: str, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(seqan, "INCLUDE", tmp_path)
    assert cli.main(["xdrop", "align", pairs, "--backend", "seqan", "--out", str(tmp_path / "a.tsv")]) == 2
    assert "install the Debian package libseqan2-dev" in _one_error_line(capsys.readouterr().err)


def test_generate_knobs_that_cannot_be(tmp_path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["xdrop", "generate", "--min-length", "500", "--max-length", "100",
                     "--out", str(tmp_path / "p.parquet")]) == 2
    assert "--min-length (500) <= --max-length (100)" in _one_error_line(capsys.readouterr().err)
    assert not list(tmp_path.iterdir())

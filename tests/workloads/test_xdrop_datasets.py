# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop dataset registry: names, the on-disk cache, heads, committed real sets."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from lassm.errors import LassmError
from lassm.workloads.xdrop import pair_sets
from lassm.workloads.xdrop.pair_files import write_pairs_parquet, write_pairs_tsv
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate

ARRAYS = ("seqs_h", "offsets_h", "seqs_v", "offsets_v", "pos_h", "pos_v", "seed_len")


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ARRAYS)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_XDROP_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("LASSM_DATA", str(tmp_path / "data"))
    return tmp_path / "cache"


@pytest.mark.parametrize("name, family, n, lengths, seed", [
    ("xdrop-sim-20k", "sim", 20_000, (2500, 7500), 0),
    ("xdrop-sim-100k", "sim", 100_000, (2500, 7500), 0),
    ("xdrop-sim-200-seed3", "sim", 200, (2500, 7500), 3),
    ("xdrop-short-50", "short", 50, (250, 750), 0),
])
def test_synthetic_names(name: str, family: str, n: int, lengths: tuple, seed: int) -> None:
    s = pair_sets.spec(name)
    assert (s.family, s.n_pairs, s.knobs["seed"]) == (family, n, seed)
    assert (s.knobs["min_length"], s.knobs["max_length"]) == lengths
    assert s.knobs["error_rate"] == 0.15 and s.knobs["seed_length"] == 17
    assert pair_sets.n_pairs(name) == n


def test_real_names_and_their_depth() -> None:
    s = pair_sets.spec("xdrop-real-lambda-2k")
    assert s.family == "real" and s.n_pairs == 2000 and s.knobs["genome"] == "lambda"
    assert s.knobs["depth"] == pair_sets.real_depth(pair_sets.GENOMES["lambda"], 2000) > 10
    assert pair_sets.real_depth(pair_sets.GENOMES["lambda"], 20_000) > s.knobs["depth"]
    assert pair_sets.real_depth(pair_sets.GENOMES["mp1"], 1) == 10


@pytest.mark.parametrize("bad, words", [
    ("xdrop-sim-0", "0 pairs"), ("xdrop-real-mars-10", "unknown genome 'mars'"), ("xdrop-sim-2m", "unknown X-drop dataset"),
    ("xdrop-sim", "unknown X-drop dataset"), ("no-such.parquet", "neither an X-drop dataset name"),
])
def test_bad_names_are_one_clear_error(bad: str, words: str) -> None:
    with pytest.raises(LassmError, match=words):
        pair_sets.check_name(bad)


def test_load_generates_once_then_reads_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = pair_sets.load("xdrop-short-12")
    files = list(cache.iterdir())
    assert [f.name for f in files] == [f"xdrop-short-12-{pair_sets.cache_key(pair_sets.spec('xdrop-short-12'))}.parquet"]
    assert first.name == "xdrop-short-12" and first.n_pairs == 12
    assert first.provenance["generator"] == "lassm.workloads.xdrop.synthetic_pairs"

    def no_build(_spec):
        raise AssertionError("built again")

    monkeypatch.setattr(pair_sets, "build", no_build)
    again = pair_sets.load("xdrop-short-12")
    assert _same(first, again) and again.name == "xdrop-short-12"
    assert _same(first, generate(PairKnobs(n_pairs=12, min_length=250, max_length=750), name="x"))


def test_the_key_follows_the_knobs_and_the_code(cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    keys = {pair_sets.cache_key(pair_sets.spec(n)) for n in ("xdrop-short-12", "xdrop-short-13", "xdrop-short-12-seed1")}
    assert len(keys) == 3
    before = pair_sets.cache_key(pair_sets.spec("xdrop-short-12"))
    fake = tmp_path / "module"
    fake.mkdir()
    for f in Path(pair_sets.__file__).parent.glob("*.py"):
        shutil.copy(f, fake / f.name)
    (fake / "synthetic_pairs.py").write_text((fake / "synthetic_pairs.py").read_text() + "\n# changed\n")
    monkeypatch.setattr(pair_sets, "__file__", str(fake / "pair_sets.py"))
    assert pair_sets.cache_key(pair_sets.spec("xdrop-short-12")) != before


def test_a_head_of_a_set_is_the_smaller_set(cache: Path) -> None:
    big = pair_sets.load("xdrop-short-30")
    head = pair_sets.head(big, 10)
    assert head.n_pairs == 10 and head.name == "xdrop-short-30[:10]" and head.provenance["head"] == 10
    assert _same(head, pair_sets.load("xdrop-short-10"))
    assert pair_sets.head(big, 99) is big


def test_files_load_by_path(cache: Path, tmp_path: Path) -> None:
    pairs = pair_sets.load("xdrop-short-5")
    tsv = tmp_path / "p.tsv"
    write_pairs_tsv(pairs, tsv)
    assert _same(pair_sets.load(str(tsv)), pairs)
    assert pair_sets.n_pairs(str(tsv)) == 5 and pair_sets.spec(str(tsv)).family == "file"


def test_a_committed_real_set_needs_no_pbsim(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in = generate(PairKnobs(n_pairs=3, min_length=100, max_length=200), name="xdrop-real-lambda-3")
    path = pair_sets.committed_path("xdrop-real-lambda-3")
    path.parent.mkdir(parents=True)
    write_pairs_parquet(stand_in, path)
    monkeypatch.setattr(pair_sets, "build", lambda _s: pytest.fail("built"))
    assert _same(pair_sets.load("xdrop-real-lambda-3"), stand_in)


def test_a_real_set_without_its_genome_says_what_to_do(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pair_sets.GENOMES, "lambda", pair_sets.Genome("/nowhere/lambda.fa.gz", "bowtie2-examples", 48_502))
    with pytest.raises(LassmError, match="bowtie2-examples.*LASSM_XDROP_DATA"):
        pair_sets.load("xdrop-real-lambda-4")


@pytest.mark.skipif(shutil.which("pbsim") is None or not Path(pair_sets.GENOMES["lambda"].path).is_file(),
                    reason="needs pbsim and bowtie2-examples")
def test_a_real_set_is_built_and_cached(cache: Path) -> None:
    pairs = pair_sets.load("xdrop-real-lambda-20")
    assert pairs.n_pairs == 20 and pairs.name == "xdrop-real-lambda-20"
    assert pairs.provenance["simulator"] == "pbsim" and pairs.provenance["depth"] == 10
    assert _same(pairs, pair_sets.load("xdrop-real-lambda-20"))
    assert pair_sets.cached_path("xdrop-real-lambda-20").is_file()


def test_align_takes_a_set_by_name(cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.backends.xdrop import seqan
    from lassm.cli import main

    out = tmp_path / "a.tsv"
    assert main(["xdrop", "align", "xdrop-short-4", "--xdrop", "30", "--against", "seqan" if seqan.available()[0] else "cpu",
                 "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5 and pair_sets.cached_path("xdrop-short-4").is_file()
    assert "aligned 4 pairs" in capsys.readouterr().err
    assert main(["xdrop", "align", "xdrop-short-0", "--out", str(out)]) == 2
    assert "0 pairs" in capsys.readouterr().err

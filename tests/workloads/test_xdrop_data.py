# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop data model: the scoring scheme, pairs, the synthetic generator, parquet and TSV."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lassm.errors import InputError
from lassm.workloads.xdrop import pair_files
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate
from lassm.workloads.xdrop.pairs import Pairs, seed_scores

SMALL = PairKnobs(n_pairs=12, min_length=150, max_length=400, seed=7)


@pytest.mark.parametrize("bad", [dict(match=0), dict(mismatch=0), dict(gap=1), dict(xdrop=-1),
                                 dict(match=1001), dict(gap=-1001), dict(xdrop=1 << 25)])
def test_scoring_refuses_what_seqan_cannot_run(bad: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        Scoring(**bad)


def test_scoring_defaults_are_logans() -> None:
    assert Scoring().as_dict() == {"match": 1, "mismatch": -1, "gap": -1, "xdrop": 100}


def test_pairs_refuse_a_seed_outside_a_read() -> None:
    with pytest.raises(ValueError, match="pair 1: the seed"):
        Pairs.from_lists([(b"ACGT", 0, b"ACGT", 0, 4), (b"ACGT", 1, b"ACG", 0, 4)])
    with pytest.raises(TypeError, match="pos_h"):
        p = Pairs.from_lists([(b"ACGT", 0, b"ACGT", 0, 4)])
        Pairs(p.seqs_h, p.offsets_h, p.seqs_v, p.offsets_v, p.pos_h.astype(np.int32), p.pos_v, p.seed_len)


def test_generator_is_deterministic_and_its_seeds_exact() -> None:
    a, b = generate(SMALL), generate(SMALL)
    assert np.array_equal(a.seqs_h, b.seqs_h) and np.array_equal(a.seqs_v, b.seqs_v)
    assert np.array_equal(a.pos_h, b.pos_h) and np.array_equal(a.pos_v, b.pos_v)
    assert not np.array_equal(generate(PairKnobs(**{**SMALL.__dict__, "seed": 8})).seqs_h, a.seqs_h)
    assert ((a.lengths_h >= 150) & (a.lengths_h <= 400)).all()
    assert (a.seed_len == 17).all()
    for i in range(a.n_pairs):
        h, ph, v, pv, k = a.pair(i)
        assert h[ph:ph + k] == v[pv:pv + k]
    assert (seed_scores(a, 1, -1) == 17).all()
    assert a.provenance["error_rate"] == 0.15 and a.provenance["seed"] == 7


def test_error_rate_shows_in_the_reads() -> None:
    """With substitutions only, V differs from H at about the error rate (a loose bound: 5,000 bases)."""
    exact = generate(PairKnobs(n_pairs=2, min_length=2500, max_length=2500, error_rate=0.0, seed=1))
    assert np.array_equal(exact.seqs_h, exact.seqs_v)
    noisy = generate(PairKnobs(n_pairs=2, min_length=2500, max_length=2500, error_rate=0.15, indel_share=0.0, seed=1))
    share = float(np.mean(noisy.seqs_h != noisy.seqs_v))
    assert 0.12 < share < 0.18, share


@pytest.mark.parametrize("bad", [dict(error_rate=1.0), dict(min_length=10, max_length=5), dict(seed_length=0),
                                 dict(unrelated=1.5), dict(n_pairs=0)])
def test_generator_refuses_bad_knobs(bad: dict) -> None:
    with pytest.raises(ValueError):
        PairKnobs(**bad)


@pytest.mark.parametrize("suffix", [".parquet", ".tsv"])
def test_pairs_round_trip(tmp_path, suffix: str) -> None:
    pairs = generate(SMALL, name="small")
    path = tmp_path / f"p{suffix}"
    pair_files.write_pairs(pairs, path)
    back = pair_files.read_pairs(path)
    for name in ("seqs_h", "offsets_h", "seqs_v", "offsets_v", "pos_h", "pos_v", "seed_len"):
        assert np.array_equal(getattr(back, name), getattr(pairs, name)), name
    if suffix == ".parquet":
        assert back.name == "small" and back.provenance == pairs.provenance
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left


def _tsv(tmp_path, text: str):
    path = tmp_path / "bad.tsv"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, where", [
    ("ACGT\t0\tACGT\t0\n", "bad.tsv:1: pair: expected 5"),
    ("ACGT\t0\tACGT\t0\t2\nACXT\t0\tACGT\t0\t2\n", "bad.tsv:2: seqH: base 'X' at position 3"),
    ("ACGT\t0\tacgt\t0\t2\n", "bad.tsv:1: seqV: base 'a'"),
    ("ACGT\t-1\tACGT\t0\t2\n", "bad.tsv:1: posH: '-1' is not"),
    ("ACGT\t3\tACGT\t0\t2\n", "bad.tsv:1: seed: the seed (3, 0, length 2) runs past"),
    ("\n\n", "bad.tsv: file: empty"),
])
def test_bad_tsv_is_located(tmp_path, text: str, where: str) -> None:
    with pytest.raises(InputError) as err:
        pair_files.read_pairs(_tsv(tmp_path, text))
    assert str(err.value).startswith(f"{tmp_path}/{where}"), str(err.value)


def test_bad_parquet_is_located(tmp_path) -> None:
    pairs = generate(SMALL)
    good = tmp_path / "good.parquet"
    pair_files.write_pairs(pairs, good)
    table = pq.read_table(good)
    seqs = table.column("seq_h").to_pylist()
    seqs[4] = seqs[4][:3] + b"Z" + seqs[4][4:]
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(0, "seq_h", pa.array(seqs, pa.large_binary())), bad)
    with pytest.raises(InputError, match="row 5 seq_h: base 'Z' at position 4"):
        pair_files.read_pairs(bad)
    pq.write_table(table.set_column(1, "pos_h", pa.array([str(x) for x in pairs.pos_h])), bad)
    with pytest.raises(InputError, match="pos_h: is string, want integers"):
        pair_files.read_pairs(bad)
    far = table.column("seed_len").to_numpy().copy()
    far[9] = 10_000
    pq.write_table(table.set_column(4, "seed_len", pa.array(far)), bad)
    with pytest.raises(InputError, match="row 10 seed: the seed"):
        pair_files.read_pairs(bad)
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), other)
    with pytest.raises(InputError, match="not an X-drop pairs file"):
        pair_files.read_pairs(other)
    with pytest.raises(InputError, match="unknown pairs format '.csv'"):
        pair_files.read_pairs(tmp_path / "p.csv")


def test_results_round_trip_with_provenance(tmp_path) -> None:
    from lassm.backends.xdrop import xdrop_cpu

    pairs = generate(SMALL, name="small")
    result = xdrop_cpu.align(pairs, Scoring(2, -3, -2, 20))
    for suffix in (".parquet", ".tsv"):
        path = tmp_path / f"r{suffix}"
        pair_files.write_alignments(result, path, input_name=pairs.name)
        cols = pair_files.read_alignments_table(path)
        for name, col in result.columns().items():
            assert np.array_equal(cols[name], col), (suffix, name)
    meta = pq.read_schema(tmp_path / "r.parquet").metadata
    assert json.loads(meta[b"lassm.scoring"]) == {"match": 2, "mismatch": -3, "gap": -2, "xdrop": 20}
    assert meta[b"lassm.backend"] == b"cpu" and meta[b"lassm.input"] == b"small"

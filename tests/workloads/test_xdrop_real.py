# SPDX-License-Identifier: BSD-3-Clause
"""X-drop pairs from a real genome: the k-mer seed finder on hand-made reads, pbsim's MAF read
back, the V read turned to H's strand, and a small end-to-end run on the tiny preset's phage
lambda genome whose pairs the oracle and SeqAn extend alike. The end-to-end tests skip, naming
the Debian package, where pbsim, the genome or SeqAn is absent.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from lassm import cli
from lassm.errors import LassmError
from lassm.workloads.local_assembly.real_genomes.presets import PRESETS
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.pair_files import read_pairs_parquet, write_pairs_parquet
from lassm.workloads.xdrop.pbsim import parse_maf
from lassm.workloads.xdrop.real_pairs import RealKnobs, SimRead, overlapping, pair_with_seed, read_genome, real_pairs, revcomp
from lassm.workloads.xdrop.seeds import kmers, nearest_seed, shared_kmers

LAMBDA = next(g for g in PRESETS["tiny"].genomes if g.name == "lambda")


def _random(n: int, seed: int) -> bytes:
    return np.frombuffer(b"ACGT", np.uint8)[np.random.default_rng(seed).integers(0, 4, n)].tobytes()


# --- the k-mer index ---------------------------------------------------------------------------

def test_kmers_pack_two_bits_a_base_and_skip_n() -> None:
    values, starts = kmers(b"ACGTNAC", 3)
    # ACG = 0b000110, CGT = 0b011011; every 3-mer holding the N is left out.
    assert starts.tolist() == [0, 1] and values.tolist() == [0b000110, 0b011011]
    assert kmers(b"AC", 3)[0].size == 0


def test_shared_kmers_finds_every_occurrence() -> None:
    h, v = b"AAACCCGGG", b"CCCGGGTTTCCCG"
    got = sorted(zip(*(a.tolist() for a in shared_kmers(h, v, 4))))
    want = sorted((i, j) for i in range(len(h) - 3) for j in range(len(v) - 3) if h[i:i + 4] == v[j:j + 4])
    assert got == want and len(want) == 4  # CCCG twice in V, CCGG and CGGG once


def test_nearest_seed_takes_the_shared_kmer_nearest_the_middle() -> None:
    k = 17
    near, far = _random(k, 1), _random(k, 2)
    h = _random(100, 3) + far + _random(300, 4) + near + _random(100, 5)
    v = _random(50, 6) + far + _random(310, 7) + near + _random(60, 8)
    where_h, where_v = 100 + k + 300, 50 + k + 310
    assert nearest_seed(h, v, k, where_h + 5, where_v - 3) == (where_h, where_v)
    assert nearest_seed(h, v, k, 100, 50) == (100, 50)
    assert nearest_seed(_random(200, 9), _random(200, 10), k, 100, 100) is None


def test_a_kmer_with_n_is_no_seed() -> None:
    k = 17
    shared = _random(k, 11)
    with_n = shared[:8] + b"N" + shared[9:]
    assert nearest_seed(b"TT" + with_n + b"TT", b"GG" + with_n + b"G", k, 2, 2) is None
    assert nearest_seed(b"TT" + shared + b"TT", b"GG" + shared + b"G", k, 2, 2) == (2, 2)


# --- pbsim's output ---------------------------------------------------------------------------

def test_parse_maf_maps_genome_positions_to_read_positions(tmp_path: Path) -> None:
    maf = tmp_path / "sd_0001.maf"
    # genome AC-GTA (5 bases from 10), read A-TGTA (5 bases): C is deleted, T inserted.
    maf.write_text("a\ns r0 with spaces 10 5 + 100 AC-GTA\ns S1_1 0 5 - 5 A-TGTA\n\n")
    start, end, strand, to_read = parse_maf(maf)["S1_1"]
    assert (start, end, strand) == (10, 15, "-")
    assert to_read.tolist() == [0, 1, 2, 3, 4, 5]  # genome A->0, C->1 (deleted), G->2, T->3, A->4
    maf.write_text("a\ns r0 10 6 + 100 AC-GTA\ns S1_1 0 5 + 5 A-TGTA\n\n")
    with pytest.raises(LassmError, match="size field says 6"):
        parse_maf(maf)


def test_v_is_turned_to_h_strand() -> None:
    genome = _random(3000, 12)
    k = 17

    def sim(start: int, end: int, strand: str) -> SimRead:
        fwd = genome[start:end]
        return SimRead(0, start, end, strand, fwd if strand == "+" else revcomp(fwd),
                       np.arange(end - start + 1, dtype=np.int64))

    h, v = sim(0, 2000, "+"), sim(1000, 3000, "-")
    got = pair_with_seed(h, v, k)
    assert got is not None
    hh, ph, vv, pv, kk = got
    assert vv == genome[1000:3000] and hh[ph:ph + k] == vv[pv:pv + k] and (ph, pv) == (1500, 500)
    got = pair_with_seed(v, h, k)  # H on the minus strand: V turned to it
    hh, ph, vv, pv, _ = got
    assert vv == revcomp(genome[0:2000]) and hh[ph:ph + k] == vv[pv:pv + k]
    assert ph == 2000 - 1 - 500 and pv == 2000 - 1 - 1500  # the middle base 1500 of the genome


def test_overlapping_pairs_equal_the_all_pairs_check() -> None:
    rng = np.random.default_rng(14)
    reads = []
    for _ in range(300):
        start = int(rng.integers(0, 50_000))
        reads.append(SimRead(int(rng.integers(0, 3)), start, start + int(rng.integers(100, 8000)), "+", b"",
                             np.zeros(1, np.int64)))
    want = [(a, b) for a in range(len(reads)) for b in range(a + 1, len(reads)) if reads[a].record == reads[b].record
            and min(reads[a].end, reads[b].end) - max(reads[a].start, reads[b].start) >= 1000]
    assert [tuple(p) for p in overlapping(reads, 1000).tolist()] == want and len(want) > 100


def test_read_genome_turns_other_letters_to_n(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "g.fa.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(">one two\nacgtRY\nNNA\n>three\nGG\n")
    assert read_genome(path) == [("one two", b"ACGTNNNNA"), ("three", b"GG")]


# --- end to end -------------------------------------------------------------------------------

needs_pbsim = pytest.mark.skipif(shutil.which("pbsim") is None, reason="pbsim is absent; install the Debian package pbsim")
needs_lambda = pytest.mark.skipif(not Path(LAMBDA.path).is_file(),
                                  reason=f"the lambda genome is absent; install the Debian package {LAMBDA.package}")
KNOBS = RealKnobs(n_pairs=6, depth=4, seed=5)


@pytest.fixture(scope="module")
def lambda_pairs():
    return real_pairs(LAMBDA.path, KNOBS)


@needs_pbsim
@needs_lambda
def test_real_pairs_are_seeded_deterministic_and_recorded(lambda_pairs, tmp_path: Path) -> None:
    pairs = lambda_pairs
    assert pairs.n_pairs == KNOBS.n_pairs and np.all(pairs.seed_len == 17)
    for i in range(pairs.n_pairs):
        h, ph, v, pv, k = pairs.pair(i)
        assert h[ph:ph + k] == v[pv:pv + k], i
    again = real_pairs(LAMBDA.path, KNOBS)
    for name in ("seqs_h", "seqs_v", "pos_h", "pos_v"):
        assert np.array_equal(getattr(pairs, name), getattr(again, name)), name
    prov = pairs.provenance
    assert prov["genome"] == LAMBDA.path and prov["k"] == 17 and prov["seed"] == 5 and prov["pbsim_version"]
    assert prov["pbsim_options"][prov["pbsim_options"].index("--seed") + 1] == "5"
    out = tmp_path / "real.parquet"
    write_pairs_parquet(pairs, out)
    back = read_pairs_parquet(out)
    assert back.provenance == prov and np.array_equal(back.seqs_v, pairs.seqs_v)


@needs_pbsim
@needs_lambda
def test_oracle_and_seqan_agree_and_the_seeds_are_true(lambda_pairs) -> None:
    from lassm.backends.xdrop import xdrop_cpu, seqan

    result = xdrop_cpu.align(lambda_pairs, Scoring())
    # a seed on the reads' true diagonal extends over most of their overlap, a spurious one dies early
    assert np.all(result.end_h - result.begin_h >= KNOBS.min_overlap // 2), (result.end_h - result.begin_h)
    ok, why = seqan.available()
    if not ok:
        pytest.skip(f"SeqAn 2 is absent ({why}); install the Debian package libseqan2-dev")
    assert not result.differences(seqan.align(lambda_pairs, Scoring()))


@needs_pbsim
@needs_lambda
def test_cli_writes_the_pairs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "p.tsv"
    assert cli.main(["xdrop", "real", "--genome", LAMBDA.path, "--pairs", "2", "--depth", "3", "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 2 and "wrote 2 pairs" in capsys.readouterr().err


def test_cli_without_pbsim_names_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture) -> None:
    genome = tmp_path / "g.fa"
    genome.write_text(">g\n" + _random(5000, 13).decode() + "\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli.main(["xdrop", "real", "--genome", str(genome), "--out", str(tmp_path / "p.parquet")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "pbsim" in lines[0] and "Debian package pbsim" in lines[0], lines
    assert not (tmp_path / "p.parquet").exists()


def test_cli_bad_genome_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    genome = tmp_path / "g.fa"
    genome.write_text("not a fasta file\n")
    if shutil.which("pbsim") is None:
        pytest.skip("pbsim is absent; install the Debian package pbsim")
    assert cli.main(["xdrop", "real", "--genome", str(genome), "--out", str(tmp_path / "p.parquet")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(genome) in lines[0] and "no FASTA record" in lines[0], lines

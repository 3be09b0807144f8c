# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop CPU oracle equals SeqAn 2 itself, score for score and end for end.

SeqAn's ``extendSeed(..., EXTEND_BOTH, Score<int, Simple>(match, mismatch, gap), X,
GappedXDrop())`` runs in the C++ driver (``kernels/xdrop/seqan/seqan_driver.cpp``), built once
into ``LASSM_CACHE`` as ``lassm xdrop align --backend seqan`` builds it (keyed by its source,
flags and compiler: a changed source is built again); the numba oracle
(:mod:`lassm.backends.xdrop.xdrop_cpu`) must give the same left and right scores and the same
extended seed on every pair: random short pairs (reads of 0 to 40 bases over alphabets of 1 to
5 letters, identical reads, seeds at either end, empty seeds) and pairs like LOGAN's (scaled
down), for several X and scoring schemes. The whole module skips, naming the package, where
SeqAn's headers or g++ are absent.
"""
from __future__ import annotations

import dataclasses
import subprocess

import numpy as np
import pytest

from lassm.backends.xdrop import xdrop_cpu, seqan
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate
from lassm.workloads.xdrop.pairs import Pairs

from ..helpers import random_pairs

_ok, _why = seqan.available()
if not _ok:
    pytest.skip(f"SeqAn 2 is absent ({_why}); install the Debian package libseqan2-dev", allow_module_level=True)

XS = (0, 1, 3, 10, 20, 50, 100)
SCHEMES = ((1, -1, -1), (2, -3, -2), (5, -4, -7), (1, -1, -3))


@pytest.fixture(scope="module")
def short_pairs() -> Pairs:
    return random_pairs(600, seed=18)


@pytest.fixture(scope="module")
def logan_like() -> Pairs:
    """LOGAN's pairs (15% errors), scaled from 2.5-7.5 kb to 300-900 bases, a fifth unrelated."""
    return generate(PairKnobs(n_pairs=24, min_length=300, max_length=900, error_rate=0.15, unrelated=0.2, seed=3))


def _same(pairs: Pairs, scoring: Scoring) -> None:
    mine, theirs = xdrop_cpu.align(pairs, scoring), seqan.align(pairs, scoring)
    diffs = theirs.differences(mine)
    assert not diffs, f"{scoring}: " + "\n".join(diffs)
    assert np.array_equal(mine.score, theirs.score)


@pytest.mark.parametrize("xdrop", XS)
@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: "m{}x{}g{}".format(*s))
def test_random_pairs_equal_seqan(short_pairs: Pairs, scheme, xdrop: int) -> None:
    _same(short_pairs, Scoring(*scheme, xdrop=xdrop))


@pytest.mark.parametrize("xdrop", (10, 20, 50, 100))
@pytest.mark.parametrize("scheme", SCHEMES[:2], ids=lambda s: "m{}x{}g{}".format(*s))
def test_logan_like_pairs_equal_seqan(logan_like: Pairs, scheme, xdrop: int) -> None:
    _same(logan_like, Scoring(*scheme, xdrop=xdrop))


def test_edge_cases_equal_seqan() -> None:
    """Seeds at either end, equal reads, a whole-read seed, empty reads, mismatched seeds, X = 0."""
    a = b"ACGTTGCAACGTAGGCTTAC"
    rows = [(a, 0, a, 0, 4), (a, 16, a, 16, 4), (a, 0, a, 0, 20), (a, 8, a, 8, 0), (b"", 0, b"", 0, 0),
            (a, 0, b"", 0, 0), (b"ACGT", 2, b"TTTT", 1, 2), (a, 5, a[3:], 2, 6), (b"N" * 12, 4, b"N" * 9, 2, 3),
            (a, 10, a[::-1], 3, 0)]
    pairs = Pairs.from_lists(rows)
    for xdrop in (0, 1, 2, 1000):
        for scheme in SCHEMES:
            _same(pairs, Scoring(*scheme, xdrop=xdrop))


def test_seqan_wraps_around_and_so_does_the_oracle(short_pairs: Pairs) -> None:
    """A mismatch below the gap makes SeqAn add it to an undefined cell (INT_MIN - gap): a 32-bit
    wrap-around, whose scores no alignment of these reads could reach. The oracle does the same."""
    scoring = Scoring(1, -2, -1, xdrop=5)
    mine, theirs = xdrop_cpu.align(short_pairs, scoring), seqan.align(short_pairs, scoring)
    assert not theirs.differences(mine)
    longest = int(np.maximum(short_pairs.lengths_h, short_pairs.lengths_v).max())
    assert theirs.score_right.max() > longest * scoring.match  # impossible but for the wrap


def test_a_changed_result_is_caught(logan_like: Pairs, short_pairs: Pairs) -> None:
    """The comparison is not blind: one end moved by one base, every left score raised by one,
    or the oracle run with X one higher than SeqAn, is seen."""
    scoring = Scoring(xdrop=20)
    theirs = seqan.align(logan_like, scoring)
    mine = xdrop_cpu.align(logan_like, scoring)
    moved = dataclasses.replace(mine, end_v=mine.end_v + (np.arange(mine.n_pairs) == 7))
    assert [d.split(":")[0] for d in theirs.differences(moved)] == ["pair 7"]
    shifted = dataclasses.replace(mine, score_left=mine.score_left + np.int32(1))
    assert len(theirs.differences(shifted)) == 10  # the first ten of every pair
    assert seqan.align(short_pairs, Scoring(xdrop=3)).differences(xdrop_cpu.align(short_pairs, Scoring(xdrop=4)))


def test_driver_refuses_a_bad_line(tmp_path) -> None:
    exe = seqan.build()
    done = subprocess.run([str(exe), "1", "-1", "-1", "10"], input=b"ACGT\t0\tACGT\t0\t2\nACGT\tx\tACGT\t0\t2\n",
                          capture_output=True)
    assert done.returncode == 2 and b"line 2" in done.stderr
    assert done.stdout == b"0\t2\t0\t0\t4\t4\n"  # the good line before it: nothing to the left, 2 bases right


def test_build_is_cached() -> None:
    first = seqan.build()
    stamp = first.stat().st_mtime_ns
    assert seqan.build() == first and first.stat().st_mtime_ns == stamp


@pytest.mark.parametrize("threads", [1, 3, 7])
def test_drivers_on_several_cores_keep_the_pairs_order(logan_like: Pairs, threads: int) -> None:
    """Pair i goes to driver i % T; the table comes back in the pairs' order, equal to the oracle's."""
    scoring = Scoring(xdrop=20)
    got = seqan.align(logan_like, scoring, threads=threads)
    assert got.extra.threads == threads and not xdrop_cpu.align(logan_like, scoring).differences(got)
    assert seqan.align(Pairs.from_lists([(b"ACGT", 0, b"ACGT", 0, 2)]), scoring, threads=4).extra.threads == 1

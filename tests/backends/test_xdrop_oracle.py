# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop CPU oracle on cases whose answer is known by hand, and its registry; no SeqAn needed.

``tests/backends/test_xdrop_seqan.py`` checks the oracle against SeqAn itself; these cases hold without
it: equal reads extend to both ends with a match per base, a seed at a read's end does not move
that way, an empty read scores 0, and the 32-bit wrap-around is SeqAn's.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lassm.backends import xdrop as registry
from lassm.backends.xdrop import xdrop_cpu, seqan
from lassm.errors import BackendUnavailable
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.pairs import Pairs

READ = b"ACGTTGCAACGTAGGCTTACGGATCCA"


def _one(h: bytes, ph: int, v: bytes, pv: int, k: int, scoring: Scoring) -> tuple:
    r = xdrop_cpu.align(Pairs.from_lists([(h, ph, v, pv, k)]), scoring)
    return (int(r.score_left[0]), int(r.score_right[0]), int(r.begin_h[0]), int(r.begin_v[0]), int(r.end_h[0]),
            int(r.end_v[0]), int(r.score[0]))


@pytest.mark.parametrize("xdrop", [0, 1, 10, 100])
@pytest.mark.parametrize("match", [1, 3])
def test_equal_reads_extend_to_both_ends(xdrop: int, match: int) -> None:
    n, pos, k = len(READ), 9, 5
    got = _one(READ, pos, READ, pos, k, Scoring(match, -1, -1, xdrop))
    assert got == (pos * match, (n - pos - k) * match, 0, 0, n, n, n * match)


def test_seed_at_the_ends_does_not_move_that_way() -> None:
    n = len(READ)
    assert _one(READ, 0, READ, 0, 4, Scoring())[:4] == (0, n - 4, 0, 0)
    assert _one(READ, n - 4, READ, n - 4, 4, Scoring())[1:] == (0, 0, 0, n, n, n)
    assert _one(READ, 0, READ, 0, n, Scoring()) == (0, 0, 0, 0, n, n, n)


def test_empty_reads_and_seeds_score_zero() -> None:
    assert _one(b"", 0, b"", 0, 0, Scoring()) == (0, 0, 0, 0, 0, 0, 0)
    assert _one(READ, 0, b"", 0, 0, Scoring()) == (0, 0, 0, 0, 0, 0, 0)
    assert _one(READ, 5, b"ACG", 3, 0, Scoring())[:2] != (0, 0)  # an empty seed still extends to the left


def test_the_seed_counts_its_own_mismatches() -> None:
    """``score`` adds the seed's own score: LOGAN's ``+ kmerLen`` when the seed is exact and match = 1."""
    r = xdrop_cpu.align(Pairs.from_lists([(b"AAAA", 0, b"ATAA", 0, 4), (b"NN", 0, b"NN", 0, 2)]), Scoring(2, -3, -1, 5))
    assert r.seed_score.tolist() == [3 * 2 - 3, 2 * 2]


def test_wrap32_is_twos_complement() -> None:
    wrap = xdrop_cpu._wrap32.py_func
    assert wrap(-(1 << 31) - 1) == (1 << 31) - 1
    assert wrap((1 << 31)) == -(1 << 31)
    assert wrap(-5) == -5 and wrap(7) == 7


def test_differences_name_the_pair_and_column_values() -> None:
    pairs = Pairs.from_lists([(READ, 3, READ, 3, 4)] * 3)
    a = xdrop_cpu.align(pairs, Scoring())
    assert a.differences(a) == []
    b = dataclasses.replace(a, begin_h=a.begin_h + np.array([0, 0, 1]), backend="other")
    (line,) = a.differences(b)
    assert line.startswith("pair 2: cpu 3 20 0 0 27 27 != other 3 20 1 0 27 27")
    assert a.differences(xdrop_cpu.align(Pairs.from_lists([(READ, 3, READ, 3, 4)]), Scoring())) == ["3 pairs here, 1 there"]


def test_registry_names_what_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    assert registry.get("cpu") is xdrop_cpu
    with pytest.raises(BackendUnavailable, match="unknown X-drop backend 'tpu'"):
        registry.get("tpu")
    monkeypatch.setattr(seqan, "INCLUDE", tmp_path)
    with pytest.raises(BackendUnavailable, match="libseqan2-dev"):
        registry.get("seqan")
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    ok, why = seqan.available()
    assert not ok and "no-such-compiler-here" in why


def test_local_assembly_registry_is_untouched() -> None:
    """The X-drop backends sit beside the local-assembly ones, which stay the default."""
    from lassm import backends

    assert "seqan" not in backends.BACKENDS and list(backends.BACKENDS)[-1] == "cpu"


def test_every_numba_function_is_cached_on_disk() -> None:
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    jitted = {name: fn for name, fn in vars(xdrop_cpu).items() if isinstance(fn, Dispatcher)}
    assert set(jitted) >= {"one_direction", "_extend_all", "_wrap32"}
    assert [name for name, fn in jitted.items() if isinstance(fn._cache, NullCache)] == []


def test_the_oracle_counts_the_cells_the_gpu_kernels_count() -> None:
    """With an X no score can fall below, every cell of both matrices is computed: the cells are
    the products of the prefixes' and the suffixes' lengths; a small X computes fewer. The GPU
    kernels' own count is checked against the same sum in tests/backends/test_xdrop_gpu.py."""
    from lassm.backends.xdrop import xdrop_host
    from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate

    pairs = generate(PairKnobs(n_pairs=6, min_length=60, max_length=90, seed=3))
    t = xdrop_host.tasks(pairs)
    whole = xdrop_cpu.align(pairs, Scoring(xdrop=10_000)).extra.cells
    assert whole == int((t.q_len.astype(np.int64) * t.d_len).sum()) > 0
    assert 0 < xdrop_cpu.align(pairs, Scoring(xdrop=2)).extra.cells < whole

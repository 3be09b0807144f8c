# SPDX-License-Identifier: BSD-3-Clause
"""The compiled segment copies (reverse complement, launch gather) equal the plain NumPy ones, byte for byte."""
from __future__ import annotations

import numpy as np

from lassm.runs.extend import revcomp_contigs
from lassm.workloads.local_assembly.dataset import _COMPLEMENT

from ..helpers import random_dataset


def _numpy_revcomp(seqs: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.empty_like(seqs)
    for i in range(len(offsets) - 1):
        a, b = offsets[i], offsets[i + 1]
        out[a:b] = _COMPLEMENT[seqs[a:b][::-1]]
    return out


def test_equals_the_plain_reverse_complement() -> None:
    for seed in range(5):
        ds = random_dataset(seed)
        got = revcomp_contigs(ds)
        assert got.dtype == np.uint8 and np.array_equal(got, _numpy_revcomp(ds.seqs, ds.offsets))
        assert not np.array_equal(got, ds.seqs), "a reverse complement that changed nothing"


def test_a_known_contig() -> None:
    from lassm.workloads.local_assembly.segments_jit import revcomp_segments

    seqs = np.frombuffer(b"AACGTNGGT", dtype=np.uint8)
    got = revcomp_segments(seqs, np.array([0, 4, 9]), _COMPLEMENT)
    assert bytes(got) == b"CGTTACCNA"


def test_gather_equals_the_plain_gather() -> None:
    from lassm.backends import launch

    rng = np.random.default_rng(3)
    for dtype in (np.uint8, np.int64):
        lens = rng.integers(0, 9, size=50)
        offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        buf = rng.integers(0, 250, size=int(offsets[-1])).astype(dtype)
        index = rng.permutation(50)[:30]
        got, off = launch.gather(buf, offsets, index, pad=4)
        want = np.concatenate([buf[offsets[i]:offsets[i + 1]] for i in index] + [np.zeros(4, dtype)])
        assert got.dtype == dtype and np.array_equal(got, want)
        assert np.array_equal(off, np.concatenate(([0], np.cumsum(lens[index]))))
    empty, off = launch.gather(np.zeros(0, np.uint8), np.zeros(1, np.int64), np.zeros(0, np.int64), pad=2)
    assert empty.tolist() == [0, 0] and off.tolist() == [0]


def test_end_spans_point_where_the_gather_copies_from() -> None:
    """fast's spans of ends taken in any order name the same bytes a gather copies for them."""
    from lassm.backends import launch

    rng = np.random.default_rng(5)
    lens = rng.integers(0, 9, size=40)
    offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    buf = rng.integers(0, 250, size=int(offsets[-1])).astype(np.uint8)
    index = rng.permutation(40)[:25]
    spans = launch.end_spans(offsets, index)
    assert spans.dtype == np.int64 and len(spans) == 2 * len(index)
    got, off = launch.gather(buf, offsets, index)
    for e in range(len(index)):
        assert np.array_equal(buf[spans[2 * e]:spans[2 * e + 1]], got[off[e]:off[e + 1]]), e
    assert launch.end_spans(offsets, np.zeros(0, np.int64)).shape == (0,)

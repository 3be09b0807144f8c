# SPDX-License-Identifier: BSD-3-Clause
"""The compiled reverse complement of every contig equals the plain NumPy one, byte for byte."""
from __future__ import annotations

import numpy as np

from lassm.runs.extend import revcomp_contigs
from lassm.workloads.local_assembly.dataset import _COMPLEMENT

from .helpers import random_dataset


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
    from lassm.workloads.local_assembly.revcomp_jit import revcomp_segments

    seqs = np.frombuffer(b"AACGTNGGT", dtype=np.uint8)
    got = revcomp_segments(seqs, np.array([0, 4, 9]), _COMPLEMENT)
    assert bytes(got) == b"CGTTACCNA"

# SPDX-License-Identifier: BSD-3-Clause
"""Array helpers the generator's stages share: sort-based unique, concatenated ranges, base codes."""
from __future__ import annotations

import numpy as np


def unique(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct values, inverse, index of each first occurrence): a sort-based ``np.unique``,
    since numpy 2's hash path is slow on millions of distinct 64-bit keys."""
    order = np.argsort(x, kind="stable")
    s = x[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] != s[:-1]
    ids = np.cumsum(new) - 1
    inv = np.empty(len(x), dtype=np.int64)
    inv[order] = ids
    return s[new], inv, order[new]


def ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, value) for the concatenated ranges ``starts[i] .. starts[i] + counts[i] - 1``."""
    owner = np.repeat(np.arange(len(counts)), counts)
    first = np.cumsum(counts) - counts
    return owner, np.repeat(starts, counts) + (np.arange(int(counts.sum())) - np.repeat(first, counts))

#: Base codes 0..3 as the letters A, C, G, T.
ASCII = np.frombuffer(b"ACGT", dtype=np.uint8)

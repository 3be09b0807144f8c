# SPDX-License-Identifier: BSD-3-Clause
"""Where a selection of segments of a flat buffer lies, before and after concatenation: one int64
per segment, never per byte, shared by host and GPU gathers. NumPy only, no numba.
"""
from __future__ import annotations

import numpy as np

from ...byte_sets import offsets_of


def segment_offsets(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where segments ``index`` start in the source, and their int64 offsets once concatenated."""
    offsets = np.asarray(offsets, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    starts = offsets[index]
    new_off = offsets_of(offsets[index + 1] - starts)
    return starts, new_off


def segment_items(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items of segments ``index``, in order (e.g. the read ids of some contig ends), and
    their int64 offsets per segment."""
    starts, new_off = segment_offsets(offsets, index)
    items = np.arange(int(new_off[-1]), dtype=np.int64) + np.repeat(starts - new_off[:-1], np.diff(new_off))
    return items, new_off

# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop CPU backend: numba, parallel over pairs. It is the oracle every other backend matches.

SeqAn 2's ``extendSeed(..., EXTEND_BOTH, Score<int, Simple>, X, GappedXDrop())`` step for step:
:func:`one_direction` is ``_extendSeedGappedXDropOneDirection``, run left on the prefixes, then
right on the suffixes (V, the query, along columns; H along rows). SeqAn's details kept:

* anti-diagonals, three kept; a cell below ``best - X`` is undefined (``INT_MIN - gap``), and the
  band ``[minCol, maxCol)`` is trimmed where two consecutive anti-diagonals are undefined;
* ``best`` is updated once per anti-diagonal, after all its cells;
* gap and mismatch scores are first raised to ``INT_MIN / (2 max(cols, rows))``;
* the extension reported is the longest, not the best (see :func:`one_direction`); one undefined
  everywhere leaves the seed where it is; an empty prefix or suffix scores 0;
* scores are 32-bit and wrap as in C++ (:func:`_wrap32`).
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit, prange

from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs, seed_scores
from ...workloads.xdrop.alignments import Alignments, XdropFigures
from ..threads import choose_layer

choose_layer()  # OpenMP, whichever library loaded libtbb first (lassm.backends.threads)

_INT_MIN = -(1 << 31)
_LEFT, _RIGHT = 0, 1


@njit(cache=True, inline="always")
def _wrap32(x):
    """``x`` (int64) as a 32-bit two's-complement int would hold it."""
    return ((x + 2147483648) & 4294967295) - 2147483648


@njit(cache=True)
def one_direction(query, q0, q_len, db, d0, d_len, direction, match, mismatch, gap, xdrop, out):
    """SeqAn's ``_extendSeedGappedXDropOneDirection`` on ``query[q0:q0+q_len]`` (V, the columns) and
    ``db[d0:d0+d_len]`` (H, the rows).

    Returns the score; writes the extension ``(cols, rows)`` to ``out`` (``(0, 0)``: the seed stays)
    and adds to ``out[2]`` the cells computed (band widths summed: LOGAN's GCUPS count)."""
    out[0] = 0
    out[1] = 0
    cols = q_len + 1
    rows = d_len + 1
    if rows == 1 or cols == 1:
        return 0
    length = 2 * max(cols, rows)
    min_err = -((1 << 31) // length)  # INT_MIN / len, truncated toward zero
    gap = max(gap, min_err)
    mismatch = max(mismatch, min_err)
    undefined = _INT_MIN - gap

    size = cols + 2
    diags = np.empty((3, size), dtype=np.int64)  # three anti-diagonals, rotated by index
    lens = np.zeros(3, dtype=np.int64)
    offs = np.zeros(3, dtype=np.int64)
    a1, a2, a3 = 0, 1, 2
    # _initAntiDiags: antiDiag2 = [0]; antiDiag3 = [gap, gap] unless -gap > X
    lens[a2] = 1
    diags[a2, 0] = 0
    lens[a3] = 2
    first = undefined if -gap > xdrop else gap
    diags[a3, 0] = first
    diags[a3, 1] = first

    min_col = 1
    max_col = 2
    anti = 1
    best = 0
    while min_col < max_col:
        anti += 1
        a1, a2, a3 = a2, a3, a1
        offs[a3] = min_col - 1  # lengths and offsets travel with their anti-diagonals
        off1, off2, off3 = offs[a1], offs[a2], offs[a3]
        # _initAntiDiag3
        lens[a3] = max_col + 1 - off3
        diags[a3, 0] = undefined
        diags[a3, max_col - off3] = undefined
        if anti * gap > best - xdrop:
            if off3 == 0:
                diags[a3, 0] = anti * gap
            if anti - max_col == 0:
                diags[a3, max_col - off3] = anti * gap
        anti_best = anti * gap
        out[2] += max_col - min_col
        for col in range(min_col, max_col):
            i3 = col - off3
            i2 = col - off2
            i1 = col - off1
            if direction == _RIGHT:
                q = query[q0 + col - 1]
                d = db[d0 + anti - col - 1]
            else:
                q = query[q0 + cols - 1 - col]
                d = db[d0 + rows - 1 + col - anti]
            tmp = max(diags[a2, i2 - 1], diags[a2, i2]) + gap
            diag = _wrap32(diags[a1, i1 - 1] + (match if q == d else mismatch))
            tmp = max(tmp, diag)
            if tmp < best - xdrop:
                diags[a3, i3] = undefined
            else:
                diags[a3, i3] = tmp
                anti_best = max(anti_best, tmp)
        best = max(best, anti_best)
        # trim the band: new minCol...
        while (min_col - off3 < lens[a3] and diags[a3, min_col - off3] == undefined
               and min_col - off2 - 1 < lens[a2] and diags[a2, min_col - off2 - 1] == undefined):
            min_col += 1
        # ...and new maxCol
        while (max_col - off3 > 0 and diags[a3, max_col - off3 - 1] == undefined
               and diags[a2, max_col - off2 - 1] == undefined):
            max_col -= 1
        max_col += 1
        min_col = max(min_col, anti + 2 - rows)  # end of H reached
        max_col = min(max_col, cols)  # end of V reached

    # the longest extension: both ends reached...
    len3, len2 = lens[a3], lens[a2]
    ext_col = len3 + offs[a3] - 2
    ext_row = anti - ext_col
    ext_score = diags[a3, ext_col - offs[a3]]
    if ext_score == undefined:
        if diags[a2, len2 - 2] != undefined:  # ...the end of V
            ext_col = len2 + offs[a2] - 2
            ext_row = anti - 1 - ext_col
            ext_score = diags[a2, ext_col - offs[a2]]
        elif len2 > 2 and diags[a2, len2 - 3] != undefined:  # ...the end of H
            ext_col = len2 + offs[a2] - 3
            ext_row = anti - 1 - ext_col
            ext_score = diags[a2, ext_col - offs[a2]]
    if ext_score == undefined:  # ...else the first maximum two anti-diagonals back
        for i in range(lens[a1]):
            if diags[a1, i] > ext_score:
                ext_score = diags[a1, i]
                ext_col = i + offs[a1]
                ext_row = anti - 2 - ext_col
    if ext_score != undefined:
        out[0] = ext_col
        out[1] = ext_row
    return ext_score


@njit(cache=True, parallel=True)
def _extend_all(seqs_h, off_h, seqs_v, off_v, pos_h, pos_v, seed_len, match, mismatch, gap, xdrop,
                score_left, score_right, begin_h, begin_v, end_h, end_v, cells):
    for i in prange(len(pos_h)):
        out = np.zeros(3, dtype=np.int64)
        bh = pos_h[i]
        bv = pos_v[i]
        eh = bh + seed_len[i]
        ev = bv + seed_len[i]
        # left: the prefixes before the seed
        s = one_direction(seqs_v, off_v[i], bv, seqs_h, off_h[i], bh, _LEFT, match, mismatch, gap, xdrop, out)
        score_left[i] = s
        bv -= out[0]
        bh -= out[1]
        # right: the suffixes after it
        s = one_direction(seqs_v, off_v[i] + ev, off_v[i + 1] - off_v[i] - ev,
                          seqs_h, off_h[i] + eh, off_h[i + 1] - off_h[i] - eh, _RIGHT,
                          match, mismatch, gap, xdrop, out)
        score_right[i] = s
        ev += out[0]
        eh += out[1]
        begin_h[i] = bh
        begin_v[i] = bv
        end_h[i] = eh
        end_v[i] = ev
        cells[i] = out[2]


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None) -> Alignments:
    """Extends every pair's seed both ways, as SeqAn's ``extendSeed`` with ``GappedXDrop``, on
    ``threads`` numba threads (default all); ``extra`` holds ``cells``, the DP cells computed."""
    import numba

    n = pairs.n_pairs
    left = np.zeros(n, dtype=np.int64)
    right = np.zeros(n, dtype=np.int64)
    ends = [np.zeros(n, dtype=np.int64) for _ in range(4)]
    cells = np.zeros(n, dtype=np.int64)
    args = (np.int64(scoring.match), np.int64(scoring.mismatch), np.int64(scoring.gap), np.int64(scoring.xdrop))
    before = numba.get_num_threads()
    if threads:
        numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
    try:
        start = time.perf_counter()
        _extend_all(pairs.seqs_h, pairs.offsets_h, pairs.seqs_v, pairs.offsets_v, pairs.pos_h, pairs.pos_v,
                    pairs.seed_len, *args, left, right, *ends, cells)
        wall = time.perf_counter() - start
    finally:
        numba.set_num_threads(before)
    return Alignments(score_left=_to_int32(left), score_right=_to_int32(right), begin_h=ends[0], begin_v=ends[1],
                      end_h=ends[2], end_v=ends[3],
                      seed_score=seed_scores(pairs, scoring.match, scoring.mismatch),
                      scoring=scoring, backend="cpu", wall_seconds=wall, extra=XdropFigures(cells=int(cells.sum())))


def _to_int32(scores: np.ndarray) -> np.ndarray:
    """The 64-bit scores as SeqAn's ``int``, checked to fit (they are 32-bit sums by construction)."""
    if len(scores) and (scores.min() < _INT_MIN or scores.max() > (1 << 31) - 1):
        raise OverflowError("an X-drop score left the 32-bit range")
    return scores.astype(np.int32)


def available() -> tuple[bool, str]:
    """The CPU backend runs wherever numba imports."""
    import numba

    return True, f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads"

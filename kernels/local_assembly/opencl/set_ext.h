// SPDX-License-Identifier: BSD-3-Clause
//
// The vote: set_ext (MetaHipMer's MerFreqs::set_ext) turns a k-mer's votes into its extension,
// in double precision or, without fp64, in exact integer arithmetic (bit-identical).
#ifndef LASSM_SET_EXT_H
#define LASSM_SET_EXT_H

#include "common.h"

// ---- set_ext: the vote ---------------------------------------------------------------------
// Rating of a base with nv votes (q >= LASSM_MIN_QUAL) and hq high-quality votes
// (q >= LASSM_MIN_HI_QUAL).
// With d = int(depth): min_viable = max(0.2 d, 2.0), min_expected = max(0.3 d, 2.0).
// LASSM_FP64=0 uses exact integer forms of the same comparisons: for integers x >= 0 and d,
// x < fl(0.2 d) <=> 5x < d, x < fl(0.3 d) <=> 10x < 3d, fl(0.2 d) < x <=> 5x > d (0.2 and 0.3
// round to within 2^-54 relative of 1/5 and 3/10, far below the gap of 1/10 between the sides
// for any count below 2^40), so the two builds agree bit for bit.
#if LASSM_FP64
int base_rating(uint nv, uint hq, double min_viable, double min_expected) {
    const double v = (double)nv, h = (double)hq;
    if (nv == 0) return 0;
    if (nv == 1) return 1;
    if (v < min_viable) return 2;
    if (v < min_expected) return h < min_viable ? 3 : 4;
    if (h < min_viable) return 5;
    if (min_viable < h && h < min_expected) return 6;
    return 7;
}
#else
bool below_viable(long x, long d) { return x < 2 || 5 * x < d; }
bool below_expected(long x, long d) { return x < 2 || 10 * x < 3 * d; }
bool above_viable(long x, long d) { return x > 2 && 5 * x > d; }

int base_rating(uint nv, uint hq, long d) {
    if (nv == 0) return 0;
    if (nv == 1) return 1;
    if (below_viable(nv, d)) return 2;
    if (below_expected(nv, d)) return below_viable(hq, d) ? 3 : 4;
    if (below_viable(hq, d)) return 5;
    if (above_viable(hq, d) && below_expected(hq, d)) return 6;
    return 7;
}
#endif

// The extension of one k-mer from its votes (nv[b], hq[b] for A C G T) and d = int(depth):
// the top base, or 'X' (dead end) / 'F' (fork). Bases are sorted by (rating, hq, nv), highest
// first, with a stable insertion sort of four, as the oracle does.
uchar set_ext(const uint nv[4], const uint hq[4], long depth) {
    const uchar chars[4] = {'A', 'C', 'G', 'T'};
    int rating[4];
    int order[4] = {0, 1, 2, 3};
#if LASSM_FP64
    const double d = (double)depth;
    const double min_viable = fmax(0.2 * d, 2.0);
    const double min_expected = fmax(0.3 * d, 2.0);
    for (int b = 0; b < 4; ++b) rating[b] = base_rating(nv[b], hq[b], min_viable, min_expected);
#else
    for (int b = 0; b < 4; ++b) rating[b] = base_rating(nv[b], hq[b], depth);
#endif
    for (int i = 1; i < 4; ++i) {
        for (int j = i; j > 0; --j) {
            const int x = order[j], y = order[j - 1];
            const bool greater = rating[x] != rating[y] ? rating[x] > rating[y]
                                 : hq[x] != hq[y]       ? hq[x] > hq[y]
                                                        : nv[x] > nv[y];
            if (!greater) break;
            order[j] = y;
            order[j - 1] = x;
        }
    }
    const int b0 = order[0], b1 = order[1], b2 = order[2];
    const int top = rating[b0], runner = rating[b1];
    if (top <= 0) return EXT_DEAD;  // RATING_THRES
    if (top <= 3) return runner == 0 ? chars[b0] : EXT_DEAD;
    if (top < 6) return runner < 3 ? chars[b0] : EXT_DEAD;
    if (top == 6) return runner < 4 ? chars[b0] : EXT_DEAD;
    if (runner < 7) return chars[b0];
    if (rating[b2] == 7 || nv[b0] == nv[b1]) return EXT_FORK;
    return nv[b0] > nv[b1] ? chars[b0] : chars[b1];
}

#if LASSM_TEST_KERNELS
// set_ext of n vote vectors (8 counts each: nv A C G T, hq A C G T) at depths[i]: for the tests,
// which build faithful.cl and portable.cl with LASSM_TEST_KERNELS=1.
__kernel void set_ext_kernel(__global const uint *votes, __global const long *depths,
                             __global uchar *out, const int n) {
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    uint nv[4], hq[4];
    for (int b = 0; b < 4; ++b) {
        nv[b] = votes[8 * i + b];
        hq[b] = votes[8 * i + 4 + b];
    }
    out[i] = set_ext(nv, hq, depths[i]);
}
#endif

#endif  // LASSM_SET_EXT_H

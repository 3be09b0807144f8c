// SPDX-License-Identifier: BSD-3-Clause
//
// The vote: set_ext (MetaHipMer's MerFreqs::set_ext) turns a k-mer's votes into its extension.
// Shared by faithful.cu (the per-k vote scan) and fast.cu (votes on the walk's demand).
#ifndef LASSM_SET_EXT_CUH
#define LASSM_SET_EXT_CUH

#include "common.cuh"

// ---------------------------------------------------------------------------------------------
// set_ext: the vote (MetaHipMer's MerFreqs::set_ext), in doubles with d = int(depth).
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ int base_rating(u32 nv, u32 hq, double min_viable, double min_expected)
{
    if (nv == 0u) return 0;
    if (nv == 1u) return 1;
    if (nv < min_viable) return 2;
    if (nv < min_expected) return hq < min_viable ? 3 : 4;
    if (hq < min_viable) return 5;
    if (min_viable < hq && hq < min_expected) return 6;
    return 7;
}

// Whether base x ranks before base y: by (rating, high-quality votes, votes), highest first.
__device__ __forceinline__ bool ranks_before(const int* rating, const u32* low, const u32* hi, int x, int y)
{
    if (rating[x] != rating[y]) return rating[x] > rating[y];
    if (hi[x] != hi[y]) return hi[x] > hi[y];
    return low[x] > low[y];
}

__device__ u32 set_ext(const u32* low, const u32* hi, int depth)
{
    const char bases[4] = {'A', 'C', 'G', 'T'};
    const double d = (double)depth;
    const double min_viable = fmax(LASSM_MIN_VIABLE_DEPTH * d, 2.0);
    const double min_expected = fmax(LASSM_MIN_EXPECTED_DEPTH * d, 2.0);
    int rating[4];
    int order[4];
    for (int b = 0; b < 4; ++b) {
        rating[b] = base_rating(low[b], hi[b], min_viable, min_expected);
        order[b] = b;
    }
    for (int i = 1; i < 4; ++i) {  // insertion sort of four
        for (int j = i; j > 0 && ranks_before(rating, low, hi, order[j], order[j - 1]); --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    const int b0 = order[0], b1 = order[1], b2 = order[2];
    const int top = rating[b0], runner = rating[b1];
    if (top <= LASSM_RATING_THRES) return 'X';
    if (top <= 3) return runner == 0 ? bases[b0] : 'X';
    if (top < 6) return runner < 3 ? bases[b0] : 'X';
    if (top == 6) return runner < 4 ? bases[b0] : 'X';
    if (runner < 7) return bases[b0];
    if (rating[b2] == 7 || low[b0] == low[b1]) return 'F';
    return low[b0] > low[b1] ? bases[b0] : bases[b1];
}

#endif  // LASSM_SET_EXT_CUH

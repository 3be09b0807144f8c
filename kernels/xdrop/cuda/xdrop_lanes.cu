// SPDX-License-Identifier: BSD-3-Clause
// X-drop seed extension for narrow bands: XDROP_LANES threads (8, 16 or 32: a part of one warp)
// per alignment direction (a "task"), so one warp extends 32 / XDROP_LANES tasks side by side.
// The algorithm is kernels/xdrop/cuda/xdrop.cu's (SeqAn 2's _extendSeedGappedXDropOneDirection),
// bit for bit the numba oracle (lassm/backends/xdrop/xdrop_cpu.py), with the same three rolling
// anti-diagonals in global scratch; only the synchronization differs.
//
// Why: at small X a band holds a few dozen cells, and xdrop.cu's 128-thread block then spends
// each anti-diagonal in __syncthreads and a shared-memory tree over mostly idle threads. Here a
// lane group reduces the anti-diagonal's best score and its two band ends with warp shuffles and
// orders its scratch writes with __syncwarp: no block barrier and no shared memory at all.
//
// The warp stays converged: every lane runs the anti-diagonal loop while any task of the warp
// is still extending (a finished or absent task's lanes only take part in the shuffles), so the
// shuffles and __syncwarp always name the whole warp. The xor shuffles below XDROP_LANES never
// cross a lane group.
#ifndef XDROP_LANES
#define XDROP_LANES 16  // threads per task: 8, 16 or 32
#endif
#ifndef XDROP_BLOCK
#define XDROP_BLOCK 128  // threads per block: a multiple of 32
#endif

#include "xdrop_steps.h"  // the shared steps, the constants and wrap_add

#define XDROP_FULL_WARP 0xffffffffu

#if (XDROP_LANES != 8 && XDROP_LANES != 16 && XDROP_LANES != 32) || (XDROP_BLOCK % 32 != 0)
#error "XDROP_LANES must be 8, 16 or 32 and XDROP_BLOCK a multiple of 32"
#endif

// The lane group's maximum, minimum and maximum of three values, every lane getting the results.
__device__ __forceinline__ void group_reduce(int &best, int &lo, int &hi) {
#pragma unroll
    for (int span = XDROP_LANES / 2; span > 0; span >>= 1) {
        best = max(best, __shfl_xor_sync(XDROP_FULL_WARP, best, span));
        lo = min(lo, __shfl_xor_sync(XDROP_FULL_WARP, lo, span));
        hi = max(hi, __shfl_xor_sync(XDROP_FULL_WARP, hi, span));
    }
}

extern "C" __global__ void __launch_bounds__(XDROP_BLOCK)
xdrop_lanes_kernel(const unsigned char *__restrict__ seqs_q, const unsigned char *__restrict__ seqs_d,
                   const long long *__restrict__ q_start, const int *__restrict__ q_len,
                   const long long *__restrict__ d_start, const int *__restrict__ d_len,
                   const unsigned char *__restrict__ direction, const long long *__restrict__ scratch_off,
                   int *scratch, const int match, const int mismatch_in, const int gap_in, const int xdrop,
                   int *score, int *ext_col_out, int *ext_row_out, long long *cells_out, int *status,
                   const int n_tasks) {
    const int task = (int)((blockIdx.x * (unsigned)XDROP_BLOCK + threadIdx.x) / XDROP_LANES);
    const int lid = threadIdx.x % XDROP_LANES;
    const bool present = task < n_tasks;
    const int cols = present ? q_len[task] + 1 : 1;  // V, the query, along the columns
    const int rows = present ? d_len[task] + 1 : 1;  // H, the database, along the rows
    if (present && (rows == 1 || cols == 1) && lid == 0) {
        score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
        cells_out[task] = 0; status[task] = XDROP_OK;
    }
    bool active = present && rows > 1 && cols > 1;
    if (!__any_sync(XDROP_FULL_WARP, active)) return;  // the whole warp: no task here extends

    const int right = active && direction[task] == XDROP_RIGHT;
    const unsigned char *q = seqs_q + (active ? q_start[task] : 0);
    const unsigned char *d = seqs_d + (active ? d_start[task] : 0);
    int gap, mismatch, undef;
    xdrop_scheme(cols, rows, gap_in, mismatch_in, &gap, &mismatch, &undef);
    const int stride = min(cols, rows) + 2;  // a band never holds more cells

    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    int *base = scratch + (active ? scratch_off[task] : 0);
    int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (active && lid == 0) xdrop_init_antidiags(p2, p3, gap, xdrop, undef);  // _initAntiDiags
    int min_col = 1, max_col = 2, anti = 1, best = 0;
    long long cells = 0;
    __syncwarp(XDROP_FULL_WARP);

    while (__any_sync(XDROP_FULL_WARP, active)) {
        int anti_best = XDROP_INT_MIN, new_min = 0x7fffffff, new_max = XDROP_INT_MIN;
        if (active) {
            ++anti;
            if (!xdrop_next_antidiag(&p1, &p2, &p3, &len1, &len2, &len3, &off1, &off2, &off3, min_col, max_col,
                                     stride)) {  // uniform in the group: reported, and the task ends
                if (lid == 0) {
                    score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
                    cells_out[task] = cells; status[task] = XDROP_BAND_OVERFLOW;
                }
                active = false;
            }
        }
        if (active) {
            // SeqAn's two trimming loops as reductions, as in xdrop.cu: the first column from
            // min_col that stays and the last from max_col down; min_col - 1 and max_col + 1 stop them.
            xdrop_antidiag_share(q, d, p1, p2, p3, anti, min_col, max_col, cols, rows, right, off1, off2, off3, len2,
                                 match, mismatch, gap, best, xdrop, undef, lid, XDROP_LANES, &anti_best, &new_min,
                                 &new_max);
        }
        __syncwarp(XDROP_FULL_WARP);  // this anti-diagonal's cells, for the next one's reads
        group_reduce(anti_best, new_min, new_max);
        if (active) {
            cells += max_col - min_col;
            best = max(best, anti_best);
            min_col = max(new_min, anti + 2 - rows);  // the end of H reached
            max_col = min(new_max + 1, cols);         // the end of V reached
            active = min_col < max_col;
            if (!active && lid == 0) {
                xdrop_report_end(p1, p2, p3, len1, len2, len3, off1, off2, off3, anti, undef, cells, XDROP_OK,
                                 task, score, ext_col_out, ext_row_out, cells_out, status);
            }
        }
    }
}

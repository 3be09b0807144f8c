// SPDX-License-Identifier: BSD-3-Clause
// X-drop seed extension for wide bands: one block of XDROP_GROUP threads per alignment direction
// (a "task"), as LOGAN's (../xdrop_block.h), with two changes where a wide band spends its time.
// The algorithm is the same SeqAn 2 _extendSeedGappedXDropOneDirection, step for step the shared
// steps of xdrop_steps.h, bit for bit the numba oracle (lassm/backends/xdrop/cpu.py).
//
// 1. One barrier per anti-diagonal. LOGAN's block reduces the anti-diagonal's best score and its
//    two band ends with a shared-memory tree: a barrier per level, eight for 128 threads. Here
//    each warp reduces its lanes with xor shuffles, its first lane leaves the warp's three values
//    in shared memory, and after one barrier every thread reads the few warps' values. That one
//    barrier also orders the anti-diagonal's cells before the next one reads them. Two sets of
//    the warps' values, by parity, let a thread write one anti-diagonal's while a slower one
//    still reads the last one's.
// 2. The three anti-diagonals in shared memory. A band holds far fewer cells than the shorter
//    side (XDROP_SHARED_STRIDE ints an anti-diagonal, a few KB), so the cells a thread writes
//    and the next two anti-diagonals read stay on the SM instead of going through L2. A band
//    that outgrows them (the kernel's own overflow check) starts the task again from its first
//    anti-diagonal on its global scratch, whose stride no band outgrows: the same steps, the
//    same result, only later.
//
// CUDA (NVRTC) and HIP: XDROP_WARP is the warp's width, 32 on NVIDIA; HIP-CPU runs a block of
// one 64-lane wavefront, or one or two 32-lane warps in its halves (lassm/backends/xdrop/hip_cpu.py).
#ifndef XDROP_GROUP
#define XDROP_GROUP 128  // threads per block: a multiple of XDROP_WARP
#endif
#ifndef XDROP_WARP
#define XDROP_WARP 32  // lanes per warp
#endif
#ifndef XDROP_SHARED_STRIDE
#define XDROP_SHARED_STRIDE 1024  // ints per anti-diagonal in shared memory (three of them)
#endif
#define XDROP_WARPS (XDROP_GROUP / XDROP_WARP)
// Blocks an SM keeps resident: half its 2048 threads, LOGAN's block's residency (64 registers)
#define XDROP_MIN_BLOCKS (1024 / XDROP_GROUP > 0 ? 1024 / XDROP_GROUP : 1)

#if XDROP_GROUP % XDROP_WARP != 0 || XDROP_GROUP > 1024 || (XDROP_WARP & (XDROP_WARP - 1)) || XDROP_WARP > 64
#error "XDROP_GROUP must be a multiple of XDROP_WARP (a power of two up to 64), at most 1024"
#endif
#if XDROP_SHARED_STRIDE < 3
#error "XDROP_SHARED_STRIDE must hold an anti-diagonal's first three cells"
#endif

#include "xdrop_steps.h"  // the shared steps, the constants and wrap_add

#if defined(__HIP__) || defined(__HIPCC__)
#define XDROP_SHFL_XOR(v, m) __shfl_xor((v), (m), XDROP_WARP)
#else
#if XDROP_WARP != 32
#error "an NVIDIA warp has 32 lanes: build with XDROP_WARP 32"
#endif
#define XDROP_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m), XDROP_WARP)
#endif

// The block's maximum, minimum and maximum of three values, every thread getting the results:
// xor shuffles within each warp, then the warps' values through shared memory (set `set` of
// two) after the anti-diagonal's one barrier.
__device__ __forceinline__ void group_reduce(int &best, int &lo, int &hi, int *red, int set, int lid) {
#pragma unroll
    for (int span = XDROP_WARP / 2; span > 0; span >>= 1) {
        best = max(best, XDROP_SHFL_XOR(best, span));
        lo = min(lo, XDROP_SHFL_XOR(lo, span));
        hi = max(hi, XDROP_SHFL_XOR(hi, span));
    }
    int *mine = red + set * 3 * XDROP_WARPS;
    if (lid % XDROP_WARP == 0) {
        const int w = lid / XDROP_WARP;
        mine[w] = best; mine[XDROP_WARPS + w] = lo; mine[2 * XDROP_WARPS + w] = hi;
    }
    __syncthreads();  // the anti-diagonal's cells and the warps' values, for every thread
#pragma unroll
    for (int w = 0; w < XDROP_WARPS; ++w) {
        best = max(best, mine[w]);
        lo = min(lo, mine[XDROP_WARPS + w]);
        hi = max(hi, mine[2 * XDROP_WARPS + w]);
    }
}

// One task's extension on three anti-diagonals of `stride` ints at `base` (shared or global):
// xdrop_block's loop, its reductions group_reduce's. Returns XDROP_BAND_OVERFLOW, having written
// nothing, when the band outgrows `stride` and `retry` says the caller starts again elsewhere;
// otherwise lane 0 writes the task's outputs (status included) and the state is returned.
__device__ __forceinline__ int extend_on(const unsigned char *q, const unsigned char *d, int cols, int rows,
                                         int right, int match, int mismatch, int gap, int xdrop, int undef,
                                         int *base, int stride, int retry, int *red, int task, int lid,
                                         int *score, int *ext_col_out, int *ext_row_out, long long *cells_out,
                                         int *status) {
    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride, *pt;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (lid == 0) xdrop_init_antidiags(p2, p3, gap, xdrop, undef);  // _initAntiDiags
    int min_col = 1, max_col = 2, anti = 1, best = 0, state = XDROP_OK;
    long long cells = 0;
    __syncthreads();  // the first two anti-diagonals; and the last reads of an earlier attempt

    while (min_col < max_col) {
        ++anti;
        pt = p1; p1 = p2; p2 = p3; p3 = pt;
        len1 = len2; len2 = len3; off1 = off2; off2 = off3;
        off3 = min_col - 1;
        len3 = max_col + 1 - off3;
        if (max_col - off3 >= stride) { state = XDROP_BAND_OVERFLOW; break; }  // uniform
        const int edge = anti * gap;
        // SeqAn's two trimming loops as reductions, as in xdrop_block.h: the first column from
        // min_col that stays and the last from max_col down; min_col - 1 and max_col + 1 stop them.
        int new_min = max_col + 1, new_max = off3;
        if (lid == 0)  // _initAntiDiag3
            xdrop_band_edges(p2, p3, anti, min_col, max_col, off2, off3, len2, edge, best, xdrop, undef, &new_min,
                             &new_max);
        int anti_best = edge;
        const int floor_score = best - xdrop;
        for (int col = min_col + lid; col < max_col; col += XDROP_GROUP) {
            xdrop_cell(q, d, p1, p2, p3, col, anti, cols, rows, right, off1, off2, off3, match, mismatch, gap,
                       floor_score, undef, &anti_best, &new_min, &new_max);
        }
        group_reduce(anti_best, new_min, new_max, red, anti & 1, lid);
        cells += max_col - min_col;
        best = max(best, anti_best);
        min_col = max(new_min, anti + 2 - rows);  // the end of H reached
        max_col = min(new_max + 1, cols);         // the end of V reached
    }
    if (state == XDROP_BAND_OVERFLOW && retry) return state;
    if (lid == 0)
        xdrop_report_end(p1, p2, p3, len1, len2, len3, off1, off2, off3, anti, undef, cells, state, task, score,
                         ext_col_out, ext_row_out, cells_out, status);
    return state;
}

extern "C" __global__ void __launch_bounds__(XDROP_GROUP, XDROP_MIN_BLOCKS)
xdrop_warps_kernel(const unsigned char *__restrict__ seqs_q, const unsigned char *__restrict__ seqs_d,
                   const long long *__restrict__ q_start, const int *__restrict__ q_len,
                   const long long *__restrict__ d_start, const int *__restrict__ d_len,
                   const unsigned char *__restrict__ direction, const long long *__restrict__ scratch_off,
                   int *scratch, const int match, const int mismatch_in, const int gap_in, const int xdrop,
                   int *score, int *ext_col_out, int *ext_row_out, long long *cells_out, int *status) {
    __shared__ int antidiags[3 * XDROP_SHARED_STRIDE];
    __shared__ int red[2 * 3 * XDROP_WARPS];
    const int task = (int)blockIdx.x, lid = (int)threadIdx.x;
    const int cols = q_len[task] + 1;  // V, the query, along the columns
    const int rows = d_len[task] + 1;  // H, the database, along the rows
    if (rows == 1 || cols == 1) {
        if (lid == 0) {
            score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
            cells_out[task] = 0; status[task] = XDROP_OK;
        }
        return;
    }
    const int right = direction[task] == XDROP_RIGHT;
    const unsigned char *q = seqs_q + q_start[task];
    const unsigned char *d = seqs_d + d_start[task];
    int gap, mismatch, undef;
    xdrop_scheme(cols, rows, gap_in, mismatch_in, &gap, &mismatch, &undef);
    const int stride = min(cols, rows) + 2;  // a band never holds more cells
    const int fits = stride <= XDROP_SHARED_STRIDE;  // then the shared anti-diagonals never overflow
    if (extend_on(q, d, cols, rows, right, match, mismatch, gap, xdrop, undef, antidiags,
                  fits ? stride : XDROP_SHARED_STRIDE, !fits, red, task, lid, score, ext_col_out, ext_row_out,
                  cells_out, status) == XDROP_BAND_OVERFLOW && !fits)
        extend_on(q, d, cols, rows, right, match, mismatch, gap, xdrop, undef, scratch + scratch_off[task], stride,
                  0, red, task, lid, score, ext_col_out, ext_row_out, cells_out, status);
}

// SPDX-License-Identifier: BSD-3-Clause
// X-drop seed extension for wide bands: one block of XDROP_GROUP threads per alignment direction
// (a "task"), as LOGAN's (../xdrop_block.h), with two changes where a wide band spends its time.
// The algorithm is the same SeqAn 2 _extendSeedGappedXDropOneDirection, the same loop
// (xdrop_block.h's xdrop_extend, over the shared steps of xdrop_steps.h), bit for bit the numba
// oracle (lassm/backends/xdrop/xdrop_cpu.py); only its reduction and where its anti-diagonals live differ.
//
// 1. One barrier per anti-diagonal. LOGAN's block reduces the anti-diagonal's best score and its
//    two band ends with a shared-memory tree: a barrier per level, eight for 128 threads. Here
//    each warp reduces its lanes with xor shuffles, its first lane leaves the warp's three values
//    in shared memory, and after one barrier every thread reads the few warps' values. That one
//    barrier also orders the anti-diagonal's cells before the next one reads them. Two sets of
//    the warps' values, by parity, let a thread write one anti-diagonal's as a slower one
//    still reads the last one's.
// 2. The three anti-diagonals in shared memory. A band holds far fewer cells than the shorter
//    side (XDROP_SHARED_STRIDE ints an anti-diagonal, a few KB), so the cells a thread writes
//    and the next two anti-diagonals read stay on the SM instead of going through L2. A band
//    that outgrows them (the kernel's own overflow check) starts the task again from its first
//    anti-diagonal on its global scratch, whose stride no band outgrows: the same steps, the
//    same result, only later.
//
// CUDA (NVRTC) and HIP: XDROP_WARP is the warp's width, 32 on NVIDIA; HIP-CPU runs a block of
// one 64-lane wavefront, or one or two 32-lane warps in its halves (lassm/backends/xdrop/xdrop_hip_cpu.py).
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

#if defined(__HIP__) || defined(__HIPCC__)
#define XDROP_SHFL_XOR(v, m) __shfl_xor((v), (m), XDROP_WARP)
#else
#if XDROP_WARP != 32
#error "an NVIDIA warp has 32 lanes: build with XDROP_WARP 32"
#endif
#define XDROP_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m), XDROP_WARP)
#endif

// The block's maximum, minimum and maximum of three values, every thread getting the results:
// xor shuffles within each warp, then the warps' values through shared memory (red_*: two sets of
// XDROP_WARPS ints each, by the anti-diagonal's parity) after the anti-diagonal's one barrier.
__device__ __forceinline__ void warps_reduce(int *anti_best, int *new_min, int *new_max, int *red_best, int *red_min,
                                             int *red_max, const int anti, const int lid) {
    int best = *anti_best, lo = *new_min, hi = *new_max;
#pragma unroll
    for (int span = XDROP_WARP / 2; span > 0; span >>= 1) {
        best = max(best, XDROP_SHFL_XOR(best, span));
        lo = min(lo, XDROP_SHFL_XOR(lo, span));
        hi = max(hi, XDROP_SHFL_XOR(hi, span));
    }
    const int set = (anti & 1) * XDROP_WARPS;
    if (lid % XDROP_WARP == 0) {
        const int w = set + lid / XDROP_WARP;
        red_best[w] = best; red_min[w] = lo; red_max[w] = hi;
    }
    __syncthreads();  // the anti-diagonal's cells and the warps' values, for every thread
#pragma unroll
    for (int w = set; w < set + XDROP_WARPS; ++w) {
        best = max(best, red_best[w]);
        lo = min(lo, red_min[w]);
        hi = max(hi, red_max[w]);
    }
    *anti_best = best; *new_min = lo; *new_max = hi;
}

#define XDROP_GROUP_REDUCE warps_reduce
#include "xdrop_block.h"  // the task's extension (xdrop_extend), over the shared steps of xdrop_steps.h

extern "C" __global__ void __launch_bounds__(XDROP_GROUP, XDROP_MIN_BLOCKS) xdrop_warps_kernel(XDROP_TASK_ARGS) {
    __shared__ int antidiags[3 * XDROP_SHARED_STRIDE];
    __shared__ int red_best[2 * XDROP_WARPS];
    __shared__ int red_min[2 * XDROP_WARPS];
    __shared__ int red_max[2 * XDROP_WARPS];
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
    const int stride = min(cols, rows) + 2;          // a band never holds more cells
    const int fits = stride <= XDROP_SHARED_STRIDE;  // then the shared anti-diagonals never overflow
    if (xdrop_extend(q, d, cols, rows, right, match, mismatch, gap, xdrop, undef, antidiags,
                     fits ? stride : XDROP_SHARED_STRIDE, !fits, red_best, red_min, red_max, task, lid, score,
                     ext_col_out, ext_row_out, cells_out, status) == XDROP_BAND_OVERFLOW && !fits)
        xdrop_extend(q, d, cols, rows, right, match, mismatch, gap, xdrop, undef, scratch + scratch_off[task], stride,
                     0, red_best, red_min, red_max, task, lid, score, ext_col_out, ext_row_out, cells_out, status);
}

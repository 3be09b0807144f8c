// SPDX-License-Identifier: BSD-3-Clause
// One task (an alignment direction) extended by a group of XDROP_GROUP threads: LOGAN's block per
// task, in the C that both CUDA C++ and OpenCL C read. cuda/xdrop.cu and opencl/xdrop.cl are its
// two entry points; they differ only in how they name their group, their shared memory and
// their barriers (the macros below). The steps are xdrop_steps.h's. cuda/xdrop_warps.cu, the
// wide-band block, runs the same loop (xdrop_extend) with its own reduction (XDROP_GROUP_REDUCE)
// and its anti-diagonals in shared memory.
//
// Per anti-diagonal: the cells (segments of XDROP_GROUP threads), then (LOGAN's reduction) one
// shared-memory tree that reduces three things at once: the anti-diagonal's best score and the two band ends
// SeqAn's serial trimming loops find (the first column from the start, and the last from the
// end, not to be dropped). Every thread keeps the loop's state in registers and reads the
// reductions' results, so the state stays uniform and no broadcast is needed.
#ifndef LASSM_XDROP_BLOCK_H
#define LASSM_XDROP_BLOCK_H

#include "xdrop_steps.h"  // the shared steps, the constants and wrap_add

#ifdef __OPENCL_VERSION__
#define XDROP_SHARED __local
#define XDROP_RESTRICT
#define XDROP_SYNC_BOTH() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)
#define XDROP_SYNC_SHARED() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define XDROP_SHARED
#define XDROP_RESTRICT __restrict__
#define XDROP_SYNC_BOTH() __syncthreads()
#define XDROP_SYNC_SHARED() __syncthreads()
#endif

// The task's inputs and outputs, as the kernels take them: the pairs' bases and where each task's
// query (V) and database (H) side start, their lengths, the direction, each task's scratch.
#define XDROP_TASK_ARGS                                                                            \
    const XDROP_MEM XDROP_U8 *XDROP_RESTRICT seqs_q, const XDROP_MEM XDROP_U8 *XDROP_RESTRICT seqs_d, \
    const XDROP_MEM XDROP_I64 *XDROP_RESTRICT q_start, const XDROP_MEM int *XDROP_RESTRICT q_len,      \
    const XDROP_MEM XDROP_I64 *XDROP_RESTRICT d_start, const XDROP_MEM int *XDROP_RESTRICT d_len,      \
    const XDROP_MEM XDROP_U8 *XDROP_RESTRICT direction,                                                \
    const XDROP_MEM XDROP_I64 *XDROP_RESTRICT scratch_off, XDROP_MEM int *scratch, const int match,    \
    const int mismatch_in, const int gap_in, const int xdrop, XDROP_MEM int *score,                    \
    XDROP_MEM int *ext_col_out, XDROP_MEM int *ext_row_out, XDROP_MEM XDROP_I64 *cells_out,            \
    XDROP_MEM int *status
#define XDROP_TASK_NAMES                                                                           \
    seqs_q, seqs_d, q_start, q_len, d_start, d_len, direction, scratch_off, scratch, match,         \
    mismatch_in, gap_in, xdrop, score, ext_col_out, ext_row_out, cells_out, status

// LOGAN's reduction of an anti-diagonal over the group: each thread's three values into shared
// memory (red_*: 2 * XDROP_GROUP ints each), then a tree, a barrier per level; every thread reads
// the results. Two sets of partials, by parity: a thread may write this anti-diagonal's while
// another still reads the last one's results (no barrier in between). The first barrier also
// orders the anti-diagonal's cells for the next one.
XDROP_FN void xdrop_tree_reduce(int *anti_best, int *new_min, int *new_max, XDROP_SHARED int *red_best,
                                XDROP_SHARED int *red_min, XDROP_SHARED int *red_max, const int anti, const int lid) {
    const int set = (anti & 1) * XDROP_GROUP;
    XDROP_SHARED int *rb = red_best + set, *rn = red_min + set, *rx = red_max + set;
    rb[lid] = *anti_best; rn[lid] = *new_min; rx[lid] = *new_max;
    XDROP_SYNC_BOTH();  // this anti-diagonal, for the next
    int span = 1;
    while (span < XDROP_GROUP) span <<= 1;
    for (span >>= 1; span > 0; span >>= 1) {
        if (lid < span && lid + span < XDROP_GROUP) {
            rb[lid] = max(rb[lid], rb[lid + span]);
            rn[lid] = min(rn[lid], rn[lid + span]);
            rx[lid] = max(rx[lid], rx[lid + span]);
        }
        XDROP_SYNC_SHARED();
    }
    *anti_best = rb[0]; *new_min = rn[0]; *new_max = rx[0];
}

// The group's reduction of an anti-diagonal: LOGAN's tree unless the including file names its own
// (a function of the same arguments; cuda/xdrop_warps.cu's shuffles warps, then meets once).
#ifndef XDROP_GROUP_REDUCE
#define XDROP_GROUP_REDUCE xdrop_tree_reduce
#endif

// The extension of one task (q and d its sides, cols and rows their lengths + 1) by thread `lid`
// of its group, on three anti-diagonals of `stride` ints at `base`. When the band outgrows them
// and `retry` is set, nothing is written and XDROP_BAND_OVERFLOW is returned (the caller starts
// again on a larger buffer); otherwise thread 0 writes the task's outputs and status.
XDROP_FN int xdrop_extend(const XDROP_MEM XDROP_U8 *q, const XDROP_MEM XDROP_U8 *d, const int cols, const int rows,
                          const int right, const int match, const int mismatch, const int gap, const int xdrop,
                          const int undef, XDROP_MEM int *base, const int stride, const int retry,
                          XDROP_SHARED int *red_best, XDROP_SHARED int *red_min, XDROP_SHARED int *red_max,
                          const int task, const int lid, XDROP_MEM int *score, XDROP_MEM int *ext_col_out,
                          XDROP_MEM int *ext_row_out, XDROP_MEM XDROP_I64 *cells_out, XDROP_MEM int *status) {
    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    XDROP_MEM int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (lid == 0) xdrop_init_antidiags(p2, p3, gap, xdrop, undef);  // _initAntiDiags
    int min_col = 1, max_col = 2, anti = 1, best = 0, state = XDROP_OK;
    XDROP_I64 cells = 0;
    XDROP_SYNC_BOTH();  // the first two anti-diagonals; and the last reads of an earlier attempt

    while (min_col < max_col) {
        ++anti;
        if (!xdrop_next_antidiag(&p1, &p2, &p3, &len1, &len2, &len3, &off1, &off2, &off3, min_col, max_col, stride)) {
            state = XDROP_BAND_OVERFLOW;  // uniform
            break;
        }
        // SeqAn's two trimming loops become reductions: the first column from min_col that
        // stays (a cell and the one before it on the last anti-diagonal not both undefined),
        // and the last from max_col down that stays; min_col - 1 and max_col + 1 stop them.
        // The thread that scores column c has both cells its predicates read in registers.
        int anti_best, new_min, new_max;
        xdrop_antidiag_share(q, d, p1, p2, p3, anti, min_col, max_col, cols, rows, right, off1, off2, off3, len2, match,
                             mismatch, gap, best, xdrop, undef, lid, XDROP_GROUP, &anti_best, &new_min, &new_max);
        XDROP_GROUP_REDUCE(&anti_best, &new_min, &new_max, red_best, red_min, red_max, anti, lid);
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

// Task `task` by thread `lid` of its group, on its global scratch: LOGAN's block (the entry points
// of cuda/xdrop.cu and opencl/xdrop.cl); red_*: the group's shared ints of XDROP_GROUP_REDUCE.
XDROP_FN void xdrop_block(XDROP_TASK_ARGS, XDROP_SHARED int *red_best, XDROP_SHARED int *red_min,
                          XDROP_SHARED int *red_max, const int task, const int lid) {
    const int cols = q_len[task] + 1;  // V, the query, along the columns
    const int rows = d_len[task] + 1;  // H, the database, along the rows
    const int right = direction[task] == XDROP_RIGHT;
    const XDROP_MEM XDROP_U8 *q = seqs_q + q_start[task];
    const XDROP_MEM XDROP_U8 *d = seqs_d + d_start[task];
    if (rows == 1 || cols == 1) {
        if (lid == 0) {
            score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
            cells_out[task] = 0; status[task] = XDROP_OK;
        }
        return;
    }
    int gap, mismatch, undef;
    xdrop_scheme(cols, rows, gap_in, mismatch_in, &gap, &mismatch, &undef);
    const int stride = min(cols, rows) + 2;  // a band never holds more cells
    xdrop_extend(q, d, cols, rows, right, match, mismatch, gap, xdrop, undef, scratch + scratch_off[task], stride, 0,
                 red_best, red_min, red_max, task, lid, score, ext_col_out, ext_row_out, cells_out, status);
}

#endif

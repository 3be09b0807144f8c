// SPDX-License-Identifier: BSD-3-Clause
// One task (an alignment direction) extended by a group of XDROP_GROUP threads: LOGAN's block per
// task, in the C that both CUDA C++ and OpenCL C read. cuda/xdrop.cu and opencl/xdrop.cl are its
// two entry points; they differ only in how they name their group, their shared memory and
// their barriers (the macros below). The steps are xdrop_steps.h's.
//
// Per anti-diagonal: the cells (segments of XDROP_GROUP threads), then one shared-memory tree
// that reduces three things at once: the anti-diagonal's best score and the two band ends
// SeqAn's serial trimming loops find (the first column from the start, and the last from the
// end, not to be dropped). Every thread keeps the loop's state in registers and reads the
// reductions' results, so the state stays uniform and no broadcast is needed.
#ifndef LASSM_XDROP_BLOCK_H
#define LASSM_XDROP_BLOCK_H

#include "xdrop_steps.h"  // the shared steps, the constants and wrap_add

#ifdef __OPENCL_VERSION__
#define XDROP_SHARED __local
#define XDROP_RESTRICT
#define XDROP_SYNC_SCRATCH() barrier(CLK_GLOBAL_MEM_FENCE)
#define XDROP_SYNC_BOTH() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)
#define XDROP_SYNC_SHARED() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define XDROP_SHARED
#define XDROP_RESTRICT __restrict__
#define XDROP_SYNC_SCRATCH() __syncthreads()
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

// Task `task` by thread `lid` of its group; red_*: the group's 2 * XDROP_GROUP shared ints each.
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

    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    XDROP_MEM int *base = scratch + scratch_off[task];
    XDROP_MEM int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride, *pt;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (lid == 0) xdrop_init_antidiags(p2, p3, gap, xdrop, undef);  // _initAntiDiags
    int min_col = 1, max_col = 2, anti = 1, best = 0, state = XDROP_OK;
    XDROP_I64 cells = 0;
    XDROP_SYNC_SCRATCH();

    while (min_col < max_col) {
        ++anti;
        pt = p1; p1 = p2; p2 = p3; p3 = pt;
        len1 = len2; len2 = len3; off1 = off2; off2 = off3;
        off3 = min_col - 1;
        len3 = max_col + 1 - off3;
        if (max_col - off3 >= stride) { state = XDROP_BAND_OVERFLOW; break; }  // uniform
        const int edge = anti * gap;
        // SeqAn's two trimming loops become reductions: the first column from min_col that
        // stays (a cell and the one before it on the last anti-diagonal not both undefined),
        // and the last from max_col down that stays; min_col - 1 and max_col + 1 stop them.
        // The thread that scores column c has both cells its predicates read in registers.
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
        // two sets of partials, by parity: a thread may write this anti-diagonal's while another
        // still reads the last one's results (no barrier in between)
        const int set = (anti & 1) * XDROP_GROUP;
        XDROP_SHARED int *rb = red_best + set, *rn = red_min + set, *rx = red_max + set;
        rb[lid] = anti_best; rn[lid] = new_min; rx[lid] = new_max;
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
        cells += max_col - min_col;
        best = max(best, rb[0]);
        min_col = max(rn[0], anti + 2 - rows);  // the end of H reached
        max_col = min(rx[0] + 1, cols);         // the end of V reached
    }
    if (lid != 0) return;

    xdrop_report_end(p1, p2, p3, len1, len2, len3, off1, off2, off3, anti, undef, cells, state, task, score,
                     ext_col_out, ext_row_out, cells_out, status);
}

#endif

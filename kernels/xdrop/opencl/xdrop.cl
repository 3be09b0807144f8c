// SPDX-License-Identifier: BSD-3-Clause
// LOGAN's X-drop seed extension in OpenCL C 1.2: SeqAn 2's _extendSeedGappedXDropOneDirection,
// one work-group per alignment direction (a "task"), its work-items over the anti-diagonal.
//
// Bit for bit the numba oracle (lassm/backends/xdrop/cpu.py): the same three rolling
// anti-diagonals (kept in global scratch, as LOGAN keeps them in HBM), the same undefined value
// (INT_MIN - gap), band trimming, once-per-anti-diagonal best, clamped scores and choice of the
// reported end. Scores are 32-bit: the one sum the oracle wraps (an undefined cell plus a
// mismatch below the gap) is an unsigned add here, two's complement on every device.
//
// Per anti-diagonal: the cells (segments of XDROP_GROUP work-items), then one
// local-memory tree that reduces three things at once: the anti-diagonal's best score and the
// two band ends SeqAn's serial trimming loops find (the first column from the start, and the
// last from the end, not to be dropped). Every work-item keeps the loop's state in registers
// and reads the reductions' results, so the state stays uniform and no broadcast is needed.
#ifndef XDROP_GROUP
#define XDROP_GROUP 128  // work-items per work-group; any size (the tree needs no power of two)
#endif

#include "xdrop_steps.h"  // the shared steps, the constants and wrap_add

__kernel __attribute__((reqd_work_group_size(XDROP_GROUP, 1, 1)))
void xdrop_kernel(__global const uchar *seqs_q, __global const uchar *seqs_d,
                  __global const long *q_start, __global const int *q_len,
                  __global const long *d_start, __global const int *d_len,
                  __global const uchar *direction, __global const long *scratch_off,
                  __global int *scratch, const int match, const int mismatch_in, const int gap_in,
                  const int xdrop, __global int *score, __global int *ext_col_out,
                  __global int *ext_row_out, __global long *cells_out, __global int *status) {
    __local int red_best[2 * XDROP_GROUP];
    __local int red_min[2 * XDROP_GROUP];
    __local int red_max[2 * XDROP_GROUP];
    const int task = get_group_id(0);
    const int lid = get_local_id(0);
    const int cols = q_len[task] + 1;  // V, the query, along the columns
    const int rows = d_len[task] + 1;  // H, the database, along the rows
    const int right = direction[task] == XDROP_RIGHT;
    __global const uchar *q = seqs_q + q_start[task];
    __global const uchar *d = seqs_d + d_start[task];
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
    __global int *base = scratch + scratch_off[task];
    __global int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride, *pt;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (lid == 0) xdrop_init_antidiags(p2, p3, gap, xdrop, undef);  // _initAntiDiags
    int min_col = 1, max_col = 2, anti = 1, best = 0, state = XDROP_OK;
    long cells = 0;
    barrier(CLK_GLOBAL_MEM_FENCE);

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
        // two sets of partials, by parity: a work-item may write this anti-diagonal's while another
        // still reads the last one's results (no barrier in between)
        const int set = (anti & 1) * XDROP_GROUP;
        __local int *rb = red_best + set, *rn = red_min + set, *rx = red_max + set;
        rb[lid] = anti_best; rn[lid] = new_min; rx[lid] = new_max;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // this anti-diagonal, for the next
        int span = 1;
        while (span < XDROP_GROUP) span <<= 1;
        for (span >>= 1; span > 0; span >>= 1) {
            if (lid < span && lid + span < XDROP_GROUP) {
                rb[lid] = max(rb[lid], rb[lid + span]);
                rn[lid] = min(rn[lid], rn[lid + span]);
                rx[lid] = max(rx[lid], rx[lid + span]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
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

// SPDX-License-Identifier: BSD-3-Clause
// The steps of SeqAn 2's _extendSeedGappedXDropOneDirection that every X-drop kernel takes alike,
// in the C that both CUDA C++ and OpenCL C read: the first two anti-diagonals, the band's two
// edge cells, one cell, one thread's share of an anti-diagonal, and the choice of the reported end. Included (through -I kernels/xdrop)
// by cuda/xdrop.cu and opencl/xdrop.cl (LOGAN's block per direction) and cuda/xdrop_lanes.cu (a
// few lanes per direction); the kernels differ only in how their threads share an anti-diagonal.
// Bit for bit the numba oracle (lassm/backends/xdrop/xdrop_cpu.py).
#ifndef LASSM_XDROP_STEPS_H
#define LASSM_XDROP_STEPS_H

#ifdef __OPENCL_VERSION__
#define XDROP_FN inline
#define XDROP_MEM __global
#define XDROP_I64 long
#define XDROP_U8 uchar
// a + b as a 32-bit two's-complement int holds it (the oracle's _wrap32)
inline int wrap_add(int a, int b) { return as_int(as_uint(a) + as_uint(b)); }
#else
#define XDROP_FN __device__ __forceinline__
#define XDROP_MEM
#define XDROP_I64 long long
#define XDROP_U8 unsigned char
// a + b as a 32-bit two's-complement int holds it (the oracle's _wrap32)
__device__ __forceinline__ int wrap_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
#endif

#define XDROP_PRAGMA_TEXT(x) _Pragma(#x)
#define XDROP_PRAGMA(x) XDROP_PRAGMA_TEXT(x)  // a pragma whose argument is a macro, expanded

#define XDROP_RIGHT 1
#define XDROP_INT_MIN (-2147483647 - 1)
#define XDROP_OK 0
#define XDROP_BAND_OVERFLOW 1  // a band outgrew its scratch: cannot happen, checked anyway

// SeqAn's guard against wrapping: gap and mismatch no lower than INT_MIN over twice the longer
// side (toward zero), and the undefined value INT_MIN - gap below every score a cell can reach
XDROP_FN void xdrop_scheme(int cols, int rows, int gap_in, int mismatch_in, int *gap, int *mismatch, int *undef) {
    const int length = 2 * max(cols, rows);
    const int min_err = -(int)(0x80000000u / (unsigned int)length);
    *gap = max(gap_in, min_err);
    *mismatch = max(mismatch_in, min_err);
    *undef = XDROP_INT_MIN - *gap;
}

// _initAntiDiags: [0], then [gap, gap] unless -gap > X
XDROP_FN void xdrop_init_antidiags(XDROP_MEM int *p2, XDROP_MEM int *p3, int gap, int xdrop, int undef) {
    p2[0] = 0;
    p3[0] = p3[1] = (-gap > xdrop) ? undef : gap;
}

// _initAntiDiag3: the cells before and after the band, and what they say of the band's new ends
// (SeqAn's two trimming loops start from them: min_col - 1 and max_col + 1 stop the reductions)
XDROP_FN void xdrop_band_edges(const XDROP_MEM int *p2, XDROP_MEM int *p3, int anti, int min_col, int max_col,
                               int off2, int off3, int len2, int edge, int best, int xdrop, int undef,
                               int *new_min, int *new_max) {
    const int lo = (edge > best - xdrop && off3 == 0) ? edge : undef;
    const int hi = (edge > best - xdrop && anti == max_col) ? edge : undef;
    p3[0] = lo;
    p3[max_col - off3] = hi;
    if (!(hi == undef && max_col - off2 - 1 < len2 && p2[max_col - off2 - 1] == undef)) *new_min = max_col;
    if (!(lo == undef && p2[min_col - off2 - 1] == undef)) *new_max = min_col;
}

// One cell (column col of anti-diagonal anti): the best of a gap from either neighbour on the
// last anti-diagonal and the diagonal step two back, dropped below best - X; the thread that
// scores it has both cells the trimming predicates read in registers.
XDROP_FN void xdrop_cell(const XDROP_MEM XDROP_U8 *q, const XDROP_MEM XDROP_U8 *d, const XDROP_MEM int *p1,
                         const XDROP_MEM int *p2, XDROP_MEM int *p3, int col, int anti, int cols, int rows,
                         int right, int off1, int off2, int off3, int match, int mismatch, int gap,
                         int floor_score, int undef, int *anti_best, int *new_min, int *new_max) {
    const XDROP_U8 qb = right ? q[col - 1] : q[cols - 1 - col];
    const XDROP_U8 db = right ? d[anti - col - 1] : d[rows - 1 + col - anti];
    const int i2 = col - off2, i1 = col - off1;
    const int up = p2[i2 - 1], left = p2[i2];
    int tmp = max(max(up, left) + gap, wrap_add(p1[i1 - 1], qb == db ? match : mismatch));
    if (tmp < floor_score) {
        tmp = undef;
    } else {
        *anti_best = max(*anti_best, tmp);
    }
    p3[col - off3] = tmp;
    if (!(tmp == undef && up == undef)) *new_min = min(*new_min, col);
    if (!(tmp == undef && left == undef)) *new_max = max(*new_max, col + 1);
}

// The next anti-diagonal: the three rotated (p1 two back, p2 the last, p3 the one to compute,
// with their lengths and first columns' offsets) and p3 placed on the band [min_col, max_col)
// with its two edge cells. Returns 0 when the band outgrows `stride` ints (uniform in a group).
XDROP_FN int xdrop_next_antidiag(XDROP_MEM int **p1, XDROP_MEM int **p2, XDROP_MEM int **p3, int *len1, int *len2,
                                 int *len3, int *off1, int *off2, int *off3, int min_col, int max_col, int stride) {
    XDROP_MEM int *pt = *p1;
    *p1 = *p2; *p2 = *p3; *p3 = pt;
    *len1 = *len2; *len2 = *len3; *off1 = *off2; *off2 = *off3;
    *off3 = min_col - 1;
    *len3 = max_col + 1 - *off3;
    return max_col - *off3 < stride;
}

// One thread's share of anti-diagonal `anti`: the band's edge cells (thread 0, _initAntiDiag3)
// and the cells of columns min_col + lid, then every `threads` columns. Out: the share's best
// score (from the edge score up) and its ends of the trimmed band, SeqAn's two trimming loops as
// a minimum and a maximum (from max_col + 1 and off3, which stop them) that the group reduces.
XDROP_FN void xdrop_antidiag_share(const XDROP_MEM XDROP_U8 *q, const XDROP_MEM XDROP_U8 *d, const XDROP_MEM int *p1,
                                   const XDROP_MEM int *p2, XDROP_MEM int *p3, int anti, int min_col, int max_col,
                                   int cols, int rows, int right, int off1, int off2, int off3, int len2, int match,
                                   int mismatch, int gap, int best, int xdrop, int undef, int lid, int threads,
                                   int *anti_best, int *new_min, int *new_max) {
    const int edge = anti * gap;
    *new_min = max_col + 1;
    *new_max = off3;
    if (lid == 0)
        xdrop_band_edges(p2, p3, anti, min_col, max_col, off2, off3, len2, edge, best, xdrop, undef, new_min, new_max);
    *anti_best = edge;
    const int floor_score = best - xdrop;
#ifdef XDROP_CELL_UNROLL  // a trial build's unroll of the cells' loop (none named: the compiler's choice)
    XDROP_PRAGMA(unroll XDROP_CELL_UNROLL)
#endif
    for (int col = min_col + lid; col < max_col; col += threads)
        xdrop_cell(q, d, p1, p2, p3, col, anti, cols, rows, right, off1, off2, off3, match, mismatch, gap, floor_score,
                   undef, anti_best, new_min, new_max);
}

// The longest extension: both ends reached, else the end of V, else of H, else the first
// maximum two anti-diagonals back; written as task's outputs with its cells and status.
XDROP_FN void xdrop_report_end(const XDROP_MEM int *p1, const XDROP_MEM int *p2, const XDROP_MEM int *p3,
                               int len1, int len2, int len3, int off1, int off2, int off3, int anti, int undef,
                               XDROP_I64 cells, int state, int task, XDROP_MEM int *score,
                               XDROP_MEM int *ext_col_out, XDROP_MEM int *ext_row_out,
                               XDROP_MEM XDROP_I64 *cells_out, XDROP_MEM int *status) {
    int ext_col = len3 + off3 - 2;
    int ext_row = anti - ext_col;
    int ext = p3[ext_col - off3];
    if (ext == undef) {
        if (p2[len2 - 2] != undef) {
            ext_col = len2 + off2 - 2;
            ext_row = anti - 1 - ext_col;
            ext = p2[ext_col - off2];
        } else if (len2 > 2 && p2[len2 - 3] != undef) {
            ext_col = len2 + off2 - 3;
            ext_row = anti - 1 - ext_col;
            ext = p2[ext_col - off2];
        }
    }
    if (ext == undef) {
        for (int i = 0; i < len1; ++i) {
            if (p1[i] > ext) {
                ext = p1[i];
                ext_col = i + off1;
                ext_row = anti - 2 - ext_col;
            }
        }
    }
    score[task] = ext;
    ext_col_out[task] = ext == undef ? 0 : ext_col;
    ext_row_out[task] = ext == undef ? 0 : ext_row;
    cells_out[task] = cells;
    status[task] = state;
}

#endif

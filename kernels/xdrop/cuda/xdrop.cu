// SPDX-License-Identifier: BSD-3-Clause
// LOGAN's X-drop seed extension in CUDA C++ (NVRTC builds it alone): SeqAn 2's
// _extendSeedGappedXDropOneDirection, one block per alignment direction (a "task"), its threads over the anti-diagonal; the same
// algorithm, line for line, as kernels/xdrop/opencl/xdrop.cl.
//
// Bit for bit the numba oracle (lassm/backends/xdrop/cpu.py): the same three rolling
// anti-diagonals (kept in global scratch, as LOGAN keeps them in HBM), the same undefined value
// (INT_MIN - gap), band trimming, once-per-anti-diagonal best, clamped scores and choice of the
// reported end. Scores are 32-bit: the one sum the oracle wraps (an undefined cell plus a
// mismatch below the gap) is an unsigned add here, two's complement on every NVIDIA GPU.
//
// Per anti-diagonal: the cells (segments of XDROP_GROUP threads), then one
// shared-memory tree that reduces three things at once: the anti-diagonal's best score and the
// two band ends SeqAn's serial trimming loops find (the first column from the start, and the
// last from the end, not to be dropped). Every thread keeps the loop's state in registers
// and reads the reductions' results, so the state stays uniform and no broadcast is needed.
#ifndef XDROP_GROUP
#define XDROP_GROUP 128  // threads per block; any size (the tree needs no power of two)
#endif

#define XDROP_RIGHT 1
#define XDROP_INT_MIN (-2147483647 - 1)
#define XDROP_OK 0
#define XDROP_BAND_OVERFLOW 1  // a band outgrew its scratch: cannot happen, checked anyway

// a + b as a 32-bit two's-complement int holds it (the oracle's _wrap32)
__device__ __forceinline__ int wrap_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }

extern "C" __global__ void __launch_bounds__(XDROP_GROUP)
xdrop_kernel(const unsigned char *__restrict__ seqs_q, const unsigned char *__restrict__ seqs_d,
             const long long *__restrict__ q_start, const int *__restrict__ q_len,
             const long long *__restrict__ d_start, const int *__restrict__ d_len,
             const unsigned char *__restrict__ direction, const long long *__restrict__ scratch_off,
             int *scratch, const int match, const int mismatch_in, const int gap_in, const int xdrop,
             int *score, int *ext_col_out, int *ext_row_out, long long *cells_out, int *status) {
    __shared__ int red_best[2 * XDROP_GROUP];
    __shared__ int red_min[2 * XDROP_GROUP];
    __shared__ int red_max[2 * XDROP_GROUP];
    const int task = blockIdx.x;
    const int lid = threadIdx.x;
    const int cols = q_len[task] + 1;  // V, the query, along the columns
    const int rows = d_len[task] + 1;  // H, the database, along the rows
    const int right = direction[task] == XDROP_RIGHT;
    const unsigned char *q = seqs_q + q_start[task];
    const unsigned char *d = seqs_d + d_start[task];
    if (rows == 1 || cols == 1) {
        if (lid == 0) {
            score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
            cells_out[task] = 0; status[task] = XDROP_OK;
        }
        return;
    }
    const int length = 2 * max(cols, rows);
    const int min_err = -(int)(0x80000000u / (unsigned)length);  // INT_MIN / len, toward zero
    const int gap = max(gap_in, min_err);
    const int mismatch = max(mismatch_in, min_err);
    const int undef = XDROP_INT_MIN - gap;
    const int stride = min(cols, rows) + 2;  // a band never holds more cells

    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    int *base = scratch + scratch_off[task];
    int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride, *pt;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (lid == 0) {  // _initAntiDiags: [0], then [gap, gap] unless -gap > X
        p2[0] = 0;
        p3[0] = p3[1] = (-gap > xdrop) ? undef : gap;
    }
    int min_col = 1, max_col = 2, anti = 1, best = 0, state = XDROP_OK;
    long long cells = 0;
    __syncthreads();

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
        if (lid == 0) {  // _initAntiDiag3: the cells before and after the band, and their predicates
            const int lo = (edge > best - xdrop && off3 == 0) ? edge : undef;
            const int hi = (edge > best - xdrop && anti == max_col) ? edge : undef;
            p3[0] = lo;
            p3[max_col - off3] = hi;
            if (!(hi == undef && max_col - off2 - 1 < len2 && p2[max_col - off2 - 1] == undef)) new_min = max_col;
            if (!(lo == undef && p2[min_col - off2 - 1] == undef)) new_max = min_col;
        }
        int anti_best = edge;
        const int floor_score = best - xdrop;
        for (int col = min_col + lid; col < max_col; col += XDROP_GROUP) {
            const unsigned char qb = right ? q[col - 1] : q[cols - 1 - col];
            const unsigned char db = right ? d[anti - col - 1] : d[rows - 1 + col - anti];
            const int i2 = col - off2, i1 = col - off1;
            const int up = p2[i2 - 1], left = p2[i2];
            int tmp = max(max(up, left) + gap, wrap_add(p1[i1 - 1], qb == db ? match : mismatch));
            if (tmp < floor_score) {
                tmp = undef;
            } else {
                anti_best = max(anti_best, tmp);
            }
            p3[col - off3] = tmp;
            if (!(tmp == undef && up == undef)) new_min = min(new_min, col);
            if (!(tmp == undef && left == undef)) new_max = max(new_max, col + 1);
        }
        // two sets of partials, by parity: a work-item may write this anti-diagonal's while another
        // still reads the last one's results (no barrier in between)
        const int set = (anti & 1) * XDROP_GROUP;
        int *rb = red_best + set, *rn = red_min + set, *rx = red_max + set;
        rb[lid] = anti_best; rn[lid] = new_min; rx[lid] = new_max;
        __syncthreads();  // this anti-diagonal, for the next
        int span = 1;
        while (span < XDROP_GROUP) span <<= 1;
        for (span >>= 1; span > 0; span >>= 1) {
            if (lid < span && lid + span < XDROP_GROUP) {
                rb[lid] = max(rb[lid], rb[lid + span]);
                rn[lid] = min(rn[lid], rn[lid + span]);
                rx[lid] = max(rx[lid], rx[lid + span]);
            }
            __syncthreads();
        }
        cells += max_col - min_col;
        best = max(best, rb[0]);
        min_col = max(rn[0], anti + 2 - rows);  // the end of H reached
        max_col = min(rx[0] + 1, cols);         // the end of V reached
    }
    if (lid != 0) return;

    // the longest extension: both ends reached, else the end of V, else of H...
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
    if (ext == undef) {  // ...else the first maximum two anti-diagonals back
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

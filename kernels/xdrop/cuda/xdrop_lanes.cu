// SPDX-License-Identifier: BSD-3-Clause
// X-drop seed extension for narrow bands: XDROP_LANES threads (8, 16 or 32: a part of one warp)
// per alignment direction (a "task"), so one warp extends 32 / XDROP_LANES tasks side by side.
// The algorithm is kernels/xdrop/cuda/xdrop.cu's (SeqAn 2's _extendSeedGappedXDropOneDirection),
// bit for bit the numba oracle (lassm/backends/xdrop/cpu.py), with the same three rolling
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

#define XDROP_RIGHT 1
#define XDROP_INT_MIN (-2147483647 - 1)
#define XDROP_OK 0
#define XDROP_BAND_OVERFLOW 1  // a band outgrew its scratch: cannot happen, checked anyway
#define XDROP_FULL_WARP 0xffffffffu

#if (XDROP_LANES != 8 && XDROP_LANES != 16 && XDROP_LANES != 32) || (XDROP_BLOCK % 32 != 0)
#error "XDROP_LANES must be 8, 16 or 32 and XDROP_BLOCK a multiple of 32"
#endif

// a + b as a 32-bit two's-complement int holds it (the oracle's _wrap32)
__device__ __forceinline__ int wrap_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }

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
    const int length = 2 * max(cols, rows);
    const int min_err = -(int)(0x80000000u / (unsigned)length);  // INT_MIN / len, toward zero
    const int gap = max(gap_in, min_err);
    const int mismatch = max(mismatch_in, min_err);
    const int undef = XDROP_INT_MIN - gap;
    const int stride = min(cols, rows) + 2;  // a band never holds more cells

    // three anti-diagonals, rotated: p1 two back, p2 the last, p3 the one computed
    int *base = scratch + (active ? scratch_off[task] : 0);
    int *p1 = base, *p2 = base + stride, *p3 = base + 2 * stride, *pt;
    int len1 = 0, len2 = 1, len3 = 2, off1 = 0, off2 = 0, off3 = 0;
    if (active && lid == 0) {  // _initAntiDiags: [0], then [gap, gap] unless -gap > X
        p2[0] = 0;
        p3[0] = p3[1] = (-gap > xdrop) ? undef : gap;
    }
    int min_col = 1, max_col = 2, anti = 1, best = 0;
    long long cells = 0;
    __syncwarp(XDROP_FULL_WARP);

    while (__any_sync(XDROP_FULL_WARP, active)) {
        int anti_best = XDROP_INT_MIN, new_min = 0x7fffffff, new_max = XDROP_INT_MIN;
        if (active) {
            ++anti;
            pt = p1; p1 = p2; p2 = p3; p3 = pt;
            len1 = len2; len2 = len3; off1 = off2; off2 = off3;
            off3 = min_col - 1;
            len3 = max_col + 1 - off3;
            if (max_col - off3 >= stride) {  // uniform in the group: reported, and the task ends
                if (lid == 0) {
                    score[task] = 0; ext_col_out[task] = 0; ext_row_out[task] = 0;
                    cells_out[task] = cells; status[task] = XDROP_BAND_OVERFLOW;
                }
                active = false;
            }
        }
        if (active) {
            const int edge = anti * gap;
            // SeqAn's two trimming loops as reductions, as in xdrop.cu: the first column from
            // min_col that stays and the last from max_col down; min_col - 1 and max_col + 1 stop them.
            new_min = max_col + 1;
            new_max = off3;
            if (lid == 0) {  // _initAntiDiag3: the cells before and after the band, and their predicates
                const int lo = (edge > best - xdrop && off3 == 0) ? edge : undef;
                const int hi = (edge > best - xdrop && anti == max_col) ? edge : undef;
                p3[0] = lo;
                p3[max_col - off3] = hi;
                if (!(hi == undef && max_col - off2 - 1 < len2 && p2[max_col - off2 - 1] == undef)) new_min = max_col;
                if (!(lo == undef && p2[min_col - off2 - 1] == undef)) new_max = min_col;
            }
            anti_best = edge;
            const int floor_score = best - xdrop;
            for (int col = min_col + lid; col < max_col; col += XDROP_LANES) {
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
                status[task] = XDROP_OK;
            }
        }
    }
}

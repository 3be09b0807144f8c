// SPDX-License-Identifier: BSD-3-Clause
// Needleman-Wunsch (k4 of Jin and Vetter's suite) in one launch, in OpenCL C 1.2: the strips, tickets, chunks
// and self-validating edge rows of kernels/suite/cuda/nw_strips.cu, a work-group of NWS
// work-items per strip. OpenCL 1.2 has no shuffles nor votes: each step the work-items leave
// their last score in local memory (two slots, so one barrier a step suffices) and read their
// upper neighbour's, and whether the row above is written is counted in local memory.
#define NWS 32
#define NWS_EMPTY ((int)0x80808080)

inline int nw_cell(int diagonal, int left, int up, int ref, int penalty) {
    return max(max(diagonal + ref, left - penalty), up - penalty);
}

inline int nws_above(__global const int *score, __global volatile const int *edge, const int s, const int c,
                     const int n, const int lane) {
    const int col = NWS * c + lane;
    if (col >= n) return 0;
    return s == 0 ? score[1 + col] : edge[(long)(s - 1) * n + col];
}

__kernel __attribute__((reqd_work_group_size(NWS, 1, 1)))
void nw_strips(__global int *score, __global const int *restrict ref, const int n, const int penalty,
               __global int *ticket, __global volatile int *edge) {
    __local int ref_buf[2][NWS][NWS];
    __local int out_buf[2][NWS][NWS];
    __local int last[2][NWS];   // each work-item's last score, the step's parity picking the slot
    __local int above_l[NWS];   // the row above this chunk
    __local int shared;         // the strip's ticket, then how many of the row above are still unwritten
    const int lane = get_local_id(0);
    if (lane == 0) shared = atomic_inc(ticket);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int s = shared;
    const long cols = n + 1;
    const int r0 = NWS * s + 1;
    const int rows = min(NWS, n - r0 + 1);
    const bool live = lane < rows;
    const bool below = r0 + NWS <= n;
    const int chunks = (n + NWS - 1) / NWS;
    int left = live ? score[(r0 + lane) * cols] : 0;
    int diagonal = score[(r0 - 1) * cols];
    int next[NWS];
    for (int r = 0; r < NWS; ++r) next[r] = r < rows && lane < n ? ref[(r0 + r) * cols + 1 + lane] : 0;
    int pending = nws_above(score, edge, s, 0, n, lane);
    int step = 0;
    for (int c = 0; c < chunks + 2; ++c) {
        const int buf = c & 1;
        if (c < chunks) {
            for (;;) {  // the row above, once every value of it is written
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lane == 0) shared = 0;
                barrier(CLK_LOCAL_MEM_FENCE);
                if (pending == NWS_EMPTY) atomic_inc(&shared);
                barrier(CLK_LOCAL_MEM_FENCE);
                if (shared == 0) break;
                pending = nws_above(score, edge, s, c, n, lane);
            }
            above_l[lane] = pending;
        }
        if (c + 1 < chunks) pending = nws_above(score, edge, s, c + 1, n, lane);
        if (c < chunks)
            for (int r = 0; r < NWS; ++r) ref_buf[buf][r][lane] = next[r];
        if (c >= 2) {
            const int col = NWS * (c - 2) + lane;
            for (int r = 0; r < rows; ++r)
                if (col < n) score[(r0 + r) * cols + 1 + col] = out_buf[buf][r][lane];
        }
        if (c + 1 < chunks) {
            const int col = NWS * (c + 1) + lane;
            for (int r = 0; r < NWS; ++r) next[r] = r < rows && col < n ? ref[(r0 + r) * cols + 1 + col] : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int steps = min(NWS, n + NWS - 1 - NWS * c);
        for (int i = 0; i < steps; ++i, ++step) {
            last[step & 1][lane] = left;
            barrier(CLK_LOCAL_MEM_FENCE);
            const int up = lane == 0 ? above_l[i] : last[step & 1][lane - 1];
            const int j = NWS * c + i - lane;
            const int b = (j >> 5) & 1, x = j & (NWS - 1);
            const int cell = nw_cell(diagonal, left, up, ref_buf[b][lane][x], penalty);
            const bool on = live && (uint)j < (uint)n;
            if (on) {
                out_buf[b][lane][x] = cell;
                if (below && lane == NWS - 1) edge[(long)s * n + j] = cell;
            }
            left = on ? cell : left;
            diagonal = up;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// SPDX-License-Identifier: BSD-3-Clause
// Needleman-Wunsch (k4 of Jin and Vetter's suite) in one launch: the fastest shape we found, not Jin and Vetter's port.
//
// Jin and Vetter's structure (nw.cu, Rodinia's, HeCBench's nw-cuda) launches each anti-diagonal of
// 16 x 16 tiles on its own, 2 n / 16 - 1 dependent launches whose cost is mostly the launches'.
// Here one launch scores the whole matrix: a warp takes a strip of NWS rows (a ticket in the
// order strips were taken, so a warp waits only on warps already running) and sweeps it left to
// right, lane y owning row y of the strip, one anti-diagonal of the strip per step: the cell
// above comes from lane y - 1 by a shuffle, the one to the left is the lane's own last value,
// the diagonal one the cell above of the step before. The strip's last lane also writes its row
// to `edge` (filled with NWS_EMPTY before the launch), where the next strip's first lane reads
// it NWS columns (a chunk) at a time, loaded a chunk ahead: a value that is no longer NWS_EMPTY
// is final (a 4-byte store is whole), so no flag and no fence sits between the strips. The reference matrix comes in by
// chunks through shared memory (loaded a chunk ahead), the scores go out the same way, row by
// row, so every other global access is a whole row of a chunk.
#define NWS 32  // rows of a strip, lanes of its warp, columns of a chunk
#define NWS_FULL 0xffffffffu
#define NWS_EMPTY ((int)0x80808080)  // `edge` before its strip wrote it: every byte 0x80, far below any score

// The score recurrence: a match from the diagonal, or a gap from the left or from above.
__device__ __forceinline__ int nw_cell(int diagonal, int left, int up, int ref, int penalty) {
    return max(max(diagonal + ref, left - penalty), up - penalty);
}

// The row above a strip's columns [NWS c, NWS c + NWS), lane x holding column x, as far as it is
// written (NWS_EMPTY where not yet): the matrix's first row for strip 0.
__device__ __forceinline__ int nws_above(const int *score, const int *edge, const int s, const int c, const int n) {
    const int col = NWS * c + (int)threadIdx.x;
    if (col >= n) return 0;
    return s == 0 ? score[1 + col] : *(volatile const int *)(edge + (long long)(s - 1) * n + col);
}

// `above` once every lane's value is written: loaded again until it is.
__device__ __forceinline__ int nws_final(int above, const int *score, const int *edge, const int s, const int c,
                                         const int n) {
    while (!__all_sync(NWS_FULL, above != NWS_EMPTY)) above = nws_above(score, edge, s, c, n);
    return above;
}

extern "C" __global__ void __launch_bounds__(NWS)
nw_strips(int *__restrict__ score, const int *__restrict__ ref, const int n, const int penalty, int *ticket,
          int *edge) {
    __shared__ int ref_buf[2][NWS][NWS];  // a chunk of the strip's reference rows, two chunks at once
    __shared__ int out_buf[2][NWS][NWS];  // a chunk of the strip's scores, until stored
    const int lane = threadIdx.x;
    int s = 0;
    if (lane == 0) s = atomicAdd(ticket, 1);
    s = __shfl_sync(NWS_FULL, s, 0);
    const long long cols = n + 1;
    const int r0 = NWS * s + 1;  // the strip's first row
    const int rows = min(NWS, n - r0 + 1);
    const bool live = lane < rows;
    const bool below = r0 + NWS <= n;  // a strip follows: the last lane writes its row to edge
    int *mine = edge + (long long)s * n;  // a plain 4-byte store: whole, and read through L2 below
    const int chunks = (n + NWS - 1) / NWS;
    int left = live ? score[(long long)(r0 + lane) * cols] : 0;  // column 0
    int diagonal = score[(long long)(r0 - 1) * cols];           // lane 0's; the others' come by shuffle
    int next[NWS];                                               // the reference's next chunk, in flight
#pragma unroll
    for (int r = 0; r < NWS; ++r) next[r] = r < rows && lane < n ? ref[(long long)(r0 + r) * cols + 1 + lane] : 0;
    int pending = nws_above(score, edge, s, 0, n);
    for (int c = 0; c < chunks + 2; ++c) {
        const int buf = c & 1;
        const int above = c < chunks ? nws_final(pending, score, edge, s, c, n) : 0;
        if (c + 1 < chunks) pending = nws_above(score, edge, s, c + 1, n);  // checked a phase later
        if (c < chunks) {
#pragma unroll
            for (int r = 0; r < NWS; ++r) ref_buf[buf][r][lane] = next[r];
        }
        if (c >= 2) {  // chunk c - 2 is whole: store it
            const int col = NWS * (c - 2) + lane;
#pragma unroll 4
            for (int r = 0; r < rows; ++r)
                if (col < n) score[(long long)(r0 + r) * cols + 1 + col] = out_buf[buf][r][lane];
        }
        if (c + 1 < chunks) {
            const int col = NWS * (c + 1) + lane;
#pragma unroll
            for (int r = 0; r < NWS; ++r) next[r] = r < rows && col < n ? ref[(long long)(r0 + r) * cols + 1 + col] : 0;
        }
        __syncwarp();
        const int steps = min(NWS, n + NWS - 1 - NWS * c);  // the last cell is lane 31's at column n
#pragma unroll 4
        for (int i = 0; i < steps; ++i) {
            int up = __shfl_up_sync(NWS_FULL, left, 1);
            const int first = __shfl_sync(NWS_FULL, above, i);
            if (lane == 0) up = first;
            const int j = NWS * c + i - lane;  // this lane's column (0-based) on this step
            const int b = (j >> 5) & 1, x = j & (NWS - 1);  // in range for any j: the load and the cell
            const int cell = nw_cell(diagonal, left, up, ref_buf[b][lane][x], penalty);  // need not wait on the test
            const bool on = live && (unsigned)j < (unsigned)n;
            if (on) {
                out_buf[b][lane][x] = cell;
                if (below && lane == NWS - 1) __stcg(mine + j, cell);
            }
            left = on ? cell : left;
            diagonal = up;
        }
        __syncwarp();
    }
}

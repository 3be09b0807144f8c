// SPDX-License-Identifier: BSD-3-Clause
//
// The hip-cpu backend's driver for the X-drop kernels (lassm/backends/xdrop/xdrop_hip_cpu.py runs it):
// ../cuda/xdrop.cu, LOGAN's block per alignment direction, or with -DXDROP_WARPS_LAYOUT
// ../cuda/xdrop_warps.cu, the wide-band block (warp shuffles, one barrier an anti-diagonal, the
// anti-diagonals in shared memory), compiled unchanged by g++ against ROCm's HIP-CPU runtime with
// -DXDROP_GROUP=<threads per block> (and XDROP_WARP, XDROP_SHARED_STRIDE). Their threads meet only
// at __syncthreads and shuffles, which every thread of a block reaches alike, and their shared
// memory is static, so they run there as they are; a shuffle there spans one 64-lane wavefront,
// so a block of the wide-band kernel is one wavefront, or one or two 32-lane warps in it.
// (../cuda/xdrop_lanes.cu, the narrow-band layout, is CUDA only: it shuffles and votes with
// *_sync masks on 32-lane warps, which HIP has not.) One run is one launch over the tasks the host
// wrote as raw files into one folder (lassm.backends.xdrop.xdrop_host); the outputs go beside them, and
// the launch's wall seconds to standard output.
//
//   driver DIR match mismatch gap xdrop scratch_ints
#include "hip_cpu.h"
#ifdef XDROP_WARPS_LAYOUT
#include "xdrop_warps.cu"
#define XDROP_ENTRY xdrop_warps_kernel
#else
#include "xdrop.cu"
#define XDROP_ENTRY xdrop_kernel
#endif

int main(int argc, char** argv)
{
    if (argc != 7) lassm_fail("usage: driver DIR match mismatch gap xdrop scratch_ints");
    const std::string dir = argv[1];
    const int match = (int)lassm_arg(argc, argv, 2), mismatch = (int)lassm_arg(argc, argv, 3);
    const int gap = (int)lassm_arg(argc, argv, 4), xdrop = (int)lassm_arg(argc, argv, 5);
    const long long scratch_ints = lassm_arg(argc, argv, 6);

    const auto seqs_q = lassm_read<unsigned char>(dir, "seqs_q");
    const auto seqs_d = lassm_read<unsigned char>(dir, "seqs_d");
    const auto q_start = lassm_read<long long>(dir, "q_start");
    const auto q_len = lassm_read<int>(dir, "q_len");
    const auto d_start = lassm_read<long long>(dir, "d_start");
    const auto d_len = lassm_read<int>(dir, "d_len");
    const auto direction = lassm_read<unsigned char>(dir, "direction");
    const auto scratch_off = lassm_read<long long>(dir, "scratch_off");
    const size_t n = q_len.size();
    if (n < 1 || q_start.size() != n || d_start.size() != n || d_len.size() != n || direction.size() != n ||
        scratch_off.size() != n + 1 || scratch_ints < scratch_off[n])
        lassm_fail("the task buffers disagree with each other");
    for (size_t i = 0; i < n; ++i)
        if (q_start[i] < 0 || q_start[i] + q_len[i] > (long long)seqs_q.size() || d_start[i] < 0 ||
            d_start[i] + d_len[i] > (long long)seqs_d.size())
            lassm_fail("task " + std::to_string(i) + " reaches past its sequences");

    std::vector<int> scratch((size_t)scratch_ints, 0), score(n, 0), ext_col(n, 0), ext_row(n, 0), status(n, 0);
    std::vector<long long> cells(n, 0);
    const auto t0 = lassm_clock();
    hipLaunchKernelGGL(XDROP_ENTRY, dim3((unsigned)n), dim3(XDROP_GROUP), 0, nullptr, seqs_q.data(), seqs_d.data(),
                       q_start.data(), q_len.data(), d_start.data(), d_len.data(), direction.data(),
                       scratch_off.data(), scratch.data(), match, mismatch, gap, xdrop, score.data(), ext_col.data(),
                       ext_row.data(), cells.data(), status.data());
    const hipError_t err = hipDeviceSynchronize();
    const double seconds = lassm_seconds_since(t0);
    if (err != hipSuccess) lassm_fail(std::string("the launch failed: ") + hipGetErrorString(err));

    lassm_write(dir, "score", score, (long long)n);
    lassm_write(dir, "ext_col", ext_col, (long long)n);
    lassm_write(dir, "ext_row", ext_row, (long long)n);
    lassm_write(dir, "cells", cells, (long long)n);
    lassm_write(dir, "status", status, (long long)n);
    std::printf("seconds %.9f\nwavefront %d\ngroup %d\n", seconds, warpSize, XDROP_GROUP);
    return 0;
}

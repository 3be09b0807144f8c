// SPDX-License-Identifier: BSD-3-Clause
// LOGAN's X-drop seed extension in CUDA C++ (NVRTC builds it alone): SeqAn 2's
// _extendSeedGappedXDropOneDirection, one block per alignment direction (a "task"), its threads
// over the anti-diagonal. The algorithm is ../xdrop_block.h's, shared line for line with
// kernels/xdrop/opencl/xdrop.cl; this file is its CUDA entry point.
//
// Bit for bit the numba oracle (lassm/backends/xdrop/xdrop_cpu.py): the same three rolling
// anti-diagonals (kept in global scratch, as LOGAN keeps them in HBM), the same undefined value
// (INT_MIN - gap), band trimming, once-per-anti-diagonal best, clamped scores and choice of the
// reported end. Scores are 32-bit: the one sum the oracle wraps (an undefined cell plus a
// mismatch below the gap) is an unsigned add here, two's complement on every NVIDIA GPU.
#ifndef XDROP_GROUP
#define XDROP_GROUP 128  // threads per block; any size (the tree needs no power of two)
#endif

#include "xdrop_block.h"  // the task's extension, over the shared steps of xdrop_steps.h

extern "C" __global__ void __launch_bounds__(XDROP_GROUP) xdrop_kernel(XDROP_TASK_ARGS) {
    __shared__ int red_best[2 * XDROP_GROUP];
    __shared__ int red_min[2 * XDROP_GROUP];
    __shared__ int red_max[2 * XDROP_GROUP];
    xdrop_block(XDROP_TASK_NAMES, red_best, red_min, red_max, blockIdx.x, threadIdx.x);
}

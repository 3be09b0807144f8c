// SPDX-License-Identifier: BSD-3-Clause
// LOGAN's X-drop seed extension in OpenCL C 1.2: SeqAn 2's _extendSeedGappedXDropOneDirection,
// one work-group per alignment direction (a "task"), its work-items over the anti-diagonal. The
// algorithm is ../xdrop_block.h's, shared line for line with kernels/xdrop/cuda/xdrop.cu; this
// file is its OpenCL entry point.
//
// Bit for bit the numba oracle (lassm/backends/xdrop/xdrop_cpu.py): the same three rolling
// anti-diagonals (kept in global scratch, as LOGAN keeps them in HBM), the same undefined value
// (INT_MIN - gap), band trimming, once-per-anti-diagonal best, clamped scores and choice of the
// reported end. Scores are 32-bit: the one sum the oracle wraps (an undefined cell plus a
// mismatch below the gap) is an unsigned add here, two's complement on every device.
#ifndef XDROP_GROUP
#define XDROP_GROUP 128  // work-items per work-group; any size (the tree needs no power of two)
#endif

#include "xdrop_block.h"  // the task's extension, over the shared steps of xdrop_steps.h

__kernel __attribute__((reqd_work_group_size(XDROP_GROUP, 1, 1))) void xdrop_kernel(XDROP_TASK_ARGS) {
    __local int red_best[2 * XDROP_GROUP];
    __local int red_min[2 * XDROP_GROUP];
    __local int red_max[2 * XDROP_GROUP];
    xdrop_block(XDROP_TASK_NAMES, red_best, red_min, red_max, get_group_id(0), get_local_id(0));
}

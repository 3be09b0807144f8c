// SPDX-License-Identifier: BSD-3-Clause
//
// fast on sub-groups: fast.cl's kernel (the fast variant of book/fast-kernel.md, ported from
// ../cuda/fast.cu) with the lanes of a contig end as one sub-group, for Intel GPUs and Intel's
// OpenCL CPU driver (built and launched through dpctl by lassm/backends/sycl.py, protocol "fast").
// It matches the numba oracle (lassm/backends/cpu.py) bit for bit, as faithful.cl does.
//
// Read it next to the paper (its Algorithms 1 and 2) with fast.cl's guide: the paper's steps are
// the same functions of the same headers.
//
// The walks are fast.cl's (fast_walks.h); the collectives are sub-group functions (subgroup.h,
// fast_subgroup.h), as a warp's are in fast.cu: a scan for the flat inserts, a reduction for the
// table-free short walks. A work-group is one sub-group, so the walk buffer and the visited set
// (the walk in shared memory) are __local arrays of the kernel. The other optimizations are
// fast.cl's; block teams (wide teams for the heaviest ends) are left out: a team here is a sub-group,
// and every end gets one (CUDA's fast-warps build). fast.cu's ablation builds are left out too.
//
// The file compiles on its own with -I of this folder. Every knob has a default (common.h,
// subgroup.h, here) and is overridden by a build option (-DNAME=VALUE):
//   LASSM_SUBGROUP        sub-group width, required (intel_reqd_sub_group_size; default 16)
//   LASSM_FAST_SCAN_STEPS walk steps per k taken by scanning the reads (default 4)
//   LASSM_KEY64           must stay 1: the epoch tags need 64-bit keys (cl_khr_int64_base_atomics)
//   LASSM_FP64            1: the vote in double precision, as the oracle; 0: exact integers
//   LASSM_MAX_WALK        most bases one walk appends (below 65535: 16-bit walk offsets)
//   LASSM_QUAL_OFFSET     Phred offset of the quality strings
// The host zeroes the keys before every launch, gives every contig end a power-of-two number of
// slots, and pads the read bases with 16 bytes (the word loads), as for fast.cl.

#include "fast_defaults.h"
#ifndef LASSM_SUBGROUP
#define LASSM_SUBGROUP 16
#endif

#include "subgroup.h"
#include "common.h"
#if LASSM_PROTOCOL != LASSM_PROTO_FAST
#error "fast_subgroup.cl builds the fast variant only (LASSM_PROTO_FAST); the protocols are faithful.cl"
#endif
#include "fast_subgroup.h"
#include "fast_walks.h"

// ---- the kernel ----------------------------------------------------------------------------
// Work-group g, one sub-group of LASSM_SUBGROUP lanes, walks contig end first + g of ends (contig
// ids, heaviest first; the ends below n_ends), with fast.cl's arguments. keys must arrive zeroed;
// votes need not (a claim zeroes them).
__kernel LASSM_REQD_SUBGROUP __attribute__((reqd_work_group_size(LASSM_SUBGROUP, 1, 1)))
void iterative_walks_kernel(LASSM_END_INPUTS, const int n_ends, const int first, LASSM_FAST_WORK) {
    __local int group_m[LASSM_SUBGROUP], group_incl[LASSM_SUBGROUP];
    __local uint wwords[LASSM_FAST_WALK_WORDS];
    __local ushort seen[LASSM_FAST_VSLOTS];
    const int e = first + (int)get_group_id(0);
    if (e >= n_ends) return;  // the whole work-group leaves together
    fast_team t;
    t.lanes = 0;
    t.m = group_m;
    t.incl = group_incl;
    t.counts = 0;
    fast_end(e, t, seen, wwords, LASSM_FAST_NAMES);
}

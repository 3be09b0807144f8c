// SPDX-License-Identifier: BSD-3-Clause
//
// fast_subgroup.cl's team collectives: fast_team.h's functions on one sub-group of LASSM_SUBGROUP
// lanes (subgroup.h), the way fast.cu's warp does them: an inclusive scan for the flat k-mer
// positions of a group of reads (flat inserts), a reduction for a scan's 8 vote counters. The
// kernel's work-group is its one sub-group, so its __local arrays are the sub-group's own. Every
// function is called by every lane of the sub-group (uniform control flow).
#ifndef LASSM_FAST_SUBGROUP_H
#define LASSM_FAST_SUBGROUP_H

#include "subgroup.h"
#include "common.h"

#if LASSM_SUBGROUP < 1
#error "fast on sub-groups sizes its __local arrays by the width: build with LASSM_SUBGROUP > 0"
#endif

// The team's width, as fast_walks.h reads it.
#define LASSM_FAST_WIDTH LASSM_SUBGROUP

// The team's handle (fast_team_t.h): its m and incl hold LASSM_SUBGROUP counts each, for the flat
// positions' binary search; its counts go unused here.
#include "fast_team_t.h"

// Orders the sub-group's __local writes (walk buffer, visited set) before its reads.
void fast_local_sync(fast_team t) { sub_group_barrier(CLK_LOCAL_MEM_FENCE); }

// Flat k-mer positions over the group of reads g .. g+LASSM_SUBGROUP-1 (below r1), as in
// fast_team.h: the counts and their inclusive scan in t.m and t.incl; returns the group's total.
int fast_group_prefix(fast_team t, __global const long *roff, long g, long r1, int k) {
    const int lane = (int)get_sub_group_local_id();
    const long j = g + lane;
    const int m = j < r1 ? max((int)(roff[j + 1] - roff[j]) - k, 0) : 0;
    const int incl = sub_group_scan_inclusive_add(m);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);  // the previous group's readers are done
    t.m[lane] = m;
    t.incl[lane] = incl;
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    return sub_group_broadcast(incl, LASSM_SUBGROUP - 1);
}

// The sub-group's sums of the 8 counters c (low_q[4], hi_q[4]), in every lane's c.
void fast_team_sum8(fast_team t, uint *c) {
    for (int i = 0; i < 8; ++i) c[i] = sub_group_reduce_add(c[i]);
}

#endif  // LASSM_FAST_SUBGROUP_H

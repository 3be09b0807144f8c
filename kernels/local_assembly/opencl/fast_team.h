// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cl's team collectives beyond team.h's (the OpenCL port of ../cuda/fast_team.cuh): the
// flat k-mer positions of a group of reads (flat inserts) and the sum of a scan's 8 vote counters.
// fast_subgroup.h has the same functions on one sub-group.
// A team is one work-group of LASSM_TEAM work-items (team.h); what CUDA does with warp shuffles
// goes through __local arrays and work-group barriers here. Every function is called by every
// work-item of the team (uniform control flow: they hold barriers).
#ifndef LASSM_FAST_TEAM_H
#define LASSM_FAST_TEAM_H

#include "team.h"
#include "common.h"

// The team's width, as fast_walks.h reads it.
#define LASSM_FAST_WIDTH LASSM_TEAM

// The team's handle (fast_team_t.h): its __local memory beyond team.h's one word per lane, m and
// incl of LASSM_TEAM entries each, and the scan's counters.
#include "fast_team_t.h"

// Orders the team's __local writes (walk buffer, visited set) before its reads.
void fast_local_sync(fast_team t) { barrier(CLK_LOCAL_MEM_FENCE); }

// Flat k-mer positions over the group of reads g .. g+LASSM_TEAM-1 (below r1): lane i stores read
// g+i's k-mer count max(len - k, 0) in t.m[i] and the inclusive prefix sum in t.incl[i]. Returns
// the group's k-mer total. The first barrier lets the previous group's readers finish.
int fast_group_prefix(fast_team t, __global const long *roff, long g, long r1, int k) {
    const int lane = (int)get_local_id(0);
    const long j = g + lane;
    barrier(CLK_LOCAL_MEM_FENCE);
    t.m[lane] = j < r1 ? max((int)(roff[j + 1] - roff[j]) - k, 0) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int incl = 0;
    for (int i = 0; i <= lane; ++i) incl += t.m[i];
    t.incl[lane] = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    return t.incl[LASSM_TEAM - 1];
}

// The team's sums of the 8 counters c (low_q[4], hi_q[4]), in lane 0's c; the others' c are left
// as they were. Lanes 0..7 each sum one counter over the team.
void fast_team_sum8(fast_team t, uint *c) {
    const int lane = (int)get_local_id(0);
    for (int i = 0; i < 8; ++i) t.counts[i * LASSM_TEAM + lane] = c[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lane; i < 8; i += LASSM_TEAM) {
        uint s = 0U;
        for (int j = 0; j < LASSM_TEAM; ++j) s += t.counts[i * LASSM_TEAM + j];
        t.counts[8 * LASSM_TEAM + i] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane == 0) {
        for (int i = 0; i < 8; ++i) c[i] = t.counts[8 * LASSM_TEAM + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#endif  // LASSM_FAST_TEAM_H

// SPDX-License-Identifier: BSD-3-Clause
//
// The lanes of one contig end as a team of LASSM_TEAM work-items, one work-group (portable.cl):
// the collectives of subgroup.h rebuilt from __local memory and work-group barriers, for OpenCL
// C 1.2 devices without sub-groups (NVIDIA's OpenCL, PoCL). The kernel declares one __local ulong
// per lane and passes it as the handle.
//
// Race-free by design: every collective writes the scratch, barriers, reads it, and barriers
// again before the scratch can be written anew; each lane writes its own word only (a broadcast:
// the source lane only). barrier() must be reached by every work-item of the work-group, so,
// like the sub-group functions, each collective is called by all lanes (uniform control flow).
#ifndef LASSM_TEAM_H
#define LASSM_TEAM_H

#include "common.h"

// ---- knobs ---------------------------------------------------------------------------------
// LASSM_TEAM: work-items per contig end (= per work-group); any width from 1, up to 64 for
// match_any (protocol matchany).
#ifndef LASSM_TEAM
#define LASSM_TEAM 32
#endif

#if LASSM_TEAM < 1
#error "LASSM_TEAM must be positive"
#endif
#if LASSM_TEAM > 64 && LASSM_PROTOCOL == LASSM_PROTO_MATCHANY
#error "match_any keeps a 64-bit lane mask: build protocol matchany with LASSM_TEAM <= 64"
#endif

#define LASSM_REQD_TEAM __attribute__((reqd_work_group_size(LASSM_TEAM, 1, 1)))

// ---- the lanes ------------------------------------------------------------------------------
#define LASSM_LANES 1
// LASSM_TEAM words of __local scratch, one per lane.
typedef __local ulong *lanes_t;

int lane_id(lanes_t lanes) { return (int)get_local_id(0); }
int lane_count(lanes_t lanes) { return LASSM_TEAM; }

// A barrier with a global fence: the table writes of every lane are seen by all after it.
void lanes_sync(lanes_t lanes) { barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); }

// Sum of x over the team (every lane gets it).
long lanes_reduce_add(lanes_t lanes, long x) {
    lanes[get_local_id(0)] = (ulong)x;
    barrier(CLK_LOCAL_MEM_FENCE);
    long sum = 0;
    for (int j = 0; j < LASSM_TEAM; ++j) sum += (long)lanes[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum;
}

int lanes_any(lanes_t lanes, int pred) { return lanes_reduce_add(lanes, pred != 0) != 0; }
int lanes_all(lanes_t lanes, int pred) { return lanes_reduce_add(lanes, pred != 0) == LASSM_TEAM; }

// Lane src's value, to every lane.
uint lanes_broadcast(lanes_t lanes, uint value, int src) {
    if ((int)get_local_id(0) == src) lanes[0] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint out = (uint)lanes[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return out;
}

// CUDA's __match_any_sync: the lanes whose `value` equals mine (bit j = lane j).
ulong match_any(lanes_t lanes, ulong value) {
    lanes[get_local_id(0)] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong mask = 0;
    for (int j = 0; j < LASSM_TEAM && j < 64; ++j) {
        if (lanes[j] == value) mask |= 1UL << j;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return mask;
}

#endif  // LASSM_TEAM_H

// SPDX-License-Identifier: BSD-3-Clause
//
// The lanes of one contig end as one sub-group (faithful.cl): the collectives that ht_insert and
// walks.h call (lanes_any, lanes_all, lanes_sync, lanes_broadcast, lanes_reduce_add, match_any)
// as sub-group functions. team.h has the same functions for a work-group without sub-groups.
// Every lane of the sub-group must call each of them (uniform control flow).
#ifndef LASSM_SUBGROUP_H
#define LASSM_SUBGROUP_H

#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

#include "common.h"

// ---- knobs ---------------------------------------------------------------------------------
// LASSM_SUBGROUP: required sub-group width (intel_reqd_sub_group_size); 0 = the device's choice.
#ifndef LASSM_SUBGROUP
#define LASSM_SUBGROUP 0
#endif

#if LASSM_SUBGROUP > 0
#if defined(cl_intel_required_subgroup_size)
#define LASSM_REQD_SUBGROUP __attribute__((intel_reqd_sub_group_size(LASSM_SUBGROUP)))
#else
#error "LASSM_SUBGROUP > 0 needs cl_intel_required_subgroup_size; build with LASSM_SUBGROUP=0"
#endif
#else
#define LASSM_REQD_SUBGROUP
#endif

// ---- the lanes ------------------------------------------------------------------------------
#define LASSM_LANES 1
// A sub-group needs no shared state: the handle is a placeholder, so that one signature serves both.
typedef int lanes_t;

int lane_id(lanes_t lanes) { return (int)get_sub_group_local_id(); }
int lane_count(lanes_t lanes) { return (int)get_sub_group_size(); }
int lanes_any(lanes_t lanes, int pred) { return sub_group_any(pred); }
int lanes_all(lanes_t lanes, int pred) { return sub_group_all(pred); }
void lanes_sync(lanes_t lanes) { sub_group_barrier(CLK_GLOBAL_MEM_FENCE); }
uint lanes_broadcast(lanes_t lanes, uint value, int src) { return sub_group_broadcast(value, (uint)src); }
long lanes_reduce_add(lanes_t lanes, long x) { return sub_group_reduce_add(x); }

// The __match_any_sync of CUDA, emulated with broadcasts: the lanes whose `value` equals mine
// (bit j = lane j). Widths up to 64.
ulong match_any(lanes_t lanes, ulong value) {
    const uint width = get_sub_group_size();
    ulong mask = 0;
    for (uint j = 0; j < width; ++j) {
        if (sub_group_broadcast(value, j) == value) mask |= 1UL << j;
    }
    return mask;
}

#endif  // LASSM_SUBGROUP_H

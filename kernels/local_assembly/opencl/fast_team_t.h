// SPDX-License-Identifier: BSD-3-Clause
//
// The handle of the lanes that walk one contig end in fast.cl and fast_subgroup.cl, as
// fast_walks.h takes it: the lanes (team.h's scratch words, or a sub-group's nothing) and the
// team's __local memory, a group's k-mer counts and their inclusive prefix sums, and the scan's
// counters (8 per lane, then 8 sums; fast_team.h's only: a sub-group sums by reductions).
// Included by fast_team.h and fast_subgroup.h after their lanes' header (lanes_t).
#ifndef LASSM_FAST_TEAM_T_H
#define LASSM_FAST_TEAM_T_H

typedef struct {
    lanes_t lanes;
    __local int *m;
    __local int *incl;
    __local uint *counts;
} fast_team;

#endif  // LASSM_FAST_TEAM_T_H

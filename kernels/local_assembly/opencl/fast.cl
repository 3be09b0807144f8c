// SPDX-License-Identifier: BSD-3-Clause
//
// fast: this project's optimized build of the local-assembly kernel (book/fast-kernel.md), ported
// from ../cuda/fast.cu to portable OpenCL C 1.2: no sub-groups, so that it builds on NVIDIA's
// OpenCL driver, on PoCL and on Intel's OpenCL CPU driver (built and launched through pyopencl by
// lassm/backends/opencl.py, protocol "fast"). It matches the numba oracle (lassm/backends/cpu.py)
// bit for bit, as portable.cl does.
//
// Read it next to the paper (its Algorithms 1 and 2), fast.cu and portable.cl:
//   the hash insert   fast_insert      (fast_table.h), in rounds of fast_insert_round (fast_walks.h)
//   the vote          set_ext          (set_ext.h), on the walk's demand (votes on demand)
//   Algorithm 1       fast_count_mers  (fast_walks.h)
//   the walk          fast_walk        (fast_walks.h; the first steps by fast_scan_ext, table-free)
//   the k-shift       k_shift          (k_shift.h), called by fast_end's loop (fast_walks.h)
//
// Layout: one team of LASSM_TEAM work-items per contig end, one team per work-group, as in
// portable.cl (team.h): where fast.cu shuffles within a warp, the team goes through __local memory
// and work-group barriers (fast_team.h). fast_subgroup.cl runs the same walks on sub-groups.
//
// fast.cu's nine changes, here:
//  1. Epoch-tagged keys: as fast.cu. A key is (epoch << 48) | (offset of the k-mer in the reads);
//     a slot of another epoch is empty; the claimer zeroes the slot's votes, and a barrier between
//     the claims and the votes of every insert round orders that zeroing before any vote.
//  2. Per-k table size: as fast.cu (the power of two >= 2n, at most the end's slots, masked).
//  3. No vote scan: set_ext runs on the slots the walk reaches.
//  4. The walk in local memory: the walk buffer and the visited set (16-bit walk offsets, cleared
//     per k) live in the work-group's __local memory (__local arrays of the kernel).
//  5. Flat inserts: the lanes take consecutive k-mers across read boundaries, LASSM_TEAM reads'
//     counts scanned at a time (a __local prefix sum instead of warp shuffles).
//  6. Fewer dependent loads per k-mer: as fast.cu (fast_table.h), the find loading a slot's eight
//     votes (one vload8) with its key.
//  7. Short walks need no table: the first LASSM_FAST_SCAN_STEPS steps at each k count the votes
//     of the walk's k-mer by scanning the reads (fast_scan_ext); a walk still going after them
//     builds the table.
//  8. (host) Both sides and every bin at once, the ends with the most read bases first.
//  9. Team sizes: the host's heaviest ends get a wide team, the others a narrow one. A team is a
//     work-group here, and a launch has one work-group size, so this build serves one team width
//     (LASSM_TEAM) and the host builds it twice: the heavy ends go to one launch of wide teams, the
//     others to a second launch of narrow teams, both on one in-order queue (so one launch ordered
//     by work is two launches here; lassm.backends.opencl).
// Left out: fast.cu's ablation builds (LASSM_FAST_RESET, _FULL_TABLE, _SCAN, _GLOBAL_WALK,
// _PER_READ, _PLAIN_BYTES); only LASSM_FAST_SCAN_STEPS is a knob here.
//
// The file compiles on its own with -I of this folder. Every knob has a default (common.h, team.h,
// here) and is overridden by a build option (-DNAME=VALUE):
//   LASSM_TEAM            work-items per contig end and per work-group (team.h; default 32)
//   LASSM_FAST_SCAN_STEPS walk steps per k taken by scanning the reads (default 4)
//   LASSM_KEY64           must stay 1: the epoch tags need 64-bit keys (cl_khr_int64_base_atomics)
//   LASSM_FP64            1: the vote in double precision, as the oracle; 0: exact integers
//   LASSM_MAX_WALK        most bases one walk appends (below 65535: 16-bit walk offsets)
//   LASSM_QUAL_OFFSET     Phred offset of the quality strings
// The host zeroes the keys before every launch (epoch 0 never occurs), gives every contig end a
// power-of-two number of slots, and pads the read bases with 16 bytes (the word loads).

#include "fast_defaults.h"
#include "team.h"
#include "common.h"
#if LASSM_PROTOCOL != LASSM_PROTO_FAST
#error "fast.cl builds the fast variant only (LASSM_PROTO_FAST); the protocols are portable.cl"
#endif
#include "fast_team.h"
#include "fast_walks.h"

// ---- the kernel ----------------------------------------------------------------------------
// Work-group g walks contig end first + g of ends (contig ids, heaviest first; the ends below n_ends)
// with its LASSM_TEAM work-items: the host launches the wide teams' ends and the narrow teams' ends
// of one slice as two ranges of the same ends. keys must arrive zeroed; votes need not (a claim
// zeroes them).
__kernel LASSM_REQD_TEAM void iterative_walks_kernel(LASSM_END_INPUTS, const int n_ends, const int first, LASSM_FAST_WORK) {
    __local ulong scratch[LASSM_TEAM];
    __local int group_m[LASSM_TEAM], group_incl[LASSM_TEAM];
    __local uint counts[8 * LASSM_TEAM + 8];
    __local uint wwords[LASSM_FAST_WALK_WORDS];
    __local ushort seen[LASSM_FAST_VSLOTS];
    const int e = first + (int)get_group_id(0);
    if (e >= n_ends) return;  // the whole work-group leaves together
    fast_team t;
    t.lanes = scratch;
    t.m = group_m;
    t.incl = group_incl;
    t.counts = counts;
    fast_end(e, t, seen, wwords, LASSM_FAST_NAMES);
}

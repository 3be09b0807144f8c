// SPDX-License-Identifier: BSD-3-Clause
//
// MetaHipMer's local-assembly kernel (iterative_walks_kernel of ht_loc) in portable OpenCL C 1.2:
// no sub-groups, so that it builds on NVIDIA's OpenCL driver, on PoCL and on any OpenCL 1.2
// device (built and launched through pyopencl by lassm/backends/opencl.py). The algorithm is
// ../../../../shared/spec/local-assembly.md; lassm/backends/cpu.py is the oracle that this kernel
// matches bit for bit.
//
// Layout: one team of LASSM_TEAM work-items per contig end, and one team per work-group. The
// team does what faithful.cl's sub-group does, with the same code (walks.h, ht_insert.h): the
// lanes insert the k-mers of one read at consecutive start positions, read after read, into the
// end's own open-addressing table, then lane 0 walks while the others wait. Where a sub-group
// votes, shuffles or reduces, the team writes __local memory and meets at a work-group barrier
// (team.h). A work-group is one team, so a barrier is reached by all of its work-items whenever
// it is reached by the lanes of one end: every loop around a collective is uniform over the end.
//
// Read it next to the paper (its Algorithms 1 and 2) and the spec with faithful.cl's guide: the
// paper's steps are the same functions of the same headers.
//
// The file compiles on its own with -I of this folder. Every knob has a default in common.h or
// team.h and is overridden by a build option (-DNAME=VALUE):
//   LASSM_TEAM        work-items per contig end and per work-group (team.h; default 32)
//   LASSM_PROTOCOL    LASSM_PROTO_CASPTR (default), _MATCHANY, _DONEFLAG or _BARRIER (ht_insert.h)
//   LASSM_C11_ATOMICS 0 under OpenCL C 1.2 (the default there): atomic_cmpxchg, atom_cmpxchg
//   LASSM_KEY64       1: 64-bit keys and CAS (needs cl_khr_int64_base_atomics); 0: 32-bit keys
//   LASSM_FP64        1: the vote in double precision, as the oracle; 0: exact integers
//   LASSM_MAX_WALK    most bases one walk appends (visited-table size too)
//   LASSM_QUAL_OFFSET Phred offset of the quality strings
//   LASSM_TEST_KERNELS  1: also build set_ext_kernel, which the tests compare with the oracle

#include "team.h"
#include "common.h"
#include "walks.h"

// ---- the kernel ----------------------------------------------------------------------------
// Work-group g walks contig end ends[g] (contig ids of this launch) with its LASSM_TEAM
// work-items; `scratch` is the team's __local word per lane.
__kernel LASSM_REQD_TEAM void iterative_walks_kernel(LASSM_END_INPUTS, const int n_ends, LASSM_END_WORK) {
    __local ulong scratch[LASSM_TEAM];
    const int e = (int)get_group_id(0);
    if (e >= n_ends) return;  // the whole work-group leaves together
    extend_end(e, scratch, LASSM_END_NAMES);
}

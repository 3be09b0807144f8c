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
// Read it next to the paper (its Algorithms 1 and 2) and the spec:
//   the hash insert   ht_insert   (ht_insert.h, one per protocol)
//   the vote          set_ext     (set_ext.h)
//   Algorithm 1       count_mers  (walks.h: reset, inserts, then the vote of every used slot)
//   the walk          walk_mers   (walks.h: Algorithm 2, the mer-walk)
//   the k-shift       k_shift     (walks.h), called by extend_end's loop
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
__kernel LASSM_REQD_TEAM void iterative_walks_kernel(
    __global const uchar *ctg_seqs, __global const long *ctg_off, __global const long *depths,
    __global const uchar *rseqs, __global const uchar *rquals, __global const long *roff,
    __global const long *rctg_off, __global const int *ends, const int n_ends,
    __global const long *ht_off, key_ptr keys, vote_ptr votes, __global uchar *exts,
    __global uint *visited, __global uchar *wbufs, const int start_k, __global uchar *walks,
    __global int *walk_len, __global int *final_k, __global uchar *term, __global int *n_k,
    __global long *steps, __global long *insertions, __global long *start_insertions) {
    __local ulong scratch[LASSM_TEAM];
    const int e = (int)get_group_id(0);
    if (e >= n_ends) return;  // the whole work-group leaves together
    extend_end(e, scratch, ctg_seqs, ctg_off, depths, rseqs, rquals, roff, rctg_off, ends, ht_off,
               keys, votes, exts, visited, wbufs, start_k, walks, walk_len, final_k, term, n_k,
               steps, insertions, start_insertions);
}

#if LASSM_TEST_KERNELS
// set_ext of n vote vectors (8 counts each: nv A C G T, hq A C G T) at depths[i]: for the tests.
__kernel void set_ext_kernel(__global const uint *votes, __global const long *depths,
                             __global uchar *out, const int n) {
    const int i = (int)get_global_id(0);
    if (i >= n) return;
    uint nv[4], hq[4];
    for (int b = 0; b < 4; ++b) {
        nv[b] = votes[8 * i + b];
        hq[b] = votes[8 * i + 4 + b];
    }
    out[i] = set_ext(nv, hq, depths[i]);
}
#endif

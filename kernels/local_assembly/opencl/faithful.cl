// SPDX-License-Identifier: BSD-3-Clause
//
// MetaHipMer's local-assembly kernel (iterative_walks_kernel of ht_loc) in OpenCL C 3.0 with
// sub-groups, for Intel GPUs and Intel's OpenCL CPU driver (built and launched through dpctl).
// The algorithm is ../../../../shared/spec/local-assembly.md; lassm/backends/cpu.py is the oracle
// that this kernel matches bit for bit.
//
// Layout (the GPU design of the study): one sub-group per contig end. All lanes insert the k-mers
// of one read at consecutive start positions, read after read, into the end's own
// open-addressing table (linear probing, MurmurHash2); then lane 0 walks while the others wait.
// Table keys are read offsets + 1 into the read buffer (0 = empty slot), never copies of k-mers.
//
// Read it next to the paper (its Algorithms 1 and 2) and the spec:
//   the hash insert   ht_insert   (ht_insert.h, one per protocol)
//   the vote          set_ext     (set_ext.h)
//   Algorithm 1       count_mers  (walks.h: reset, inserts, then the vote of every used slot)
//   the walk          walk_mers   (walks.h: Algorithm 2, the mer-walk)
//   the k-shift       k_shift     (walks.h), called by extend_end's loop
// The lanes' collectives are sub-group functions (subgroup.h); portable.cl runs the same code
// with work-group teams instead (team.h), for devices without sub-groups.
//
// The file compiles on its own with -I of this folder (dpctl hands the compiler a string, not a
// file; lassm.backends.sycl passes the -I). Every knob has a default in common.h and is
// overridden by a build option (-DNAME=VALUE):
//   LASSM_PROTOCOL    how lanes that insert at once agree on a slot: LASSM_PROTO_CASPTR (default),
//                     LASSM_PROTO_MATCHANY, LASSM_PROTO_DONEFLAG or LASSM_PROTO_BARRIER
//                     (the names and values of ../cuda/common.cuh; see ht_insert)
//   LASSM_SUBGROUP    required sub-group width (intel_reqd_sub_group_size); 0 = the device's choice
//                     (subgroup.h)
//   LASSM_C11_ATOMICS 1: OpenCL C 2.0 atomics (the default under -cl-std=CL3.0); 0: OpenCL C 1.2's
//                     atomic functions (bytes.h)
//   LASSM_KEY64       1: 64-bit keys and CAS (needs cl_khr_int64_base_atomics); 0: 32-bit keys
//   LASSM_FP64        1: the vote in double precision, as the oracle; 0: the same vote in exact
//                     integer arithmetic, for devices without fp64 (bit-identical, see set_ext)
//   LASSM_MAX_WALK    most bases one walk appends (visited-table size too)
//   LASSM_QUAL_OFFSET Phred offset of the quality strings
//   LASSM_TEST_KERNELS  1: also build set_ext_kernel, which the tests compare with the oracle

#include "subgroup.h"
#include "common.h"
#include "walks.h"

// ---- the kernel ----------------------------------------------------------------------------
// One sub-group per contig end `ends[e]` (contig ids of this launch); walks.h's extend_end does
// the work. Work-groups hold any number of sub-groups; the host launches one sub-group per
// work-group by default.
__kernel LASSM_REQD_SUBGROUP void iterative_walks_kernel(
    __global const uchar *ctg_seqs, __global const long *ctg_off, __global const long *depths,
    __global const uchar *rseqs, __global const uchar *rquals, __global const long *roff,
    __global const long *rctg_off, __global const int *ends, const int n_ends,
    __global const long *ht_off, key_ptr keys, vote_ptr votes, __global uchar *exts,
    __global uint *visited, __global uchar *wbufs, const int start_k, __global uchar *walks,
    __global int *walk_len, __global int *final_k, __global uchar *term, __global int *n_k,
    __global long *steps, __global long *insertions, __global long *start_insertions) {
    const int e = (int)(get_group_id(0) * get_num_sub_groups() + get_sub_group_id());
    if (e >= n_ends) return;  // the whole sub-group leaves together
    extend_end(e, 0, ctg_seqs, ctg_off, depths, rseqs, rquals, roff, rctg_off, ends, ht_off, keys,
               votes, exts, visited, wbufs, start_k, walks, walk_len, final_k, term, n_k, steps,
               insertions, start_insertions);
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

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
__kernel LASSM_REQD_SUBGROUP void iterative_walks_kernel(LASSM_END_INPUTS, const int n_ends, LASSM_END_WORK) {
    const int e = (int)(get_group_id(0) * get_num_sub_groups() + get_sub_group_id());
    if (e >= n_ends) return;  // the whole sub-group leaves together
    extend_end(e, 0, LASSM_END_NAMES);
}

// SPDX-License-Identifier: BSD-3-Clause
//
// What the OpenCL builds of the local-assembly kernel share: the knobs (each an #ifndef default
// that a build option -DNAME=VALUE overrides; faithful.cl, portable.cl and fast.cl list them), the key
// type, the atomics' order and scope. The lanes' knobs live in subgroup.h and team.h.
#ifndef LASSM_COMMON_H
#define LASSM_COMMON_H

// ---- knobs ---------------------------------------------------------------------------------
#define LASSM_PROTO_CASPTR 0
#define LASSM_PROTO_MATCHANY 1
#define LASSM_PROTO_DONEFLAG 2
#define LASSM_PROTO_BARRIER 3
#define LASSM_PROTO_FAST 4

#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_CASPTR
#endif
#ifndef LASSM_KEY64
#define LASSM_KEY64 0
#endif
#ifndef LASSM_FP64
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#define LASSM_FP64 1
#else
#define LASSM_FP64 0
#endif
#endif
#ifndef LASSM_MAX_WALK
#define LASSM_MAX_WALK 613
#endif
#ifndef LASSM_QUAL_OFFSET
#define LASSM_QUAL_OFFSET 33
#endif
// 1: OpenCL C 2.0 atomics (atomic_uint, *_explicit); 0: OpenCL C 1.2's atomic_cmpxchg / atom_*
// on volatile pointers (NVIDIA's and PoCL's OpenCL C 1.2). The same operations either way.
#ifndef LASSM_C11_ATOMICS
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200
#define LASSM_C11_ATOMICS 1
#else
#define LASSM_C11_ATOMICS 0
#endif
#endif
#ifndef LASSM_TEST_KERNELS
#define LASSM_TEST_KERNELS 0
#endif

// MetaHipMer's constants (LASSM_* in its local-assembly header).
#ifndef LASSM_MIN_QUAL
#define LASSM_MIN_QUAL 10
#endif
#ifndef LASSM_MIN_HI_QUAL
#define LASSM_MIN_HI_QUAL 20
#endif
#ifndef LASSM_MIN_KMER_LEN
#define LASSM_MIN_KMER_LEN 21
#endif
#ifndef LASSM_MAX_KMER_LEN
#define LASSM_MAX_KMER_LEN 121
#endif
#ifndef LASSM_SHIFT_SIZE
#define LASSM_SHIFT_SIZE 8
#endif

#if LASSM_PROTOCOL != LASSM_PROTO_CASPTR && LASSM_PROTOCOL != LASSM_PROTO_MATCHANY && \
    LASSM_PROTOCOL != LASSM_PROTO_DONEFLAG && LASSM_PROTOCOL != LASSM_PROTO_BARRIER && \
    LASSM_PROTOCOL != LASSM_PROTO_FAST
#error "LASSM_PROTOCOL must be one of LASSM_PROTO_CASPTR, _MATCHANY, _DONEFLAG, _BARRIER, _FAST"
#endif

#if LASSM_KEY64
#if !defined(cl_khr_int64_base_atomics)
#error "LASSM_KEY64 needs cl_khr_int64_base_atomics; build with LASSM_KEY64=0"
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef ulong lassm_key;
#if LASSM_C11_ATOMICS
typedef atomic_ulong atomic_lassm_key;
#endif
#define KEY_LOCKED ((lassm_key)0xFFFFFFFFFFFFFFFFUL)
#else
typedef uint lassm_key;
#if LASSM_C11_ATOMICS
typedef atomic_uint atomic_lassm_key;
#endif
#define KEY_LOCKED ((lassm_key)0xFFFFFFFFU)
#endif

#if LASSM_FP64 && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define KEY_EMPTY ((lassm_key)0)
#define EXT_DEAD 'X'
#define EXT_FORK 'F'
#define EXT_LOOP 'R'

// Relaxed atomics at work-group scope: a table belongs to the lanes of one contig end, inside one
// work-group. Ordering between phases comes from lanes_sync (a barrier with a global fence).
#if LASSM_C11_ATOMICS
#define RELAXED memory_order_relaxed
#define SCOPE memory_scope_work_group
typedef volatile __global atomic_lassm_key *key_ptr;
typedef volatile __global atomic_uint *vote_ptr;
#else
typedef volatile __global lassm_key *key_ptr;
typedef volatile __global uint *vote_ptr;
#endif

// ---- the kernels' arguments -------------------------------------------------------------------
// Every build's first arguments (the contigs, their depths, the reads, the launch's ends) and its
// last (the results, in the layout of lassm's SideResult), in the order the hosts set them.
#define LASSM_END_INPUTS                                                                           \
    __global const uchar *ctg_seqs, __global const long *ctg_off, __global const long *depths,      \
    __global const uchar *rseqs, __global const uchar *rquals, __global const long *roff,           \
    __global const long *rctg_off, __global const int *ends
#define LASSM_END_INPUT_NAMES ctg_seqs, ctg_off, depths, rseqs, rquals, roff, rctg_off, ends
#define LASSM_END_RESULTS                                                                          \
    __global uchar *walks, __global int *walk_len, __global int *final_k, __global uchar *term,     \
    __global int *n_k, __global long *steps, __global long *insertions, __global long *start_insertions
#define LASSM_END_RESULT_NAMES walks, walk_len, final_k, term, n_k, steps, insertions, start_insertions
// Contig end e's place, in a function with those arguments, ht_off, keys and votes: its contig
// (cid, c0, clen, depth), its reads (r0..r1), its table's first slot and slot count (h0, n_slots),
// keys and votes moved there, and where its walk is written (best).
#define LASSM_END_PLACE(e)                                                                         \
    const int cid = ends[e];                                                                        \
    const long c0 = ctg_off[cid];                                                                   \
    const int clen = (int)(ctg_off[cid + 1] - c0);                                                  \
    const long depth = depths[cid];                                                                 \
    const long r0 = rctg_off[cid], r1 = rctg_off[cid + 1];                                          \
    const ulong h0 = (ulong)ht_off[e];                                                              \
    const ulong n_slots = (ulong)ht_off[e + 1] - h0;                                                \
    keys += h0;                                                                                     \
    votes += 8 * h0;                                                                                \
    __global uchar *best = walks + (ulong)cid * LASSM_MAX_WALK

#endif  // LASSM_COMMON_H

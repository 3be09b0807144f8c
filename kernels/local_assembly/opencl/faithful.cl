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
//   Algorithm 1       count_mers  (below: reset, inserts, then the vote of every used slot)
//   the walk          walk_mers   (below: Algorithm 2, the mer-walk)
//   the k-shift       k_shift     (below), called by iterative_walks_kernel's loop
//
// The file compiles on its own with -I of this folder (dpctl hands the compiler a string, not a
// file; lassm.backends.sycl passes the -I). Every knob has a default in common.h and is
// overridden by a build option (-DNAME=VALUE):
//   LASSM_PROTOCOL    how lanes that insert at once agree on a slot: LASSM_PROTO_CASPTR (default),
//                     LASSM_PROTO_MATCHANY, LASSM_PROTO_DONEFLAG or LASSM_PROTO_BARRIER
//                     (the names and values of ../cuda/common.cuh; see ht_insert)
//   LASSM_SUBGROUP    required sub-group width (intel_reqd_sub_group_size); 0 = the device's choice
//   LASSM_KEY64       1: 64-bit keys and CAS (needs cl_khr_int64_base_atomics); 0: 32-bit keys
//   LASSM_FP64        1: the vote in double precision, as the oracle; 0: the same vote in exact
//                     integer arithmetic, for devices without fp64 (bit-identical, see set_ext)
//   LASSM_MAX_WALK    most bases one walk appends (visited-table size too)
//   LASSM_QUAL_OFFSET Phred offset of the quality strings
//   LASSM_TEST_KERNELS  1: also build set_ext_kernel, which the tests compare with the oracle

#include "common.h"
#include "bytes.h"
#include "ht_insert.h"
#include "set_ext.h"

// ---- count_mers: the table at one k (Algorithm 1) ------------------------------------------
// Zero the table, let the lanes insert the k-mers of the reads r0..r1-1 (positions s in
// [0, len - k); the extension base rseqs[s + k] votes when it is ACGT and its quality is high
// enough), then vote every occupied slot into exts. Every lane calls; returns the insertions.
long count_mers(key_ptr keys, vote_ptr votes, __global uchar *exts, ulong size,
                __global const uchar *rseqs, __global const uchar *rquals,
                __global const long *roff, long r0, long r1, int k, long depth) {
    const int lane = (int)get_sub_group_local_id();
    const int width = (int)get_sub_group_size();
    for (ulong s = (ulong)lane; s < size; s += (ulong)width) {
        atomic_store_explicit(keys + s, KEY_EMPTY, RELAXED, SCOPE);
        for (int b = 0; b < 8; ++b) atomic_store_explicit(votes + 8 * s + b, 0U, RELAXED, SCOPE);
    }
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);

    long n_ins = 0;
    for (long j = r0; j < r1; ++j) {
        const long a = roff[j];
        const int npos = (int)(roff[j + 1] - a) - k;  // the same for every lane: uniform loops
        for (int s0 = 0; s0 < npos; s0 += width) {
            const int s = s0 + lane;
            const int active = s < npos;
            const long pos = a + s;
            const ulong slot = ht_insert(keys, size, rseqs, pos, k, active);
            if (active) {
                ++n_ins;
                const int b = base_index(rseqs[pos + k]);
                if (b >= 0) {
                    const int q = (int)rquals[pos + k] - LASSM_QUAL_OFFSET;
                    if (q >= LASSM_MIN_QUAL)
                        atomic_fetch_add_explicit(votes + 8 * slot + b, 1U, RELAXED, SCOPE);
                    if (q >= LASSM_MIN_HI_QUAL)
                        atomic_fetch_add_explicit(votes + 8 * slot + 4 + b, 1U, RELAXED, SCOPE);
                }
            }
        }
    }
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);

    for (ulong s = (ulong)lane; s < size; s += (ulong)width) {
        if (key_load(keys + s) == KEY_EMPTY) continue;
        uint nv[4], hq[4];
        for (int b = 0; b < 4; ++b) {
            nv[b] = atomic_load_explicit(votes + 8 * s + b, RELAXED, SCOPE);
            hq[b] = atomic_load_explicit(votes + 8 * s + 4 + b, RELAXED, SCOPE);
        }
        exts[s] = set_ext(nv, hq, depth);
    }
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
    return sub_group_reduce_add(n_ins);
}

// ---- walk_mers: the mer-walk (Algorithm 2), lane 0 only --------------------------------------
// Walk from the k-mer wbuf[0, k), appending bases to wbuf; `visited` (LASSM_MAX_WALK slots, zeroed
// by the caller) holds wbuf offsets + 1 of the k-mers seen. Returns the walk length and sets *term
// to 'X' (dead end or walk limit), 'F' (fork) or 'R' (loop). The visited table has one free slot
// at every look-up: at most LASSM_MAX_WALK - 1 k-mers are in it then.
int walk_mers(key_ptr keys, __global const uchar *exts, ulong size, __global const uchar *rseqs,
              __global uint *visited, __global uchar *wbuf, int k, uchar *term) {
    int wl = 0;
    for (int step = 0; step < LASSM_MAX_WALK; ++step) {
        __global const uchar *mer = wbuf + wl;
        const uint hash = murmur_hash2(mer, k);
        ulong v = (ulong)hash % LASSM_MAX_WALK;
        for (;;) {
            const uint seen = visited[v];
            if (seen == 0) {
                visited[v] = (uint)wl + 1;
                break;
            }
            if (same_kmer(wbuf + (seen - 1), mer, k)) {
                *term = EXT_LOOP;
                return wl;
            }
            v = next_slot(v, LASSM_MAX_WALK);
        }
        const long slot = ht_find(keys, size, rseqs, mer, hash, k);
        if (slot < 0) {
            *term = EXT_DEAD;
            return wl;
        }
        const uchar ext = exts[slot];
        if (ext == EXT_DEAD || ext == EXT_FORK) {
            *term = ext;
            return wl;
        }
        wbuf[wl + k] = ext;
        ++wl;
    }
    *term = EXT_DEAD;
    return wl;
}

// ---- k_shift: the k-shift (the spec's Step 3) ------------------------------------------------
// After a walk that ended with `code`, k moves by LASSM_SHIFT_SIZE: down after a dead end, up after
// a fork or a repeat. `shift` is the move that led to this k (0 at the start k); returns 1, leaving
// it as it is, when the direction would turn back: the loop stops there.
int k_shift(uchar code, int *shift) {
    if (code == EXT_DEAD) {
        if (*shift == LASSM_SHIFT_SIZE) return 1;
        *shift = -LASSM_SHIFT_SIZE;
    } else {
        if (*shift == -LASSM_SHIFT_SIZE) return 1;
        *shift = LASSM_SHIFT_SIZE;
    }
    return 0;
}

// ---- the kernel ----------------------------------------------------------------------------
// One sub-group per contig end `ends[e]` (contig ids of this launch). Work-groups hold any number
// of sub-groups; the host launches one sub-group per work-group. Per end e the workspace is:
// table slots ht_off[e] .. ht_off[e+1]-1 (keys, 8 vote counters, ext byte), visited slots
// e*LASSM_MAX_WALK.., walk buffer e*(LASSM_MAX_KMER_LEN + LASSM_MAX_WALK)... Results are written
// at the contig id, in the layout of lassm.result.SideResult.
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
    const int lane = (int)get_sub_group_local_id();
    const int width = (int)get_sub_group_size();

    const int cid = ends[e];
    const long c0 = ctg_off[cid];
    const int clen = (int)(ctg_off[cid + 1] - c0);
    const long depth = depths[cid];
    const long r0 = rctg_off[cid], r1 = rctg_off[cid + 1];
    const ulong h0 = (ulong)ht_off[e];
    const ulong size = (ulong)ht_off[e + 1] - h0;
    keys += h0;
    votes += 8 * h0;
    exts += h0;
    visited += (ulong)e * LASSM_MAX_WALK;
    __global uchar *wbuf = wbufs + (ulong)e * (LASSM_MAX_KMER_LEN + LASSM_MAX_WALK);
    __global uchar *best = walks + (ulong)cid * LASSM_MAX_WALK;

    const int max_k = min(LASSM_MAX_KMER_LEN, clen);
    int best_len = 0, best_k = 0, n_tried = 0, shift = 0;
    uchar best_term = 0, last_term = 0;
    long n_steps = 0, n_ins = 0, start_ins = 0;
    // The k-shift loop (Step 3): uniform over the sub-group.
    for (int k = start_k; k >= LASSM_MIN_KMER_LEN && k <= max_k; k += shift) {
        const long ins = count_mers(keys, votes, exts, size, rseqs, rquals, roff, r0, r1, k, depth);
        if (n_tried == 0) start_ins = ins;
        n_ins += ins;
        ++n_tried;

        for (int t = lane; t < k; t += width) wbuf[t] = ctg_seqs[c0 + clen - k + t];
        for (int t = lane; t < LASSM_MAX_WALK; t += width) visited[t] = 0;
        sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
        int wl = 0;
        uchar code = 0;
        if (lane == 0) wl = walk_mers(keys, exts, size, rseqs, visited, wbuf, k, &code);
        wl = sub_group_broadcast(wl, 0);
        code = (uchar)sub_group_broadcast((uint)code, 0);
        sub_group_barrier(CLK_GLOBAL_MEM_FENCE);

        n_steps += wl;
        last_term = code;
        if (wl > best_len) {  // strictly longer: ties keep the earlier k
            for (int t = lane; t < wl; t += width) best[t] = wbuf[k + t];
            best_len = wl;
            best_k = k;
            best_term = code;
        }
        if (k_shift(code, &shift)) break;
    }
    if (lane == 0) {
        walk_len[cid] = best_len;
        final_k[cid] = best_k;
        term[cid] = best_len == 0 ? last_term : best_term;
        n_k[cid] = n_tried;
        steps[cid] = n_steps;
        insertions[cid] = n_ins;
        start_insertions[cid] = start_ins;
    }
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

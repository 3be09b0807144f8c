// SPDX-License-Identifier: BSD-3-Clause
//
// MetaHipMer's local-assembly kernel (iterative_walks_kernel of ht_loc) in OpenCL C 3.0 with
// sub-groups, for Intel GPUs and Intel's OpenCL CPU driver (built and launched through dpctl).
// The algorithm is ../../../shared/spec/local-assembly.md; lassm/backends/cpu.py is the oracle that
// this kernel matches bit for bit.
//
// Layout (the GPU design of the study): one sub-group per contig end. All lanes insert the k-mers
// of one read at consecutive start positions, read after read, into the end's own
// open-addressing table (linear probing, MurmurHash2); then lane 0 walks while the others wait.
// Table keys are read offsets + 1 into the read buffer (0 = empty slot), never copies of k-mers.
//
// Every knob has a default below and is overridden by a build option (-DNAME=VALUE):
//   LASSM_PROTOCOL    how lanes that insert at once agree on a slot: LASSM_PROTO_CASPTR (default),
//                     LASSM_PROTO_MATCHANY, LASSM_PROTO_DONEFLAG or LASSM_PROTO_BARRIER
//                     (the names and values of kernels/local_assembly/cuda/faithful.cu; see ht_insert)
//   LASSM_SUBGROUP    required sub-group width (intel_reqd_sub_group_size); 0 = the device's choice
//   LASSM_KEY64       1: 64-bit keys and CAS (needs cl_khr_int64_base_atomics); 0: 32-bit keys
//   LASSM_FP64        1: the vote in double precision, as the oracle; 0: the same vote in exact
//                     integer arithmetic, for devices without fp64 (bit-identical, see set_ext)
//   LASSM_MAX_WALK    most bases one walk appends (visited-table size too)
//   LASSM_QUAL_OFFSET Phred offset of the quality strings
//   LASSM_TEST_KERNELS  1: also build set_ext_kernel, which the tests compare with the oracle

#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

// ---- knobs ---------------------------------------------------------------------------------
#define LASSM_PROTO_CASPTR 0
#define LASSM_PROTO_MATCHANY 1
#define LASSM_PROTO_DONEFLAG 2
#define LASSM_PROTO_BARRIER 3

#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_CASPTR
#endif
#ifndef LASSM_SUBGROUP
#define LASSM_SUBGROUP 0
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
    LASSM_PROTOCOL != LASSM_PROTO_DONEFLAG && LASSM_PROTOCOL != LASSM_PROTO_BARRIER
#error "LASSM_PROTOCOL must be one of LASSM_PROTO_CASPTR, _MATCHANY, _DONEFLAG, _BARRIER"
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

#if LASSM_KEY64
#if !defined(cl_khr_int64_base_atomics)
#error "LASSM_KEY64 needs cl_khr_int64_base_atomics; build with LASSM_KEY64=0"
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef ulong lassm_key;
typedef atomic_ulong atomic_lassm_key;
#define KEY_LOCKED ((lassm_key)0xFFFFFFFFFFFFFFFFUL)
#else
typedef uint lassm_key;
typedef atomic_uint atomic_lassm_key;
#define KEY_LOCKED ((lassm_key)0xFFFFFFFFU)
#endif

#if LASSM_FP64 && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define KEY_EMPTY ((lassm_key)0)
#define EXT_DEAD 'X'
#define EXT_FORK 'F'
#define EXT_LOOP 'R'

// Relaxed atomics at work-group scope: a table belongs to one sub-group, inside one work-group.
// Ordering between phases comes from sub_group_barrier(CLK_GLOBAL_MEM_FENCE).
#define RELAXED memory_order_relaxed
#define SCOPE memory_scope_work_group

typedef volatile __global atomic_lassm_key *key_ptr;
typedef volatile __global atomic_uint *vote_ptr;

// ---- helpers -------------------------------------------------------------------------------

// MurmurHash2 (m = 0x5bd1e995, r = 24, seed 0x3FB0BB5F, h = seed ^ len) of len bytes, read as
// little-endian words: the same value as MetaHipMer's "aligned" variant at any alignment.
uint murmur_hash2(__global const uchar *p, int len) {
    const uint m = 0x5bd1e995U;
    uint h = 0x3FB0BB5FU ^ (uint)len;
    int n = len;
    while (n >= 4) {
        uint k = (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
        p += 4;
        n -= 4;
    }
    if (n == 3) h ^= (uint)p[2] << 16;
    if (n >= 2) h ^= (uint)p[1] << 8;
    if (n >= 1) {
        h ^= (uint)p[0];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

bool same_kmer(__global const uchar *a, __global const uchar *b, int k) {
    for (int t = 0; t < k; ++t) {
        if (a[t] != b[t]) return false;
    }
    return true;
}

ulong next_slot(ulong slot, ulong size) { return slot + 1 == size ? 0 : slot + 1; }

lassm_key key_cas(key_ptr p, lassm_key expected, lassm_key desired) {
    // On failure `expected` receives the current value; on success it already holds it.
    atomic_compare_exchange_strong_explicit(p, &expected, desired, RELAXED, RELAXED, SCOPE);
    return expected;
}

lassm_key key_load(key_ptr p) { return atomic_load_explicit(p, RELAXED, SCOPE); }

int base_index(uchar b) {
    switch (b) {
        case 'A': return 0;
        case 'C': return 1;
        case 'G': return 2;
        case 'T': return 3;
        default: return -1;  // 'N' and any other byte: no vote
    }
}

// The __match_any_sync of CUDA, emulated with broadcasts: the lanes whose `value` equals mine
// (bit j = lane j). Every lane of the sub-group must call it. Widths up to 64.
ulong match_any(ulong value) {
    const uint width = get_sub_group_size();
    ulong mask = 0;
    for (uint j = 0; j < width; ++j) {
        if (sub_group_broadcast(value, j) == value) mask |= 1UL << j;
    }
    return mask;
}

// ---- ht_insert: the four protocols -----------------------------------------------------------
// Insert-or-find the k-mer rseqs[pos, pos+k) in the table `keys` of `size` slots; returns its
// slot. `active` is 0 for lanes past the end of the read: the lock-step protocols need every lane
// of the sub-group to call, so those lanes take part in the collectives and insert nothing.
// The table never fills (the host sizes it above the number of k-mers), so probing ends.

#if LASSM_PROTOCOL == LASSM_PROTO_CASPTR
// Race-free and collective-free: claim an empty slot by CAS of my key (read offset + 1); when the
// slot is taken, compare my k-mer with the one the returned key points at. A key is written once,
// atomically, so no lane ever reads a half-published slot. Slots are zeroed at each reset.
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active) {
    if (!active) return 0;
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = (ulong)murmur_hash2(rseqs + pos, k) % size;
    for (;;) {
        const lassm_key prev = key_cas(keys + slot, KEY_EMPTY, mine);
        if (prev == KEY_EMPTY || same_kmer(rseqs + (prev - 1), rseqs + pos, k)) return slot;
        slot = next_slot(slot, size);
    }
}

#elif LASSM_PROTOCOL == LASSM_PROTO_MATCHANY
// CUDA's protocol: claim the slot (CAS empty -> locked), publish the key pointer, sync the lanes
// that probe the same slot (__match_any_sync + __syncwarp(mask)), then compare. OpenCL has neither
// match-any nor a masked barrier: the mask is computed with broadcasts, and the sync becomes a
// sub-group barrier taken (uniformly) in the rounds where two live lanes share a slot. A slot
// claimed in an earlier round may still read as locked without that barrier: the lane looks again
// in the next round instead of comparing against a stale key (the race of the original).
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active) {
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = active ? (ulong)murmur_hash2(rseqs + pos, k) % size : 0;
    int done = !active;
    while (sub_group_any(!done)) {
        lassm_key prev = KEY_EMPTY;
        if (!done) {
            prev = key_cas(keys + slot, KEY_EMPTY, KEY_LOCKED);
            if (prev == KEY_EMPTY) atomic_store_explicit(keys + slot, mine, RELAXED, SCOPE);
        }
        const ulong peers = match_any(done ? ~0UL : slot);
        if (sub_group_any(!done && popcount(peers) > 1)) sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
        if (!done) {
            if (prev == KEY_EMPTY) {
                done = 1;
            } else {
                const lassm_key cur = key_load(keys + slot);
                if (cur != KEY_LOCKED) {
                    if (same_kmer(rseqs + (cur - 1), rseqs + pos, k)) done = 1;
                    else slot = next_slot(slot, size);
                }
            }
        }
    }
    return slot;
}

#elif LASSM_PROTOCOL == LASSM_PROTO_DONEFLAG
// HIP's protocol (HIP has no match-any): every lane loops in lock-step with its own done flag,
// and a sub-group vote ends the loop when all are done. HIP relied on the wavefront's lock-step to
// order the claimer's pointer store before the others' compares; here a sub-group barrier between
// claim and compare makes that order explicit (the loop is uniform, so every lane reaches it).
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active) {
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = active ? (ulong)murmur_hash2(rseqs + pos, k) % size : 0;
    int done = !active;
    for (;;) {
        if (sub_group_all(done)) break;
        lassm_key prev = KEY_EMPTY;
        if (!done) {
            prev = key_cas(keys + slot, KEY_EMPTY, KEY_LOCKED);
            if (prev == KEY_EMPTY) atomic_store_explicit(keys + slot, mine, RELAXED, SCOPE);
        }
        sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
        int advance = 0;
        if (!done) {
            if (prev == KEY_EMPTY) {
                done = 1;
            } else {
                const lassm_key cur = key_load(keys + slot);
                if (cur != KEY_LOCKED) {  // always true after the barrier; kept as a guard
                    if (same_kmer(rseqs + (cur - 1), rseqs + pos, k)) done = 1;
                    else advance = 1;
                }
            }
        }
        if (sub_group_all(done)) break;
        if (advance) slot = next_slot(slot, size);
    }
    return slot;
}

#elif LASSM_PROTOCOL == LASSM_PROTO_BARRIER
// The migrated SYCL protocol: a sub-group barrier between claim/publish and compare in every probe
// step. There, lanes that had found their slot returned and skipped later barriers (a barrier not
// reached by the whole sub-group is undefined). Here every lane stays in the loop until none is
// left, so each barrier is reached by all lanes; after it every claimed slot is published.
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active) {
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = active ? (ulong)murmur_hash2(rseqs + pos, k) % size : 0;
    int done = !active;
    while (sub_group_any(!done)) {
        lassm_key prev = KEY_EMPTY;
        if (!done) {
            prev = key_cas(keys + slot, KEY_EMPTY, KEY_LOCKED);
            if (prev == KEY_EMPTY) atomic_store_explicit(keys + slot, mine, RELAXED, SCOPE);
        }
        sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
        if (!done) {
            if (prev == KEY_EMPTY) {
                done = 1;
            } else {
                const lassm_key cur = key_load(keys + slot);
                if (cur != KEY_LOCKED) {  // always true after the barrier; kept as a guard
                    if (same_kmer(rseqs + (cur - 1), rseqs + pos, k)) done = 1;
                    else slot = next_slot(slot, size);
                }
            }
        }
    }
    return slot;
}
#endif

// Slot of the k-mer at `mer` (any global buffer), or -1 when absent. Lane 0 only (the walk).
long ht_find(key_ptr keys, ulong size, __global const uchar *rseqs, __global const uchar *mer,
             uint hash, int k) {
    ulong slot = (ulong)hash % size;
    for (;;) {
        const lassm_key key = key_load(keys + slot);
        if (key == KEY_EMPTY) return -1;
        if (same_kmer(rseqs + (key - 1), mer, k)) return (long)slot;
        slot = next_slot(slot, size);
    }
}

// ---- set_ext: the vote ---------------------------------------------------------------------
// Rating of a base with nv votes (q >= LASSM_MIN_QUAL) and hq high-quality votes
// (q >= LASSM_MIN_HI_QUAL).
// With d = int(depth): min_viable = max(0.2 d, 2.0), min_expected = max(0.3 d, 2.0).
// LASSM_FP64=0 uses exact integer forms of the same comparisons: for integers x >= 0 and d,
// x < fl(0.2 d) <=> 5x < d, x < fl(0.3 d) <=> 10x < 3d, fl(0.2 d) < x <=> 5x > d (0.2 and 0.3
// round to within 2^-54 relative of 1/5 and 3/10, far below the gap of 1/10 between the sides
// for any count below 2^40), so the two builds agree bit for bit.
#if LASSM_FP64
int base_rating(uint nv, uint hq, double min_viable, double min_expected) {
    const double v = (double)nv, h = (double)hq;
    if (nv == 0) return 0;
    if (nv == 1) return 1;
    if (v < min_viable) return 2;
    if (v < min_expected) return h < min_viable ? 3 : 4;
    if (h < min_viable) return 5;
    if (min_viable < h && h < min_expected) return 6;
    return 7;
}
#else
bool below_viable(long x, long d) { return x < 2 || 5 * x < d; }
bool below_expected(long x, long d) { return x < 2 || 10 * x < 3 * d; }
bool above_viable(long x, long d) { return x > 2 && 5 * x > d; }

int base_rating(uint nv, uint hq, long d) {
    if (nv == 0) return 0;
    if (nv == 1) return 1;
    if (below_viable(nv, d)) return 2;
    if (below_expected(nv, d)) return below_viable(hq, d) ? 3 : 4;
    if (below_viable(hq, d)) return 5;
    if (above_viable(hq, d) && below_expected(hq, d)) return 6;
    return 7;
}
#endif

// The extension of one k-mer from its votes (nv[b], hq[b] for A C G T) and d = int(depth):
// the top base, or 'X' (dead end) / 'F' (fork). Bases are sorted by (rating, hq, nv), highest
// first, with a stable insertion sort of four, as the oracle does.
uchar set_ext(const uint nv[4], const uint hq[4], long depth) {
    const uchar chars[4] = {'A', 'C', 'G', 'T'};
    int rating[4];
    int order[4] = {0, 1, 2, 3};
#if LASSM_FP64
    const double d = (double)depth;
    const double min_viable = fmax(0.2 * d, 2.0);
    const double min_expected = fmax(0.3 * d, 2.0);
    for (int b = 0; b < 4; ++b) rating[b] = base_rating(nv[b], hq[b], min_viable, min_expected);
#else
    for (int b = 0; b < 4; ++b) rating[b] = base_rating(nv[b], hq[b], depth);
#endif
    for (int i = 1; i < 4; ++i) {
        for (int j = i; j > 0; --j) {
            const int x = order[j], y = order[j - 1];
            const bool greater = rating[x] != rating[y] ? rating[x] > rating[y]
                                 : hq[x] != hq[y]       ? hq[x] > hq[y]
                                                        : nv[x] > nv[y];
            if (!greater) break;
            order[j] = y;
            order[j - 1] = x;
        }
    }
    const int b0 = order[0], b1 = order[1], b2 = order[2];
    const int top = rating[b0], runner = rating[b1];
    if (top <= 0) return EXT_DEAD;  // RATING_THRES
    if (top <= 3) return runner == 0 ? chars[b0] : EXT_DEAD;
    if (top < 6) return runner < 3 ? chars[b0] : EXT_DEAD;
    if (top == 6) return runner < 4 ? chars[b0] : EXT_DEAD;
    if (runner < 7) return chars[b0];
    if (rating[b2] == 7 || nv[b0] == nv[b1]) return EXT_FORK;
    return nv[b0] > nv[b1] ? chars[b0] : chars[b1];
}

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
        if (code == EXT_DEAD) {
            if (shift == LASSM_SHIFT_SIZE) break;
            shift = -LASSM_SHIFT_SIZE;
        } else {
            if (shift == -LASSM_SHIFT_SIZE) break;
            shift = LASSM_SHIFT_SIZE;
        }
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

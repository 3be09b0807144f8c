// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cl's table, the OpenCL port of ../cuda/fast_table.cuh: the hash and the k-mer compare with
// fewer dependent loads, the size of the walk's visited set, the hash insert
// (fast_insert: casptr's claim on an epoch-tagged key) and the walk's find.
//
// OpenCL C 1.2 has no generic address space, and a k-mer lives in the reads (__global) or in the
// walk buffer (__local): the hash and the compare are written once as a macro and stamped out per
// address space. A k-mer is named by its word array and its byte offset there (the arrays start
// word-aligned), so no pointer is ever turned into an integer. Word loads run up to 8 bytes past
// a k-mer's end: the host pads the reads (launch.PAD_BYTES) and the walk buffer has 16 spare bytes.
#ifndef LASSM_FAST_TABLE_H
#define LASSM_FAST_TABLE_H

#include "common.h"

#if LASSM_PROTOCOL != LASSM_PROTO_FAST
#error "fast_table.h is fast.cl's: build it with LASSM_PROTOCOL=LASSM_PROTO_FAST"
#endif
#if !LASSM_KEY64
#error "fast keys carry an epoch in their top 16 bits: build with LASSM_KEY64=1 (cl_khr_int64_base_atomics)"
#endif

// A key word: the epoch (k iteration + 1) in the top 16 bits, the k-mer's offset in the read
// buffer below. Epoch 0 (the zeroed table) never occurs, so a zeroed slot is empty.
#define LASSM_FAST_OFF_MASK ((1UL << 48) - 1UL)

// Slots of the walk's visited set: the power of two above LASSM_MAX_WALK (at most LASSM_MAX_WALK
// k-mers are recorded, so one slot is always empty); lassm.backends.cuda.visited_slots mirrors it.
#define LASSM_FAST_P2_(x) ((x) | ((x) >> 1) | ((x) >> 2) | ((x) >> 4) | ((x) >> 8) | ((x) >> 16))
#define LASSM_FAST_VSLOTS (LASSM_FAST_P2_(LASSM_MAX_WALK) + 1)
#if LASSM_MAX_WALK >= 0xFFFF
#error "fast keeps walk offsets in 16 bits: LASSM_MAX_WALK must be below 65535"
#endif
// Words of the walk buffer: the start k-mer plus the walk (launch.walk_stride), then 16 bytes that
// the word loads of the last k-mer may touch.
#define LASSM_FAST_WALK_WORDS (((LASSM_MAX_WALK + LASSM_MAX_KMER_LEN + 15) / 16 * 16 + 16) / 4)

// The four bytes at bit `shift` of the aligned pair (lo, hi), little-endian.
uint fast_funnel(uint lo, uint hi, uint shift) { return (uint)(upsample(hi, lo) >> shift); }

// murmur_hash2's value (bytes.h), loading each aligned word once: the word that ends one step's
// four bytes begins the next step's.
#define LASSM_FAST_HASH(NAME, AS)                                                      \
    uint NAME(AS const uint *words, long at, int len) {                                \
        const uint m = 0x5bd1e995U;                                                    \
        uint h = 0x3FB0BB5FU ^ (uint)len;                                              \
        const uint shift = (uint)(at & 3) * 8U;                                        \
        AS const uint *w = words + (at >> 2);                                          \
        uint lo = w[0];                                                                \
        int j = 0;                                                                     \
        for (; len >= 4; len -= 4, ++j) {                                              \
            const uint hi = w[j + 1];                                                  \
            uint k = fast_funnel(lo, hi, shift);                                       \
            lo = hi;                                                                   \
            k *= m;                                                                    \
            k ^= k >> 24;                                                              \
            k *= m;                                                                    \
            h *= m;                                                                    \
            h ^= k;                                                                    \
        }                                                                              \
        if (len > 0) {                                                                 \
            h ^= fast_funnel(lo, w[j + 1], shift) & (0xFFFFFFFFU >> (32 - 8 * len));   \
            h *= m;                                                                    \
        }                                                                              \
        h ^= h >> 13;                                                                  \
        h *= m;                                                                        \
        h ^= h >> 15;                                                                  \
        return h;                                                                      \
    }

LASSM_FAST_HASH(fast_hash_g, __global)  // a read's k-mer (the insert)
LASSM_FAST_HASH(fast_hash_l, __local)   // the walk's k-mer

// Whether a[0, k) == b[0, k) (same_kmer's answer): four words of each side are loaded before any
// is tested, so a 77-mer costs five dependent rounds of loads rather than twenty.
#define LASSM_FAST_KMER_EQ(NAME, ASA, ASB)                                                          \
    bool NAME(ASA const uint *words_a, long at_a, ASB const uint *words_b, long at_b, int k) {      \
        const uint sa = (uint)(at_a & 3) * 8U, sb = (uint)(at_b & 3) * 8U;                         \
        ASA const uint *wa = words_a + (at_a >> 2);                                                \
        ASB const uint *wb = words_b + (at_b >> 2);                                                \
        uint pa = wa[0], pb = wb[0];                                                               \
        int j = 0;                                                                                 \
        for (; k >= 16; k -= 16, j += 4) {                                                         \
            const uint a1 = wa[j + 1], a2 = wa[j + 2], a3 = wa[j + 3], a4 = wa[j + 4];             \
            const uint b1 = wb[j + 1], b2 = wb[j + 2], b3 = wb[j + 3], b4 = wb[j + 4];             \
            const uint diff = (fast_funnel(pa, a1, sa) ^ fast_funnel(pb, b1, sb)) |                \
                              (fast_funnel(a1, a2, sa) ^ fast_funnel(b1, b2, sb)) |                \
                              (fast_funnel(a2, a3, sa) ^ fast_funnel(b2, b3, sb)) |                \
                              (fast_funnel(a3, a4, sa) ^ fast_funnel(b3, b4, sb));                 \
            if (diff != 0U) return false;                                                          \
            pa = a4;                                                                               \
            pb = b4;                                                                               \
        }                                                                                          \
        for (; k >= 4; k -= 4, ++j) {                                                              \
            const uint a1 = wa[j + 1], b1 = wb[j + 1];                                             \
            if (fast_funnel(pa, a1, sa) != fast_funnel(pb, b1, sb)) return false;                  \
            pa = a1;                                                                               \
            pb = b1;                                                                               \
        }                                                                                          \
        if (k > 0) {                                                                               \
            const uint mask = 0xFFFFFFFFU >> (32 - 8 * k);                                         \
            return ((fast_funnel(pa, wa[j + 1], sa) ^ fast_funnel(pb, wb[j + 1], sb)) & mask) == 0U; \
        }                                                                                          \
        return true;                                                                               \
    }

LASSM_FAST_KMER_EQ(fast_kmer_eq_gg, __global, __global)  // a table key against a read's k-mer
LASSM_FAST_KMER_EQ(fast_kmer_eq_gl, __global, __local)   // a read (or key) against the walk's k-mer
LASSM_FAST_KMER_EQ(fast_kmer_eq_ll, __local, __local)    // the walk against itself (visited set)

// Insert-or-find the read k-mer at byte `pos` (hash h) in the table of mask + 1 slots at epoch
// `tag` (already shifted into the top 16 bits); one active lane. A lane that claims a slot zeroes
// its 8 vote counters; the caller's barrier orders that before any vote (fast_insert_round).
uint fast_insert(__global ulong *keys, __global uint *votes, uint mask, __global const uint *rwords, long pos,
                 int k, uint h, ulong tag) {
    const ulong want = tag | (ulong)pos;
    uint s = h & mask;
    for (;;) {
        volatile __global ulong *slot = keys + s;
        ulong cur = *slot;
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) {  // empty at this epoch: try to claim it
            const ulong prev = atom_cmpxchg(slot, cur, want);
            if (prev == cur) {
                vstore8((uint8)(0U), 0, votes + 8 * (size_t)s);
                return s;
            }
            cur = prev;  // another lane claimed it first, at this epoch (only this epoch writes)
            if ((cur & ~LASSM_FAST_OFF_MASK) != tag) continue;
        }
        if (fast_kmer_eq_gg(rwords, (long)(cur & LASSM_FAST_OFF_MASK), rwords, pos, k)) return s;
        s = (s + 1U) & mask;
    }
}

// The walk's find (lane 0): the votes of the walk's k-mer at word offset `at` of wwords (hash h)
// at epoch `tag`, loaded together with the key of every slot probed; false if absent.
bool fast_find_votes(__global const ulong *keys, __global const uint *votes, uint mask,
                     __global const uint *rwords, __local const uint *wwords, int at, int k, uint h, ulong tag,
                     uint *low, uint *high) {
    uint s = h & mask;
    for (;;) {
        const ulong cur = keys[s];
        const uint8 v = vload8(0, votes + 8 * (size_t)s);
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) return false;
        if (fast_kmer_eq_gl(rwords, (long)(cur & LASSM_FAST_OFF_MASK), wwords, at, k)) {
            low[0] = v.s0, low[1] = v.s1, low[2] = v.s2, low[3] = v.s3;
            high[0] = v.s4, high[1] = v.s5, high[2] = v.s6, high[3] = v.s7;
            return true;
        }
        s = (s + 1U) & mask;
    }
}

#endif  // LASSM_FAST_TABLE_H

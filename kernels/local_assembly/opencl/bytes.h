// SPDX-License-Identifier: BSD-3-Clause
//
// Bytes and atomics: MurmurHash2 of a k-mer, k-mer equality, the atomics on keys and votes (in
// OpenCL C 2.0 or 1.2 form, see LASSM_C11_ATOMICS), the base index. No collectives: those are
// the lanes' (subgroup.h, team.h).
#ifndef LASSM_BYTES_H
#define LASSM_BYTES_H

#include "common.h"

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

#if LASSM_C11_ATOMICS
lassm_key key_cas(key_ptr p, lassm_key expected, lassm_key desired) {
    // On failure `expected` receives the current value; on success it already holds it.
    atomic_compare_exchange_strong_explicit(p, &expected, desired, RELAXED, RELAXED, SCOPE);
    return expected;
}

lassm_key key_load(key_ptr p) { return atomic_load_explicit(p, RELAXED, SCOPE); }
void key_store(key_ptr p, lassm_key value) { atomic_store_explicit(p, value, RELAXED, SCOPE); }
void vote_add(vote_ptr p) { atomic_fetch_add_explicit(p, 1U, RELAXED, SCOPE); }
uint vote_load(vote_ptr p) { return atomic_load_explicit(p, RELAXED, SCOPE); }
void vote_store(vote_ptr p, uint value) { atomic_store_explicit(p, value, RELAXED, SCOPE); }
#else
// OpenCL C 1.2: read-modify-writes are atomic functions (64-bit ones from cl_khr_int64_base_atomics);
// aligned volatile loads and stores of one word are single accesses.
lassm_key key_cas(key_ptr p, lassm_key expected, lassm_key desired) {
#if LASSM_KEY64
    return atom_cmpxchg(p, expected, desired);
#else
    return atomic_cmpxchg(p, expected, desired);
#endif
}

lassm_key key_load(key_ptr p) { return *p; }
void key_store(key_ptr p, lassm_key value) { *p = value; }
void vote_add(vote_ptr p) { atomic_inc(p); }
uint vote_load(vote_ptr p) { return *p; }
void vote_store(vote_ptr p, uint value) { *p = value; }
#endif

int base_index(uchar b) {
    switch (b) {
        case 'A': return 0;
        case 'C': return 1;
        case 'G': return 2;
        case 'T': return 3;
        default: return -1;  // 'N' and any other byte: no vote
    }
}

#endif  // LASSM_BYTES_H

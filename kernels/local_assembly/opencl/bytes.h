// SPDX-License-Identifier: BSD-3-Clause
//
// Bytes and collectives: MurmurHash2 of a k-mer, k-mer equality, the key's atomics, the base
// index, and CUDA's __match_any_sync emulated with broadcasts.
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

#endif  // LASSM_BYTES_H

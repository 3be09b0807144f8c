// SPDX-License-Identifier: BSD-3-Clause
//
// Bytes: MurmurHash2 of a k-mer, k-mer equality and the base index, at any alignment, as the
// faithful kernel reads them (fast.cu's, with fewer dependent loads, are in fast_table.cuh).
#ifndef LASSM_BYTES_CUH
#define LASSM_BYTES_CUH

#include "common.cuh"

// ---------------------------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------------------------

// Four bytes starting at any address, from two aligned word loads (the "aligned" MurmurHash2
// trick). Buffers read this way carry 8 bytes of padding, so the second word is always mapped.
__device__ __forceinline__ u32 word_at(const u32* w, u32 shift, int j)
{
    const u64 pair = ((u64)w[j + 1] << 32) | (u64)w[j];
    return (u32)(pair >> shift);
}

__device__ __forceinline__ const u32* aligned_base(const u8* p, u32* shift)
{
    const u64 a = (u64)p;
    *shift = (u32)(a & 3u) * 8u;
    return (const u32*)(a & ~(u64)3);
}

// MurmurHash2 (m = 0x5bd1e995, r = 24, seed 0x3FB0BB5F, h = seed ^ len) of key[0, len): the
// 32-bit hash, taken mod the table size by the caller (the walk uses it for both of its tables).
__device__ __forceinline__ u32 murmur_hash2(const u8* key, int len)
{
    const u32 m = 0x5bd1e995u;
    const int r = 24;
    u32 h = 0x3FB0BB5Fu ^ (u32)len;
    u32 shift;
    const u32* w = aligned_base(key, &shift);
    int j = 0;
    for (; len >= 4; len -= 4, ++j) {
        u32 k = word_at(w, shift, j);
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    if (len > 0) {  // the tail bytes, little-endian: the low len bytes of the next word
        h ^= word_at(w, shift, j) & (0xFFFFFFFFu >> (32 - 8 * len));
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

// Whether a[0, k) == b[0, k); both may start at any address.
__device__ __forceinline__ bool kmer_eq(const u8* a, const u8* b, int k)
{
    u32 sa, sb;
    const u32* wa = aligned_base(a, &sa);
    const u32* wb = aligned_base(b, &sb);
    int j = 0;
    for (; k >= 4; k -= 4, ++j) {
        if (word_at(wa, sa, j) != word_at(wb, sb, j)) return false;
    }
    if (k > 0) {
        const u32 mask = 0xFFFFFFFFu >> (32 - 8 * k);
        return ((word_at(wa, sa, j) ^ word_at(wb, sb, j)) & mask) == 0u;
    }
    return true;
}

__device__ __forceinline__ int base_index(u8 c)
{
    switch (c) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;  // 'N' and anything else cast no vote
    }
}

__device__ __forceinline__ u32 next_slot(u32 s, u32 size) { return s + 1u == size ? 0u : s + 1u; }

#endif  // LASSM_BYTES_CUH

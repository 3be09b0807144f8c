// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's look-ahead finds (LASSM_FAST_SPEC_WALK, the fast-spec builds; off in fast).
// The walk with a table is a chain of finds, each waiting for the vote of the one before; but the
// next k-mer is one of four, known before the vote: the walk's k-mer shifted by one base plus A, C,
// G or T. Idle lanes of the walking warp find those (and, two steps ahead, their sixteen
// successors) while lane 0 finds the walk's own k-mer, so one find's latency covers
// LASSM_FAST_SPEC_WALK + 1 steps. A look-ahead k-mer is in no buffer: its first bases are the
// walk buffer's, its last p bases a register (`tail`, the earlier base in the low byte), patched
// into the words the hash and the compare load. The table is read-only during the walk (the
// inserts end with a team barrier), so a find ahead races with nothing, and which slot a k-mer
// lands in never reaches the output.
#ifndef LASSM_FAST_AHEAD_CUH
#define LASSM_FAST_AHEAD_CUH

#include "common.cuh"
#include "bytes.cuh"
#include "fast_table.cuh"
#include "fast_team.cuh"

#ifndef LASSM_FAST_SPEC_WALK
#error "fast_ahead.cuh is fast.cu's: include it from there"
#endif

#if LASSM_FAST_SPEC_WALK
// Lanes that find at once: the walk's k-mer and the 4 + ... + 4^LASSM_FAST_SPEC_WALK ahead of it,
// numbered as a 4-ary heap (lane i's k-mer extended by base b is lane 4 * i + 1 + b).
#if LASSM_FAST_SPEC_WALK == 1
#define LASSM_FAST_AHEAD_LANES 5
#elif LASSM_FAST_SPEC_WALK == 2
#define LASSM_FAST_AHEAD_LANES 21
#else
#error "LASSM_FAST_SPEC_WALK is how many steps the walk finds ahead: 0 (off), 1 or 2"
#endif
#if LASSM_FAST_AHEAD_LANES > LASSM_FAST_TEAM_LANES
#error "LASSM_FAST_SPEC_WALK needs more lanes than a warp team of LASSM_FAST_TEAM_LANES has"
#endif
#if LASSM_FAST_SCAN
#error "LASSM_FAST_SPEC_WALK votes on the walk's demand: build it without the vote-scan ablation (LASSM_FAST_SCAN)"
#endif

// Bytes s .. s+3 of a k-mer, `word` as loaded, with the bytes from `cut` on replaced by tail's
// (tail's low byte at `cut`; past the tail, zeros, which the hash's and compare's masks drop).
__device__ __forceinline__ u32 fast_patch(u32 word, int s, int cut, u32 tail)
{
    const int d = cut - s;  // where the tail begins, in bytes from this word's first
    if (d >= 4) return word;
    if (d <= 0) return d <= -4 ? 0u : tail >> (-8 * d);
    const u32 keep = 0xFFFFFFFFu >> (32 - 8 * d);
    return (word & keep) | (tail << (8 * d));
}

// fast_hash (murmur_hash2's value) of key[0, cut) followed by tail's len - cut bytes.
__device__ __forceinline__ u32 fast_hash_tail(const u8* key, int len, int cut, u32 tail)
{
    const u32 m = 0x5bd1e995u;
    u32 h = 0x3FB0BB5Fu ^ (u32)len;
    u32 shift;
    const u32* w = aligned_base(key, &shift);
    u32 lo = w[0];
    int j = 0;
#pragma unroll 4
    for (; len >= 4; len -= 4, ++j) {
        const u32 hi = w[j + 1];
        u32 k = fast_patch(fast_funnel(lo, hi, shift), 4 * j, cut, tail);
        lo = hi;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    if (len > 0) {
        h ^= fast_patch(fast_funnel(lo, w[j + 1], shift), 4 * j, cut, tail) & (0xFFFFFFFFu >> (32 - 8 * len));
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

// fast_kmer_eq of a[0, k) and b[0, cut) ++ tail: four words of each side loaded before any test.
__device__ __forceinline__ bool fast_kmer_eq_tail(const u8* a, const u8* b, int k, int cut, u32 tail)
{
    u32 sa, sb;
    const u32* wa = aligned_base(a, &sa);
    const u32* wb = aligned_base(b, &sb);
    u32 pa = wa[0], pb = wb[0];
    int j = 0;
    for (; k >= 16; k -= 16, j += 4) {
        const u32 a1 = wa[j + 1], a2 = wa[j + 2], a3 = wa[j + 3], a4 = wa[j + 4];
        const u32 b1 = wb[j + 1], b2 = wb[j + 2], b3 = wb[j + 3], b4 = wb[j + 4];
        const int s = 4 * j;
        const u32 diff = (fast_funnel(pa, a1, sa) ^ fast_patch(fast_funnel(pb, b1, sb), s, cut, tail)) |
                         (fast_funnel(a1, a2, sa) ^ fast_patch(fast_funnel(b1, b2, sb), s + 4, cut, tail)) |
                         (fast_funnel(a2, a3, sa) ^ fast_patch(fast_funnel(b2, b3, sb), s + 8, cut, tail)) |
                         (fast_funnel(a3, a4, sa) ^ fast_patch(fast_funnel(b3, b4, sb), s + 12, cut, tail));
        if (diff != 0u) return false;
        pa = a4;
        pb = b4;
    }
    for (; k >= 4; k -= 4, ++j) {
        const u32 a1 = wa[j + 1], b1 = wb[j + 1];
        if (fast_funnel(pa, a1, sa) != fast_patch(fast_funnel(pb, b1, sb), 4 * j, cut, tail)) return false;
        pa = a1;
        pb = b1;
    }
    if (k > 0) {
        const u32 mask = 0xFFFFFFFFu >> (32 - 8 * k);
        const u32 bw = fast_patch(fast_funnel(pb, wb[j + 1], sb), 4 * j, cut, tail);
        return ((fast_funnel(pa, wa[j + 1], sa) ^ bw) & mask) == 0u;
    }
    return true;
}

// The look-ahead find (one lane): fast_find_votes for key[0, cut) ++ tail (k bases), which also
// hands back the k-mer's hash, for the visited check of the step that takes it.
__device__ __forceinline__ bool fast_find_ahead(const ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k,
                                                int cut, u32 tail, u64 tag, u32* h, u32* low, u32* high)
{
    *h = fast_hash_tail(key, k, cut, tail);
    return fast_find_votes_by(ht, mask, *h, tag, low, high,
                              [=](u64 off) { return fast_kmer_eq_tail(seqs + off, key, k, cut, tail); });
}

// Lane `lane`'s look-ahead k-mer: how many bases ahead of the walk's it starts (its depth in the
// heap), and those bases, packed as fast_patch's tail.
__device__ __forceinline__ int fast_ahead_path(int lane, u32* tail)
{
    int p = 0;
    u32 t = 0u;
    for (int i = lane; i > 0; i = (i - 1) / 4, ++p) t = (t << 8) | ((0x54474341u >> (8 * ((i - 1) % 4))) & 0xFFu);  // "ACGT"
    *tail = t;
    return p;
}

// A barrier of the walking warp: a warp team's lanes, or warp 0 of a block team (the other warps
// wait at the team's next barrier, as they do for fast_walk's one thread).
__device__ __forceinline__ void fast_walk_sync(const Team<false>& team) { team.sync(); }
__device__ __forceinline__ void fast_walk_sync(const Team<true>&) { LASSM_SYNCWARP(); }
#endif  // LASSM_FAST_SPEC_WALK

#endif  // LASSM_FAST_AHEAD_CUH

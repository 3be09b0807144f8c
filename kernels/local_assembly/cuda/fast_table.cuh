// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's table: its hash and k-mer compare with fewer dependent loads, the size of
// its visited set, and the hash insert (fast_insert: casptr's claim on an epoch-tagged key)
// with the walk's two finds.
#ifndef LASSM_FAST_TABLE_CUH
#define LASSM_FAST_TABLE_CUH

#include "common.cuh"
#include "bytes.cuh"

// fast.cu sets the knob this header reads (LASSM_FAST_PLAIN_BYTES, the fast-plainbytes ablation).
#ifndef LASSM_FAST_PLAIN_BYTES
#error "fast_table.cuh is fast.cu's: include it from there"
#endif

// A key word: the epoch (k iteration + 1) in the top 16 bits, the k-mer's offset in the read
// buffer below.
#define LASSM_FAST_OFF_MASK ((1ull << 48) - 1ull)

// The four bytes at byte offset shift / 8 of the aligned pair (lo, hi).
__device__ __forceinline__ u32 fast_funnel(u32 lo, u32 hi, u32 shift) { return (u32)((((u64)hi << 32) | lo) >> shift); }

// murmur_hash2's value (the same function), loading each aligned word once: the word that ends
// one step's four bytes begins the next step's.
__device__ __forceinline__ u32 fast_hash(const u8* key, int len)
{
#if LASSM_FAST_PLAIN_BYTES
    return murmur_hash2(key, len);
#else
    const u32 m = 0x5bd1e995u;
    u32 h = 0x3FB0BB5Fu ^ (u32)len;
    u32 shift;
    const u32* w = aligned_base(key, &shift);
    u32 lo = w[0];
    int j = 0;
#pragma unroll 4
    for (; len >= 4; len -= 4, ++j) {
        const u32 hi = w[j + 1];
        u32 k = fast_funnel(lo, hi, shift);
        lo = hi;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    if (len > 0) {
        h ^= fast_funnel(lo, w[j + 1], shift) & (0xFFFFFFFFu >> (32 - 8 * len));
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
#endif
}

// Whether a[0, k) == b[0, k) (kmer_eq's answer): four words of each side are loaded before any
// is tested, so a 77-mer costs five dependent rounds of loads rather than twenty.
__device__ __forceinline__ bool fast_kmer_eq(const u8* a, const u8* b, int k)
{
#if LASSM_FAST_PLAIN_BYTES
    return kmer_eq(a, b, k);
#else
    u32 sa, sb;
    const u32* wa = aligned_base(a, &sa);
    const u32* wb = aligned_base(b, &sb);
    u32 pa = wa[0], pb = wb[0];
    int j = 0;
    for (; k >= 16; k -= 16, j += 4) {
        const u32 a1 = wa[j + 1], a2 = wa[j + 2], a3 = wa[j + 3], a4 = wa[j + 4];
        const u32 b1 = wb[j + 1], b2 = wb[j + 2], b3 = wb[j + 3], b4 = wb[j + 4];
        const u32 diff = (fast_funnel(pa, a1, sa) ^ fast_funnel(pb, b1, sb)) |
                         (fast_funnel(a1, a2, sa) ^ fast_funnel(b1, b2, sb)) |
                         (fast_funnel(a2, a3, sa) ^ fast_funnel(b2, b3, sb)) |
                         (fast_funnel(a3, a4, sa) ^ fast_funnel(b3, b4, sb));
        if (diff != 0u) return false;
        pa = a4;
        pb = b4;
    }
    for (; k >= 4; k -= 4, ++j) {
        const u32 a1 = wa[j + 1], b1 = wb[j + 1];
        if (fast_funnel(pa, a1, sa) != fast_funnel(pb, b1, sb)) return false;
        pa = a1;
        pb = b1;
    }
    if (k > 0) {
        const u32 mask = 0xFFFFFFFFu >> (32 - 8 * k);
        return ((fast_funnel(pa, wa[j + 1], sa) ^ fast_funnel(pb, wb[j + 1], sb)) & mask) == 0u;
    }
    return true;
#endif
}

// Slots of the shared visited set: the power of two above max_walk (at most max_walk k-mers are
// recorded, so one slot is always empty). lassm/backends/cuda.py mirrors this.
__device__ __forceinline__ u32 fast_visited_slots(int max_walk)
{
    u32 v = 1u;
    while (v < (u32)max_walk + 1u) v *= 2u;
    return v;
}

// The insert's loop: claim the key word `want` for a k-mer (hash h) in the table of mask + 1 slots at epoch `tag` (already
// shifted into the top 16 bits); one active lane. A lane that claims a slot zeroes its votes.
// same(off) says whether a key word of this epoch (its low 48 bits off) holds the k-mer.
template <class Same>
__device__ __forceinline__ u32 fast_insert_by(ht_slot* ht, u32 mask, u64 want, u32 h, u64 tag, Same same)
{
    u32 s = h & mask;
    while (true) {
        u64 cur = *(volatile u64*)&ht[s].key_ptr;
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) {  // empty at this epoch: try to claim it
            const u64 prev = atomicCAS(&ht[s].key_ptr, cur, want);
            if (prev == cur) {
                uint4* q = (uint4*)&ht[s];
                q[1] = make_uint4(0u, 0u, 0u, 0u);
                q[2] = make_uint4(0u, 0u, 0u, 0u);
                return s;
            }
            cur = prev;  // another lane claimed it first, at this epoch (only this epoch writes)
            if ((cur & ~LASSM_FAST_OFF_MASK) != tag) continue;
        }
        if (same(cur & LASSM_FAST_OFF_MASK)) return s;
        s = (s + 1u) & mask;
    }
}

// Insert-or-find key[0, k) (hash h), its key word the k-mer's offset in the read buffer.
__device__ __forceinline__ u32 fast_insert(ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k, u32 h,
                                           u64 tag)
{
    return fast_insert_by(ht, mask, tag | (u64)(key - seqs), h, tag,
                          [=](u64 off) { return fast_kmer_eq(seqs + off, key, k); });
}

// The walk's find (one thread): the votes of key[0, k) at epoch `tag`, loaded together with the
// key word of every slot probed, so that a hit costs one round trip for both; false if absent.
// (fast_find_votes_by: same(off) as for fast_insert_by.)
template <class Same>
__device__ __forceinline__ bool fast_find_votes_by(const ht_slot* ht, u32 mask, u32 h, u64 tag, u32* low, u32* high,
                                                   Same same)
{
    u32 s = h & mask;
    while (true) {
        const uint4* q = (const uint4*)&ht[s];
        const uint4 head = q[0], lo = q[1], hi = q[2];
        const u64 cur = ((u64)head.y << 32) | (u64)head.x;
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) return false;
        if (same(cur & LASSM_FAST_OFF_MASK)) {
            low[0] = lo.x, low[1] = lo.y, low[2] = lo.z, low[3] = lo.w;
            high[0] = hi.x, high[1] = hi.y, high[2] = hi.z, high[3] = hi.w;
            return true;
        }
        s = (s + 1u) & mask;
    }
}

__device__ __forceinline__ bool fast_find_votes(const ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k,
                                                u32 h, u64 tag, u32* low, u32* high)
{
    return fast_find_votes_by(ht, mask, h, tag, low, high,
                              [=](u64 off) { return fast_kmer_eq(seqs + off, key, k); });
}

// Read-only find (the walk, one lane): the slot of key[0, k) at epoch `tag`, or -1.
__device__ __forceinline__ int fast_find(const ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k, u32 h,
                                         u64 tag)
{
    u32 s = h & mask;
    while (true) {
        const u64 cur = ht[s].key_ptr;
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) return -1;
        if (fast_kmer_eq(seqs + (cur & LASSM_FAST_OFF_MASK), key, k)) return (int)s;
        s = (s + 1u) & mask;
    }
}

// The visited set of the walk: `vslots` entries holding a walk-buffer offset plus one (0 = none).
// In shared memory, u16 entries cleared per k; in global memory (the ablation), u64 entries
// tagged (epoch << 32) | (offset + 1), so that an entry of another k reads as empty, no clear.
#if LASSM_FAST_GLOBAL_WALK
typedef u64 fast_visit_t;
__device__ __forceinline__ u32 visit_get(const fast_visit_t* v, u32 i, u32 epoch)
{
    const u64 e = v[i];
    return (u32)(e >> 32) == epoch ? (u32)e : 0u;
}
__device__ __forceinline__ fast_visit_t visit_entry(int wl, u32 epoch) { return ((u64)epoch << 32) | (u64)(wl + 1); }
#else
typedef unsigned short fast_visit_t;
__device__ __forceinline__ u32 visit_get(const fast_visit_t* v, u32 i, u32) { return (u32)v[i]; }
__device__ __forceinline__ fast_visit_t visit_entry(int wl, u32) { return (fast_visit_t)(wl + 1); }
#endif

// Lane 0: whether mer (hash h) is already in this k's visited set; records it (walk offset wl)
// when it is not.
__device__ __forceinline__ bool fast_seen(fast_visit_t* visited, u32 vslots, u32 epoch, const u8* wbuf, const u8* mer,
                                          int k, u32 h, int wl)
{
    u32 v = h & (vslots - 1u);
    while (true) {  // fewer than vslots entries, so an empty slot exists
        const u32 kv = visit_get(visited, v, epoch);
        if (kv == 0u) break;
        if (fast_kmer_eq(wbuf + (kv - 1u), mer, k)) return true;
        v = (v + 1u) & (vslots - 1u);
    }
    visited[v] = visit_entry(wl, epoch);
    return false;
}

#endif  // LASSM_FAST_TABLE_CUH

// SPDX-License-Identifier: BSD-3-Clause
//
// The hash insert (the paper's k-mer_ht.insert of Algorithm 1): ht_insert under each of the four
// collision protocols, chosen by LASSM_PROTOCOL, and the walk's read-only ht_find. The faithful
// builds only: fast.cu claims slots its own way (fast_table.cuh).
#ifndef LASSM_HT_INSERT_CUH
#define LASSM_HT_INSERT_CUH

#include "common.cuh"
#include "bytes.cuh"

// A slot holds a key: a published pointer (casptr) or a claimed length (the others; their
// pointer is published before the warp barrier that ends counting).
__device__ __forceinline__ bool slot_used(const ht_slot* s)
{
#if LASSM_PROTOCOL == LASSM_PROTO_CASPTR
    return s->key_ptr != 0ull;
#else
    return s->key_len != LASSM_EMPTY;
#endif
}

// Clears a slot: no key, no pointer, no votes. Values are zeroed here, once per k, so that no
// lane ever zeroes a slot that others may already have voted into. (The published protocols
// reset the key length alone and zeroed the value when a lane claimed the slot.)
__device__ __forceinline__ void reset_slot(ht_slot* e)
{
#if LASSM_PUBLISHED
    e->key_len = LASSM_EMPTY;
#else
    uint4* q = (uint4*)e;
    q[0] = make_uint4(0u, 0u, LASSM_EMPTY, 0u);
    q[1] = make_uint4(0u, 0u, 0u, 0u);
    q[2] = make_uint4(0u, 0u, 0u, 0u);
#endif
}

// The published protocols' zeroing of a freshly claimed slot's value (votes and extension).
__device__ __forceinline__ void zero_values(ht_slot* e)
{
    e->ext = 0u;
    uint4* q = (uint4*)e;
    q[1] = make_uint4(0u, 0u, 0u, 0u);
    q[2] = make_uint4(0u, 0u, 0u, 0u);
}

// ---------------------------------------------------------------------------------------------
// ht_insert: insert-or-find the k-mer `key` (hash h); returns its slot, -1 for inactive lanes.
// Every lane of the warp calls it together (count_mers keeps its trip counts warp-uniform).
// Values are never touched here: the reset zeroes them before any lane can claim the slot.
// ---------------------------------------------------------------------------------------------
#if LASSM_PROTOCOL == LASSM_PROTO_CASPTR
// Race-free and lock-free: claim a slot by CAS on the key pointer; a lane that loses the CAS
// compares its k-mer through the pointer the CAS returned, which is always complete.
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    if (!active) return -1;
    const u64 me = (u64)key;
    u32 s = h % size;
    while (true) {
        const u64 prev = atomicCAS(&ht[s].key_ptr, 0ull, me);
        if (prev == 0ull || kmer_eq((const u8*)prev, key, k)) return (int)s;
        s = next_slot(s, size);
    }
}

#elif LASSM_PROTOCOL == LASSM_PROTO_MATCHANY && LASSM_PUBLISHED
// As published (racy): the claimer zeroes the value after others may have voted into the slot,
// and a lane outside the claimer's match group compares against whatever pointer the slot holds
// (stale from an earlier k, or not yet written: 0, which is only kept from faulting here).
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    if (!active) return -1;
    u32 s = h % size;
    while (true) {
        const u32 prev = atomicCAS(&ht[s].key_len, LASSM_EMPTY, (u32)k);
        const u32 mask = __match_any_sync(__activemask(), (u64)&ht[s]);
        if (prev == LASSM_EMPTY) {
            ht[s].key_ptr = (u64)key;
            zero_values(&ht[s]);
        }
        __syncwarp(mask);
        if (prev == LASSM_EMPTY) return (int)s;
        const u64 kp = ht[s].key_ptr;
        if (kp != 0ull && kmer_eq((const u8*)kp, key, k)) return (int)s;
        s = next_slot(s, size);
    }
}

#elif LASSM_PROTOCOL == LASSM_PROTO_MATCHANY
// The CUDA original: atomicCAS on the key length, __match_any_sync groups the lanes probing the
// same slot, the claimer publishes the pointer and __syncwarp(mask) orders it before the group
// compares. Two fixes: the value is zeroed at the reset, not here (a late zeroing erased votes
// already cast), and a lane that finds the slot claimed by a lane outside its group waits until
// the pointer is published (the reset clears it) instead of comparing a stale one.
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    if (!active) return -1;
    const u64 me = (u64)key;
    u32 s = h % size;
    while (true) {
        const u32 prev = atomicCAS(&ht[s].key_len, LASSM_EMPTY, (u32)k);
        const u32 mask = __match_any_sync(__activemask(), (u64)&ht[s]);
        if (prev == LASSM_EMPTY) *(volatile u64*)&ht[s].key_ptr = me;
        __syncwarp(mask);
        if (prev == LASSM_EMPTY) return (int)s;
        u64 kp;
        do {
            kp = *(volatile u64*)&ht[s].key_ptr;
        } while (kp == 0ull);
        if (kmer_eq((const u8*)kp, key, k)) return (int)s;
        s = next_slot(s, size);
    }
}

#elif LASSM_PROTOCOL == LASSM_PROTO_DONEFLAG && LASSM_PUBLISHED
// As published (racy off lock-step hardware): no barrier between the claim and the compares, and
// the claimer zeroes the value.
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    bool done = !active;
    u32 s = active ? h % size : 0u;
    u32 prev = LASSM_EMPTY;
    while (true) {
        if (LASSM_ALL(done)) break;
        if (!done) {
            prev = atomicCAS(&ht[s].key_len, LASSM_EMPTY, (u32)k);
            if (prev == LASSM_EMPTY) {
                ht[s].key_ptr = (u64)key;
                zero_values(&ht[s]);
            }
        }
        if (!done) {
            const u64 kp = ht[s].key_ptr;
            if (prev == LASSM_EMPTY || (kp != 0ull && kmer_eq((const u8*)kp, key, k))) done = true;
        }
        if (LASSM_ALL(done)) break;
        if (!done) s = next_slot(s, size);
    }
    return active ? (int)s : -1;
}

#elif LASSM_PROTOCOL == LASSM_PROTO_DONEFLAG
// The HIP port: every lane loops in lock-step with a per-lane done flag until a warp vote says
// all are done. HIP relied on the wavefront's lock-step to order the claimer's pointer store
// before the others' compares; the fix makes that order explicit with a warp barrier between
// the claim and the compare (the loop is warp-uniform, so the barrier sees every lane).
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    const u64 me = (u64)key;
    bool done = !active;
    u32 s = active ? h % size : 0u;
    u32 prev = LASSM_EMPTY;
    while (true) {
        if (LASSM_ALL(done)) break;
        if (!done) {
            prev = atomicCAS(&ht[s].key_len, LASSM_EMPTY, (u32)k);
            if (prev == LASSM_EMPTY) ht[s].key_ptr = me;
        }
        LASSM_SYNCWARP();
        if (!done && (prev == LASSM_EMPTY || kmer_eq((const u8*)ht[s].key_ptr, key, k))) done = true;
        if (LASSM_ALL(done)) break;
        if (!done) s = next_slot(s, size);
    }
    return active ? (int)s : -1;
}

#elif LASSM_PROTOCOL == LASSM_PROTO_BARRIER
// The migrated SYCL code: a sub-group barrier inside the probe loop between the claim and the
// compare. The original returned from the loop lane by lane, so later barriers missed lanes; the
// fix keeps every lane in the loop until a vote says all found their slot.
__device__ __forceinline__ int ht_insert(ht_slot* ht, u32 size, const u8* key, int k, u32 h, bool active)
{
    const u64 me = (u64)key;
    bool done = !active;
    u32 s = active ? h % size : 0u;
    do {
        u32 prev = LASSM_EMPTY;
        if (!done) {
            prev = atomicCAS(&ht[s].key_len, LASSM_EMPTY, (u32)k);
            if (prev == LASSM_EMPTY) ht[s].key_ptr = me;
        }
        LASSM_SYNCWARP();
        if (!done) {
            if (prev == LASSM_EMPTY || kmer_eq((const u8*)ht[s].key_ptr, key, k))
                done = true;
            else
                s = next_slot(s, size);
        }
    } while (LASSM_ANY(!done));
    return active ? (int)s : -1;
}
#endif

// Read-only find (the walk, one lane): the slot of key[0, k), or -1.
__device__ __forceinline__ int ht_find(const ht_slot* ht, u32 size, const u8* key, int k, u32 h)
{
    u32 s = h % size;
    while (true) {
        const ht_slot* e = &ht[s];
        if (!slot_used(e)) return -1;
        if (kmer_eq((const u8*)e->key_ptr, key, k)) return (int)s;
        s = next_slot(s, size);
    }
}

#endif  // LASSM_HT_INSERT_CUH

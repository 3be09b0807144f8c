// SPDX-License-Identifier: BSD-3-Clause
//
// The hash insert (the paper's k-mer_ht.insert of Algorithm 1): ht_insert under each of the four
// collision protocols, chosen by LASSM_PROTOCOL, and the walk's read-only ht_find. The lanes'
// collectives (lanes_any, lanes_sync, match_any, ...) come from subgroup.h or team.h, which the
// kernel file includes first: the same protocol code runs on sub-groups and on work-group teams.
#ifndef LASSM_HT_INSERT_H
#define LASSM_HT_INSERT_H

#include "common.h"
#include "bytes.h"

#ifndef LASSM_LANES
#error "include subgroup.h or team.h (the lanes' collectives) before ht_insert.h"
#endif
#if LASSM_PROTOCOL == LASSM_PROTO_FAST
#error "the fast variant is fast.cl's (fast_insert, fast_table.h), not a protocol of ht_insert"
#endif

// ---- ht_insert: the four protocols -----------------------------------------------------------
// Insert-or-find the k-mer rseqs[pos, pos+k) in the table `keys` of `size` slots; returns its
// slot. `active` is 0 for lanes past the end of the read: the lock-step protocols need every lane
// (of the sub-group or team) to call, so those lanes take part in the collectives and insert nothing.
// The table never fills (the host sizes it above the number of k-mers), so probing ends.

// The lock-step protocols' two steps (matchany, doneflag and barrier take them alike, with their
// own synchronization between): claim, then settle.
//
// Claim: a lane not done claims its slot (CAS empty -> locked) and, where it did, publishes its
// key; returns what the slot held (KEY_EMPTY: claimed by this lane).
inline lassm_key ht_claim(key_ptr keys, ulong slot, lassm_key mine, int done) {
    lassm_key prev = KEY_EMPTY;
    if (!done) {
        prev = key_cas(keys + slot, KEY_EMPTY, KEY_LOCKED);
        if (prev == KEY_EMPTY) key_store(keys + slot, mine);
    }
    return prev;
}

// Settle, after the lanes' synchronization: whether the lane is done (it claimed the slot, or the
// slot holds its k-mer); `*other` is set where another k-mer holds it (the lane probes the next
// slot). A slot still read as locked is looked at again in the next round (never after a barrier).
inline int ht_settle(key_ptr keys, ulong slot, lassm_key prev, __global const uchar *rseqs, long pos, int k,
                     int *other) {
    *other = 0;
    if (prev == KEY_EMPTY) return 1;
    const lassm_key cur = key_load(keys + slot);
    if (cur == KEY_LOCKED) return 0;
    if (same_kmer(rseqs + (cur - 1), rseqs + pos, k)) return 1;
    *other = 1;
    return 0;
}

#if LASSM_PROTOCOL == LASSM_PROTO_CASPTR
// Race-free and collective-free: claim an empty slot by CAS of my key (read offset + 1); when the
// slot is taken, compare my k-mer with the one the returned key points at. A key is written once,
// atomically, so no lane ever reads a half-published slot. Slots are zeroed at each reset.
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active, lanes_t lanes) {
    if (!active) return 0;
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = (ulong)murmur_hash2(rseqs + pos, k) % size;
    for (;;) {
        const lassm_key prev = key_cas(keys + slot, KEY_EMPTY, mine);
        if (prev == KEY_EMPTY || same_kmer(rseqs + (prev - 1), rseqs + pos, k)) return slot;
        slot = next_slot(slot, size);
    }
}

#elif LASSM_PROTOCOL == LASSM_PROTO_MATCHANY || LASSM_PROTOCOL == LASSM_PROTO_BARRIER
// The lock-step loops (matchany, doneflag, barrier) vote at the end of each round, never only at
// its start: `more = lanes_any(...)` closes the body, so a lane's own `if (!done)` comes before a
// barrier and the loop has one back edge. PoCL 3.1 (Debian 12) miscompiles the other shape,
// `while (lanes_any(lanes, !done)) { ...; lanes_sync(lanes); if (!done) {...} }`: both arms of
// that `if` jump back to the head, PoCL puts its implicit loop-latch barrier in front of the
// branch and then takes the branch once for the work-group, on the last work-item's `done`; the
// other lanes never finish and the vote never ends (the hang of matchany and barrier there).
//
// matchany, CUDA's protocol: claim the slot (CAS empty -> locked), publish the key pointer, sync the lanes
// that probe the same slot (__match_any_sync + __syncwarp(mask)), then compare. OpenCL has neither
// match-any nor a masked barrier: the mask is computed with broadcasts, and the sync becomes a
// sub-group barrier taken (uniformly) in the rounds where two live lanes share a slot. A slot
// claimed in an earlier round may still read as locked without that barrier: the lane looks again
// in the next round instead of comparing against a stale key (the race of the original).
//
// barrier, the migrated SYCL protocol: a sub-group barrier between claim/publish and compare in
// every probe step. There, lanes that had found their slot returned and skipped later barriers (a
// barrier not reached by the whole sub-group is undefined). Here every lane stays in the loop
// until none is left, so each barrier is reached by all lanes; after it every claimed slot is
// published.
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active, lanes_t lanes) {
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = active ? (ulong)murmur_hash2(rseqs + pos, k) % size : 0;
    int done = !active;
    int more = lanes_any(lanes, !done);
    while (more) {
        const lassm_key prev = ht_claim(keys, slot, mine, done);
#if LASSM_PROTOCOL == LASSM_PROTO_MATCHANY
        const ulong peers = match_any(lanes, done ? ~0UL : slot);
        if (lanes_any(lanes, !done && popcount(peers) > 1)) lanes_sync(lanes);
#else
        lanes_sync(lanes);
#endif
        int other = 0;
        if (!done) done = ht_settle(keys, slot, prev, rseqs, pos, k, &other);
        if (other) slot = next_slot(slot, size);
        more = lanes_any(lanes, !done);
    }
    return slot;
}

#elif LASSM_PROTOCOL == LASSM_PROTO_DONEFLAG
// HIP's protocol (HIP has no match-any): every lane loops in lock-step with its own done flag,
// and a sub-group vote ends the loop when all are done. HIP relied on the wavefront's lock-step to
// order the claimer's pointer store before the others' compares; here a sub-group barrier between
// claim and compare makes that order explicit (the loop is uniform, so every lane reaches it).
ulong ht_insert(key_ptr keys, ulong size, __global const uchar *rseqs, long pos, int k,
                int active, lanes_t lanes) {
    const lassm_key mine = (lassm_key)(pos + 1);
    ulong slot = active ? (ulong)murmur_hash2(rseqs + pos, k) % size : 0;
    int done = !active;
    for (;;) {
        if (lanes_all(lanes, done)) break;
        const lassm_key prev = ht_claim(keys, slot, mine, done);
        lanes_sync(lanes);
        int advance = 0;
        if (!done) done = ht_settle(keys, slot, prev, rseqs, pos, k, &advance);
        if (lanes_all(lanes, done)) break;
        if (advance) slot = next_slot(slot, size);
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

#endif  // LASSM_HT_INSERT_H

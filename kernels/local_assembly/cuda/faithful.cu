// SPDX-License-Identifier: BSD-3-Clause
//
// MetaHipMer's local-assembly kernel (iterative_walks_kernel of the standalone ht_loc program),
// written anew from ../../../shared/spec/local-assembly.md for CUDA and HIP.
//
// One warp (a 64-lane wavefront on AMD) per contig end: the lanes insert the k-mers of one read
// at consecutive start positions, read after read, into the contig end's own open-addressing
// table; lane 0 then walks while the others wait; the k-shift loop runs on the device.
//
// The file compiles on its own (NVRTC, hipRTC, nvcc -c): every knob has a default below that a
// -D option overrides. The collision protocol is picked with
//   -DLASSM_PROTOCOL=LASSM_PROTO_CASPTR | LASSM_PROTO_MATCHANY | LASSM_PROTO_DONEFLAG | LASSM_PROTO_BARRIER
// (see book/kernel-protocols.md for what each one is, and what was changed to make it race-free),
// or LASSM_PROTO_FAST: this project's optimized variant (book/fast-kernel.md), which keeps
// casptr's lock-free claim but tags every key with the k iteration (no per-k table or visited
// reset), sizes each k's table to the k-mers that k inserts, and votes a slot only when the walk
// reaches it (no per-k scan of the table).

// ---------------------------------------------------------------------------------------------
// Platform and knobs
// ---------------------------------------------------------------------------------------------
#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define LASSM_HIP 1
#else
#define LASSM_HIP 0
#endif
// hipcc / clang -x hip compile the file as an ordinary translation unit, which must include the
// HIP runtime header for __forceinline__, threadIdx and the wavefront intrinsics; hipRTC (CuPy on
// ROCm, __HIPCC_RTC__) provides them itself, as NVRTC and nvcc do on CUDA.
#if LASSM_HIP && !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#endif

#ifndef WARP_SIZE
#if LASSM_HIP
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
#endif

#define LASSM_PROTO_CASPTR 0
#define LASSM_PROTO_MATCHANY 1
#define LASSM_PROTO_DONEFLAG 2
#define LASSM_PROTO_BARRIER 3
#define LASSM_PROTO_FAST 4
#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_CASPTR
#endif
#if LASSM_PROTOCOL < LASSM_PROTO_CASPTR || LASSM_PROTOCOL > LASSM_PROTO_FAST
#error "LASSM_PROTOCOL must be one of LASSM_PROTO_CASPTR, _MATCHANY, _DONEFLAG, _BARRIER, _FAST"
#endif

// MetaHipMer's constants (LASSM_* in its kernel header; lassm/config.py passes the same values).
#ifndef LASSM_MIN_QUAL
#define LASSM_MIN_QUAL 10
#endif
#ifndef LASSM_MIN_HI_QUAL
#define LASSM_MIN_HI_QUAL 20
#endif
#ifndef LASSM_MIN_VIABLE_DEPTH
#define LASSM_MIN_VIABLE_DEPTH 0.2
#endif
#ifndef LASSM_MIN_EXPECTED_DEPTH
#define LASSM_MIN_EXPECTED_DEPTH 0.3
#endif
#ifndef LASSM_RATING_THRES
#define LASSM_RATING_THRES 0
#endif
#ifndef LASSM_MIN_KMER_LEN
#define LASSM_MIN_KMER_LEN 21
#endif
#ifndef LASSM_SHIFT_SIZE
#define LASSM_SHIFT_SIZE 8
#endif
#ifndef LASSM_MAX_KMER_LEN
#define LASSM_MAX_KMER_LEN 121
#endif

// An unclaimed key length (the CAS-on-length protocols), as in MetaHipMer.
#define LASSM_EMPTY 0xFFFFFFFFu
// Bytes of one hash-table slot; the host sizes the table with the same number.
#define LASSM_SLOT_BYTES 48

// 1: build the published protocol as it was, races and all, to measure what the fixes cost and
// how often the races strike (the study only: results may differ from the oracle).
#ifndef LASSM_PUBLISHED
#define LASSM_PUBLISHED 0
#endif
#if LASSM_PUBLISHED && LASSM_PROTOCOL == LASSM_PROTO_CASPTR
#error "casptr has no published form: it is this project's race-free protocol"
#endif
#if LASSM_PUBLISHED && LASSM_PROTOCOL == LASSM_PROTO_FAST
#error "fast has no published form: it is this project's optimized variant"
#endif
#if LASSM_PUBLISHED && LASSM_PROTOCOL == LASSM_PROTO_BARRIER
#error "the published barrier protocol calls a warp barrier from divergent lanes, undefined on NVIDIA (it can hang): not built"
#endif

#if !LASSM_HIP && WARP_SIZE != 32 && !defined(LASSM_ALLOW_WIDE_WARP)
#error "an NVIDIA warp has 32 lanes: build with -DWARP_SIZE=32 (LASSM_ALLOW_WIDE_WARP only compile-checks the 64-lane code)"
#endif
// The device pass of an AMD build knows its wavefront width (64 on CDNA, 32 by default on RDNA);
// a WARP_SIZE that disagrees would make every vote and shuffle cover the wrong lanes.
#if LASSM_HIP && defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != WARP_SIZE
#error "WARP_SIZE differs from the target's wavefront width (__AMDGCN_WAVEFRONT_SIZE): pass the device's warpSize"
#endif
#if LASSM_PROTOCOL == LASSM_PROTO_MATCHANY && (LASSM_HIP || WARP_SIZE != 32)
#error "the matchany protocol needs __match_any_sync on 32-lane warps (CUDA, Volta or newer); HIP has no match-any: use doneflag, barrier or casptr"
#endif

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

// ---------------------------------------------------------------------------------------------
// Warp collectives: CUDA's *_sync forms, or HIP's wavefront forms (HIP has no masks and no
// __match_any_sync; a wavefront barrier with wavefront-scope fences stands in for __syncwarp).
// ---------------------------------------------------------------------------------------------
#if LASSM_HIP
__device__ __forceinline__ void lassm_wave_sync()
{
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#define LASSM_SYNCWARP() lassm_wave_sync()
#define LASSM_ALL(p) __all(p)
#define LASSM_ANY(p) __any(p)
#define LASSM_SHFL(v, src) __shfl((v), (src), WARP_SIZE)
#else
#define LASSM_FULL_MASK 0xFFFFFFFFu
#define LASSM_SYNCWARP() __syncwarp(LASSM_FULL_MASK)
#define LASSM_ALL(p) __all_sync(LASSM_FULL_MASK, (p))
#define LASSM_ANY(p) __any_sync(LASSM_FULL_MASK, (p))
#define LASSM_SHFL(v, src) __shfl_sync(LASSM_FULL_MASK, (v), (src), WARP_SIZE)
#endif

// One slot of a contig end's k-mer table. The key is (pointer into the read buffer, length),
// never a copy of the k-mer; the value is the two vote counters per base and the chosen extension.
struct alignas(16) ht_slot {
    u64 key_ptr;   // address of the k-mer's first base; 0 = not (yet) published
    u32 key_len;   // k once claimed, LASSM_EMPTY before (the CAS-on-length protocols claim here)
    u32 ext;       // 'A' 'C' 'G' 'T', or 'X' (dead end) / 'F' (fork), set by set_ext
    u32 low_q[4];  // votes with quality >= LASSM_MIN_QUAL (nvotes)
    u32 hi_q[4];   // votes with quality >= LASSM_MIN_HI_QUAL (nvotes_hi_q)
};
static_assert(sizeof(ht_slot) == LASSM_SLOT_BYTES, "the host sizes tables with LASSM_SLOT_BYTES");

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

#if LASSM_PROTOCOL != LASSM_PROTO_FAST
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
#endif

// ---------------------------------------------------------------------------------------------
// set_ext: the vote (MetaHipMer's MerFreqs::set_ext), in doubles with d = int(depth).
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ int base_rating(u32 nv, u32 hq, double min_viable, double min_expected)
{
    if (nv == 0u) return 0;
    if (nv == 1u) return 1;
    if (nv < min_viable) return 2;
    if (nv < min_expected) return hq < min_viable ? 3 : 4;
    if (hq < min_viable) return 5;
    if (min_viable < hq && hq < min_expected) return 6;
    return 7;
}

// Whether base x ranks before base y: by (rating, high-quality votes, votes), highest first.
__device__ __forceinline__ bool ranks_before(const int* rating, const u32* low, const u32* hi, int x, int y)
{
    if (rating[x] != rating[y]) return rating[x] > rating[y];
    if (hi[x] != hi[y]) return hi[x] > hi[y];
    return low[x] > low[y];
}

__device__ u32 set_ext(const u32* low, const u32* hi, int depth)
{
    const char bases[4] = {'A', 'C', 'G', 'T'};
    const double d = (double)depth;
    const double min_viable = fmax(LASSM_MIN_VIABLE_DEPTH * d, 2.0);
    const double min_expected = fmax(LASSM_MIN_EXPECTED_DEPTH * d, 2.0);
    int rating[4];
    int order[4];
    for (int b = 0; b < 4; ++b) {
        rating[b] = base_rating(low[b], hi[b], min_viable, min_expected);
        order[b] = b;
    }
    for (int i = 1; i < 4; ++i) {  // insertion sort of four
        for (int j = i; j > 0 && ranks_before(rating, low, hi, order[j], order[j - 1]); --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    const int b0 = order[0], b1 = order[1], b2 = order[2];
    const int top = rating[b0], runner = rating[b1];
    if (top <= LASSM_RATING_THRES) return 'X';
    if (top <= 3) return runner == 0 ? bases[b0] : 'X';
    if (top < 6) return runner < 3 ? bases[b0] : 'X';
    if (top == 6) return runner < 4 ? bases[b0] : 'X';
    if (runner < 7) return bases[b0];
    if (rating[b2] == 7 || low[b0] == low[b1]) return 'F';
    return low[b0] > low[b1] ? bases[b0] : bases[b1];
}

#if LASSM_PROTOCOL != LASSM_PROTO_FAST
// ---------------------------------------------------------------------------------------------
// count_mers (Algorithm 1): the warp builds the table at k, then votes every used slot.
// Returns the number of k-mers inserted (the same value in every lane).
// ---------------------------------------------------------------------------------------------
__device__ i64 count_mers(ht_slot* ht, u32 size, const u8* seqs, const u8* quals, const i64* rd_off,
                          i64 r0, i64 r1, int k, int qual_offset, int depth, int lane)
{
    i64 n_ins = 0;
    for (i64 j = r0; j < r1; ++j) {
        const i64 a = rd_off[j];
        const int num_mers = (int)(rd_off[j + 1] - a) - k;  // the last k-mer is never inserted
        if (num_mers <= 0) continue;
        n_ins += num_mers;
        const u8* read = seqs + a;
        const u8* qual = quals + a;
        // Warp-uniform trip count: every lane reaches every collective inside ht_insert.
        for (int base = 0; base < num_mers; base += WARP_SIZE) {
            const int s = base + lane;
            const bool active = s < num_mers;
            const u32 h = active ? murmur_hash2(read + s, k) : 0u;
            const int slot = ht_insert(ht, size, read + s, k, h, active);
            if (active) {
                const int b = base_index(read[s + k]);
                if (b >= 0) {
                    const int q = (int)qual[s + k] - qual_offset;
                    if (q >= LASSM_MIN_QUAL) atomicAdd(&ht[slot].low_q[b], 1u);
                    if (q >= LASSM_MIN_HI_QUAL) atomicAdd(&ht[slot].hi_q[b], 1u);
                }
            }
        }
    }
    LASSM_SYNCWARP();
    for (u32 i = (u32)lane; i < size; i += WARP_SIZE) {
        ht_slot* e = &ht[i];
        if (slot_used(e)) e->ext = set_ext(e->low_q, e->hi_q, depth);
    }
    LASSM_SYNCWARP();
    return n_ins;
}

// ---------------------------------------------------------------------------------------------
// walk_mers (Algorithm 2), one lane: walk from the k-mer wbuf[0, k), appending to wbuf.
// `visited` (max_walk slots of pointers into wbuf, 0 = empty) records the k-mers seen.
// ---------------------------------------------------------------------------------------------
__device__ u8 walk_mers(const ht_slot* ht, u32 size, u64* visited, int max_walk, u8* wbuf, int k, int* walk_len)
{
    int wl = 0;
    for (int step = 0; step < max_walk; ++step) {
        const u8* mer = wbuf + wl;
        const u32 h = murmur_hash2(mer, k);
        u32 v = h % (u32)max_walk;
        while (true) {  // visited? (fewer than max_walk entries, so an empty slot exists)
            const u64 kp = visited[v];
            if (kp == 0ull) break;
            if (kmer_eq((const u8*)kp, mer, k)) {
                *walk_len = wl;
                return 'R';
            }
            v = next_slot(v, (u32)max_walk);
        }
        visited[v] = (u64)mer;
        const int slot = ht_find(ht, size, mer, k, h);
        if (slot < 0) {
            *walk_len = wl;
            return 'X';
        }
        const u32 ext = ht[slot].ext;
        if (ext == 'X' || ext == 'F') {
            *walk_len = wl;
            return (u8)ext;
        }
        wbuf[wl + k] = (u8)ext;
        ++wl;
    }
    *walk_len = wl;
    return 'X';
}

// ---------------------------------------------------------------------------------------------
// iterative_walks_kernel: one warp per contig end; the k-shift loop.
//
// Contig end i: bases ctg_seqs[ctg_off[i], ctg_off[i+1]) (already oriented), reads
// rd_cnt_off[i] .. rd_cnt_off[i+1]-1 of (rd_seqs, rd_quals, rd_off), table
// ht[ht_off[i], ht_off[i+1]), visited[i*max_walk, ...), scratch walk_tmp[i*walk_stride, ...),
// kept walk walks[i*max_walk, ...). Read and scratch buffers carry 8 bytes of padding.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void iterative_walks_kernel(
    const u8* __restrict__ ctg_seqs, const i64* __restrict__ ctg_off, const double* __restrict__ depths,
    const u8* __restrict__ rd_seqs, const u8* __restrict__ rd_quals, const i64* __restrict__ rd_off,
    const i64* __restrict__ rd_cnt_off, ht_slot* ht, const i64* __restrict__ ht_off, u64* visited,
    u8* walk_tmp, u8* walks, int* walk_len, int* final_k, u8* term, int* n_k, i64* steps,
    i64* insertions, i64* start_insertions, int n_ends, int start_k, int max_walk, int qual_offset,
    int walk_stride)
{
    const int lane = (int)(threadIdx.x % WARP_SIZE);
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    if (warp >= n_ends) return;  // whole warps leave together: blockDim is a multiple of WARP_SIZE

    const u8* ctg = ctg_seqs + ctg_off[warp];
    const int clen = (int)(ctg_off[warp + 1] - ctg_off[warp]);
    const int depth = (int)depths[warp];
    const i64 r0 = rd_cnt_off[warp], r1 = rd_cnt_off[warp + 1];
    ht_slot* table = ht + ht_off[warp];
    const u32 size = (u32)(ht_off[warp + 1] - ht_off[warp]);
    u64* seen = visited + warp * (i64)max_walk;
    u8* wbuf = walk_tmp + warp * (i64)walk_stride;
    u8* best = walks + warp * (i64)max_walk;

    const int max_k = min(LASSM_MAX_KMER_LEN, clen);
    int best_len = 0, best_k = 0, best_term = 0, last_term = 0, nk = 0;
    i64 n_steps = 0, n_ins = 0, start_ins = 0;
    int shift = 0;
    for (int k = start_k; k >= LASSM_MIN_KMER_LEN && k <= max_k; k += shift) {
        for (u32 i = (u32)lane; i < size; i += WARP_SIZE) reset_slot(&table[i]);
        for (int i = lane; i < max_walk; i += WARP_SIZE) seen[i] = 0ull;
        LASSM_SYNCWARP();
        const i64 ins = count_mers(table, size, rd_seqs, rd_quals, rd_off, r0, r1, k, qual_offset, depth, lane);
        if (nk == 0) start_ins = ins;
        n_ins += ins;
        ++nk;
        int stop = 0;
        if (lane == 0) {
            for (int i = 0; i < k; ++i) wbuf[i] = ctg[clen - k + i];
            int wl = 0;
            const u8 t = walk_mers(table, size, seen, max_walk, wbuf, k, &wl);
            n_steps += wl;
            last_term = t;
            if (wl > best_len) {  // ties keep the earlier k
                for (int i = 0; i < wl; ++i) best[i] = wbuf[k + i];
                best_len = wl;
                best_k = k;
                best_term = t;
            }
            if (t == 'X') {  // dead end: down-shift, unless we were up-shifting
                if (shift == LASSM_SHIFT_SIZE) stop = 1;
                shift = -LASSM_SHIFT_SIZE;
            } else {  // fork or repeat: up-shift, unless we were down-shifting
                if (shift == -LASSM_SHIFT_SIZE) stop = 1;
                shift = LASSM_SHIFT_SIZE;
            }
        }
        shift = LASSM_SHFL(shift, 0);
        stop = LASSM_SHFL(stop, 0);
        LASSM_SYNCWARP();  // lane 0's reads of the tables come before the next reset
        if (stop) break;
    }
    if (lane == 0) {
        walk_len[warp] = best_len;
        final_k[warp] = best_k;
        term[warp] = (u8)(best_len > 0 ? best_term : last_term);
        n_k[warp] = nk;
        steps[warp] = n_steps;
        insertions[warp] = n_ins;
        start_insertions[warp] = start_ins;
    }
}
#endif  // LASSM_PROTOCOL != LASSM_PROTO_FAST

#if LASSM_PROTOCOL == LASSM_PROTO_FAST
// =============================================================================================
// fast: the optimized variant (book/fast-kernel.md). Same claim as casptr (CAS on the key word,
// compare through the key the CAS returned); what each k costs is cut five ways:
//
//  1. Epoch-tagged keys. A slot's key word is (epoch << 48) | (offset of the k-mer in the read
//     buffer); epoch is the k iteration plus one, so a slot whose epoch is not the current one is
//     empty. No table reset per k: the lane that claims a slot zeroes its votes, and a warp
//     barrier between the claims and the votes of every insert round orders that zeroing before
//     any vote into the slot.
//  2. Per-k table size: the k-mers this k inserts, n = sum over reads of (len - k), give a table
//     of the power of two >= 2n (at most the host's slots, a power of two), masked, not divided.
//  3. No vote scan: set_ext runs only on the slots the walk reaches (it is a pure function of
//     the votes and the depth, so the walk sees the same extension the scan would have stored).
//  4. The walk in shared memory: the walk buffer and the visited set (16-bit offsets into the
//     walk buffer, cleared per k) live in the block's dynamic shared memory, so the serial walk's
//     hashing, visited probes and compares stop paying global-memory latency.
//  5. Flat inserts: the lanes take consecutive k-mers across read boundaries (32 reads' k-mer
//     counts scanned at a time), so a round of 32 inserts is full however long the reads are.
//  6. Fewer dependent loads per k-mer: the hash carries each aligned word to the next step (one
//     load per 4 bases instead of two), the compare loads 4 words of both k-mers before it tests
//     them (the faithful compare's early exit after every word makes each load wait for the one
//     before: 20 round trips to L1 or L2 for a 77-mer, 5 here), and the walk's find loads a
//     slot's votes with its key. (Chunks of 8 predicated words were tried and were slower:
//     logs/fast_8word_compare_bench.log.)
//  7. Short walks need no table: a walk step needs only the votes of one k-mer, which the warp
//     can count by scanning the reads for it (a one-word prefix test per position, the full
//     compare on a match). The first LASSM_FAST_SCAN_STEPS steps at each k scan; a walk still
//     going after them builds the table and goes on with it. Most walks end within a few steps
//     at most k (the sample: a median of one step per k), so most tables are never built. The
//     votes are the same counts either way, and a k-mer that no read holds votes 'X' both ways.
//  8. (host) Both sides and every bin in one launch, the ends with the most read bases first.
//  9. Block teams: the first n_team ends of a launch (the host's heaviest) get a whole block each,
//     whose warps share the inserts and the scans; the others get a warp each (see Team below).
//
// The host zeroes the table once (epoch 0 never occurs), allocates a power-of-two number of
// slots per contig end, and passes the shared memory lassm.backends.cuda.fast_shared_bytes says.
//
// Ablation: each change can be undone alone at compile time (lassm/nvrtc.py names the builds):
//   LASSM_FAST_RESET=1        reset the whole table per k, as casptr (epoch tags stay harmless);
//   LASSM_FAST_FULL_TABLE=1   use all the host's slots at every k;
//   LASSM_FAST_SCAN=1         vote every used slot after counting (casptr's scan), walk reads ext;
//   LASSM_FAST_GLOBAL_WALK=1  walk buffer and visited set in global memory (epoch-tagged visited);
//   LASSM_FAST_PER_READ=1     insert read by read (casptr's rounds; partial rounds at read ends);
//   LASSM_FAST_PLAIN_BYTES=1  hash and compare with the faithful murmur_hash2 and kmer_eq;
//   LASSM_FAST_SCAN_STEPS=0   build the table at every k (no table-free walk steps).
// and on the host: MetaHipMer's launches instead of one (fast-bins), warp teams only (fast-warps).
// =============================================================================================
#ifndef LASSM_FAST_RESET
#define LASSM_FAST_RESET 0
#endif
#ifndef LASSM_FAST_FULL_TABLE
#define LASSM_FAST_FULL_TABLE 0
#endif
#ifndef LASSM_FAST_SCAN
#define LASSM_FAST_SCAN 0
#endif
#ifndef LASSM_FAST_GLOBAL_WALK
#define LASSM_FAST_GLOBAL_WALK 0
#endif
#ifndef LASSM_FAST_PER_READ
#define LASSM_FAST_PER_READ 0
#endif
#ifndef LASSM_FAST_PLAIN_BYTES
#define LASSM_FAST_PLAIN_BYTES 0
#endif
// Walk steps per k taken by scanning the reads before the table is built (change 7).
#ifndef LASSM_FAST_SCAN_STEPS
#define LASSM_FAST_SCAN_STEPS 4
#endif

#define LASSM_FAST_OFF_MASK ((1ull << 48) - 1ull)

#if LASSM_HIP
#define LASSM_SHFL_XOR(v, m) __shfl_xor((v), (m), WARP_SIZE)
#define LASSM_SHFL_UP(v, d) __shfl_up((v), (d), WARP_SIZE)
#else
#define LASSM_SHFL_XOR(v, m) __shfl_xor_sync(LASSM_FULL_MASK, (v), (m), WARP_SIZE)
#define LASSM_SHFL_UP(v, d) __shfl_up_sync(LASSM_FULL_MASK, (v), (d), WARP_SIZE)
#endif

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

// Insert-or-find key[0, k) (hash h) in the table of mask + 1 slots at epoch `tag` (already
// shifted into the top 16 bits); one active lane. A lane that claims a slot zeroes its votes.
__device__ __forceinline__ u32 fast_insert(ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k, u32 h,
                                           u64 tag)
{
    const u64 want = tag | (u64)(key - seqs);
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
        if (fast_kmer_eq(seqs + (cur & LASSM_FAST_OFF_MASK), key, k)) return s;
        s = (s + 1u) & mask;
    }
}

// The walk's find (one thread): the votes of key[0, k) at epoch `tag`, loaded together with the
// key word of every slot probed, so that a hit costs one round trip for both; false if absent.
__device__ __forceinline__ bool fast_find_votes(const ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k,
                                                u32 h, u64 tag, u32* low, u32* high)
{
    u32 s = h & mask;
    while (true) {
        const uint4* q = (const uint4*)&ht[s];
        const uint4 head = q[0], lo = q[1], hi = q[2];
        const u64 cur = ((u64)head.y << 32) | (u64)head.x;
        if ((cur & ~LASSM_FAST_OFF_MASK) != tag) return false;
        if (fast_kmer_eq(seqs + (cur & LASSM_FAST_OFF_MASK), key, k)) {
            low[0] = lo.x, low[1] = lo.y, low[2] = lo.z, low[3] = lo.w;
            high[0] = hi.x, high[1] = hi.y, high[2] = hi.z, high[3] = hi.w;
            return true;
        }
        s = (s + 1u) & mask;
    }
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

// ---------------------------------------------------------------------------------------------
// Teams (change 9). A contig end is walked by a team: one warp, or, for the ends with the most
// read bases, a whole block. The team's threads share the inserts and the table-free scans; the
// walk with a table stays one thread's. Team<false> is a warp, Team<true> a block whose warps
// meet at __syncthreads and sum through `scratch` (32 x 8 words of shared memory).
// ---------------------------------------------------------------------------------------------
template <bool BLOCK> struct Team;

template <> struct Team<false> {
    int tid;  // lane
    __device__ explicit Team(u64*) : tid((int)(threadIdx.x % WARP_SIZE)) {}
    __device__ __forceinline__ int size() const { return WARP_SIZE; }
    __device__ __forceinline__ int warp() const { return 0; }
    __device__ __forceinline__ void sync() const { LASSM_SYNCWARP(); }
    __device__ __forceinline__ int bcast(int v) const { return LASSM_SHFL(v, 0); }
    __device__ __forceinline__ i64 sum(i64 v) const
    {
        for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += LASSM_SHFL_XOR(v, o);
        return v;
    }
    __device__ __forceinline__ void sum8(u32* c) const
    {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            for (int o = WARP_SIZE / 2; o > 0; o /= 2) c[i] += LASSM_SHFL_XOR(c[i], o);
    }
};

template <> struct Team<true> {
    int tid;
    u64* scratch;
    __device__ explicit Team(u64* s) : tid((int)threadIdx.x), scratch(s) {}
    __device__ __forceinline__ int size() const { return (int)blockDim.x; }
    __device__ __forceinline__ int warp() const { return tid / WARP_SIZE; }
    __device__ __forceinline__ void sync() const { __syncthreads(); }
    __device__ __forceinline__ int bcast(int v) const
    {
        if (tid == 0) scratch[0] = (u64)(unsigned)v;
        __syncthreads();
        const int out = (int)(unsigned)scratch[0];
        __syncthreads();
        return out;
    }
    __device__ __forceinline__ i64 sum(i64 v) const
    {
        for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += LASSM_SHFL_XOR(v, o);
        if (tid % WARP_SIZE == 0) scratch[warp()] = (u64)v;
        __syncthreads();
        i64 out = 0;
        for (int w = 0; w < size() / WARP_SIZE; ++w) out += (i64)scratch[w];
        __syncthreads();
        return out;
    }
    __device__ __forceinline__ void sum8(u32* c) const
    {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            for (int o = WARP_SIZE / 2; o > 0; o /= 2) c[i] += LASSM_SHFL_XOR(c[i], o);
        if (tid % WARP_SIZE == 0)
#pragma unroll
            for (int i = 0; i < 8; ++i) scratch[warp() * 8 + i] = c[i];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            u32 t = 0u;
            for (int w = 0; w < size() / WARP_SIZE; ++w) t += (u32)scratch[w * 8 + i];
            c[i] = t;
        }
        __syncthreads();
    }
};

// One round of inserts: the claim (or find) of the k-mer at read + s, a team barrier that orders
// every claimer's zeroing before any vote, then its votes. Team-uniform: every thread calls it,
// `active` or not.
template <bool BLOCK>
__device__ __forceinline__ void fast_insert_round(const Team<BLOCK>& team, ht_slot* ht, u32 mask, const u8* seqs,
                                                  const u8* read, const u8* qual, int s, int k, int qual_offset,
                                                  u64 tag, bool active)
{
    u32 slot = 0u;
    if (active) slot = fast_insert(ht, mask, seqs, read + s, k, fast_hash(read + s, k), tag);
    team.sync();
    if (active) {
        const int b = base_index(read[s + k]);
        if (b >= 0) {
            const int q = (int)qual[s + k] - qual_offset;
            if (q >= LASSM_MIN_QUAL) atomicAdd(&ht[slot].low_q[b], 1u);
            if (q >= LASSM_MIN_HI_QUAL) atomicAdd(&ht[slot].hi_q[b], 1u);
        }
    }
}

// Flat k-mer positions over a group of WARP_SIZE reads g .. g+WARP_SIZE-1 (below r1): lane i gets
// read g+i's k-mer count in *m and returns the inclusive prefix sum of the counts. Every warp of a
// team computes it for itself.
__device__ __forceinline__ int fast_group_prefix(const i64* rd_off, i64 g, i64 r1, int k, int lane, int* m)
{
    const i64 j = g + lane;
    *m = j < r1 ? max((int)(rd_off[j + 1] - rd_off[j]) - k, 0) : 0;
    int incl = *m;
    for (int d = 1; d < WARP_SIZE; d *= 2) {
        const int up = LASSM_SHFL_UP(incl, d);
        if (lane >= d) incl += up;
    }
    return incl;
}

// The read (its lane number in the group) that holds flat position x, and x's position in it:
// a binary search for the first lane whose inclusive sum exceeds x. Warp-uniform.
__device__ __forceinline__ int fast_flat_read(int incl, int m, int x, int* pos)
{
    int lo = 0;
    for (int step = WARP_SIZE / 2; step > 0; step /= 2) {
        const int probe = LASSM_SHFL(incl, lo + step - 1);
        if (probe <= x) lo += step;
    }
    *pos = x - (LASSM_SHFL(incl, lo) - LASSM_SHFL(m, lo));
    return lo;
}

// Algorithm 1 without the reset and without the vote scan: the team inserts every k-mer of the
// reads r0 .. r1-1 (the last k-mer of a read is never inserted) and casts its votes. Round r of
// a group gives warp w of the team the flat positions r * size + w * WARP_SIZE + lane.
template <bool BLOCK>
__device__ void fast_count_mers(const Team<BLOCK>& team, ht_slot* ht, u32 mask, const u8* seqs, const u8* quals,
                                const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset, u64 tag)
{
    const int lane = team.tid % WARP_SIZE, step = team.size();
#if LASSM_FAST_PER_READ
    for (i64 j = r0; j < r1; ++j) {
        const i64 a = rd_off[j];
        const int num_mers = (int)(rd_off[j + 1] - a) - k;
        for (int base = 0; base < num_mers; base += step)  // team-uniform: the barrier
            fast_insert_round(team, ht, mask, seqs, seqs + a, quals + a, base + team.tid, k, qual_offset, tag,
                              base + team.tid < num_mers);
    }
#else
    for (i64 g = r0; g < r1; g += WARP_SIZE) {
        int m;
        const int incl = fast_group_prefix(rd_off, g, r1, k, lane, &m);
        const int total = LASSM_SHFL(incl, WARP_SIZE - 1);
        for (int base = 0; base < total; base += step) {  // team-uniform: the barrier
            const int x = base + team.warp() * WARP_SIZE + lane;
            int s;
            const int r = fast_flat_read(incl, m, x, &s);
            const bool active = x < total;
            const i64 a = active ? rd_off[g + r] : 0;
            fast_insert_round(team, ht, mask, seqs, seqs + a, quals + a, s, k, qual_offset, tag, active);
        }
    }
#endif
    team.sync();
}

#if LASSM_FAST_SCAN
// The faithful vote scan, kept for the ablation: every slot claimed at this epoch gets its ext.
template <bool BLOCK>
__device__ void fast_vote_scan(const Team<BLOCK>& team, ht_slot* ht, u32 size, u64 tag, int depth)
{
    for (u32 i = (u32)team.tid; i < size; i += (u32)team.size()) {
        ht_slot* e = &ht[i];
        if ((e->key_ptr & ~LASSM_FAST_OFF_MASK) == tag) e->ext = set_ext(e->low_q, e->hi_q, depth);
    }
    team.sync();
}
#endif

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

// Algorithm 2 with the table, one lane, going on from walk offset wl0 (the steps before it were
// taken by scanning): the extension is voted on the spot.
__device__ u8 fast_walk(const ht_slot* ht, u32 mask, const u8* seqs, u64 tag, u32 epoch, fast_visit_t* visited,
                        u32 vslots, int max_walk, u8* wbuf, int k, int depth, int wl0, int* walk_len)
{
    int wl = wl0;
    for (int step = wl0; step < max_walk; ++step) {
        const u8* mer = wbuf + wl;
        const u32 h = fast_hash(mer, k);
        if (fast_seen(visited, vslots, epoch, wbuf, mer, k, h, wl)) {
            *walk_len = wl;
            return 'R';
        }
#if LASSM_FAST_SCAN
        const int slot = fast_find(ht, mask, seqs, mer, k, h, tag);
        if (slot < 0) {
            *walk_len = wl;
            return 'X';
        }
        const u32 ext = ht[slot].ext;
#else
        u32 low[4], high[4];
        if (!fast_find_votes(ht, mask, seqs, mer, k, h, tag, low, high)) {
            *walk_len = wl;
            return 'X';
        }
        const u32 ext = set_ext(low, high, depth);
#endif
        if (ext == 'X' || ext == 'F') {
            *walk_len = wl;
            return (u8)ext;
        }
        wbuf[wl + k] = (u8)ext;
        ++wl;
    }
    *walk_len = wl;
    return 'X';
}

// A walk step without a table (change 7), team-wide: the votes of mer[0, k) counted over every
// inserted position of the reads r0 .. r1-1 (a one-word prefix test, then the full compare),
// summed over the team, and voted by set_ext. Returns the extension in every thread.
template <bool BLOCK>
__device__ u32 fast_scan_ext(const Team<BLOCK>& team, const u8* seqs, const u8* quals, const i64* rd_off, i64 r0,
                             i64 r1, const u8* mer, int k, int qual_offset, int depth)
{
    const int lane = team.tid % WARP_SIZE, step = team.size();
    u32 msh;
    const u32* mw = aligned_base(mer, &msh);
    const u32 first = fast_funnel(mw[0], mw[1], msh);  // k >= 21: a whole word
    u32 c[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};  // low_q[4], hi_q[4]
    for (i64 g = r0; g < r1; g += WARP_SIZE) {
        int m;
        const int incl = fast_group_prefix(rd_off, g, r1, k, lane, &m);
        const int total = LASSM_SHFL(incl, WARP_SIZE - 1);
        for (int base = 0; base < total; base += step) {
            const int x = base + team.warp() * WARP_SIZE + lane;
            int s;
            const int r = fast_flat_read(incl, m, x, &s);
            if (x >= total) continue;
            const i64 at = rd_off[g + r] + s;
            const u8* p = seqs + at;
            u32 psh;
            const u32* pw = aligned_base(p, &psh);
            if (fast_funnel(pw[0], pw[1], psh) != first || !fast_kmer_eq(p, mer, k)) continue;
            const int b = base_index(p[k]);
            if (b < 0) continue;
            const int q = (int)quals[at + k] - qual_offset;
            const u32 low = q >= LASSM_MIN_QUAL ? 1u : 0u, high = q >= LASSM_MIN_HI_QUAL ? 1u : 0u;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                c[i] += b == i ? low : 0u;
                c[4 + i] += b == i ? high : 0u;
            }
        }
    }
    team.sum8(c);
    u32 ext = 0u;
    if (team.tid == 0) ext = set_ext(c, c + 4, depth);
    return (u32)team.bcast((int)ext);
}

// Per-launch shared memory of a block: each warp's walk buffer, then each warp's visited set,
// then the team scratch (32 x 8 words). A block team uses warp 0's buffers.
struct FastShared {
    u8* wbuf;
    fast_visit_t* seen;
    u64* scratch;
};

// One contig end, walked by `team`: the k-shift loop of the faithful kernel, with the changes
// above. Writes the end's outputs from thread 0.
template <bool BLOCK>
__device__ void fast_end(const Team<BLOCK>& team, i64 e, FastShared sh, const u8* ctg_seqs, const i64* ctg_off,
                         const double* depths, const u8* rd_seqs, const u8* rd_quals, const i64* rd_off,
                         const i64* rd_cnt_off, ht_slot* ht, const i64* ht_off, u8* walks, int* walk_len,
                         int* final_k, u8* term, int* n_k, i64* steps, i64* insertions, i64* start_insertions,
                         int start_k, int max_walk, int qual_offset)
{
    const int tid = team.tid, T = team.size();
    const u8* ctg = ctg_seqs + ctg_off[e];
    const int clen = (int)(ctg_off[e + 1] - ctg_off[e]);
    const int depth = (int)depths[e];
    const i64 r0 = rd_cnt_off[e], r1 = rd_cnt_off[e + 1];
    ht_slot* table = ht + ht_off[e];
    const u64 cap = (u64)(ht_off[e + 1] - ht_off[e]);
    u8* best = walks + e * (i64)max_walk;
    const u32 vslots = fast_visited_slots(max_walk);
    u8* wbuf = sh.wbuf;
    fast_visit_t* seen = sh.seen;

    const int max_k = min(LASSM_MAX_KMER_LEN, clen);
    int best_len = 0, best_k = 0, best_term = 0, last_term = 0, nk = 0;
    i64 n_steps = 0, n_ins = 0, start_ins = 0;
    int shift = 0;
    for (int k = start_k; k >= LASSM_MIN_KMER_LEN && k <= max_k; k += shift) {
        const u32 epoch = (u32)nk + 1u;
        const u64 tag = (u64)epoch << 48;
#if LASSM_FAST_RESET
        for (u64 i = (u64)tid; i < cap; i += (u64)T) {
            uint4* q = (uint4*)&table[i];
            q[0] = make_uint4(0u, 0u, 0u, 0u);
            q[1] = make_uint4(0u, 0u, 0u, 0u);
            q[2] = make_uint4(0u, 0u, 0u, 0u);
        }
#endif
#if !LASSM_FAST_GLOBAL_WALK
        for (u32 i = (u32)tid; i < vslots / 2u; i += (u32)T) ((u32*)seen)[i] = 0u;
#endif
        for (int i = tid; i < k; i += T) wbuf[i] = ctg[clen - k + i];
        team.sync();  // the clears and the start k-mer before the walk
        // The k-mers this k inserts (the same sum count_mers returns), reduced over the team.
        i64 ins = 0;
        for (i64 j = r0 + tid; j < r1; j += T) {
            const int m = (int)(rd_off[j + 1] - rd_off[j]) - k;
            if (m > 0) ins += m;
        }
        ins = team.sum(ins);
#if LASSM_FAST_FULL_TABLE
        const u64 size = cap;
#else
        // The power of two >= 2 * ins, at most cap: more slots than distinct k-mers either way.
        u64 size = 1ull;
        while (size < 2ull * (u64)ins && size * 2ull <= cap) size *= 2ull;
#endif
        const u32 mask = (u32)(size - 1ull);
        if (nk == 0) start_ins = ins;
        n_ins += ins;
        ++nk;
        // The first steps by scanning the reads (team-uniform: every thread holds wl and t) ...
        int wl = 0;
        u8 t = 0;
        for (int step = 0; step < LASSM_FAST_SCAN_STEPS; ++step) {
            if (wl == max_walk) {
                t = 'X';
                break;
            }
            const u8* mer = wbuf + wl;
            int rep = 0;
            if (tid == 0) rep = fast_seen(seen, vslots, epoch, wbuf, mer, k, fast_hash(mer, k), wl) ? 1 : 0;
            if (team.bcast(rep)) {
                t = 'R';
                break;
            }
            const u32 ext = fast_scan_ext(team, rd_seqs, rd_quals, rd_off, r0, r1, mer, k, qual_offset, depth);
            if (ext == 'X' || ext == 'F') {
                t = (u8)ext;
                break;
            }
            if (tid == 0) wbuf[wl + k] = (u8)ext;
            team.sync();
            ++wl;
        }
        // ... and a walk still going builds the table and goes on with it (thread 0).
        if (t == 0) {
            fast_count_mers(team, table, mask, rd_seqs, rd_quals, rd_off, r0, r1, k, qual_offset, tag);
#if LASSM_FAST_SCAN
            fast_vote_scan(team, table, (u32)size, tag, depth);
#endif
            if (tid == 0) t = fast_walk(table, mask, rd_seqs, tag, epoch, seen, vslots, max_walk, wbuf, k, depth, wl, &wl);
        }
        int stop = 0;
        if (tid == 0) {
            n_steps += wl;
            last_term = t;
            if (wl > best_len) {  // ties keep the earlier k
                for (int i = 0; i < wl; ++i) best[i] = wbuf[k + i];
                best_len = wl;
                best_k = k;
                best_term = t;
            }
            if (t == 'X') {  // dead end: down-shift, unless we were up-shifting
                if (shift == LASSM_SHIFT_SIZE) stop = 1;
                shift = -LASSM_SHIFT_SIZE;
            } else {  // fork or repeat: up-shift, unless we were down-shifting
                if (shift == -LASSM_SHIFT_SIZE) stop = 1;
                shift = LASSM_SHIFT_SIZE;
            }
        }
        shift = team.bcast(shift);
        stop = team.bcast(stop);
        team.sync();  // thread 0's reads of the table and the walk buffer before the next k's writes
        if (stop) break;
    }
    if (tid == 0) {
        walk_len[e] = best_len;
        final_k[e] = best_k;
        term[e] = (u8)(best_len > 0 ? best_term : last_term);
        n_k[e] = nk;
        steps[e] = n_steps;
        insertions[e] = n_ins;
        start_insertions[e] = start_ins;
    }
}

// The kernel, the faithful one's arguments (see there) plus n_team: blocks 0 .. n_team-1 each
// walk contig end blockIdx.x as one team (the host puts the ends with the most read bases first);
// every later block gives each of its warps one end, from n_team on. ht_off must give every
// contig end a power-of-two number of slots, ht must arrive zeroed, and the launch must carry
// blockDim / WARP_SIZE * (walk_stride + 2 * fast_visited_slots(max_walk)) + 2048 bytes of dynamic
// shared memory (lassm.backends.cuda.fast_shared_bytes; LASSM_FAST_GLOBAL_WALK: only the 2048, and
// fast_visited_slots(max_walk) zeroed visited entries per contig end in `visited`).
extern "C" __global__ void iterative_walks_kernel(
    const u8* __restrict__ ctg_seqs, const i64* __restrict__ ctg_off, const double* __restrict__ depths,
    const u8* __restrict__ rd_seqs, const u8* __restrict__ rd_quals, const i64* __restrict__ rd_off,
    const i64* __restrict__ rd_cnt_off, ht_slot* ht, const i64* __restrict__ ht_off, u64* visited,
    u8* walk_tmp, u8* walks, int* walk_len, int* final_k, u8* term, int* n_k, i64* steps,
    i64* insertions, i64* start_insertions, int n_ends, int start_k, int max_walk, int qual_offset,
    int walk_stride, int n_team)
{
    extern __shared__ __align__(16) u8 lassm_smem[];
    const int w = (int)(threadIdx.x / WARP_SIZE), nw = (int)(blockDim.x / WARP_SIZE);
    const bool block_team = (int)blockIdx.x < n_team;
    const i64 e = block_team ? (i64)blockIdx.x : (i64)n_team + ((i64)blockIdx.x - n_team) * nw + w;
    if (e >= n_ends) return;  // whole warps of warp-team blocks only: a block team's end exists
    const u32 vslots = fast_visited_slots(max_walk);
    FastShared sh;
#if LASSM_FAST_GLOBAL_WALK
    sh.wbuf = walk_tmp + e * (i64)walk_stride;
    sh.seen = visited + e * (i64)vslots;
    sh.scratch = (u64*)lassm_smem;
#else
    const int owner = block_team ? 0 : w;  // whose buffers the team uses
    sh.wbuf = lassm_smem + owner * walk_stride;
    sh.seen = (fast_visit_t*)(lassm_smem + nw * walk_stride) + owner * vslots;
    sh.scratch = (u64*)(lassm_smem + nw * walk_stride + nw * vslots * 2u);
#endif
    if (block_team) {
        const Team<true> team(sh.scratch);
        fast_end(team, e, sh, ctg_seqs, ctg_off, depths, rd_seqs, rd_quals, rd_off, rd_cnt_off, ht, ht_off, walks,
                 walk_len, final_k, term, n_k, steps, insertions, start_insertions, start_k, max_walk, qual_offset);
    } else {
        const Team<false> team(sh.scratch);
        fast_end(team, e, sh, ctg_seqs, ctg_off, depths, rd_seqs, rd_quals, rd_off, rd_cnt_off, ht, ht_off, walks,
                 walk_len, final_k, term, n_k, steps, insertions, start_insertions, start_k, max_walk, qual_offset);
    }
}
#endif  // LASSM_PROTOCOL == LASSM_PROTO_FAST

// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's sorted table (LASSM_FAST_SORTED=1, the build `fast` launches): a contig end's k-mer
// table built by sorting instead of hashing at every k up to LASSM_SORT_MAX_K, in the team's shared
// memory where the end's records fit, else in the end's own table memory (sort_region).
//
// A record is W = sort_words(k) 64-bit words: the k-mer, two bits a base, the newest base lowest,
// in words 0 .. W-1 (SortKey<W>), and its vote, (base << 1) | (quality >= LASSM_MIN_HI_QUAL), in
// the top three bits of word W-1. One word holds k <= 30, two k <= 62, three k <= 94 and four
// k <= 126, so every k MetaHipMer uses (21, 33, 55, 77, 99) sorts; each W is a template instance.
//
//   sort_count_mers   Algorithm 1 by a counting sort: every (k-mer, vote) of the end's reads
//                     packed into one record, and bucketed by a hash digit of the
//                     k-mer, so that the votes of one k-mer lie in one bucket. Two passes over the
//                     reads: the first counts each bucket's records, a scan turns the counts into
//                     bucket starts, the second places each record. No slot is claimed and no key
//                     compared; the only atomics are the counting sort's bucket counters.
//                     The counting pass also votes the walk's start k-mer: where that ends the
//                     walk at once, nothing is placed.
//   sorted_walk       Algorithm 2 with the sorted records: a k-mer's votes are the records of its
//                     bucket whose key is the k-mer, counted by the whole warp (the warp's
//                     reduction unit on CUDA, ballots on HIP); the next k-mer is the last one
//                     shifted two bits, carried from word to word (sort_key_push). The visited set is one bit per record (the first record of
//                     the k-mer in its bucket).
//   sort_vote         the vote, set_ext's rules on integer thresholds.
//
// Why the results cannot differ from the hash table's: a record is kept only where the k-mer is
// all A, C, G and T and its extension base casts a vote (an A, C, G or T of quality at least
// LASSM_MIN_QUAL), and the walk takes this path only when its start k-mer is all A, C, G and T.
// Every k-mer the walk then meets is made of those four letters (set_ext appends nothing else),
// so it never equals a k-mer with another letter, and a k-mer of the hash table whose votes are
// all zero votes 'X' there, as an absent one does here. Two packed k-mers are equal exactly when
// their bases are, in one word or in several (every word of a record compared). A k-mer the walk meets that has no record was never visited (the walk stops at
// the first such k-mer), so looking it up before the visited test changes nothing.
#ifndef LASSM_FAST_SORTED_CUH
#define LASSM_FAST_SORTED_CUH

#include "common.cuh"
#include "set_ext.cuh"
#include "bytes.cuh"
#include "fast_team.cuh"

// The largest k the sorted table takes; beyond it, the hash table. Four words hold a 121-mer.
#ifndef LASSM_SORT_MAX_K
#define LASSM_SORT_MAX_K LASSM_MAX_KMER_LEN
#endif
#define LASSM_SORT_MAX_WORDS 4
#if LASSM_SORT_MAX_K > 64 * LASSM_SORT_MAX_WORDS / 2 - 2
#error "LASSM_SORT_MAX_K: a k-mer and its 3 vote bits must fit LASSM_SORT_MAX_WORDS words"
#endif
// Words of a record at k: 2k key bits and 3 vote bits.
__device__ __forceinline__ int sort_words(int k) { return (2 * k + 3 + 63) / 64; }
// The vote's bits in a record's last word.
#define LASSM_SORT_VOTE_SHIFT 61
#define LASSM_SORT_KEY_BITS ((1ull << LASSM_SORT_VOTE_SHIFT) - 1ull)
// Bytes of shared memory each warp team has for its records (the host passes it: the Variant's
// sort_bytes); a block team has its warps' regions together. The visited set of the hash path
// lives in the same region, which is therefore at least its size.
#ifndef LASSM_FAST_SORT_BYTES
#define LASSM_FAST_SORT_BYTES 2048
#endif
#if LASSM_FAST_TEAM_LANES != WARP_SIZE
#error "the sorted table is built by whole warps: LASSM_FAST_TEAM_LANES must be WARP_SIZE"
#endif

// ---------------------------------------------------------------------------------------------
// Ballots of a warp of WARP_SIZE lanes: CUDA's 32-bit masks, or HIP's 64-bit one cut to the
// kernel's warp where that is narrower than the device's wavefront (HIP-CPU at WARP_SIZE 32).
// ---------------------------------------------------------------------------------------------
#if LASSM_HIP
typedef u64 lane_mask;
__device__ __forceinline__ lane_mask sort_ballot(bool p)
{
    const u64 all = __ballot(p);
#if WARP_SIZE >= 64
    return all;
#else
    const int shift = (int)(threadIdx.x % warpSize) / WARP_SIZE * WARP_SIZE;
    return (all >> shift) & ((1ull << WARP_SIZE) - 1ull);
#endif
}
__device__ __forceinline__ u32 sort_popc(lane_mask m) { return (u32)__popcll(m); }
__device__ __forceinline__ int sort_first(lane_mask m) { return (int)__popcll((m & (0ull - m)) - 1ull); }  // m != 0
#else
typedef u32 lane_mask;
__device__ __forceinline__ lane_mask sort_ballot(bool p) { return __ballot_sync(LASSM_FULL_MASK, p); }
__device__ __forceinline__ u32 sort_popc(lane_mask m) { return (u32)__popc(m); }
__device__ __forceinline__ int sort_first(lane_mask m) { return __ffs((int)m) - 1; }
#endif

// A packed k-mer of W words, word 0 the newest 32 bases, and the mask of each word's key bits at k.
template <int W>
struct SortKey {
    u64 w[W];
};

template <int W>
__device__ __forceinline__ void sort_key_clear(SortKey<W>& key)
{
#pragma unroll
    for (int j = 0; j < W; ++j) key.w[j] = 0ull;
}

template <int W>
__device__ __forceinline__ SortKey<W> sort_key_masks(int k)
{
    SortKey<W> m;
#pragma unroll
    for (int j = 0; j < W; ++j) {
        const int bits = 2 * k - 64 * j;
        m.w[j] = bits >= 64 ? ~0ull : bits > 0 ? (1ull << bits) - 1ull : 0ull;
    }
    return m;
}

// The k-mer one base later: every word shifted two bits, the top base of each word carried into
// the next, base c (0 .. 3) into word 0, the oldest base masked away.
template <int W>
__device__ __forceinline__ void sort_key_push(SortKey<W>& key, const SortKey<W>& mask, u32 c)
{
#pragma unroll
    for (int j = W - 1; j > 0; --j) key.w[j] = ((key.w[j] << 2) | (key.w[j - 1] >> 62)) & mask.w[j];
    key.w[0] = ((key.w[0] << 2) | (u64)c) & mask.w[0];
}

template <int W>
__device__ __forceinline__ bool sort_key_eq(const SortKey<W>& a, const SortKey<W>& b)
{
    bool eq = true;
#pragma unroll
    for (int j = 0; j < W; ++j) eq &= a.w[j] == b.w[j];
    return eq;
}

// Whether the record at rec (W words) holds the k-mer key.
template <int W>
__device__ __forceinline__ bool sort_record_is(const u64* rec, const SortKey<W>& key)
{
    bool eq = (rec[W - 1] & LASSM_SORT_KEY_BITS) == key.w[W - 1];
#pragma unroll
    for (int j = 0; j < W - 1; ++j) eq &= rec[j] == key.w[j];
    return eq;
}

// The layout of a team's region for n records at most: bucket heads (start << 16 | count), the
// visited bits, the records. Buckets: a power of two, at least 2, about a quarter of the records
// (a k-mer's records share its bucket, and most k-mers have several).
struct SortLayout {
    u32 buckets, log_buckets, bit_words, record_at;
};

__device__ __forceinline__ SortLayout sort_layout(i64 n)
{
    SortLayout l;
    l.buckets = 2u;
    l.log_buckets = 1u;
    while ((i64)l.buckets * 4 < n) {
        l.buckets *= 2u;
        ++l.log_buckets;
    }
    l.bit_words = (u32)((n + 31) / 32);
    l.record_at = ((l.buckets + l.bit_words) * 4u + 7u) & ~7u;
    return l;
}

// Bytes the layout of n records of `words` words takes.
__device__ __forceinline__ u64 sort_bytes(i64 n, int words)
{
    return (u64)sort_layout(n).record_at + 8ull * (u64)words * (u64)n;
}

// Whether the records of `ins` k-mer positions at k fit `bytes` (the 16-bit bucket starts and
// counts bound them too).
__device__ __forceinline__ bool sort_fits(i64 ins, int k, u64 bytes)
{
    return k <= LASSM_SORT_MAX_K && ins < 0xFFFF && sort_bytes(ins, sort_words(k)) <= bytes;
}

// A k-mer's bucket: its words folded into one (a multiply-xorshift step per further word), then
// Fibonacci hashing; one word is hashed as it is.
template <int W>
__device__ __forceinline__ u32 sort_bucket(const SortKey<W>& key, u32 log_buckets)
{
    u64 h = key.w[0];
#pragma unroll
    for (int j = 1; j < W; ++j) h = ((h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull) ^ key.w[j];
    return (u32)((h * 0x9E3779B97F4A7C15ull) >> (64u - log_buckets));
}

// base_index without branches: A 0, C 1, G 2, T 3 ((c >> 1 ^ c >> 2) & 3 of their codes), -1 else.
__device__ __forceinline__ int sort_code(u32 c)
{
    const bool acgt = c == 'A' || c == 'C' || c == 'G' || c == 'T';
    return acgt ? (int)(((c >> 1) ^ (c >> 2)) & 3u) : -1;
}

// Whether mer[0, k) is all A, C, G and T, the condition of the sorted path.
__device__ __forceinline__ bool sort_packable(const u8* mer, int k)
{
    bool ok = true;
    for (int i = 0; i < k; ++i) ok &= sort_code(mer[i]) >= 0;
    return ok;
}

// The vote (set_ext's rules, set_ext.cuh) on integers: a count x is below a threshold t (a double)
// exactly when x < ceil(t), and above it when x > floor(t), so the thresholds are made integers once
// per end; and the bases are ranked by one packed word each, (rating, hi_q, low_q), counts being
// below 2^21 here (fewer than 0xFFFF positions). Equal words are equal triples, whose order
// set_ext's result does not depend on (the spec's note).
struct SortVote {
    u64 viable_ceil, viable_floor, expected_ceil;
};

__device__ __forceinline__ SortVote sort_vote_of(int depth)
{
    const double d = (double)depth;
    const double min_viable = fmax(LASSM_MIN_VIABLE_DEPTH * d, 2.0);
    const double min_expected = fmax(LASSM_MIN_EXPECTED_DEPTH * d, 2.0);
    SortVote v;
    v.viable_ceil = (u64)ceil(min_viable);
    v.viable_floor = (u64)floor(min_viable);
    v.expected_ceil = (u64)ceil(min_expected);
    return v;
}

__device__ __forceinline__ u64 sort_rank_word(const SortVote& v, u32 nv, u32 hq)
{
    u64 r;
    if (nv == 0u) r = 0;
    else if (nv == 1u) r = 1;
    else if (nv < v.viable_ceil) r = 2;
    else if (nv < v.expected_ceil) r = hq < v.viable_ceil ? 3 : 4;
    else if (hq < v.viable_ceil) r = 5;
    else if (hq > v.viable_floor && hq < v.expected_ceil) r = 6;
    else r = 7;
    return (r << 42) | ((u64)hq << 21) | (u64)nv;
}

__device__ __forceinline__ u32 sort_letter(int b) { return b == 0 ? 'A' : b == 1 ? 'C' : b == 2 ? 'G' : 'T'; }

__device__ __forceinline__ void sort_swap_less(u64& a, int& ia, u64& b, int& ib)
{
    if (a < b) {
        const u64 t = a;
        a = b;
        b = t;
        const int it = ia;
        ia = ib;
        ib = it;
    }
}

__device__ __forceinline__ u32 sort_vote(const SortVote& v, const u32* low, const u32* hi)
{
    // One base with votes: it rates at least 1 and every other 0, which each rule extends with.
    const u32 voted = (low[0] ? 1u : 0u) | (low[1] ? 2u : 0u) | (low[2] ? 4u : 0u) | (low[3] ? 8u : 0u);
    if (voted != 0u && (voted & (voted - 1u)) == 0u) return sort_letter(voted == 1u ? 0 : voted == 2u ? 1 : voted == 4u ? 2 : 3);
    u64 w0 = sort_rank_word(v, low[0], hi[0]), w1 = sort_rank_word(v, low[1], hi[1]);
    u64 w2 = sort_rank_word(v, low[2], hi[2]), w3 = sort_rank_word(v, low[3], hi[3]);
    int b0 = 0, b1 = 1, b2 = 2, b3 = 3;
    sort_swap_less(w0, b0, w1, b1);  // a sorting network of four, highest first
    sort_swap_less(w2, b2, w3, b3);
    sort_swap_less(w0, b0, w2, b2);
    sort_swap_less(w1, b1, w3, b3);
    sort_swap_less(w1, b1, w2, b2);
    const u32 top = (u32)(w0 >> 42), runner = (u32)(w1 >> 42), third = (u32)(w2 >> 42);
    const u32 low0 = (u32)(w0 & 0x1FFFFFull), low1 = (u32)(w1 & 0x1FFFFFull);
    const u32 base0 = sort_letter(b0), base1 = sort_letter(b1);
    if (top <= LASSM_RATING_THRES) return 'X';
    if (top <= 3) return runner == 0 ? base0 : 'X';
    if (top < 6) return runner < 3 ? base0 : 'X';
    if (top == 6) return runner < 4 ? base0 : 'X';
    if (runner < 7) return base0;
    if (third == 7 || low0 == low1) return 'F';
    return low0 > low1 ? base0 : base1;
}

// Shifts the n <= N bases at p into a one-word key (two bits a base) and run (the A, C, G or T
// bases ending there): the aligned words they span loaded at once, their bytes taken in order. N is
// known when compiling, so a call whose n is N too takes no predicated steps.
template <int N>
__device__ __forceinline__ void sort_shift_in(const u8* p, int n, u64 kmask, u64* key, int* run)
{
    u32 sh;
    const u32* w = aligned_base(p, &sh);
    constexpr int W = (N + 3) / 4 + 1;
    u32 words[W];
#pragma unroll
    for (int j = 0; j < W; ++j) words[j] = 4 * j < n + 4 ? w[j] : 0u;
    u64 kk = *key;
    int rr = *run;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        if (i >= n) break;
        const u32 four = (u32)((((u64)words[i / 4 + 1] << 32) | words[i / 4]) >> sh);
        const int c = sort_code((four >> (8 * (i % 4))) & 0xFFu);
        kk = ((kk << 2) | (u64)(c & 3)) & kmask;
        rr = c >= 0 ? rr + 1 : 0;
    }
    *key = kk;
    *run = rr;
}

// The first k - 1 bases of the k-mer at p, shifted into key and run: one word's by sort_shift_in
// (MetaHipMer's first k, 21, unrolled exactly), several words' a base at a time.
template <int W>
__device__ __forceinline__ void sort_start(const u8* p, int k, const SortKey<W>& mask, SortKey<W>& key, int* run)
{
    sort_key_clear(key);
    *run = 0;
    if (W == 1) {
        if (k == 21)
            sort_shift_in<20>(p, 20, mask.w[0], &key.w[0], run);
        else
            sort_shift_in<30 - 1>(p, k - 1, mask.w[0], &key.w[0], run);
        return;
    }
    int rr = 0;
    for (int i = 0; i < k - 1; ++i) {
        const int c = sort_code(p[i]);
        sort_key_push(key, mask, (u32)(c & 3));
        rr = c >= 0 ? rr + 1 : 0;
    }
    *run = rr;
}

// Stores the record of k-mer key with vote v (3 bits) at rec.
template <int W>
__device__ __forceinline__ void sort_put(u64* rec, const SortKey<W>& key, u64 v)
{
#pragma unroll
    for (int j = 0; j < W - 1; ++j) rec[j] = key.w[j];
    rec[W - 1] = key.w[W - 1] | (v << LASSM_SORT_VOTE_SHIFT);
}

// One pass over the k-mer positions of reads r0 .. r1-1: each thread of the team takes a run of
// consecutive positions (a group of LANES reads at a time, flat across their boundaries, as
// fast_count_mers), packing its k-mers by shifting one base in per position. A record's vote is
// (base << 1) | (quality >= LASSM_MIN_HI_QUAL). PLACE false: count each record in its bucket, and
// add the votes of the k-mer `start` to this thread's votes[8] (low_q[4], hi_q[4]); true: put each
// record at its bucket's start plus the count so far.
template <bool PLACE, bool BLOCK, int W>
__device__ void sort_pass(const Team<BLOCK>& team, u32* heads, u64* records, u32 log_buckets, const u8* seqs,
                          const u8* quals, const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset,
                          const SortKey<W>& start, u32* votes)
{
    constexpr int G = Team<BLOCK>::LANES;
    const int lane = team.tid % G, T = team.size();
    const SortKey<W> mask = sort_key_masks<W>(k);
    for (i64 g = r0; g < r1; g += G) {
        int m;
        const int incl = fast_group_prefix(team, rd_off, g, r1, k, lane, &m);
        const int total = team.shfl(incl, G - 1);
        const int per = (total + T - 1) / T;
        const int x0 = min(team.tid * per, total), x1 = min(x0 + per, total);
        int s;
        int r = fast_flat_read(team, incl, m, x0 < total ? x0 : 0, &s);  // every lane: it shuffles
        i64 a = 0;
        int len = 0;  // k-mer positions of read r
        SortKey<W> key;
        sort_key_clear(key);
        int run = 0;  // A, C, G or T bases ending at the packed key
        int c = 0;  // the next base to shift in (the last position's extension base)
        for (int x = x0; x < x1; ++x, ++s) {
            if (x == x0 || s >= len) {  // (re)start: the first read with position s, its k - 1 bases
                if (x != x0) {
                    ++r;
                    s = 0;
                }
                while (true) {
                    a = rd_off[g + r];
                    len = (int)(rd_off[g + r + 1] - a) - k;
                    if (s < len) break;
                    ++r;  // a read too short for a k-mer; a later one of the group holds x
                }
                sort_start(seqs + a + s, k, mask, key, &run);
                c = sort_code(seqs[a + s + k - 1]);
            }
            sort_key_push(key, mask, (u32)(c & 3));  // the k-mer at s
            run = c >= 0 ? run + 1 : 0;
            const int b = sort_code(seqs[a + s + k]);  // its extension, the next k-mer's last base
            c = b;
            const int q = (int)quals[a + s + k] - qual_offset;
            if (run < k || b < 0 || q < LASSM_MIN_QUAL) continue;
            const u32 bucket = sort_bucket(key, log_buckets);
            if (PLACE) {
                const u32 at = atomicAdd(&heads[bucket], 1u);
                const u64 v = ((u64)b << 1) | (q >= LASSM_MIN_HI_QUAL ? 1ull : 0ull);
                sort_put(records + (u64)W * ((at >> 16) + (at & 0xFFFFu)), key, v);
            } else {
                atomicAdd(&heads[bucket], 1u);
                if (sort_key_eq(key, start)) {
                    votes[b] += 1u;
                    votes[4 + b] += q >= LASSM_MIN_HI_QUAL ? 1u : 0u;
                }
            }
        }
    }
}

// Warp 0 of the team: the bucket counts become starts (an exclusive scan), kept in the high half.
__device__ __forceinline__ void sort_scan(u32* heads, u32 buckets)
{
    const int lane = (int)(threadIdx.x % WARP_SIZE);
    const u32 per = (buckets + WARP_SIZE - 1u) / WARP_SIZE;
    const u32 b0 = (u32)lane * per < buckets ? (u32)lane * per : buckets, b1 = b0 + per < buckets ? b0 + per : buckets;
    u32 sum = 0u;
    for (u32 b = b0; b < b1; ++b) sum += heads[b];
    u32 incl = sum;
    for (int d = 1; d < WARP_SIZE; d *= 2) {
        const u32 up = LASSM_SHFL_UP(incl, d);
        if (lane >= d) incl += up;
    }
    u32 start = incl - sum;
    for (u32 b = b0; b < b1; ++b) {
        const u32 c = heads[b];
        heads[b] = start << 16;
        start += c;
    }
}

// Algorithm 1 by sorting, team-wide: the region holds the k-mer records of reads r0 .. r1-1 at k,
// bucketed, and cleared visited bits; the team meets at its end. The counting pass also counts the
// votes of the walk's start k-mer (packed: start), and returns its extension in every thread:
// where that is 'X' (none, or no k-mer) or 'F', the walk is over at its first step, and the
// records are never placed.
template <bool BLOCK, int W>
__device__ u32 sort_count_mers(const Team<BLOCK>& team, u8* region, const SortLayout& l, const u8* seqs,
                               const u8* quals, const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset,
                               const SortKey<W>& start, const SortVote& vote)
{
    u32* heads = (u32*)region;
    u64* records = (u64*)(region + l.record_at);
    for (u32 i = (u32)team.tid; i < l.buckets + l.bit_words; i += (u32)team.size()) heads[i] = 0u;
    team.sync();
    u32 votes[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
    sort_pass<false>(team, heads, records, l.log_buckets, seqs, quals, rd_off, r0, r1, k, qual_offset, start, votes);
    team.sum8(votes);  // a team barrier too
    const u32 first = sort_vote(vote, votes, votes + 4);
    if (first == 'X' || first == 'F') return first;
    if (team.warp() == 0) sort_scan(heads, l.buckets);
    team.sync();
    sort_pass<true>(team, heads, records, l.log_buckets, seqs, quals, rd_off, r0, r1, k, qual_offset, start, votes);
    team.sync();
    return first;
}

// Algorithm 2 with the sorted records, by one whole warp (a warp team, or warp 0 of a block team)
// from the start k-mer wbuf[0, k) (packed: start; vote: the end's thresholds): returns the
// termination, and the walk's length in *walk_len, in every lane. Lane 0 alone touches the walk
// buffer and the visited bits.
template <int W>
__device__ u8 sorted_walk(const u8* region, const SortLayout& l, int max_walk, u8* wbuf, int k,
                          const SortKey<W>& start, const SortVote& vote, int* walk_len)
{
    const u32* heads = (const u32*)region;
    u32* visited = (u32*)region + l.buckets;
    const u64* records = (const u64*)(region + l.record_at);
    const int lane = (int)(threadIdx.x % WARP_SIZE);
    const SortKey<W> mask = sort_key_masks<W>(k);
    SortKey<W> key = start;
    int wl = 0;
    u8 t = 'X';
    while (wl < max_walk) {
        const u32 head = heads[sort_bucket(key, l.log_buckets)];
        const u32 from = head >> 16, count = head & 0xFFFFu;
        u32 low[4] = {0u, 0u, 0u, 0u}, high[4] = {0u, 0u, 0u, 0u};
        int first = -1;
        for (u32 c0 = 0u; c0 < count; c0 += WARP_SIZE) {  // warp-uniform
            const u32 j = c0 + (u32)lane;
            const u64* rec = records + (u64)W * (from + j);
            const bool match = j < count && sort_record_is(rec, key);
            const u32 v = j < count ? (u32)(rec[W - 1] >> LASSM_SORT_VOTE_SHIFT) : 0u;
            const lane_mask mm = sort_ballot(match);
            if (first < 0 && mm) first = (int)c0 + sort_first(mm);
            const int b = (int)(v >> 1) & 3;
            const bool hq = (v & 1u) != 0u;
#if LASSM_HIP
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                low[i] += sort_popc(sort_ballot(match && b == i));
                high[i] += sort_popc(sort_ballot(match && b == i && hq));
            }
#else  // a byte per base (at most 32 a chunk), summed by the warp's reduction unit
            const u32 one = match ? 1u << (8 * b) : 0u;
            const u32 lows = __reduce_add_sync(LASSM_FULL_MASK, one);
            const u32 highs = __reduce_add_sync(LASSM_FULL_MASK, hq ? one : 0u);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                low[i] += (lows >> (8 * i)) & 0xFFu;
                high[i] += (highs >> (8 * i)) & 0xFFu;
            }
#endif
        }
        if (first < 0) break;  // no record: 'X' (never visited: the walk stops at the first)
        int seen = 0;  // lane 0 alone reads and sets the visited bit: no lane reads what another writes
        if (lane == 0) {
            const u32 at = from + (u32)first, word = visited[at >> 5], bit = 1u << (at & 31u);
            seen = (word & bit) != 0u;
            visited[at >> 5] = word | bit;
        }
        if (LASSM_SHFL(seen, 0)) {
            t = 'R';
            break;
        }
        const u32 ext = sort_vote(vote, low, high);
        if (ext == 'X' || ext == 'F') {
            t = (u8)ext;
            break;
        }
        if (lane == 0) wbuf[wl + k] = (u8)ext;
        sort_key_push(key, mask, (u32)sort_code(ext));
        ++wl;
    }
    *walk_len = wl;
    return t;
}

// Where one k of an end sorts, team-uniform: the team's shared region where the records fit, else
// the end's own table in global memory (its slots hold the records several times over); nullptr
// where the hash table serves this k (a start k-mer with another letter, k past
// LASSM_SORT_MAX_K, or records too many for the table). Records in the table would read as keys
// of the hash path's epochs, so before the hash path runs there, the team zeroes the *dirty bytes
// the records took.
template <bool BLOCK>
__device__ u8* sort_region(const Team<BLOCK>& team, u8* shared, u32 shared_bytes, ht_slot* table, u64 cap, i64 ins,
                           int k, const u8* wbuf, u64* dirty)
{
    u8* region = nullptr;
    if (sort_packable(wbuf, k)) {
        if (sort_fits(ins, k, shared_bytes)) region = shared;
        else if (sort_fits(ins, k, cap * LASSM_SLOT_BYTES)) region = (u8*)table;
    }
    if (region == (u8*)table) {
        const u64 used = sort_bytes(ins, sort_words(k));
        if (used > *dirty) *dirty = used;
    } else if (region == nullptr && *dirty > 0ull) {
        for (u64 i = (u64)team.tid; i < *dirty / 8ull; i += (u64)team.size()) ((u64*)table)[i] = 0ull;
        team.sync();
        *dirty = 0ull;
    }
    return region;
}

// Bytes of a warp team's region: LASSM_FAST_SORT_BYTES, or the visited set's 16-bit entries where
// those take more (lassm.backends.cuda.fast_shared_bytes says the same).
__device__ __forceinline__ u32 fast_sort_region(u32 vslots)
{
    const u32 seen = 2u * vslots;
    return ((seen > (u32)LASSM_FAST_SORT_BYTES ? seen : (u32)LASSM_FAST_SORT_BYTES) + 15u) & ~15u;
}

// One k of a contig end by sorting with records of W words, team-wide: the build, then warp 0's walk.
template <bool BLOCK, int W>
__device__ u8 sort_walk_words(const Team<BLOCK>& team, u8* region, i64 ins, const u8* seqs, const u8* quals,
                              const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset, int depth, int max_walk,
                              u8* wbuf, int* walk_len)
{
    const SortLayout l = sort_layout(ins);
    const SortKey<W> mask = sort_key_masks<W>(k);
    SortKey<W> start;
    sort_key_clear(start);
    for (int i = 0; i < k; ++i) sort_key_push(start, mask, (u32)sort_code(wbuf[i]));
    const SortVote vote = sort_vote_of(depth);
    const u32 first = sort_count_mers(team, region, l, seqs, quals, rd_off, r0, r1, k, qual_offset, start, vote);
    if (first == 'X' || first == 'F') {  // no step: the walk would stop at its start k-mer
        *walk_len = 0;
        return (u8)first;
    }
    int t = 0, wl = 0;
    if (team.warp() == 0) t = sorted_walk(region, l, max_walk, wbuf, k, start, vote, &wl);
    *walk_len = team.bcast(wl);
    return (u8)team.bcast(t);
}

// One k of a contig end by sorting, team-wide, with records of as many words as k needs. Returns
// the termination, and the walk's length in *walk_len, in every thread of the team.
template <bool BLOCK>
__device__ u8 sort_walk_k(const Team<BLOCK>& team, u8* region, i64 ins, const u8* seqs, const u8* quals,
                          const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset, int depth, int max_walk,
                          u8* wbuf, int* walk_len)
{
    switch (sort_words(k)) {
    case 1:
        return sort_walk_words<BLOCK, 1>(team, region, ins, seqs, quals, rd_off, r0, r1, k, qual_offset, depth,
                                         max_walk, wbuf, walk_len);
#if LASSM_SORT_MAX_K > 30
    case 2:
        return sort_walk_words<BLOCK, 2>(team, region, ins, seqs, quals, rd_off, r0, r1, k, qual_offset, depth,
                                         max_walk, wbuf, walk_len);
#endif
#if LASSM_SORT_MAX_K > 62
    case 3:
        return sort_walk_words<BLOCK, 3>(team, region, ins, seqs, quals, rd_off, r0, r1, k, qual_offset, depth,
                                         max_walk, wbuf, walk_len);
#endif
#if LASSM_SORT_MAX_K > 94
    default:
        return sort_walk_words<BLOCK, 4>(team, region, ins, seqs, quals, rd_off, r0, r1, k, qual_offset, depth,
                                         max_walk, wbuf, walk_len);
#else
    default:  // not reached: sort_fits refuses k past LASSM_SORT_MAX_K
        *walk_len = 0;
        return (u8)'X';
#endif
    }
}

#endif  // LASSM_FAST_SORTED_CUH

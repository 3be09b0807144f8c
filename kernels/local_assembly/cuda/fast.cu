// SPDX-License-Identifier: BSD-3-Clause
//
// fast: this project's optimized build of the local-assembly kernel (book/fast-kernel.md), and,
// by -D options, each of its ablation builds. The faithful builds are faithful.cu; the two share
// common.cuh, bytes.cuh and set_ext.cuh.
//
// Read it next to the paper (its Algorithms 1 and 2) and faithful.cu:
//   the hash insert   fast_insert      (fast_table.cuh), in rounds of fast_insert_round
//   the vote          set_ext          (set_ext.cuh), on the walk's demand (votes on demand)
//   Algorithm 1       fast_count_mers  (below)
//   the walk          fast_walk        (below; the first steps by fast_scan_ext, table-free)
//   the k-shift       the loop of fast_end (below), inline as in faithful.cu
//
// The file compiles on its own (NVRTC and hipRTC with -I of this folder; nvcc -c and hipcc find
// the headers beside it): every knob has a default that a -D option overrides.
//
// =============================================================================================
// fast: the optimized variant (book/fast-kernel.md). Same claim as casptr (CAS on the key word,
// compare through the key the CAS returned); what each k costs is cut these ways:
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
//  5. Flat inserts: the lanes take consecutive k-mers across read boundaries (WARP_SIZE reads'
//     k-mer counts scanned at a time), so a round of WARP_SIZE inserts (32 on NVIDIA, 64 on
//     CDNA) is full however long the reads are.
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
//     whose warps share the inserts and the scans; the others get a warp each (fast_team.cuh).
// 10. (host) A launch of many contig ends per SM runs a second build of this file, compiled with
//     a register cap (lassm.backends.nvrtc.SCALE_REGISTERS): more resident warps at scale.
// Added changes, off in fast and each a build of its own:
// 11. LASSM_FAST_SPEC_WALK=n (fast-spec: 1, fast-spec2: 2): the walk with a table finds ahead
//     (fast_walk_ahead below, fast_ahead.cuh): the whole walking warp runs the walk, and while
//     lane 0 finds the walk's k-mer, lanes 1 .. 4 find the four k-mers one step ahead (and lanes
//     5 .. 20 the sixteen two steps ahead), so that one find's latency covers n + 1 steps.
// 12. LASSM_FAST_EARLY_VOTES=1 (fast-earlyvotes): an insert loads the base and quality it votes
//     with before its claim, not after the barrier that follows it, so that the vote's loads
//     overlap the claim's round trip instead of following it.
// 13. LASSM_FAST_PACKED_KEYS=1 (fast-packed): a k-mer of at most 23 bases, all A, C, G or T, is
//     its own key, two bits a base (fast_packed.cuh), so a find compares the key word alone.
// 14. LASSM_FAST_LANE_WALKS=W (fast-lanes*): W contig ends to a warp, which inserts and scans for
//     each in turn; then its lanes walk their ends with the table at once (fast_lanes.cuh).
// 15. LASSM_FAST_SORTED=1 (the build fast launches): an end's table built by a counting sort of
//     packed (k-mer, vote) records of one to four words, in shared memory where they fit, at every
//     k up to LASSM_SORT_MAX_K (fast_sorted.cuh).
// (None of 11 to 14 made fast faster at k = 21 and scale, book/fast-kernel.md; nor did warp teams
// of fewer lanes, LASSM_FAST_TEAM_LANES in fast_team.cuh, a knob that is off.)
//
// The host zeroes the table once (epoch 0 never occurs), allocates a power-of-two number of
// slots per contig end, and passes the shared memory lassm.backends.cuda.fast_shared_bytes says.
//
// Ablation: each change can be undone alone at compile time (lassm/backends/nvrtc.py names the builds):
//   LASSM_FAST_RESET=1        reset the whole table per k, as casptr (epoch tags stay harmless);
//   LASSM_FAST_FULL_TABLE=1   use all the host's slots at every k;
//   LASSM_FAST_SCAN=1         vote every used slot after counting (casptr's scan), walk reads ext;
//   LASSM_FAST_GLOBAL_WALK=1  walk buffer and visited set in global memory (epoch-tagged visited);
//   LASSM_FAST_PER_READ=1     insert read by read (casptr's rounds; partial rounds at read ends);
//   LASSM_FAST_PLAIN_BYTES=1  hash and compare with the faithful murmur_hash2 and kmer_eq;
//   LASSM_FAST_SCAN_STEPS=0   build the table at every k (no table-free walk steps).
// and on the host: MetaHipMer's launches instead of one (fast-bins), warp teams only (fast-warps),
// the compiler's registers at every launch size (fast-regs).
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
// Walk steps per k taken by scanning the reads before the table is built (table-free short walks).
#ifndef LASSM_FAST_SCAN_STEPS
#define LASSM_FAST_SCAN_STEPS 4
#endif
// Steps the walk with a table finds ahead (look-ahead finds): 0 (off, fast), 1 or 2.
#ifndef LASSM_FAST_SPEC_WALK
#define LASSM_FAST_SPEC_WALK 0
#endif
// The vote's base and quality loaded before the claim (early votes): 0 (off, fast) or 1.
#ifndef LASSM_FAST_EARLY_VOTES
#define LASSM_FAST_EARLY_VOTES 0
#endif
// Keys that hold a short k-mer itself (packed keys, fast_packed.cuh): 0 (off, fast) or 1.
#ifndef LASSM_FAST_PACKED_KEYS
#define LASSM_FAST_PACKED_KEYS 0
#endif
// Contig ends to a warp whose lanes walk them at once (lane walks): 0 (off, fast), or 1 to WARP_SIZE.
#ifndef LASSM_FAST_LANE_WALKS
#define LASSM_FAST_LANE_WALKS 0
#endif
// The table built by sorting where an end's k-mers fit its team's shared memory (the sorted table): 0 or 1.
#ifndef LASSM_FAST_SORTED
#define LASSM_FAST_SORTED 0
#endif
#if LASSM_FAST_SORTED && (LASSM_FAST_GLOBAL_WALK || LASSM_FAST_LANE_WALKS || LASSM_FAST_SPEC_WALK || LASSM_FAST_PACKED_KEYS)
#error "the sorted table is built with the shared-memory walk of one end per warp team only"
#endif
#if LASSM_FAST_PACKED_KEYS && (LASSM_FAST_SPEC_WALK || LASSM_FAST_SCAN)
#error "packed keys are built with neither the look-ahead walk nor the vote scan"
#endif

#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_FAST
#endif
#include "common.cuh"
#if LASSM_PROTOCOL != LASSM_PROTO_FAST
#error "fast.cu builds fast and its ablations only (LASSM_PROTO_FAST); the faithful protocols are faithful.cu"
#endif
#include "bytes.cuh"
#include "set_ext.cuh"
#include "fast_table.cuh"
#include "fast_team.cuh"
#include "fast_ahead.cuh"
#include "fast_packed.cuh"

// The claim (or find) of one k-mer of the read buffer: its slot.
__device__ __forceinline__ u32 fast_claim(ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k, u64 tag)
{
#if LASSM_FAST_PACKED_KEYS
    return fast_claim_packed(ht, mask, seqs, key, k, tag);
#else
    return fast_insert(ht, mask, seqs, key, k, fast_hash(key, k), tag);
#endif
}

// One round of inserts: the claim (or find) of the k-mer at read + s, a team barrier that orders
// every claimer's zeroing before any vote, then its votes. Team-uniform: every thread calls it,
// `active` or not.
template <bool BLOCK>
__device__ __forceinline__ void fast_insert_round(const Team<BLOCK>& team, ht_slot* ht, u32 mask, const u8* seqs,
                                                  const u8* read, const u8* qual, int s, int k, int qual_offset,
                                                  u64 tag, bool active)
{
#if LASSM_FAST_EARLY_VOTES
    // early votes: the vote's two loads issued before the claim's, whose round trip they overlap
    int b = -1, q = 0;
    if (active) {
        b = base_index(read[s + k]);
        q = (int)qual[s + k] - qual_offset;
    }
    u32 slot = 0u;
    if (active) slot = fast_claim(ht, mask, seqs, read + s, k, tag);
    team.sync();
    if (active && b >= 0) {
        if (q >= LASSM_MIN_QUAL) atomicAdd(&ht[slot].low_q[b], 1u);
        if (q >= LASSM_MIN_HI_QUAL) atomicAdd(&ht[slot].hi_q[b], 1u);
    }
#else
    u32 slot = 0u;
    if (active) slot = fast_claim(ht, mask, seqs, read + s, k, tag);
    team.sync();
    if (active) {
        const int b = base_index(read[s + k]);
        if (b >= 0) {
            const int q = (int)qual[s + k] - qual_offset;
            if (q >= LASSM_MIN_QUAL) atomicAdd(&ht[slot].low_q[b], 1u);
            if (q >= LASSM_MIN_HI_QUAL) atomicAdd(&ht[slot].hi_q[b], 1u);
        }
    }
#endif
}

// Flat k-mer positions over a group of G = Team<BLOCK>::LANES reads g .. g+G-1 (below r1): lane i
// of the group gets read g+i's k-mer count in *m and returns the inclusive prefix sum of the
// counts. Every warp of a block team computes it for itself (G = WARP_SIZE); a warp team's group
// is its own lanes.
template <bool BLOCK>
__device__ __forceinline__ int fast_group_prefix(const Team<BLOCK>& team, const i64* rd_off, i64 g, i64 r1, int k,
                                                 int lane, int* m)
{
    const i64 j = g + lane;
    *m = j < r1 ? max((int)(rd_off[j + 1] - rd_off[j]) - k, 0) : 0;
    int incl = *m;
    for (int d = 1; d < Team<BLOCK>::LANES; d *= 2) {
        const int up = team.shfl_up(incl, d);
        if (lane >= d) incl += up;
    }
    return incl;
}

// The read (its lane number in the group) that holds flat position x, and x's position in it:
// a binary search for the first lane whose inclusive sum exceeds x. Uniform over the group.
template <bool BLOCK>
__device__ __forceinline__ int fast_flat_read(const Team<BLOCK>& team, int incl, int m, int x, int* pos)
{
    int lo = 0;
    for (int step = Team<BLOCK>::LANES / 2; step > 0; step /= 2) {
        const int probe = team.shfl(incl, lo + step - 1);
        if (probe <= x) lo += step;
    }
    *pos = x - (team.shfl(incl, lo) - team.shfl(m, lo));
    return lo;
}

// Algorithm 1 without the reset and without the vote scan: the team inserts every k-mer of the
// reads r0 .. r1-1 (the last k-mer of a read is never inserted) and casts its votes. Round r of
// a group gives warp w of the team the flat positions r * size + w * LANES + lane.
template <bool BLOCK>
__device__ void fast_count_mers(const Team<BLOCK>& team, ht_slot* ht, u32 mask, const u8* seqs, const u8* quals,
                                const i64* rd_off, i64 r0, i64 r1, int k, int qual_offset, u64 tag)
{
    constexpr int G = Team<BLOCK>::LANES;
    const int lane = team.tid % G, step = team.size();
#if LASSM_FAST_PER_READ
    for (i64 j = r0; j < r1; ++j) {
        const i64 a = rd_off[j];
        const int num_mers = (int)(rd_off[j + 1] - a) - k;
        for (int base = 0; base < num_mers; base += step)  // team-uniform: the barrier
            fast_insert_round(team, ht, mask, seqs, seqs + a, quals + a, base + team.tid, k, qual_offset, tag,
                              base + team.tid < num_mers);
    }
#else
    for (i64 g = r0; g < r1; g += G) {
        int m;
        const int incl = fast_group_prefix(team, rd_off, g, r1, k, lane, &m);
        const int total = team.shfl(incl, G - 1);
        for (int base = 0; base < total; base += step) {  // team-uniform: the barrier
            const int x = base + team.warp() * G + lane;
            int s;
            const int r = fast_flat_read(team, incl, m, x, &s);
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

#if LASSM_FAST_PACKED_KEYS
// fast_walk with packed keys: the walk's k-mer packed once, then shifted two bits a
// step; the table's find compares key words alone where the k-mer is packed.
__device__ u8 fast_walk_packed(const ht_slot* ht, u32 mask, const u8* seqs, u64 tag, u32 epoch,
                               fast_visit_t* visited, u32 vslots, int max_walk, u8* wbuf, int k, int depth, int wl0,
                               int* walk_len)
{
    int wl = wl0;
    u64 p = fast_pack(wbuf + wl, k);
    const u64 keep = (1ull << (2 * min(k, LASSM_FAST_PACK_MAX))) - 1ull;
    for (int step = wl0; step < max_walk; ++step) {
        const u8* mer = wbuf + wl;
        const u32 h = fast_key_hash(mer, k, p);
        if (fast_seen(visited, vslots, epoch, wbuf, mer, k, h, wl)) {
            *walk_len = wl;
            return 'R';
        }
        u32 low[4], high[4];
        if (!fast_find_votes_packed(ht, mask, seqs, mer, k, fast_find_bits(p), h, tag, low, high)) {
            *walk_len = wl;
            return 'X';
        }
        const u32 ext = set_ext(low, high, depth);
        if (ext == 'X' || ext == 'F') {
            *walk_len = wl;
            return (u8)ext;
        }
        wbuf[wl + k] = (u8)ext;
        ++wl;
        // ext is A, C, G or T here: a packed k-mer stays packed; another is packed anew (or not)
        p = p != LASSM_FAST_NOT_PACKED ? (((p << 2) | (u64)fast_code((u8)ext)) & keep) : fast_pack(wbuf + wl, k);
    }
    *walk_len = wl;
    return 'X';
}
#endif

#if LASSM_FAST_SPEC_WALK
// Algorithm 2 with the table, finding ahead (look-ahead finds): fast_walk's steps, taken by the whole
// walking warp (a warp team, or warp 0 of a block team), LASSM_FAST_SPEC_WALK + 1 steps a round.
// A round begins where only the walk's k-mer is known: each of the first LASSM_FAST_AHEAD_LANES
// lanes finds its k-mer of the look-ahead heap (lane 0 the walk's own) and votes it (set_ext;
// 'X' when absent), all at once. Then each step, as in fast_walk: lane 0's visited check, and the
// extension voted by the lane that holds the step's k-mer, taken with a shuffle instead of a find.
// Every lane runs every step (the shuffles name the whole warp or team); only lane 0 touches the
// visited set and writes the walk buffer, and the barriers order those writes against the other
// lanes' reads of the walk buffer in the finds. Returns the same in every lane.
template <bool BLOCK>
__device__ u8 fast_walk_ahead(const Team<BLOCK>& team, const ht_slot* ht, u32 mask, const u8* seqs, u64 tag,
                              u32 epoch, fast_visit_t* visited, u32 vslots, int max_walk, u8* wbuf, int k,
                              int depth, int wl0, int* walk_len)
{
    const int lane = team.tid % Team<BLOCK>::LANES;
    u32 tail;
    const int p = fast_ahead_path(lane, &tail);  // lane's k-mer: p bases ahead, ending in tail
    const bool ahead = lane < LASSM_FAST_AHEAD_LANES;
    int wl = wl0;
    while (true) {
        fast_walk_sync(team);  // lane 0's writes of the walk buffer before the finds read it
        u32 ext = 'X', h = 0u;
        if (ahead && wl + p < max_walk) {  // a k-mer past max_walk is never stepped on
            u32 low[4], high[4];
            if (fast_find_ahead(ht, mask, seqs, wbuf + wl + p, k, k - p, tail, tag, &h, low, high))
                ext = set_ext(low, high, depth);
        }
        fast_walk_sync(team);  // the finds' reads of the walk buffer before lane 0 writes it
        int node = 0;  // the lane that holds this step's k-mer
        for (int d = 0; d <= LASSM_FAST_SPEC_WALK; ++d) {
            if (wl >= max_walk) {
                *walk_len = wl;
                return 'X';
            }
            const u32 hn = team.shfl(h, node), en = team.shfl(ext, node);
            int rep = 0;
            if (lane == 0) rep = fast_seen(visited, vslots, epoch, wbuf, wbuf + wl, k, hn, wl) ? 1 : 0;
            if (team.shfl(rep, 0)) {
                *walk_len = wl;
                return 'R';
            }
            if (en == 'X' || en == 'F') {
                *walk_len = wl;
                return (u8)en;
            }
            if (lane == 0) wbuf[wl + k] = (u8)en;
            ++wl;
            node = 4 * node + 1 + base_index((u8)en);
        }
    }
}
#endif

// A walk step without a table (table-free short walks), team-wide: the votes of mer[0, k) counted over every
// inserted position of the reads r0 .. r1-1 (a one-word prefix test, then the full compare),
// summed over the team, and voted by set_ext. Returns the extension in every thread.
template <bool BLOCK>
__device__ u32 fast_scan_ext(const Team<BLOCK>& team, const u8* seqs, const u8* quals, const i64* rd_off, i64 r0,
                             i64 r1, const u8* mer, int k, int qual_offset, int depth)
{
    constexpr int G = Team<BLOCK>::LANES;
    const int lane = team.tid % G, step = team.size();
    u32 msh;
    const u32* mw = aligned_base(mer, &msh);
    const u32 first = fast_funnel(mw[0], mw[1], msh);  // k >= 21: a whole word
    u32 c[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};  // low_q[4], hi_q[4]
    for (i64 g = r0; g < r1; g += G) {
        int m;
        const int incl = fast_group_prefix(team, rd_off, g, r1, k, lane, &m);
        const int total = team.shfl(incl, G - 1);
        for (int base = 0; base < total; base += step) {
            const int x = base + team.warp() * G + lane;
            int s;
            const int r = fast_flat_read(team, incl, m, x, &s);
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

// Per-launch shared memory of a block: each warp team's walk buffer (LASSM_FAST_ENDS_PER_WARP per
// warp), then each warp team's visited set, then the team scratch (8 words for each warp a block
// of 1024 threads can hold: 1024 / WARP_SIZE warps). A block team uses the first buffers.
struct FastShared {
    u8* wbuf;
    fast_visit_t* seen;
    u64* scratch;
#if LASSM_FAST_SORTED  // the sorted table: the team's region for its records (the visited set's, grown)
    u8* sort;
    u32 sort_bytes;
#endif
};
#if LASSM_FAST_SORTED
#include "fast_sorted.cuh"
#endif

// One contig end, walked by `team`: the k-shift loop of the faithful kernel, with the changes
// above. Writes the end's outputs from thread 0.
template <bool BLOCK>
__device__ void fast_end(const Team<BLOCK>& team, i64 e, FastShared sh, const u8* ctg_seqs, const i64* ctg_span,
                         const double* depths, const u8* rd_seqs, const u8* rd_quals, const i64* rd_off,
                         const i64* rd_span, ht_slot* ht, const i64* ht_off, u8* walks, int* walk_len,
                         int* final_k, u8* term, int* n_k, i64* steps, i64* insertions, i64* start_insertions,
                         int start_k, int max_walk, int qual_offset)
{
    const int tid = team.tid, T = team.size();
    const u8* ctg = ctg_seqs + ctg_span[2 * e];
    const int clen = (int)(ctg_span[2 * e + 1] - ctg_span[2 * e]);
    const int depth = (int)depths[e];
    const i64 r0 = rd_span[2 * e], r1 = rd_span[2 * e + 1];
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
#if LASSM_FAST_SORTED
    u64 dirty = 0ull;  // bytes of the table that sorted records took (sort_region)
#endif
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
#if LASSM_FAST_SORTED  // the sorted table up to LASSM_SORT_MAX_K (then t is set, no scan)
        u8* const region = sort_region(team, sh.sort, sh.sort_bytes, table, cap, ins, k, wbuf, &dirty);
        const bool sorted = region != nullptr;
        if (sorted)
            t = sort_walk_k(team, region, ins, rd_seqs, rd_quals, rd_off, r0, r1, k, qual_offset, depth, max_walk, wbuf, &wl);
        for (int step = 0; !sorted && step < LASSM_FAST_SCAN_STEPS; ++step) {
#else
        for (int step = 0; step < LASSM_FAST_SCAN_STEPS; ++step) {
#endif
            if (wl == max_walk) {
                t = 'X';
                break;
            }
            const u8* mer = wbuf + wl;
            int rep = 0;
#if LASSM_FAST_PACKED_KEYS  // the visited set's hash is the walk's: fast_key_hash
            if (tid == 0) rep = fast_seen(seen, vslots, epoch, wbuf, mer, k, fast_key_hash(mer, k, fast_pack(mer, k)), wl) ? 1 : 0;
#else
            if (tid == 0) rep = fast_seen(seen, vslots, epoch, wbuf, mer, k, fast_hash(mer, k), wl) ? 1 : 0;
#endif
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
#if LASSM_FAST_SPEC_WALK
            if (team.warp() == 0)  // the walking warp, converged: a warp team, or a block team's warp 0
                t = fast_walk_ahead(team, table, mask, rd_seqs, tag, epoch, seen, vslots, max_walk, wbuf, k, depth, wl,
                                    &wl);
#elif LASSM_FAST_PACKED_KEYS
            if (tid == 0)
                t = fast_walk_packed(table, mask, rd_seqs, tag, epoch, seen, vslots, max_walk, wbuf, k, depth, wl, &wl);
#else
            if (tid == 0) t = fast_walk(table, mask, rd_seqs, tag, epoch, seen, vslots, max_walk, wbuf, k, depth, wl, &wl);
#endif
        }
        int stop = 0;
        if (tid == 0)
            LASSM_END_OF_K(t, wl, wbuf, k, best, best_len, best_k, best_term, n_steps, last_term, shift, stop);
        shift = team.bcast(shift);
        stop = team.bcast(stop);
        team.sync();  // thread 0's reads of the table and the walk buffer before the next k's writes
        if (stop) break;
    }
    if (tid == 0) LASSM_WRITE_END(e);
}

#include "fast_lanes.cuh"  // lane walks: after fast_end, whose pieces it calls

// The kernel, the faithful one's arguments (see there) plus n_team, but with spans for offsets:
// contig end e's bases are ctg_seqs[ctg_span[2e], ctg_span[2e+1]) and its reads rd_span[2e] ..
// rd_span[2e+1]-1 of (rd_seqs, rd_quals, rd_off). The ends are launched in work order, not in the
// order their bases lie, so the host uploads the bases once and each end points into them, with no
// gather (copy) of the bases per launch; a read still ends where the next one starts (rd_off[j+1]),
// as one contig's reads lie together. Every buffer has 16 bytes of padding after it.
// Blocks 0 .. n_team-1 each
// walk contig end blockIdx.x as one team (the host puts the ends with the most read bases first);
// every later block gives each of its warp teams one end (LASSM_FAST_ENDS_PER_WARP per warp), from
// n_team on. ht_off must give every contig end a power-of-two number of slots, ht must arrive
// zeroed, and the launch must carry blockDim / WARP_SIZE * LASSM_FAST_ENDS_PER_WARP *
// (walk_stride + 2 * fast_visited_slots(max_walk)) + 1024 / WARP_SIZE * 64
// bytes of dynamic shared memory (the team scratch: 2048 bytes on NVIDIA, 1024 on CDNA; see
// lassm.backends.cuda.fast_shared_bytes; LASSM_FAST_GLOBAL_WALK: only the scratch, and
// fast_visited_slots(max_walk) zeroed visited entries per contig end in `visited`). On HIP a warp is
// a wavefront, WARP_SIZE its width, and blockDim at most 1024 threads, as on NVIDIA.
extern "C" __global__ void iterative_walks_kernel(
    const u8* __restrict__ ctg_seqs, const i64* __restrict__ ctg_span, const double* __restrict__ depths,
    const u8* __restrict__ rd_seqs, const u8* __restrict__ rd_quals, const i64* __restrict__ rd_off,
    const i64* __restrict__ rd_span, ht_slot* ht, const i64* __restrict__ ht_off, u64* visited,
    u8* walk_tmp, u8* walks, int* walk_len, int* final_k, u8* term, int* n_k, i64* steps,
    i64* insertions, i64* start_insertions, int n_ends, int start_k, int max_walk, int qual_offset,
    int walk_stride, int n_team)
{
    extern __shared__ __align__(16) u8 lassm_smem[];
    const int w = (int)(threadIdx.x / WARP_SIZE), nw = (int)(blockDim.x / WARP_SIZE);
#if LASSM_FAST_ENDS_PER_WARP == 1
    const int nt = nw, t = w;  // warp teams of a block, and this thread's (the PTX of a warp per end kept)
#else
    const int nt = nw * LASSM_FAST_ENDS_PER_WARP;
    const int t = w * LASSM_FAST_ENDS_PER_WARP + (int)(threadIdx.x % WARP_SIZE) / LASSM_FAST_TEAM_LANES;
#endif
    const bool block_team = (int)blockIdx.x < n_team;
#if LASSM_FAST_LANE_WALKS
    if (!block_team) {  // lane walks: LASSM_FAST_LANE_WALKS ends to each warp of the other blocks
        const i64 e0 = (i64)n_team + (((i64)blockIdx.x - n_team) * nw + w) * LASSM_FAST_LANE_WALKS;
        if (e0 < n_ends)
            fast_lane_ends(Team<false>(nullptr), e0, (int)min((i64)LASSM_FAST_LANE_WALKS, (i64)n_ends - e0), ctg_seqs,
                           ctg_span, depths, rd_seqs, rd_quals, rd_off, rd_span, ht, ht_off, visited, walk_tmp, walks,
                           walk_len, final_k, term, n_k, steps, insertions, start_insertions, start_k, max_walk,
                           qual_offset, walk_stride);
        return;
    }
#endif
    const i64 e = block_team ? (i64)blockIdx.x : (i64)n_team + ((i64)blockIdx.x - n_team) * nt + t;
    if (e >= n_ends) return;  // whole warp teams only: a block team's end exists
    const u32 vslots = fast_visited_slots(max_walk);
    FastShared sh;
#if LASSM_FAST_GLOBAL_WALK
    sh.wbuf = walk_tmp + e * (i64)walk_stride;
    sh.seen = visited + e * (i64)vslots;
    sh.scratch = (u64*)lassm_smem;
#elif LASSM_FAST_SORTED  // walk buffers, the scratch, then each team's region (fast_sort_region)
    const int owner = block_team ? 0 : t;
    const u32 region = fast_sort_region(vslots);
    sh.wbuf = lassm_smem + owner * walk_stride;
    sh.scratch = (u64*)(lassm_smem + nt * walk_stride);
    sh.sort = lassm_smem + nt * walk_stride + 1024 / WARP_SIZE * 64 + owner * region;
    sh.seen = (fast_visit_t*)sh.sort;
    sh.sort_bytes = block_team ? (u32)nt * region : region;
#else
    const int owner = block_team ? 0 : t;  // whose buffers the team uses
    sh.wbuf = lassm_smem + owner * walk_stride;
    sh.seen = (fast_visit_t*)(lassm_smem + nt * walk_stride) + owner * vslots;
    sh.scratch = (u64*)(lassm_smem + nt * walk_stride + nt * vslots * 2u);
#endif
    if (block_team) {
        const Team<true> team(sh.scratch);
        fast_end(team, e, sh, ctg_seqs, ctg_span, depths, rd_seqs, rd_quals, rd_off, rd_span, ht, ht_off, walks,
                 walk_len, final_k, term, n_k, steps, insertions, start_insertions, start_k, max_walk, qual_offset);
    } else {
        const Team<false> team(sh.scratch);
        fast_end(team, e, sh, ctg_seqs, ctg_span, depths, rd_seqs, rd_quals, rd_off, rd_span, ht, ht_off, walks,
                 walk_len, final_k, term, n_k, steps, insertions, start_insertions, start_k, max_walk, qual_offset);
    }
}

// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's lane walks (LASSM_FAST_LANE_WALKS = W, the fast-lanes builds): W contig ends to a warp,
// and the warp's lanes walk them at once. A warp per end leaves 31 lanes idle while one walks with
// the table, and at scale most of an SM's warps are walking (its profile there: 60 % of the
// instructions ran on one lane); here the warp does each end's inserts and table-free steps in
// turn, with all its lanes, as fast_end does, and then lane j takes end j's walk with the table,
// all W walks in one instruction stream. Each end keeps its own k: a round of the loop below is one
// k of every end still going. The walk buffers and visited sets are the global ones of
// LASSM_FAST_GLOBAL_WALK (W ends' buffers do not fit a warp's share of shared memory).
//
// Included by fast.cu after fast_end, whose pieces it calls (fast_seen, fast_scan_ext,
// fast_count_mers, fast_walk). The steps of a k around them are fast_end's, repeated here: moving
// them into functions that fast_end calls changed fast's recorded PTX.
#ifndef LASSM_FAST_LANES_CUH
#define LASSM_FAST_LANES_CUH

#if LASSM_FAST_LANE_WALKS
#if !LASSM_FAST_GLOBAL_WALK || LASSM_FAST_TEAM_LANES != WARP_SIZE
#error "lane walks need the global walk buffers and a warp per team"
#endif
#if LASSM_FAST_RESET || LASSM_FAST_FULL_TABLE || LASSM_FAST_SCAN || LASSM_FAST_SPEC_WALK || LASSM_FAST_PACKED_KEYS
#error "lane walks are built without the other knobs"
#endif
#if LASSM_FAST_LANE_WALKS < 1 || LASSM_FAST_LANE_WALKS > WARP_SIZE
#error "LASSM_FAST_LANE_WALKS: from 1 to WARP_SIZE ends to a warp"
#endif

// What a contig end's walk reads and writes, from the launch's arrays.
struct FastLaneEnd {
    const u8* ctg;
    int clen, depth;
    i64 r0, r1;
    ht_slot* table;
    u64 cap;
    u8* wbuf;
    fast_visit_t* seen;
};

__device__ __forceinline__ FastLaneEnd fast_lane_end(i64 e, const u8* ctg_seqs, const i64* ctg_span, const double* depths,
                                                     const i64* rd_span, ht_slot* ht, const i64* ht_off, u8* walk_tmp,
                                                     fast_visit_t* visited, int walk_stride, u32 vslots)
{
    FastLaneEnd d;
    d.ctg = ctg_seqs + ctg_span[2 * e];
    d.clen = (int)(ctg_span[2 * e + 1] - ctg_span[2 * e]);
    d.depth = (int)depths[e];
    d.r0 = rd_span[2 * e];
    d.r1 = rd_span[2 * e + 1];
    d.table = ht + ht_off[e];
    d.cap = (u64)(ht_off[e + 1] - ht_off[e]);
    d.wbuf = walk_tmp + e * (i64)walk_stride;
    d.seen = visited + e * (i64)vslots;
    return d;
}

// One k of end d up to its walk with the table, the warp's part (fast_end's): the start k-mer, the
// table's size, the table-free short walks, and the table for a walk still going after them.
// Returns 0 when the walk goes on with the table, from *wl with the slots *mask selects, else how it
// ended ('X', 'F' or 'R'; *wl its length). *ins: the k-mers this k inserts. Warp-uniform.
__device__ __forceinline__ u8 fast_lane_k_begin(const Team<false>& team, const FastLaneEnd& d, const u8* rd_seqs,
                                                const u8* rd_quals, const i64* rd_off, int k, u32 epoch, u32 vslots,
                                                int max_walk, int qual_offset, i64* ins_out, u32* mask_out, int* wl_out)
{
    const int tid = team.tid, T = team.size();
    for (int i = tid; i < k; i += T) d.wbuf[i] = d.ctg[d.clen - k + i];
    team.sync();  // the start k-mer before the walk
    i64 ins = 0;
    for (i64 j = d.r0 + tid; j < d.r1; j += T) {
        const int m = (int)(rd_off[j + 1] - rd_off[j]) - k;
        if (m > 0) ins += m;
    }
    ins = team.sum(ins);
    u64 size = 1ull;  // the power of two >= 2 * ins, at most cap
    while (size < 2ull * (u64)ins && size * 2ull <= d.cap) size *= 2ull;
    const u32 mask = (u32)(size - 1ull);
    int wl = 0;
    u8 t = 0;
    for (int step = 0; step < LASSM_FAST_SCAN_STEPS; ++step) {
        if (wl == max_walk) {
            t = 'X';
            break;
        }
        const u8* mer = d.wbuf + wl;
        int rep = 0;
        if (tid == 0) rep = fast_seen(d.seen, vslots, epoch, d.wbuf, mer, k, fast_hash(mer, k), wl) ? 1 : 0;
        if (team.bcast(rep)) {
            t = 'R';
            break;
        }
        const u32 ext = fast_scan_ext(team, rd_seqs, rd_quals, rd_off, d.r0, d.r1, mer, k, qual_offset, d.depth);
        if (ext == 'X' || ext == 'F') {
            t = (u8)ext;
            break;
        }
        if (tid == 0) d.wbuf[wl + k] = (u8)ext;
        team.sync();
        ++wl;
    }
    if (t == 0) fast_count_mers(team, d.table, mask, rd_seqs, rd_quals, rd_off, d.r0, d.r1, k, qual_offset, (u64)epoch << 48);
    *ins_out = ins;
    *mask_out = mask;
    *wl_out = wl;
    return t;
}

// Contig ends e0 .. e0 + n - 1 (n <= LASSM_FAST_LANE_WALKS) walked by one warp: lane j keeps end
// e0 + j's k, its best walk and its counts. Each round, the warp takes every end still going
// through fast_lane_k_begin at that end's k, in lane order; then each lane walks its end with the
// table and does the k-shift of fast_end. Writes each end's outputs from its lane.
__device__ void fast_lane_ends(const Team<false>& team, i64 e0, int n, const u8* ctg_seqs, const i64* ctg_span,
                               const double* depths, const u8* rd_seqs, const u8* rd_quals, const i64* rd_off,
                               const i64* rd_span, ht_slot* ht, const i64* ht_off, fast_visit_t* visited,
                               u8* walk_tmp, u8* walks, int* walk_len, int* final_k, u8* term, int* n_k, i64* steps,
                               i64* insertions, i64* start_insertions, int start_k, int max_walk, int qual_offset,
                               int walk_stride)
{
    const int lane = team.tid;
    const u32 vslots = fast_visited_slots(max_walk);
    const bool mine = lane < n;
    const i64 e = e0 + (mine ? lane : 0);
    const FastLaneEnd my = fast_lane_end(e, ctg_seqs, ctg_span, depths, rd_span, ht, ht_off, walk_tmp, visited,
                                         walk_stride, vslots);
    u8* best = walks + e * (i64)max_walk;
    const int max_k = min(LASSM_MAX_KMER_LEN, my.clen);
    int k = start_k, shift = 0, nk = 0, best_len = 0, best_k = 0, best_term = 0, last_term = 0;
    i64 n_steps = 0, n_ins = 0, start_ins = 0;
    bool going = mine && k >= LASSM_MIN_KMER_LEN && k <= max_k;
    while (true) {
        int active = 0, wl = 0;
        u8 t = 0;
        u32 mask = 0u;
        for (int j = 0; j < LASSM_FAST_LANE_WALKS; ++j) {  // warp-uniform: every lane asks lane j
            const int kj = team.shfl(k, j), nkj = team.shfl(nk, j);
            if (!team.shfl((int)going, j)) continue;
            ++active;
            const FastLaneEnd dj = fast_lane_end(e0 + j, ctg_seqs, ctg_span, depths, rd_span, ht, ht_off, walk_tmp,
                                                 visited, walk_stride, vslots);
            i64 ins;
            u32 mj;
            int wj;
            const u8 tj = fast_lane_k_begin(team, dj, rd_seqs, rd_quals, rd_off, kj, (u32)nkj + 1u, vslots, max_walk,
                                            qual_offset, &ins, &mj, &wj);
            if (lane == j) {
                t = tj;
                wl = wj;
                mask = mj;
                if (nk == 0) start_ins = ins;
                n_ins += ins;
                ++nk;
            }
        }
        if (active == 0) break;
        team.sync();  // the warp's writes of each end's walk buffer and table before its lane walks
        if (going) {
            const u32 epoch = (u32)nk;
            if (t == 0)
                t = fast_walk(my.table, mask, rd_seqs, (u64)epoch << 48, epoch, my.seen, vslots, max_walk, my.wbuf, k,
                              my.depth, wl, &wl);
            int stop = 0;
            LASSM_END_OF_K(t, wl, my.wbuf, k, best, best_len, best_k, best_term, n_steps, last_term, shift, stop);
            k += shift;
            going = !stop && k >= LASSM_MIN_KMER_LEN && k <= max_k;
        }
        team.sync();  // every lane's reads of its table and walk buffer before the next round's writes
    }
    if (mine) LASSM_WRITE_END(e);
}
#endif  // LASSM_FAST_LANE_WALKS

#endif  // LASSM_FAST_LANES_CUH

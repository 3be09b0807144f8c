// SPDX-License-Identifier: BSD-3-Clause
//
// The walks of one contig end in the fast variant, the same on work-group teams (fast.cl, with
// fast_team.h) and on sub-groups (fast_subgroup.cl, with fast_subgroup.h): the insert rounds and
// Algorithm 1 (fast_count_mers), the walk (fast_walk, and fast_scan_ext for its table-free first
// steps), and fast_end, the kernel's body for one end (fast.cu's, ported; see fast.cl for the
// changes). The lanes' header, included first, gives the team: LASSM_FAST_WIDTH lanes, the
// fast_team handle, fast_group_prefix, fast_team_sum8 and fast_local_sync; team.h or subgroup.h
// give lane_id, lanes_sync, lanes_broadcast and lanes_reduce_add.
#ifndef LASSM_FAST_WALKS_H
#define LASSM_FAST_WALKS_H

#include "common.h"
#include "bytes.h"
#include "set_ext.h"
#include "k_shift.h"
#include "fast_table.h"

#ifndef LASSM_FAST_WIDTH
#error "include fast_team.h or fast_subgroup.h (the team's collectives) before fast_walks.h"
#endif
#ifndef LASSM_FAST_SCAN_STEPS
#define LASSM_FAST_SCAN_STEPS 4
#endif

// The read (its lane number in the group) that holds flat position x < total, and x's position in
// it: the first lane whose inclusive sum exceeds x (a binary search; any LASSM_FAST_WIDTH).
int fast_flat_read(fast_team t, int x, int *pos) {
    int lo = 0, hi = LASSM_FAST_WIDTH - 1;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (t.incl[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    *pos = x - (t.incl[lo] - t.m[lo]);
    return lo;
}

// One round of inserts: the claim (or find) of the read k-mer at byte pos, a team barrier that
// orders every claimer's zeroing before any vote, then its votes. Every lane calls, active or not.
void fast_insert_round(fast_team t, __global ulong *keys, __global uint *votes, uint mask,
                       __global const uint *rwords, __global const uchar *rquals, long pos, int k, ulong tag,
                       int active) {
    uint slot = 0U;
    if (active) slot = fast_insert(keys, votes, mask, rwords, pos, k, fast_hash_g(rwords, pos, k), tag);
    lanes_sync(t.lanes);
    if (active) {
        const int b = base_index(((__global const uchar *)rwords)[pos + k]);
        if (b >= 0) {
            const int q = (int)rquals[pos + k] - LASSM_QUAL_OFFSET;
            volatile __global uint *v = votes + 8 * (size_t)slot;
            if (q >= LASSM_MIN_QUAL) atomic_inc(v + b);
            if (q >= LASSM_MIN_HI_QUAL) atomic_inc(v + 4 + b);
        }
    }
}

// Algorithm 1 without the reset and without the vote scan: the team inserts every k-mer of the
// reads r0 .. r1-1 (the last k-mer of a read is never inserted) and casts its votes, group by
// group of LASSM_FAST_WIDTH reads; round r of a group gives lane i the flat position r * LASSM_FAST_WIDTH + i.
void fast_count_mers(fast_team t, __global ulong *keys, __global uint *votes, uint mask,
                     __global const uint *rwords, __global const uchar *rquals, __global const long *roff,
                     long r0, long r1, int k, ulong tag) {
    const int lane = lane_id(t.lanes);
    for (long g = r0; g < r1; g += LASSM_FAST_WIDTH) {
        const int total = fast_group_prefix(t, roff, g, r1, k);
        for (int base = 0; base < total; base += LASSM_FAST_WIDTH) {  // uniform: the barrier
            const int x = base + lane;
            const int active = x < total;
            int s = 0;
            const int r = active ? fast_flat_read(t, x, &s) : 0;
            const long pos = active ? roff[g + r] + s : 0;
            fast_insert_round(t, keys, votes, mask, rwords, rquals, pos, k, tag, active);
        }
    }
    lanes_sync(t.lanes);
}

// Lane 0: whether the walk's k-mer at wl (hash h) is already in this k's visited set; records it
// when it is not. The set has LASSM_FAST_VSLOTS entries holding a walk offset plus one (0 = none).
bool fast_seen(__local ushort *seen, __local const uint *wwords, int k, uint h, int wl) {
    uint v = h & (LASSM_FAST_VSLOTS - 1U);
    for (;;) {  // fewer than LASSM_FAST_VSLOTS entries, so an empty one exists
        const uint kv = seen[v];
        if (kv == 0U) break;
        if (fast_kmer_eq_ll(wwords, (long)(kv - 1U), wwords, wl, k)) return true;
        v = (v + 1U) & (LASSM_FAST_VSLOTS - 1U);
    }
    seen[v] = (ushort)(wl + 1);
    return false;
}

// Algorithm 2 with the table, lane 0, going on from walk offset wl0 (the steps before it were
// taken by scanning): the extension is voted on the spot. Sets *walk_len; returns the terminator.
uchar fast_walk(__global const ulong *keys, __global const uint *votes, uint mask, __global const uint *rwords,
                ulong tag, __local ushort *seen, __local uint *wwords, int k, long depth, int wl0, int *walk_len) {
    __local uchar *wbuf = (__local uchar *)wwords;
    int wl = wl0;
    uchar code = EXT_DEAD;
    for (int step = wl0; step < LASSM_MAX_WALK; ++step) {
        const uint h = fast_hash_l(wwords, wl, k);
        if (fast_seen(seen, wwords, k, h, wl)) {
            code = EXT_LOOP;
            break;
        }
        uint low[4], high[4];
        if (!fast_find_votes(keys, votes, mask, rwords, wwords, wl, k, h, tag, low, high)) {
            code = EXT_DEAD;
            break;
        }
        const uchar ext = set_ext(low, high, depth);
        if (ext == EXT_DEAD || ext == EXT_FORK) {
            code = ext;
            break;
        }
        wbuf[wl + k] = ext;
        ++wl;
    }
    *walk_len = wl;
    return code;
}

// A walk step without a table (a table-free short walk), team-wide: the votes of the walk's k-mer
// at wl counted over every inserted position of the reads r0 .. r1-1 (a one-word prefix test, then
// the full compare), summed over the team and voted by set_ext. Returns the extension in every lane.
uchar fast_scan_ext(fast_team t, __global const uint *rwords, __global const uchar *rquals,
                    __global const long *roff, long r0, long r1, __local const uint *wwords, int wl, int k,
                    long depth) {
    const int lane = lane_id(t.lanes);
    __global const uchar *rseqs = (__global const uchar *)rwords;
    const uint first = fast_funnel(wwords[wl >> 2], wwords[(wl >> 2) + 1], (uint)(wl & 3) * 8U);  // k >= 4
    uint c[8] = {0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U};  // low_q[4], hi_q[4]
    for (long g = r0; g < r1; g += LASSM_FAST_WIDTH) {
        const int total = fast_group_prefix(t, roff, g, r1, k);
        for (int x = lane; x < total; x += LASSM_FAST_WIDTH) {  // no barrier inside
            int s;
            const int r = fast_flat_read(t, x, &s);
            const long p = roff[g + r] + s;
            if (fast_funnel(rwords[p >> 2], rwords[(p >> 2) + 1], (uint)(p & 3) * 8U) != first) continue;
            if (!fast_kmer_eq_gl(rwords, p, wwords, wl, k)) continue;
            const int b = base_index(rseqs[p + k]);
            if (b < 0) continue;
            const int q = (int)rquals[p + k] - LASSM_QUAL_OFFSET;
            const uint low = q >= LASSM_MIN_QUAL ? 1U : 0U, high = q >= LASSM_MIN_HI_QUAL ? 1U : 0U;
            for (int i = 0; i < 4; ++i) {  // no indexing by b: the counters stay in registers
                c[i] += b == i ? low : 0U;
                c[4 + i] += b == i ? high : 0U;
            }
        }
    }
    fast_team_sum8(t, c);
    uint ext = 0U;
    if (lane == 0) ext = set_ext(c, c + 4, depth);
    return (uchar)lanes_broadcast(t.lanes, ext, 0);
}

// One contig end (contig id ends[e]), walked by the team: the k-shift loop of portable.cl with the
// changes above. Per end: table slots ht_off[e] .. ht_off[e+1]-1 (keys, 8 votes each), a power of
// two; results at the contig id, in the layout of lassm.result.SideResult.
//
// Its arguments after the team's are the kernel's (fast.cl, fast_subgroup.cl) but the launch's
// n_ends and first: the inputs (common.h), then the table, the start k and the results.
#define LASSM_FAST_WORK \
    __global const long *ht_off, __global ulong *keys, __global uint *votes, const int start_k, LASSM_END_RESULTS
#define LASSM_FAST_NAMES LASSM_END_INPUT_NAMES, ht_off, keys, votes, start_k, LASSM_END_RESULT_NAMES
void fast_end(int e, fast_team t, __local ushort *seen, __local uint *wwords, LASSM_END_INPUTS, LASSM_FAST_WORK) {
    const int lane = lane_id(t.lanes);
    __global const uint *rwords = (__global const uint *)rseqs;
    __local uchar *wbuf = (__local uchar *)wwords;
    LASSM_END_PLACE(e);
    const ulong cap = n_slots;

    const int max_k = min(LASSM_MAX_KMER_LEN, clen);
    int best_len = 0, best_k = 0, nk = 0, shift = 0;
    uchar best_term = 0, last_term = 0;
    long n_steps = 0, n_ins = 0, start_ins = 0;
    for (int k = start_k; k >= LASSM_MIN_KMER_LEN && k <= max_k; k += shift) {  // uniform over the team
        const ulong tag = (ulong)(nk + 1) << 48;
        for (int i = lane; i < LASSM_FAST_VSLOTS; i += LASSM_FAST_WIDTH) seen[i] = 0;
        for (int i = lane; i < k; i += LASSM_FAST_WIDTH) wbuf[i] = ctg_seqs[c0 + clen - k + i];
        fast_local_sync(t);  // the clears and the start k-mer before the walk
        // The k-mers this k inserts, summed over the team.
        long ins = 0;
        for (long j = r0 + lane; j < r1; j += LASSM_FAST_WIDTH) ins += max((long)(roff[j + 1] - roff[j]) - k, 0L);
        ins = lanes_reduce_add(t.lanes, ins);
        // The power of two >= 2 * ins, at most cap: more slots than distinct k-mers either way.
        ulong size = 1;
        while (size < 2 * (ulong)ins && size * 2 <= cap) size *= 2;
        const uint mask = (uint)(size - 1);
        if (nk == 0) start_ins = ins;
        n_ins += ins;
        ++nk;
        // The first steps by scanning the reads (uniform: every lane holds wl and code) ...
        int wl = 0;
        uchar code = 0;
        for (int step = 0; step < LASSM_FAST_SCAN_STEPS; ++step) {
            if (wl == LASSM_MAX_WALK) {
                code = EXT_DEAD;
                break;
            }
            uint rep = 0U;
            if (lane == 0) rep = fast_seen(seen, wwords, k, fast_hash_l(wwords, wl, k), wl) ? 1U : 0U;
            if (lanes_broadcast(t.lanes, rep, 0)) {
                code = EXT_LOOP;
                break;
            }
            const uchar ext = fast_scan_ext(t, rwords, rquals, roff, r0, r1, wwords, wl, k, depth);
            if (ext == EXT_DEAD || ext == EXT_FORK) {
                code = ext;
                break;
            }
            if (lane == 0) wbuf[wl + k] = ext;
            fast_local_sync(t);
            ++wl;
        }
        // ... and a walk still going builds the table and goes on with it (lane 0).
        if (code == 0) {
            fast_count_mers(t, keys, votes, mask, rwords, rquals, roff, r0, r1, k, tag);
            if (lane == 0) code = fast_walk(keys, votes, mask, rwords, tag, seen, wwords, k, depth, wl, &wl);
            wl = (int)lanes_broadcast(t.lanes, (uint)wl, 0);
            code = (uchar)lanes_broadcast(t.lanes, (uint)code, 0);
            fast_local_sync(t);  // lane 0's walk buffer before the others copy it
        }
        LASSM_KEEP_WALK(lane, LASSM_FAST_WIDTH, wl, k, code, wbuf, best);
        lanes_sync(t.lanes);  // the walk buffer's readers before the next k's writes
        fast_local_sync(t);
        if (k_shift(code, &shift)) break;
    }
    if (lane == 0) LASSM_WRITE_END(cid, nk);
}

#endif  // LASSM_FAST_WALKS_H

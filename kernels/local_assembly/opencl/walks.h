// SPDX-License-Identifier: BSD-3-Clause
//
// The walks of one contig end, the same on sub-groups (faithful.cl) and on work-group teams
// (portable.cl): Algorithm 1 (count_mers), the walk (walk_mers, Algorithm 2), the k-shift
// (k_shift) and extend_end, the kernel's body for one end. The lanes of the end call every
// function together; their collectives come from subgroup.h or team.h, included first.
#ifndef LASSM_WALKS_H
#define LASSM_WALKS_H

#include "common.h"
#include "bytes.h"
#include "ht_insert.h"
#include "set_ext.h"
#include "k_shift.h"

// ---- count_mers: the table at one k (Algorithm 1) ------------------------------------------
// Zero the table, let the lanes insert the k-mers of the reads r0..r1-1 (positions s in
// [0, len - k); the extension base rseqs[s + k] votes when it is ACGT and its quality is high
// enough), then vote every occupied slot into exts. Every lane calls; returns the insertions.
long count_mers(key_ptr keys, vote_ptr votes, __global uchar *exts, ulong size,
                __global const uchar *rseqs, __global const uchar *rquals,
                __global const long *roff, long r0, long r1, int k, long depth, lanes_t lanes) {
    const int lane = lane_id(lanes);
    const int width = lane_count(lanes);
    for (ulong s = (ulong)lane; s < size; s += (ulong)width) {
        key_store(keys + s, KEY_EMPTY);
        for (int b = 0; b < 8; ++b) vote_store(votes + 8 * s + b, 0U);
    }
    lanes_sync(lanes);

    long n_ins = 0;
    for (long j = r0; j < r1; ++j) {
        const long a = roff[j];
        const int npos = (int)(roff[j + 1] - a) - k;  // the same for every lane: uniform loops
        for (int s0 = 0; s0 < npos; s0 += width) {
            const int s = s0 + lane;
            const int active = s < npos;
            const long pos = a + s;
            const ulong slot = ht_insert(keys, size, rseqs, pos, k, active, lanes);
            if (active) {
                ++n_ins;
                const int b = base_index(rseqs[pos + k]);
                if (b >= 0) {
                    const int q = (int)rquals[pos + k] - LASSM_QUAL_OFFSET;
                    if (q >= LASSM_MIN_QUAL) vote_add(votes + 8 * slot + b);
                    if (q >= LASSM_MIN_HI_QUAL) vote_add(votes + 8 * slot + 4 + b);
                }
            }
        }
    }
    lanes_sync(lanes);

    for (ulong s = (ulong)lane; s < size; s += (ulong)width) {
        if (key_load(keys + s) == KEY_EMPTY) continue;
        uint nv[4], hq[4];
        for (int b = 0; b < 4; ++b) {
            nv[b] = vote_load(votes + 8 * s + b);
            hq[b] = vote_load(votes + 8 * s + 4 + b);
        }
        exts[s] = set_ext(nv, hq, depth);
    }
    lanes_sync(lanes);
    return lanes_reduce_add(lanes, n_ins);
}

// ---- walk_mers: the mer-walk (Algorithm 2), lane 0 only --------------------------------------
// Walk from the k-mer wbuf[0, k), appending bases to wbuf; `visited` (LASSM_MAX_WALK slots, zeroed
// by the caller) holds wbuf offsets + 1 of the k-mers seen. Returns the walk length and sets *term
// to 'X' (dead end or walk limit), 'F' (fork) or 'R' (loop). The visited table has one free slot
// at every look-up: at most LASSM_MAX_WALK - 1 k-mers are in it then.
int walk_mers(key_ptr keys, __global const uchar *exts, ulong size, __global const uchar *rseqs,
              __global uint *visited, __global uchar *wbuf, int k, uchar *term) {
    int wl = 0;
    for (int step = 0; step < LASSM_MAX_WALK; ++step) {
        __global const uchar *mer = wbuf + wl;
        const uint hash = murmur_hash2(mer, k);
        ulong v = (ulong)hash % LASSM_MAX_WALK;
        for (;;) {
            const uint seen = visited[v];
            if (seen == 0) {
                visited[v] = (uint)wl + 1;
                break;
            }
            if (same_kmer(wbuf + (seen - 1), mer, k)) {
                *term = EXT_LOOP;
                return wl;
            }
            v = next_slot(v, LASSM_MAX_WALK);
        }
        const long slot = ht_find(keys, size, rseqs, mer, hash, k);
        if (slot < 0) {
            *term = EXT_DEAD;
            return wl;
        }
        const uchar ext = exts[slot];
        if (ext == EXT_DEAD || ext == EXT_FORK) {
            *term = ext;
            return wl;
        }
        wbuf[wl + k] = ext;
        ++wl;
    }
    *term = EXT_DEAD;
    return wl;
}

// ---- extend_end: one contig end, every k of the k-shift loop --------------------------------
// End e of the launch (contig id ends[e]). Per end e the workspace is: table slots ht_off[e] ..
// ht_off[e+1]-1 (keys, 8 vote counters, ext byte), visited slots e*LASSM_MAX_WALK.., walk buffer
// e*(LASSM_MAX_KMER_LEN + LASSM_MAX_WALK)... Results are written at the contig id, in the layout
// of lassm.result.SideResult. Every lane of the end calls; loops are uniform over the lanes.
//
// Its arguments are the kernel's (faithful.cl, portable.cl) but the launch's n_ends: the inputs
// (common.h), then the workspace, the start k and the results.
#define LASSM_END_WORK                                                                             \
    __global const long *ht_off, key_ptr keys, vote_ptr votes, __global uchar *exts,                \
    __global uint *visited, __global uchar *wbufs, const int start_k, LASSM_END_RESULTS
#define LASSM_END_NAMES \
    LASSM_END_INPUT_NAMES, ht_off, keys, votes, exts, visited, wbufs, start_k, LASSM_END_RESULT_NAMES
void extend_end(int e, lanes_t lanes, LASSM_END_INPUTS, LASSM_END_WORK) {
    const int lane = lane_id(lanes);
    const int width = lane_count(lanes);

    LASSM_END_PLACE(e);
    const ulong size = n_slots;
    exts += h0;
    visited += (ulong)e * LASSM_MAX_WALK;
    __global uchar *wbuf = wbufs + (ulong)e * (LASSM_MAX_KMER_LEN + LASSM_MAX_WALK);

    const int max_k = min(LASSM_MAX_KMER_LEN, clen);
    int best_len = 0, best_k = 0, n_tried = 0, shift = 0;
    uchar best_term = 0, last_term = 0;
    long n_steps = 0, n_ins = 0, start_ins = 0;
    // The k-shift loop (Step 3): uniform over the lanes.
    for (int k = start_k; k >= LASSM_MIN_KMER_LEN && k <= max_k; k += shift) {
        const long ins = count_mers(keys, votes, exts, size, rseqs, rquals, roff, r0, r1, k, depth, lanes);
        if (n_tried == 0) start_ins = ins;
        n_ins += ins;
        ++n_tried;

        for (int t = lane; t < k; t += width) wbuf[t] = ctg_seqs[c0 + clen - k + t];
        for (int t = lane; t < LASSM_MAX_WALK; t += width) visited[t] = 0;
        lanes_sync(lanes);
        int wl = 0;
        uchar code = 0;
        if (lane == 0) wl = walk_mers(keys, exts, size, rseqs, visited, wbuf, k, &code);
        wl = (int)lanes_broadcast(lanes, (uint)wl, 0);
        code = (uchar)lanes_broadcast(lanes, (uint)code, 0);
        lanes_sync(lanes);

        LASSM_KEEP_WALK(lane, width, wl, k, code, wbuf, best);
        if (k_shift(code, &shift)) break;
    }
    if (lane == 0) LASSM_WRITE_END(cid, n_tried);
}

#endif  // LASSM_WALKS_H

// SPDX-License-Identifier: BSD-3-Clause
//
// MetaHipMer's local-assembly kernel (iterative_walks_kernel of the standalone ht_loc program),
// written anew from ../../../../shared/spec/local-assembly.md for CUDA and HIP: the four faithful
// builds, one per collision protocol. This project's optimized variant is fast.cu.
//
// One warp (a 64-lane wavefront on AMD) per contig end: the lanes insert the k-mers of one read
// at consecutive start positions, read after read, into the contig end's own open-addressing
// table; lane 0 then walks while the others wait; the k-shift loop runs on the device.
//
// Read it next to the paper (its Algorithms 1 and 2) and the spec:
//   the hash insert   ht_insert   (ht_insert.cuh, one per protocol)
//   the vote          set_ext     (set_ext.cuh)
//   Algorithm 1       count_mers  (below: inserts, then the vote of every used slot)
//   the walk          walk_mers   (below: Algorithm 2, the mer-walk)
//   the k-shift       the loop of iterative_walks_kernel (below), written inline on purpose:
//                     as a device function (tried: by pointer, by reference, as two pure helpers)
//                     it changes the faithful PTX, which must stay byte-identical
//
// The file compiles on its own (NVRTC and hipRTC with -I of this folder; nvcc -c and hipcc find
// the headers beside it): every knob has a default that a -D option overrides. The collision
// protocol is picked with
//   -DLASSM_PROTOCOL=LASSM_PROTO_CASPTR | LASSM_PROTO_MATCHANY | LASSM_PROTO_DONEFLAG | LASSM_PROTO_BARRIER
// (see book/kernel-protocols.md for what each one is, and what was changed to make it race-free).
#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_CASPTR
#endif
#include "common.cuh"
#if LASSM_PROTOCOL == LASSM_PROTO_FAST
#error "faithful.cu builds the four faithful protocols; LASSM_PROTO_FAST is fast.cu"
#endif
#include "bytes.cuh"
#include "ht_insert.cuh"
#include "set_ext.cuh"

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
// walk_mers (Algorithm 2, the mer-walk), one lane: walk from the k-mer wbuf[0, k), appending to wbuf.
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
            LASSM_END_OF_K(t, wl, wbuf, k, best, best_len, best_k, best_term, n_steps, last_term, shift, stop);
        }
        shift = LASSM_SHFL(shift, 0);
        stop = LASSM_SHFL(stop, 0);
        LASSM_SYNCWARP();  // lane 0's reads of the tables come before the next reset
        if (stop) break;
    }
    if (lane == 0) LASSM_WRITE_END(warp);
}

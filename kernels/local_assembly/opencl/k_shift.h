// SPDX-License-Identifier: BSD-3-Clause
//
// The k-shift (the spec's Step 3) and the end of each k, shared by walks.h (faithful.cl,
// portable.cl) and fast_walks.h (fast.cl, fast_subgroup.cl): how k moves after a walk, when the
// loop over k stops, which walk is kept and what is written for the contig end.
#ifndef LASSM_K_SHIFT_H
#define LASSM_K_SHIFT_H

#include "common.h"

// ---- k_shift: the k-shift (the spec's Step 3) ------------------------------------------------
// After a walk that ended with `code`, k moves by LASSM_SHIFT_SIZE: down after a dead end, up after
// a fork or a repeat. `shift` is the move that led to this k (0 at the start k); returns 1, leaving
// it as it is, when the direction would turn back: the loop stops there.
int k_shift(uchar code, int *shift) {
    if (code == EXT_DEAD) {
        if (*shift == LASSM_SHIFT_SIZE) return 1;
        *shift = -LASSM_SHIFT_SIZE;
    } else {
        if (*shift == -LASSM_SHIFT_SIZE) return 1;
        *shift = LASSM_SHIFT_SIZE;
    }
    return 0;
}

// ---- the end of one k, and of the contig end ---------------------------------------------------
// Both read and update the walk's state under the names every walk loop gives it: best_len,
// best_k, best_term, last_term, n_steps (and, for the results, the tries `nk`, n_ins, start_ins).
// Macros, so that `wbuf` may be __global (walks.h) or __local (fast_walks.h): OpenCL C 1.2 has no
// generic address space.
//
// The walk of `wl` bases at k that ended with `code`: counted, and copied to `best` by the
// `width` lanes where it is strictly longer than the best so far (ties keep the earlier k).
#define LASSM_KEEP_WALK(lane, width, wl, k, code, wbuf, best)              \
    {                                                                      \
        n_steps += (wl);                                                   \
        last_term = (code);                                                \
        if ((wl) > best_len) {                                             \
            for (int i_ = (lane); i_ < (wl); i_ += (width)) (best)[i_] = (wbuf)[(k) + i_]; \
            best_len = (wl);                                               \
            best_k = (k);                                                  \
            best_term = (code);                                            \
        }                                                                  \
    }

// Contig `cid`'s results after its last k, in the layout of lassm's SideResult.
#define LASSM_WRITE_END(cid, nk)                                           \
    {                                                                      \
        walk_len[cid] = best_len;                                          \
        final_k[cid] = best_k;                                             \
        term[cid] = best_len == 0 ? last_term : best_term;                 \
        n_k[cid] = (nk);                                                   \
        steps[cid] = n_steps;                                              \
        insertions[cid] = n_ins;                                           \
        start_insertions[cid] = start_ins;                                 \
    }

#endif  // LASSM_K_SHIFT_H

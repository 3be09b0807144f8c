// SPDX-License-Identifier: BSD-3-Clause
//
// The k-shift (the spec's Step 3), one function shared by walks.h (faithful.cl, portable.cl) and
// fast.cl: how k moves after a walk, and when the loop over k stops.
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

#endif  // LASSM_K_SHIFT_H

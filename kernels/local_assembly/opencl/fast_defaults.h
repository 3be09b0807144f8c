// SPDX-License-Identifier: BSD-3-Clause
//
// The defaults fast.cl and fast_subgroup.cl set before common.h reads them: the fast variant, and
// 64-bit keys (its epoch tags need them). A build option (-DNAME=VALUE) overrides each.
#ifndef LASSM_FAST_DEFAULTS_H
#define LASSM_FAST_DEFAULTS_H

#ifndef LASSM_PROTOCOL
#define LASSM_PROTOCOL LASSM_PROTO_FAST
#endif
#ifndef LASSM_KEY64
#define LASSM_KEY64 1
#endif

#endif

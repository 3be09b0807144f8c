// SPDX-License-Identifier: BSD-3-Clause
//
// What every build of the local-assembly kernel shares: the platform (CUDA or HIP), the knobs
// (each an #ifndef default that a -D option overrides), the warp collectives and the table slot.
// Included first by faithful.cu and fast.cu, which set LASSM_PROTOCOL's default.
#ifndef LASSM_COMMON_CUH
#define LASSM_COMMON_CUH

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
// faithful.cu defaults to casptr and fast.cu to fast; a header included alone has no kernel.
#ifndef LASSM_PROTOCOL
#error "define LASSM_PROTOCOL before including common.cuh (faithful.cu and fast.cu do)"
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
// a WARP_SIZE that disagrees would make every vote and shuffle cover the wrong lanes. (clang's host
// pass defines __AMDGCN_WAVEFRONT_SIZE as 64 for every target: only the device pass is checked.)
#if LASSM_HIP && defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != WARP_SIZE
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
// The end of one k's walk, as every CUDA kernel takes it: count the walk's steps, keep the
// longest walk (ties keep the earlier k; `walked` holds the k-mer then the walk), then the spec's
// Step 3, k_shift: a dead end ('X') down-shifts, a fork or a repeat up-shifts, and a shift that
// turns back sets `stop`. A macro, not a device function: a device function changes the
// faithful PTX, whose digests are recorded (tests/backends/test_kernel_sources.py).
// ---------------------------------------------------------------------------------------------
#define LASSM_END_OF_K(t, wl, walked, k, best, best_len, best_k, best_term, n_steps, last_term, shift, stop) \
    {                                                                                      \
        n_steps += wl;                                                                     \
        last_term = t;                                                                     \
        if (wl > best_len) {                                                               \
            for (int i = 0; i < wl; ++i) best[i] = walked[k + i];                          \
            best_len = wl;                                                                 \
            best_k = k;                                                                    \
            best_term = t;                                                                 \
        }                                                                                  \
        if (t == 'X') {                                                                    \
            if (shift == LASSM_SHIFT_SIZE) stop = 1;                                       \
            shift = -LASSM_SHIFT_SIZE;                                                     \
        } else {                                                                           \
            if (shift == -LASSM_SHIFT_SIZE) stop = 1;                                      \
            shift = LASSM_SHIFT_SIZE;                                                      \
        }                                                                                  \
    }

// The results of contig end `e` after its last k, as every CUDA kernel writes them: from the
// walk state each keeps under these names (best_len, best_k, best_term, last_term, nk, n_steps,
// n_ins, start_ins) into the kernel's output arrays of the same names as the host's SideResult.
#define LASSM_WRITE_END(e)                                       \
    {                                                            \
        walk_len[e] = best_len;                                  \
        final_k[e] = best_k;                                     \
        term[e] = (u8)(best_len > 0 ? best_term : last_term);    \
        n_k[e] = nk;                                             \
        steps[e] = n_steps;                                      \
        insertions[e] = n_ins;                                   \
        start_insertions[e] = start_ins;                         \
    }

#endif  // LASSM_COMMON_CUH

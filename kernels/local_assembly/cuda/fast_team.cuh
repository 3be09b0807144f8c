// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's teams (block teams): the threads that walk one contig end, a warp or a whole block, and
// how they meet, broadcast and sum.
#ifndef LASSM_FAST_TEAM_CUH
#define LASSM_FAST_TEAM_CUH

#include "common.cuh"

#if LASSM_HIP
#define LASSM_SHFL_XOR(v, m) __shfl_xor((v), (m), WARP_SIZE)
#define LASSM_SHFL_UP(v, d) __shfl_up((v), (d), WARP_SIZE)
#else
#define LASSM_SHFL_XOR(v, m) __shfl_xor_sync(LASSM_FULL_MASK, (v), (m), WARP_SIZE)
#define LASSM_SHFL_UP(v, d) __shfl_up_sync(LASSM_FULL_MASK, (v), (d), WARP_SIZE)
#endif

// Lanes of a warp team (narrow teams, tried): a warp walks WARP_SIZE / LASSM_FAST_TEAM_LANES contig ends at
// once, each with a team of LASSM_FAST_TEAM_LANES lanes. The serial part of an end (the walk with a
// table, the visited probes, the votes) runs on one lane of its team, so narrower teams put more of
// a warp's lanes to work there; the inserts and scans of an end get fewer lanes, but a warp's lanes
// do the same number of them. A power of two from 4 to WARP_SIZE (the default: a warp per end).
#ifndef LASSM_FAST_TEAM_LANES
#define LASSM_FAST_TEAM_LANES WARP_SIZE
#endif
#if LASSM_FAST_TEAM_LANES < 4 || LASSM_FAST_TEAM_LANES > WARP_SIZE || (LASSM_FAST_TEAM_LANES & (LASSM_FAST_TEAM_LANES - 1))
#error "LASSM_FAST_TEAM_LANES must be a power of two from 4 to WARP_SIZE"
#endif
#define LASSM_FAST_ENDS_PER_WARP (WARP_SIZE / LASSM_FAST_TEAM_LANES)

// ---------------------------------------------------------------------------------------------
// Teams (block teams). A contig end is walked by a team: LASSM_FAST_TEAM_LANES lanes of a warp, or,
// for the ends with the most read bases, a whole block. The team's threads share the inserts and
// the table-free scans; the walk with a table stays one thread's. Team<false> is a warp's segment
// of LANES lanes, Team<true> a block whose warps meet at __syncthreads and sum through `scratch`
// (8 words of shared memory per warp of the block: at most 1024 / WARP_SIZE warps, so 32 on
// NVIDIA and 16 wavefronts on CDNA). Only shuffles and barriers cross lanes, no ballot, so the
// same code serves 32- and 64-lane warps. On CUDA a warp team names its own lanes in every
// shuffle and barrier (`mask`): the teams of one warp run apart, as independent thread
// scheduling allows; HIP has no masks, and a shuffle of `width` LANES stays in the segment.
// LANES is also the width of the groups of reads the flat inserts take at a time.
// ---------------------------------------------------------------------------------------------
template <bool BLOCK> struct Team;

template <> struct Team<false> {
    enum : int { LANES = LASSM_FAST_TEAM_LANES };  // an enum, not a variable: no global in the PTX
    int tid;  // lane within the team
#if !LASSM_HIP
    u32 mask;  // the team's lanes of its warp
#endif
    __device__ explicit Team(u64*) : tid((int)(threadIdx.x % LANES))
    {
#if !LASSM_HIP
        const int first = (int)(threadIdx.x % WARP_SIZE) - tid;
        mask = LANES >= 32 ? LASSM_FULL_MASK : (((1u << (LANES % 32)) - 1u) << first);
#endif
    }
    __device__ __forceinline__ int size() const { return LANES; }
    __device__ __forceinline__ int warp() const { return 0; }
#if LASSM_HIP
    __device__ __forceinline__ void sync() const { LASSM_SYNCWARP(); }
    template <class T> __device__ __forceinline__ T shfl(T v, int src) const { return __shfl(v, src, LANES); }
    template <class T> __device__ __forceinline__ T shfl_up(T v, int d) const { return __shfl_up(v, d, LANES); }
    template <class T> __device__ __forceinline__ T shfl_xor(T v, int m) const { return __shfl_xor(v, m, LANES); }
#else
    __device__ __forceinline__ void sync() const { __syncwarp(mask); }
    template <class T> __device__ __forceinline__ T shfl(T v, int src) const { return __shfl_sync(mask, v, src, LANES); }
    template <class T> __device__ __forceinline__ T shfl_up(T v, int d) const { return __shfl_up_sync(mask, v, d, LANES); }
    template <class T> __device__ __forceinline__ T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask, v, m, LANES); }
#endif
    __device__ __forceinline__ int bcast(int v) const { return shfl(v, 0); }
    __device__ __forceinline__ i64 sum(i64 v) const
    {
        for (int o = LANES / 2; o > 0; o /= 2) v += shfl_xor(v, o);
        return v;
    }
    __device__ __forceinline__ void sum8(u32* c) const
    {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            for (int o = LANES / 2; o > 0; o /= 2) c[i] += shfl_xor(c[i], o);
    }
};

template <> struct Team<true> {
    int tid;
    u64* scratch;
    enum : int { LANES = WARP_SIZE };  // each warp takes its own group of reads
    __device__ explicit Team(u64* s) : tid((int)threadIdx.x), scratch(s) {}
    __device__ __forceinline__ int size() const { return (int)blockDim.x; }
    __device__ __forceinline__ int warp() const { return tid / WARP_SIZE; }
    __device__ __forceinline__ void sync() const { __syncthreads(); }
    template <class T> __device__ __forceinline__ T shfl(T v, int src) const { return LASSM_SHFL(v, src); }
    template <class T> __device__ __forceinline__ T shfl_up(T v, int d) const { return LASSM_SHFL_UP(v, d); }
    __device__ __forceinline__ int bcast(int v) const
    {
        if (tid == 0) scratch[0] = (u64)(unsigned)v;
        __syncthreads();
        const int out = (int)(unsigned)scratch[0];
        __syncthreads();
        return out;
    }
    __device__ __forceinline__ i64 sum(i64 v) const
    {
        for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += LASSM_SHFL_XOR(v, o);
        if (tid % WARP_SIZE == 0) scratch[warp()] = (u64)v;
        __syncthreads();
        i64 out = 0;
        for (int w = 0; w < size() / WARP_SIZE; ++w) out += (i64)scratch[w];
        __syncthreads();
        return out;
    }
    __device__ __forceinline__ void sum8(u32* c) const
    {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            for (int o = WARP_SIZE / 2; o > 0; o /= 2) c[i] += LASSM_SHFL_XOR(c[i], o);
        if (tid % WARP_SIZE == 0)
#pragma unroll
            for (int i = 0; i < 8; ++i) scratch[warp() * 8 + i] = c[i];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            u32 t = 0u;
            for (int w = 0; w < size() / WARP_SIZE; ++w) t += (u32)scratch[w * 8 + i];
            c[i] = t;
        }
        __syncthreads();
    }
};

#endif  // LASSM_FAST_TEAM_CUH

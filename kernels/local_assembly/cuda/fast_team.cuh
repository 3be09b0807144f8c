// SPDX-License-Identifier: BSD-3-Clause
//
// fast.cu's teams (change 9): the threads that walk one contig end, a warp or a whole block, and
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

// ---------------------------------------------------------------------------------------------
// Teams (change 9). A contig end is walked by a team: one warp, or, for the ends with the most
// read bases, a whole block. The team's threads share the inserts and the table-free scans; the
// walk with a table stays one thread's. Team<false> is a warp, Team<true> a block whose warps
// meet at __syncthreads and sum through `scratch` (8 words of shared memory per warp of the block:
// at most 1024 / WARP_SIZE warps, so 32 on NVIDIA and 16 wavefronts on CDNA). Only shuffles and
// barriers cross lanes, no ballot or lane mask, so the same code serves 32- and 64-lane warps.
// ---------------------------------------------------------------------------------------------
template <bool BLOCK> struct Team;

template <> struct Team<false> {
    int tid;  // lane
    __device__ explicit Team(u64*) : tid((int)(threadIdx.x % WARP_SIZE)) {}
    __device__ __forceinline__ int size() const { return WARP_SIZE; }
    __device__ __forceinline__ int warp() const { return 0; }
    __device__ __forceinline__ void sync() const { LASSM_SYNCWARP(); }
    __device__ __forceinline__ int bcast(int v) const { return LASSM_SHFL(v, 0); }
    __device__ __forceinline__ i64 sum(i64 v) const
    {
        for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += LASSM_SHFL_XOR(v, o);
        return v;
    }
    __device__ __forceinline__ void sum8(u32* c) const
    {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            for (int o = WARP_SIZE / 2; o > 0; o /= 2) c[i] += LASSM_SHFL_XOR(c[i], o);
    }
};

template <> struct Team<true> {
    int tid;
    u64* scratch;
    __device__ explicit Team(u64* s) : tid((int)threadIdx.x), scratch(s) {}
    __device__ __forceinline__ int size() const { return (int)blockDim.x; }
    __device__ __forceinline__ int warp() const { return tid / WARP_SIZE; }
    __device__ __forceinline__ void sync() const { __syncthreads(); }
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

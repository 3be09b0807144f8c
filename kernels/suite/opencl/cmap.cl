// SPDX-License-Identifier: BSD-3-Clause
// Connectivity-map p-value, k3 of Jin and Vetter's suite, in OpenCL C 1.2: the Philox,
// uniforms, integer scores and counts of kernels/suite/cuda/cmap.cu, bit for bit.
#ifndef CMAP_THREADS
#define CMAP_THREADS 256
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

inline uint4 philox4x32_10(uint4 c, uint2 k) {
    for (int r = 0; r < 10; ++r) {
        if (r) { k.x += PHILOX_W0; k.y += PHILOX_W1; }
        const uint lo0 = PHILOX_M0 * c.x, hi0 = mul_hi(PHILOX_M0, c.x);
        const uint lo1 = PHILOX_M1 * c.z, hi1 = mul_hi(PHILOX_M1, c.z);
        c = (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

inline float cmap_uniform(uint x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }

__kernel void cmap_uniforms(__global float *restrict out, const long draws, const uint seed_lo, const uint seed_hi) {
    const long block = get_global_id(0);
    if (4 * block >= draws) return;
    const uint4 w = philox4x32_10((uint4)((uint)block, (uint)(block >> 32), 0u, 0u), (uint2)(seed_lo, seed_hi));
    const uint words[4] = {w.x, w.y, w.z, w.w};
    for (int i = 0; i < 4 && 4 * block + i < draws; ++i) out[4 * block + i] = cmap_uniform(words[i]);
}

__kernel void cmap_scores(__global const float *restrict uniforms, __global const int *restrict profile,
                          __global long *restrict sums, const int signatures, const int set_size, const int genes) {
    const int s = get_global_id(0);
    if (s >= signatures) return;
    long sum = 0;
    for (int t = 0; t < set_size; ++t) {
        float n = 1.0f - uniforms[(long)s * set_size + t];
        int sign = 1;
        if (n >= 0.5f) { sign = -1; n -= 0.5f; }
        const int g = min((int)floor(n * (float)(2 * genes)), genes - 1);
        sum += sign * profile[g];
    }
    sums[s] = sum;
}

// cmap_block_count of kernels/suite/cuda/cmap.cu: a work-group's count, added as a tree in local memory.
inline void cmap_block_count(__local int *count, const int mine, __global int *restrict partial) {
    const int t = get_local_id(0);
    count[t] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = CMAP_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) count[t] += count[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) partial[get_group_id(0)] = count[0];
}

__kernel __attribute__((reqd_work_group_size(CMAP_THREADS, 1, 1)))
void cmap_count(__global const long *restrict sums, const long threshold, const int signatures,
                __global int *restrict partial) {
    __local int count[CMAP_THREADS];
    const int t = get_local_id(0);
    int mine = 0;
    for (int s = get_global_id(0); s < signatures; s += get_global_size(0)) mine += sums[s] >= threshold;
    cmap_block_count(count, mine, partial);
}

#ifndef CMAP_GENES
#define CMAP_GENES 22283
#endif
// The profile as the fused kernel reads it: from local memory, or (CMAP_GLOBAL_TABLE, a device
// whose local memory cannot hold it) straight from global memory.
#ifdef CMAP_GLOBAL_TABLE
#define CMAP_TABLE profile
#else
#define CMAP_TABLE table
#endif

// cmap_fused of kernels/suite/cuda/cmap.cu: draw, score and count in one launch, the profile's
// CMAP_GENES values as 16-bit numbers in local memory.
__kernel __attribute__((reqd_work_group_size(CMAP_THREADS, 1, 1)))
void cmap_fused(__global const short *restrict profile, __global long *restrict sums, __global int *restrict partial,
                const int signatures, const int set_size, const long threshold, const uint seed_lo,
                const uint seed_hi) {
    __local int count[CMAP_THREADS];
    const int t = get_local_id(0);
#ifndef CMAP_GLOBAL_TABLE
    __local short table[CMAP_GENES];
    for (int g = t; g < CMAP_GENES; g += CMAP_THREADS) table[g] = profile[g];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    const uint2 key = (uint2)(seed_lo, seed_hi);
    const float scale = (float)(2 * CMAP_GENES);
    int mine = 0;
    for (int s = get_global_id(0); s < signatures; s += get_global_size(0)) {
        const long first = (long)s * set_size, end = first + set_size;
        long sum = 0;
        for (long block = first >> 2; 4 * block < end; ++block) {
            const uint4 w = philox4x32_10((uint4)((uint)block, (uint)(block >> 32), 0u, 0u), key);
            const uint words[4] = {w.x, w.y, w.z, w.w};
            for (int i = 0; i < 4; ++i) {
                const long d = 4 * block + i;
                if (d < first || d >= end) continue;
                float n = 1.0f - cmap_uniform(words[i]);
                int sign = 1;
                if (n >= 0.5f) { sign = -1; n -= 0.5f; }
                sum += sign * (int)CMAP_TABLE[min((int)floor(n * scale), CMAP_GENES - 1)];
            }
        }
        sums[s] = sum;
        mine += sum >= threshold;
    }
    cmap_block_count(count, mine, partial);
}

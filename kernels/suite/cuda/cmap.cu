// SPDX-License-Identifier: BSD-3-Clause
// Connectivity-map p-value, k3 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// The p-value of a query signature's connection score is the share of random signatures that
// score at least as high. A random signature draws CMAP_SET genes, each up- or down-regulated,
// from one uniform number in [0, 1) per gene (as cudaMap does); its score is the signed sum of
// the reference profile's values at those genes. Jin and Vetter found the portable build 2.1x slower
// because its random-number library launched an extra kernel; here the numbers come from a
// library (CuPy's cuRAND, on the host's side of this file) or from cmap_uniforms, a Philox-4x32-10
// written out below, the same function as kernels/suite/opencl/cmap.cl's, so that both models
// draw the same numbers bit for bit.
//
// The scores are kept as integers (the profile's values summed with their signs) and the count
// compares integers, so every model counts exactly the same signatures.
#ifndef CMAP_THREADS
#define CMAP_THREADS 256  // a power of two
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

// Philox-4x32 with 10 rounds (Salmon et al., SC'11): four 32-bit words of counter, two of key.
__device__ __forceinline__ uint4 philox4x32_10(uint4 c, uint2 k) {
    for (int r = 0; r < 10; ++r) {
        if (r) { k.x += PHILOX_W0; k.y += PHILOX_W1; }
        const unsigned lo0 = PHILOX_M0 * c.x, hi0 = __umulhi(PHILOX_M0, c.x);
        const unsigned lo1 = PHILOX_M1 * c.z, hi1 = __umulhi(PHILOX_M1, c.z);
        c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

// A 32-bit word as a uniform number in [0, 1): its top 24 bits, exactly.
__device__ __forceinline__ float cmap_uniform(unsigned x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }

// Draw d of the stream (seed) is word d % 4 of the block of counter d / 4.
extern "C" __global__ void __launch_bounds__(CMAP_THREADS)
cmap_uniforms(float *__restrict__ out, const long long draws, const unsigned seed_lo, const unsigned seed_hi) {
    const long long block = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * block >= draws) return;
    const uint4 w = philox4x32_10(make_uint4((unsigned)block, (unsigned)(block >> 32), 0u, 0u),
                                  make_uint2(seed_lo, seed_hi));
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
    for (int i = 0; i < 4 && 4 * block + i < draws; ++i) out[4 * block + i] = cmap_uniform(words[i]);
}

// Signature s's signed sum: gene g = floor(2 genes n) of n = 1 - u (down-regulated where n >= 1/2,
// n - 1/2 then), its profile value added or subtracted (cudaMap's selection, in integers).
extern "C" __global__ void __launch_bounds__(CMAP_THREADS)
cmap_scores(const float *__restrict__ uniforms, const int *__restrict__ profile, long long *__restrict__ sums,
            const int signatures, const int set_size, const int genes) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= signatures) return;
    long long sum = 0;
    for (int t = 0; t < set_size; ++t) {
        float n = 1.0f - uniforms[(long long)s * set_size + t];
        int sign = 1;
        if (n >= 0.5f) { sign = -1; n -= 0.5f; }
        const int g = min((int)floorf(n * (float)(2 * genes)), genes - 1);
        sum += sign * profile[g];
    }
    sums[s] = sum;
}

// A block's count, one thread's ``mine`` each, added as a tree in shared memory into partial[block].
__device__ __forceinline__ void cmap_block_count(int *count, const int mine, int *__restrict__ partial) {
    const int t = threadIdx.x;
    count[t] = mine;
    __syncthreads();
    for (int stride = CMAP_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) count[t] += count[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = count[0];
}

// How many sums reach the query's: one partial count per block.
extern "C" __global__ void __launch_bounds__(CMAP_THREADS)
cmap_count(const long long *__restrict__ sums, const long long threshold, const int signatures,
           int *__restrict__ partial) {
    __shared__ int count[CMAP_THREADS];
    const int t = threadIdx.x;
    int mine = 0;
    for (int s = blockIdx.x * blockDim.x + t; s < signatures; s += blockDim.x * gridDim.x) mine += sums[s] >= threshold;
    cmap_block_count(count, mine, partial);
}

// Signed profile value of one draw (cudaMap's selection of cmap_scores, from a table of the profile).
__device__ __forceinline__ int cmap_select(const unsigned word, const short *table, const int genes) {
    float n = 1.0f - cmap_uniform(word);
    int sign = 1;
    if (n >= 0.5f) { sign = -1; n -= 0.5f; }
    return sign * (int)table[min((int)floorf(n * (float)(2 * genes)), genes - 1)];
}

// The three steps in one launch (variant "fused"): each thread draws its signatures' numbers from
// the same Philox stream as cmap_uniforms, in registers, and scores them against the profile held
// in shared memory as 16-bit values (CMAP_GENES of them; the host checks that they fit); no
// uniform is written to or read from memory. Each block counts its signatures that reach the query's sum.
#ifndef CMAP_GENES
#define CMAP_GENES 22283  // the U133A array's probes: 44,566 bytes of shared memory
#endif
extern "C" __global__ void __launch_bounds__(CMAP_THREADS)
cmap_fused(const short *__restrict__ profile, long long *__restrict__ sums, int *__restrict__ partial,
           const int signatures, const int set_size, const long long threshold, const unsigned seed_lo,
           const unsigned seed_hi) {
    __shared__ short cmap_table[CMAP_GENES];
    __shared__ int count[CMAP_THREADS];
    const int t = threadIdx.x;
    for (int g = t; g < CMAP_GENES; g += CMAP_THREADS) cmap_table[g] = profile[g];
    __syncthreads();
    const uint2 key = make_uint2(seed_lo, seed_hi);
    int mine = 0;
    for (int s = blockIdx.x * blockDim.x + t; s < signatures; s += blockDim.x * gridDim.x) {
        const long long first = (long long)s * set_size, end = first + set_size;
        long long sum = 0;
        for (long long block = first >> 2; 4 * block < end; ++block) {
            const uint4 w = philox4x32_10(make_uint4((unsigned)block, (unsigned)(block >> 32), 0u, 0u), key);
            const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const long long d = 4 * block + i;
                if (d >= first && d < end) sum += cmap_select(words[i], cmap_table, CMAP_GENES);
            }
        }
        sums[s] = sum;
        mine += sum >= threshold;
    }
    cmap_block_count(count, mine, partial);
}

// SPDX-License-Identifier: BSD-3-Clause
// All-pairs distance, k1 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// The distance of two instances of SNP data is the number of attributes in which they differ.
// One block per pair of instances (a, b): its APD_THREADS threads walk the two rows four
// attributes at a time, each counting into a register, then add their counts in shared memory
// (a tree), and thread 0 writes distance[b][a]. Jin and Vetter's findings are about the code the two
// compilers make of this: the four attributes loaded as one char4 (APD_VECTOR 1) or byte by byte
// (0), the shared memory's address width, the loop's unrolling. The attributes are a multiple
// of four and every row starts on four bytes.
#ifndef APD_THREADS
#define APD_THREADS 128  // a power of two
#endif
#ifndef APD_VECTOR
#define APD_VECTOR 1
#endif

// Attributes i..i+3 of rows x and y: how many differ.
__device__ __forceinline__ int apd_differ4(const char *__restrict__ x, const char *__restrict__ y, int i) {
#if APD_VECTOR
    const char4 u = *(const char4 *)(x + i);
    const char4 v = *(const char4 *)(y + i);
    return (u.x != v.x) + (u.y != v.y) + (u.z != v.z) + (u.w != v.w);
#else
    return (x[i] != y[i]) + (x[i + 1] != y[i + 1]) + (x[i + 2] != y[i + 2]) + (x[i + 3] != y[i + 3]);
#endif
}

extern "C" __global__ void __launch_bounds__(APD_THREADS)
all_pairs(const char *__restrict__ data, int *__restrict__ distance, const int instances, const int attributes) {
    __shared__ int partial[APD_THREADS];
    const int t = threadIdx.x;
    const char *x = data + (long long)blockIdx.x * attributes;
    const char *y = data + (long long)blockIdx.y * attributes;
    int count = 0;
    for (int i = 4 * t; i < attributes; i += 4 * APD_THREADS) count += apd_differ4(x, y, i);
    partial[t] = count;
    __syncthreads();
    for (int stride = APD_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) distance[(long long)blockIdx.y * instances + blockIdx.x] = partial[0];
}

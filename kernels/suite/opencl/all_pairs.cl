// SPDX-License-Identifier: BSD-3-Clause
// All-pairs distance, k1 of Jin and Vetter's suite, in OpenCL C 1.2: the work-groups,
// counts and tree of kernels/suite/cuda/all_pairs.cu; APD_VECTOR 1 loads four attributes with
// vload4, 0 byte by byte.
#ifndef APD_THREADS
#define APD_THREADS 128
#endif
#ifndef APD_VECTOR
#define APD_VECTOR 1
#endif

inline int apd_differ4(__global const char *restrict x, __global const char *restrict y, int i) {
#if APD_VECTOR
    const int4 d = convert_int4(vload4(0, x + i) != vload4(0, y + i));  // -1 where they differ
    return -(d.x + d.y + d.z + d.w);
#else
    return (x[i] != y[i]) + (x[i + 1] != y[i + 1]) + (x[i + 2] != y[i + 2]) + (x[i + 3] != y[i + 3]);
#endif
}

__kernel __attribute__((reqd_work_group_size(APD_THREADS, 1, 1)))
void all_pairs(__global const char *restrict data, __global int *restrict distance, const int instances,
               const int attributes) {
    __local int partial[APD_THREADS];
    const int t = get_local_id(0);
    __global const char *x = data + (long)get_group_id(0) * attributes;
    __global const char *y = data + (long)get_group_id(1) * attributes;
    int count = 0;
    for (int i = 4 * t; i < attributes; i += 4 * APD_THREADS) count += apd_differ4(x, y, i);
    partial[t] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = APD_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) distance[(long)get_group_id(1) * instances + get_group_id(0)] = partial[0];
}

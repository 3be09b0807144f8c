// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection (k2 of Jin and Vetter's suite) from the margins: the fastest shape we found, not Jin and Vetter's port.
//
// Jin and Vetter's kernel (epistasis.cu, HeCBench's epi) pops nine counts per word of 32 samples for
// every pair of SNPs: the 3 x 3 table of their genotypes. Five of the nine follow from the other
// four and the table's margins, which depend on one SNP alone: with n_a(i) the samples where SNP
// i has genotype a and N the phenotype's samples,
//   t02 = n_0(i) - t00 - t01,  t12 = n_1(i) - t10 - t11,
//   t20 = n_0(j) - t00 - t10,  t21 = n_1(j) - t01 - t11,  t22 = N - (the other eight).
// epistasis_margins counts n_0 and n_1 of every SNP once (a thread per SNP and phenotype);
// epistasis_pairs then pops four counts per word instead of nine. The counts are the same
// integers, so the score is Jin and Vetter's kernel's, term for term.
#define EPI_UNROLL 1  // the score's loop over the nine combinations unrolled
#include "epistasis.h"  // the table from the margins and the score, shared with opencl/epistasis_margins.cl

extern "C" __global__ void epistasis_margins(const uint2 *__restrict__ zeros, const uint2 *__restrict__ ones,
                                             uint2 *__restrict__ margins, const int snps, const int words_zeros,
                                             const int words_ones) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= snps) return;
    const uint2 *bits = blockIdx.y ? ones : zeros;
    const int words = blockIdx.y ? words_ones : words_zeros;
    unsigned n0 = 0, n1 = 0;
    for (int w = 0; w < words; ++w) {
        const uint2 g = bits[(long long)w * snps + s];
        n0 += __popc(g.x);
        n1 += __popc(g.y);
    }
    margins[(long long)blockIdx.y * snps + s] = make_uint2(n0, n1);
}

extern "C" __global__ void __launch_bounds__(EPI_BLOCK * EPI_BLOCK)
epistasis_pairs(const uint2 *__restrict__ zeros, const uint2 *__restrict__ ones, const uint2 *__restrict__ margins,
                float *__restrict__ scores, const int snps, const int words_zeros, const int words_ones,
                const unsigned samples_zeros, const unsigned samples_ones) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= snps || j >= snps || j <= i) return;
    scores[(long long)i * snps + j] =
        epi_pair_from_margins(zeros, ones, margins, i, j, snps, words_zeros, words_ones, samples_zeros, samples_ones);
}

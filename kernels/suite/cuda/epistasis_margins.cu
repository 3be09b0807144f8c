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
#ifndef EPI_BLOCK
#define EPI_BLOCK 16
#endif
#define EPI_FLT_MAX 3.402823466e+38f

// The score's term for a count: (n + 1/2) ln n - (n - 1), 0 for no sample.
__device__ __forceinline__ float epi_gamma(unsigned n) {
    return n == 0 ? 0.0f : ((float)n + 0.5f) * logf((float)n) - ((float)n - 1.0f);
}

// margins[phenotype][snp] = (samples with genotype 0, with genotype 1); grid.y is the phenotype.
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

// The nine counts of SNPs i and j over one phenotype: four popped, five from the margins.
__device__ __forceinline__ void epi_table(const uint2 *__restrict__ bits, const uint2 mi, const uint2 mj,
                                          const unsigned samples, int i, int j, int snps, int words,
                                          unsigned *table) {
    unsigned t00 = 0, t01 = 0, t10 = 0, t11 = 0;
#pragma unroll 4
    for (int w = 0; w < words; ++w) {
        const uint2 gi = bits[(long long)w * snps + i];
        const uint2 gj = bits[(long long)w * snps + j];
        t00 += __popc(gi.x & gj.x);
        t01 += __popc(gi.x & gj.y);
        t10 += __popc(gi.y & gj.x);
        t11 += __popc(gi.y & gj.y);
    }
    const unsigned t02 = mi.x - t00 - t01, t12 = mi.y - t10 - t11;
    const unsigned t20 = mj.x - t00 - t10, t21 = mj.y - t01 - t11;
    table[0] = t00; table[1] = t01; table[2] = t02;
    table[3] = t10; table[4] = t11; table[5] = t12;
    table[6] = t20; table[7] = t21;
    table[8] = samples - (t00 + t01 + t02 + t10 + t11 + t12 + t20 + t21);
}

extern "C" __global__ void __launch_bounds__(EPI_BLOCK * EPI_BLOCK)
epistasis_pairs(const uint2 *__restrict__ zeros, const uint2 *__restrict__ ones, const uint2 *__restrict__ margins,
                float *__restrict__ scores, const int snps, const int words_zeros, const int words_ones,
                const unsigned samples_zeros, const unsigned samples_ones) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= snps || j >= snps || j <= i) return;
    unsigned table[18];
    epi_table(zeros, margins[i], margins[j], samples_zeros, i, j, snps, words_zeros, table);
    epi_table(ones, margins[snps + i], margins[snps + j], samples_ones, i, j, snps, words_ones, table + 9);
    float score = 0.0f;
#pragma unroll
    for (int c = 0; c < 9; ++c)
        score += epi_gamma(table[c] + table[9 + c] + 1) - epi_gamma(table[c]) - epi_gamma(table[9 + c]);
    score = fabsf(score);
    scores[(long long)i * snps + j] = score == 0.0f ? EPI_FLT_MAX : score;
}

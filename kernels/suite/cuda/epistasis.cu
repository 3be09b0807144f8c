// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection, k2 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// Every pair of SNPs (i < j) is scored by how well the 3 x 3 table of their genotypes' counts,
// one table per phenotype, explains the phenotype (a K2-like score; 0 becomes FLT_MAX). The
// genotypes come bit-packed: per phenotype, per word of 32 samples and per SNP, two masks (the
// samples with genotype 0, those with genotype 1; genotype 2 is neither), so a count is a
// popcount of two masks and'ed. One thread per pair, blocks of EPI_BLOCK x EPI_BLOCK threads.
// Jin and Vetter's finding is about the loops over the genotype combinations: CUDA unrolls them fully
// (the table stays in registers), the portable compiler did not. EPI_UNROLL 1 asks for it with a
// pragma; 0 leaves it to the compiler.
#ifndef EPI_BLOCK
#define EPI_BLOCK 16
#endif
#ifndef EPI_UNROLL
#define EPI_UNROLL 0
#endif
#if EPI_UNROLL
#define EPI_LOOP _Pragma("unroll")
#else
#define EPI_LOOP
#endif
#define EPI_FLT_MAX 3.402823466e+38f

// The score's term for a count: (n + 1/2) ln n - (n - 1), 0 for no sample.
__device__ __forceinline__ float epi_gamma(unsigned n) {
    return n == 0 ? 0.0f : ((float)n + 0.5f) * logf((float)n) - ((float)n - 1.0f);
}

// The 3 x 3 counts of SNPs i and j over one phenotype's words (the last one's valid samples in last_mask).
__device__ __forceinline__ void epi_count(const unsigned *__restrict__ bits, int i, int j, int snps, int words,
                                          unsigned last_mask, unsigned *table) {
    for (int w = 0; w < words; ++w) {
        const unsigned valid = w == words - 1 ? last_mask : 0xffffffffu;
        const unsigned *si = bits + 2 * ((long long)w * snps + i);
        const unsigned *sj = bits + 2 * ((long long)w * snps + j);
        const unsigned gi[3] = {si[0], si[1], ~(si[0] | si[1]) & valid};
        const unsigned gj[3] = {sj[0], sj[1], ~(sj[0] | sj[1]) & valid};
        EPI_LOOP
        for (int a = 0; a < 3; ++a) {
            EPI_LOOP
            for (int b = 0; b < 3; ++b) table[3 * a + b] += __popc(gi[a] & gj[b]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(EPI_BLOCK * EPI_BLOCK)
epistasis(const unsigned *__restrict__ zeros, const unsigned *__restrict__ ones, float *__restrict__ scores,
          const int snps, const int words_zeros, const int words_ones, const unsigned mask_zeros,
          const unsigned mask_ones) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= snps || j >= snps || j <= i) return;
    unsigned table[18];
    EPI_LOOP
    for (int c = 0; c < 18; ++c) table[c] = 0;
    epi_count(zeros, i, j, snps, words_zeros, mask_zeros, table);
    epi_count(ones, i, j, snps, words_ones, mask_ones, table + 9);
    float score = 0.0f;
    EPI_LOOP
    for (int c = 0; c < 9; ++c)
        score += epi_gamma(table[c] + table[9 + c] + 1) - epi_gamma(table[c]) - epi_gamma(table[9 + c]);
    score = fabsf(score);
    scores[(long long)i * snps + j] = score == 0.0f ? EPI_FLT_MAX : score;
}

// SPDX-License-Identifier: BSD-3-Clause
// What the epistasis kernels (k2 of Jin and Vetter's suite) compute alike, in the C that both CUDA
// C++ and OpenCL C read: the score's term, the 3 x 3 counts of a pair of SNPs (nine popped per
// word, Jin and Vetter's; or four popped and five from the margins) and the pair's score.
// Included (through -I kernels/suite) by cuda/epistasis.cu and opencl/epistasis.cl, and by
// cuda/epistasis_margins.cu and opencl/epistasis_margins.cl; each keeps its own entry points.
//
// The genotypes come bit-packed: per phenotype, per word of 32 samples and per SNP, two masks
// (the samples with genotype 0, those with genotype 1; genotype 2 is neither), so a count is a
// popcount of two masks and'ed. EPI_UNROLL 1 asks for the combination loops unrolled with a
// pragma (#pragma unroll, which NVIDIA's and Intel's compilers take); 0 leaves it to the compiler.
#ifndef LASSM_SUITE_EPISTASIS_H
#define LASSM_SUITE_EPISTASIS_H

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

#ifdef __OPENCL_VERSION__
#define EPI_FN inline
#define EPI_MEM __global
#define EPI_RESTRICT restrict
#define EPI_I64 long
#define EPI_POPC popcount
#define EPI_LOG log
#define EPI_FABS fabs
#define EPI_TABLE_LOOP  // the OpenCL port leaves the margins' word loop to the compiler
#else
#define EPI_FN __device__ __forceinline__
#define EPI_MEM
#define EPI_RESTRICT __restrict__
#define EPI_I64 long long
#define EPI_POPC __popc
#define EPI_LOG logf
#define EPI_FABS fabsf
#define EPI_TABLE_LOOP _Pragma("unroll 4")
#endif

// The score's term for a count: (n + 1/2) ln n - (n - 1), 0 for no sample.
EPI_FN float epi_gamma(unsigned n) {
    return n == 0 ? 0.0f : ((float)n + 0.5f) * EPI_LOG((float)n) - ((float)n - 1.0f);
}

// The 3 x 3 counts of SNPs i and j over one phenotype's words (the last one's valid samples in last_mask).
EPI_FN void epi_count(EPI_MEM const unsigned *EPI_RESTRICT bits, int i, int j, int snps, int words,
                      unsigned last_mask, unsigned *table) {
    for (int w = 0; w < words; ++w) {
        const unsigned valid = w == words - 1 ? last_mask : 0xffffffffu;
        EPI_MEM const unsigned *si = bits + 2 * ((EPI_I64)w * snps + i);
        EPI_MEM const unsigned *sj = bits + 2 * ((EPI_I64)w * snps + j);
        const unsigned gi[3] = {si[0], si[1], ~(si[0] | si[1]) & valid};
        const unsigned gj[3] = {sj[0], sj[1], ~(sj[0] | sj[1]) & valid};
        EPI_LOOP
        for (int a = 0; a < 3; ++a) {
            EPI_LOOP
            for (int b = 0; b < 3; ++b) table[3 * a + b] += EPI_POPC(gi[a] & gj[b]);
        }
    }
}

// The nine counts of SNPs i and j over one phenotype from its margins mi and mj (each SNP's
// samples with genotype 0 and 1) and its samples: four popped, five from the margins.
EPI_FN void epi_table(EPI_MEM const uint2 *EPI_RESTRICT bits, const uint2 mi, const uint2 mj, const unsigned samples,
                      int i, int j, int snps, int words, unsigned *table) {
    unsigned t00 = 0, t01 = 0, t10 = 0, t11 = 0;
    EPI_TABLE_LOOP
    for (int w = 0; w < words; ++w) {
        const uint2 gi = bits[(EPI_I64)w * snps + i];
        const uint2 gj = bits[(EPI_I64)w * snps + j];
        t00 += EPI_POPC(gi.x & gj.x);
        t01 += EPI_POPC(gi.x & gj.y);
        t10 += EPI_POPC(gi.y & gj.x);
        t11 += EPI_POPC(gi.y & gj.y);
    }
    const unsigned t02 = mi.x - t00 - t01, t12 = mi.y - t10 - t11;
    const unsigned t20 = mj.x - t00 - t10, t21 = mj.y - t01 - t11;
    table[0] = t00; table[1] = t01; table[2] = t02;
    table[3] = t10; table[4] = t11; table[5] = t12;
    table[6] = t20; table[7] = t21;
    table[8] = samples - (t00 + t01 + t02 + t10 + t11 + t12 + t20 + t21);
}

// The pair's score from its two tables (table[0, 9) of phenotype 0, table[9, 18) of phenotype
// 1): |the sum over the nine genotype combinations|, FLT_MAX for 0.
EPI_FN float epi_score(const unsigned *table) {
    float score = 0.0f;
    EPI_LOOP
    for (int c = 0; c < 9; ++c)
        score += epi_gamma(table[c] + table[9 + c] + 1) - epi_gamma(table[c]) - epi_gamma(table[9 + c]);
    score = EPI_FABS(score);
    return score == 0.0f ? EPI_FLT_MAX : score;
}

// The score of SNPs i and j, their genotypes' bits in zeros and ones (each phenotype's last word's
// valid samples in mask_zeros and mask_ones): Jin and Vetter's nine counts per word.
EPI_FN float epi_pair(EPI_MEM const unsigned *EPI_RESTRICT zeros, EPI_MEM const unsigned *EPI_RESTRICT ones, int i,
                      int j, int snps, int words_zeros, int words_ones, unsigned mask_zeros, unsigned mask_ones) {
    unsigned table[18];
    EPI_LOOP
    for (int c = 0; c < 18; ++c) table[c] = 0;
    epi_count(zeros, i, j, snps, words_zeros, mask_zeros, table);
    epi_count(ones, i, j, snps, words_ones, mask_ones, table + 9);
    return epi_score(table);
}

// The score of SNPs i and j from the margins (margins[phenotype * snps + snp]) and each
// phenotype's samples: four counts per word.
EPI_FN float epi_pair_from_margins(EPI_MEM const uint2 *EPI_RESTRICT zeros, EPI_MEM const uint2 *EPI_RESTRICT ones,
                                   EPI_MEM const uint2 *EPI_RESTRICT margins, int i, int j, int snps,
                                   int words_zeros, int words_ones, unsigned samples_zeros, unsigned samples_ones) {
    unsigned table[18];
    epi_table(zeros, margins[i], margins[j], samples_zeros, i, j, snps, words_zeros, table);
    epi_table(ones, margins[snps + i], margins[snps + j], samples_ones, i, j, snps, words_ones, table + 9);
    return epi_score(table);
}

#endif  // LASSM_SUITE_EPISTASIS_H

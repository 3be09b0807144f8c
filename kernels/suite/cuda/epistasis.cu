// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection, k2 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// Every pair of SNPs (i < j) is scored by how well the 3 x 3 table of their genotypes' counts,
// one table per phenotype, explains the phenotype (a K2-like score; 0 becomes FLT_MAX): the
// counts and the score are ../epistasis.h's, shared line for line with opencl/epistasis.cl. One
// thread per pair, blocks of EPI_BLOCK x EPI_BLOCK threads.
// Jin and Vetter's finding is about the loops over the genotype combinations: CUDA unrolls them fully
// (the table stays in registers), the portable compiler did not. EPI_UNROLL 1 asks for it with a
// pragma; 0 leaves it to the compiler.
#include "epistasis.h"  // the counts and the score, shared with opencl/epistasis.cl

extern "C" __global__ void __launch_bounds__(EPI_BLOCK * EPI_BLOCK)
epistasis(const unsigned *__restrict__ zeros, const unsigned *__restrict__ ones, float *__restrict__ scores,
          const int snps, const int words_zeros, const int words_ones, const unsigned mask_zeros,
          const unsigned mask_ones) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= snps || j >= snps || j <= i) return;
    scores[(long long)i * snps + j] = epi_pair(zeros, ones, i, j, snps, words_zeros, words_ones, mask_zeros, mask_ones);
}

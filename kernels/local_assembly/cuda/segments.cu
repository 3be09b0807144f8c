// SPDX-License-Identifier: BSD-3-Clause
//
// segments: the host's two per-base steps before a launch, done on the device instead
// (lassm/backends/device_segments.py). Every base of a dataset passes through them once: the
// reverse complement of each contig (the left ends are walked on it, as MetaHipMer does) and the
// gather of a launch's contigs, reads and qualities into contiguous buffers. On the host they
// need a compiled loop (numba) whose import costs a command more than the copies themselves;
// here each segment is one warp's strided copy, and the data never come back to the host.
//
// Not part of the paper's kernel: no protocol, no -D options; compiles alone.

typedef unsigned char u8;
typedef long long i64;

// Lanes that copy one segment: a warp. Most segments are reads of 100-250 bytes, so a whole block
// per segment left most of its threads idle and paid a block's loop per read; a warp per segment
// keeps four to eight segments in flight per block of the same size.
#define SEG_LANES 32

// out[new_off[i] .. new_off[i+1]) = src[starts[i] .. starts[i] + new_off[i+1] - new_off[i]), for
// every segment i < n; bytes past new_off[n] (the launch's padding) are left as they are.
extern "C" __global__ void gather_segments(const u8* __restrict__ src, const i64* __restrict__ starts,
                                           const i64* __restrict__ new_off, i64 n, u8* __restrict__ out)
{
    const i64 lane = threadIdx.x % SEG_LANES;
    const i64 teams = (i64)gridDim.x * (blockDim.x / SEG_LANES);
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / SEG_LANES; i < n; i += teams) {
        const i64 s = starts[i], d = new_off[i], len = new_off[i + 1] - d;
        for (i64 j = lane; j < len; j += SEG_LANES) out[d + j] = src[s + j];
    }
}

// out[off[i] .. off[i+1]) = the reverse of src's same segment, each base mapped through table
// (the complement: A<->T, C<->G, every other byte to itself, as the CPU oracle's table).
extern "C" __global__ void revcomp_segments(const u8* __restrict__ src, const i64* __restrict__ off, i64 n,
                                            const u8* __restrict__ table, u8* __restrict__ out)
{
    const i64 lane = threadIdx.x % SEG_LANES;
    const i64 teams = (i64)gridDim.x * (blockDim.x / SEG_LANES);
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / SEG_LANES; i < n; i += teams) {
        const i64 a = off[i], b = off[i + 1];
        for (i64 j = a + lane; j < b; j += SEG_LANES) out[j] = table[src[a + b - 1 - j]];
    }
}

// SPDX-License-Identifier: BSD-3-Clause
//
// The hip-cpu backend's driver for the local-assembly kernel (lassm/backends/hip_cpu.py runs it):
// ../cuda/faithful.cu, or ../cuda/fast.cu with -DLASSM_HIP_CPU_FAST=1, compiled unchanged by g++
// against ROCm's HIP-CPU runtime with the -D options of every other build of the kernel
// (lassm.backends.nvrtc.kernel_options). One run is one launch of iterative_walks_kernel over the
// CUDA backend's buffers, which the host wrote as raw files into one folder; the driver zeroes the
// scratch the CUDA host zeroes on the device, launches, synchronizes, and writes the outputs beside
// the inputs. It prints the launch's wall seconds.
//
//   driver DIR n_ends start_k max_walk qual_offset walk_stride n_team blocks threads shared
//          visited_words walk_tmp_bytes
#include "hip_cpu.h"

#ifndef LASSM_HIP_CPU_FAST
#define LASSM_HIP_CPU_FAST 0
#endif
#if LASSM_HIP_CPU_FAST
#include "fast.cu"
#else
#include "faithful.cu"
#endif

// Bytes of a block's dynamic shared memory: an AMD work-group's LDS (64 KiB), the most the hip
// backend lets a block take (sharedMemPerBlock).
#ifndef LASSM_HIP_CPU_SHARED
#define LASSM_HIP_CPU_SHARED 65536
#endif
#if LASSM_HIP_CPU_FAST
// fast.cu declares its dynamic shared memory extern. HIP-CPU's __shared__ is thread_local, and a
// block's fibers share one OS thread, so one array per OS thread is the running block's memory.
__shared__ __align__(16) u8 lassm_smem[LASSM_HIP_CPU_SHARED];
#endif

static_assert(warpSize % WARP_SIZE == 0, "a kernel's warp is HIP-CPU's wavefront or an aligned part of it");

int main(int argc, char** argv)
{
    if (argc != 13) lassm_fail("usage: driver DIR n_ends start_k max_walk qual_offset walk_stride n_team blocks "
                               "threads shared visited_words walk_tmp_bytes");
    const std::string dir = argv[1];
    const int n = (int)lassm_arg(argc, argv, 2), start_k = (int)lassm_arg(argc, argv, 3);
    const int max_walk = (int)lassm_arg(argc, argv, 4), qual_offset = (int)lassm_arg(argc, argv, 5);
    const int walk_stride = (int)lassm_arg(argc, argv, 6), n_team = (int)lassm_arg(argc, argv, 7);
    const int blocks = (int)lassm_arg(argc, argv, 8), threads = (int)lassm_arg(argc, argv, 9);
    const long long shared = lassm_arg(argc, argv, 10), visited_words = lassm_arg(argc, argv, 11);
    const long long walk_tmp_bytes = lassm_arg(argc, argv, 12);
    if (n < 1 || max_walk < 1 || blocks < 1 || threads < 1 || threads > 1024 || threads % WARP_SIZE != 0)
        lassm_fail("a launch needs ends, a walk limit and blocks of 1 to 1024 threads, whole warps of " +
                   std::to_string(WARP_SIZE));
    if (shared < 0 || shared > (LASSM_HIP_CPU_FAST ? LASSM_HIP_CPU_SHARED : 0))
        lassm_fail(std::to_string(shared) + " bytes of shared memory; this build has " +
                   std::to_string(LASSM_HIP_CPU_FAST ? LASSM_HIP_CPU_SHARED : 0));

    const auto ctg_seqs = lassm_read<u8>(dir, "ctg_seqs");
    const auto ctg_off = lassm_read<i64>(dir, "ctg_off");
    const auto depths = lassm_read<double>(dir, "depths");
    const auto rd_seqs = lassm_read<u8>(dir, "rd_seqs");
    const auto rd_quals = lassm_read<u8>(dir, "rd_quals");
    const auto rd_off = lassm_read<i64>(dir, "rd_off");
    const auto rd_cnt_off = lassm_read<i64>(dir, "rd_cnt_off");
    const auto ht_off = lassm_read<i64>(dir, "ht_off");
    // The kernel reads words up to 16 bytes past a sequence's end: the host pads every buffer.
    // fast takes (begin, end) spans per end (2n entries) where the faithful kernel takes n + 1 offsets.
    const size_t ends = LASSM_HIP_CPU_FAST ? 2 * (size_t)n : (size_t)n + 1;
    if (ctg_off.size() != ends || (int)depths.size() != n || rd_cnt_off.size() != ends ||
        (int)ht_off.size() != n + 1 || rd_off.size() != (size_t)rd_cnt_off.back() + 1 ||
        (i64)ctg_seqs.size() < ctg_off.back() + 16 || (i64)rd_seqs.size() < rd_off.back() + 16 ||
        rd_quals.size() != rd_seqs.size())
        lassm_fail("the input buffers disagree with each other or with n_ends");

    std::vector<u64> ht((size_t)ht_off[n] * (LASSM_SLOT_BYTES / 8), 0ull), visited((size_t)visited_words, 0ull);
    std::vector<u8> walk_tmp((size_t)walk_tmp_bytes, 0), walks((size_t)n * max_walk, 0), term((size_t)n, 0);
    std::vector<int> walk_len((size_t)n, 0), final_k((size_t)n, 0), n_k((size_t)n, 0);
    std::vector<i64> steps((size_t)n, 0), insertions((size_t)n, 0), start_insertions((size_t)n, 0);

    const auto t0 = lassm_clock();
#if LASSM_HIP_CPU_FAST
    hipLaunchKernelGGL(iterative_walks_kernel, dim3(blocks), dim3(threads), (std::uint32_t)shared, nullptr,
                       ctg_seqs.data(), ctg_off.data(), depths.data(), rd_seqs.data(), rd_quals.data(), rd_off.data(),
                       rd_cnt_off.data(), (ht_slot*)ht.data(), ht_off.data(), visited.data(), walk_tmp.data(),
                       walks.data(), walk_len.data(), final_k.data(), term.data(), n_k.data(), steps.data(),
                       insertions.data(), start_insertions.data(), n, start_k, max_walk, qual_offset, walk_stride,
                       n_team);
#else
    (void)n_team;
    hipLaunchKernelGGL(iterative_walks_kernel, dim3(blocks), dim3(threads), 0, nullptr, ctg_seqs.data(),
                       ctg_off.data(), depths.data(), rd_seqs.data(), rd_quals.data(), rd_off.data(),
                       rd_cnt_off.data(), (ht_slot*)ht.data(), ht_off.data(), visited.data(), walk_tmp.data(),
                       walks.data(), walk_len.data(), final_k.data(), term.data(), n_k.data(), steps.data(),
                       insertions.data(), start_insertions.data(), n, start_k, max_walk, qual_offset, walk_stride);
#endif
    const hipError_t err = hipDeviceSynchronize();
    const double seconds = lassm_seconds_since(t0);
    if (err != hipSuccess) lassm_fail(std::string("the launch failed: ") + hipGetErrorString(err));

    lassm_write(dir, "walks", walks, (long long)walks.size());
    lassm_write(dir, "walk_len", walk_len, n);
    lassm_write(dir, "final_k", final_k, n);
    lassm_write(dir, "term", term, n);
    lassm_write(dir, "n_k", n_k, n);
    lassm_write(dir, "steps", steps, n);
    lassm_write(dir, "insertions", insertions, n);
    lassm_write(dir, "start_insertions", start_insertions, n);
    std::printf("seconds %.9f\nwavefront %d\nwarp %d\n", seconds, warpSize, WARP_SIZE);
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
//
// What the CUDA/HIP kernel sources take from HIP that ROCm's HIP-CPU runtime lacks, and the host
// side the hip-cpu backend's drivers share: included first by kernels/<kernel>/hip_cpu/driver.cpp,
// so that the kernel files themselves compile unchanged with g++. HIP-CPU defines __HIP__, so they
// take their HIP branches (LASSM_HIP in common.cuh): wavefront collectives without masks.
//
// Why a driver program, not a library loaded into Python: HIP-CPU's runtime starts a thread that
// polls its streams with pause instructions for as long as the process lives, a whole core of a
// 2-core machine; and a launch whose threads wait on each other in a way fibers cannot serve never
// returns. A child process ends both: it exits after its launch, and a time limit can end it.
//
// How HIP-CPU runs a block (why some builds cannot run there; book/hip-backend.md): one OS thread
// per block, each of its threads a fiber; a fiber runs until it reaches a barrier (__syncthreads,
// and every shuffle or vote, which are two barriers each), then yields to the next fiber of the
// block, round robin. warpSize is a constant 64. So every thread of a block must reach the same
// number of barriers, and no thread may spin waiting for another thread of its block.
#ifndef LASSM_HIP_CPU_H
#define LASSM_HIP_CPU_H

#include <hip/hip_runtime.h>

#include <atomic>

// HIP-CPU marks every __device__ and __global__ function __attribute__((simd)) (and flatten) under
// g++, so that g++ makes vector clones of each: fast's build then took 2 minutes instead of 5 s on
// a 2-core machine. Its lanes are fibers, never vector lanes, and nothing calls the clones.
#undef __device__
#define __device__
#undef __global__
#define __global__

// clang's AMDGCN builtins behind common.cuh's wavefront barrier (lassm_wave_sync). HIP-CPU's only
// barrier is the block's; the backend launches blocks whose threads all reach the same barriers
// (a block is one team), so there it is the wavefront barrier the kernels mean. The fences are a
// full fence: the fibers of a block share one OS thread, and other blocks touch no common slot.
#define __builtin_amdgcn_fence(order, scope) std::atomic_thread_fence(std::memory_order_seq_cst)
#define __builtin_amdgcn_wave_barrier() __syncthreads()

// CUDA's and HIP's alignment attribute (fast.cu's dynamic shared memory).
#define __align__(n) __attribute__((aligned(n)))

// HIP's integer min and max, device functions of its headers; HIP-CPU has the floating ones only.
__device__ inline int min(int a, int b) { return a < b ? a : b; }
__device__ inline int max(int a, int b) { return a > b ? a : b; }
__device__ inline long long min(long long a, long long b) { return a < b ? a : b; }
__device__ inline long long max(long long a, long long b) { return a > b ? a : b; }

// ---- the drivers' host side: buffers as raw files of one folder, scalars on the command line ----
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// A launch's wall seconds, from before it to the end of its synchronization.
inline std::chrono::steady_clock::time_point lassm_clock() { return std::chrono::steady_clock::now(); }
inline double lassm_seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Stops the driver with a message the backend shows (exit status 2: the driver's own refusal).
[[noreturn]] inline void lassm_fail(const std::string& what)
{
    std::fprintf(stderr, "hip-cpu driver: %s\n", what.c_str());
    std::exit(2);
}

// Command-line argument i as an integer.
inline long long lassm_arg(int argc, char** argv, int i)
{
    if (i >= argc) lassm_fail("argument " + std::to_string(i) + " is missing");
    char* end = nullptr;
    const long long v = std::strtoll(argv[i], &end, 10);
    if (end == argv[i] || *end != '\0') lassm_fail(std::string("argument ") + argv[i] + " is not an integer");
    return v;
}

// dir/name.bin, all of it, as elements of T (the host wrote it with numpy's tofile).
template <class T>
std::vector<T> lassm_read(const std::string& dir, const char* name)
{
    const std::string path = dir + "/" + name + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f || std::fseek(f, 0, SEEK_END) != 0) lassm_fail("cannot open " + path);
    const long bytes = std::ftell(f);
    std::rewind(f);
    if (bytes < 0 || bytes % (long)sizeof(T) != 0) lassm_fail(path + " is not a whole number of elements");
    std::vector<T> out((size_t)bytes / sizeof(T));
    if (!out.empty() && std::fread(out.data(), sizeof(T), out.size(), f) != out.size()) lassm_fail("cannot read " + path);
    std::fclose(f);
    return out;
}

// dir/name.bin: the first n elements of v, for numpy's fromfile.
template <class T>
void lassm_write(const std::string& dir, const char* name, const std::vector<T>& v, long long n)
{
    const std::string path = dir + "/" + name + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (n && std::fwrite(v.data(), sizeof(T), (size_t)n, f) != (size_t)n) || std::fclose(f) != 0)
        lassm_fail("cannot write " + path);
}

#endif  // LASSM_HIP_CPU_H

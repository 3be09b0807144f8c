/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Nsight Compute's profiled range started at a program's Nth kernel launch.
 *
 * HeCBench's nw-cuda runs 100 untimed iterations of 2,047 launches before its timed ones, a count
 * fixed in its source. Told to skip them (--launch-skip 204700), Nsight Compute still intercepts
 * each of those launches, which took most of the originals part's minute on an H200. Preloaded
 * (LD_PRELOAD) into a build linked against the shared CUDA runtime, this library stands in for
 * its launch calls (cudaLaunchKernel, and __cudaLaunchKernel, which nvcc 13's <<<...>>> stubs
 * call), counts the launches, and calls the runtime's cudaProfilerStart just before
 * launch number $LASSM_PROFILE_AFTER (counting from 0), so that Nsight Compute, run with
 * --profile-from-start off, profiles from there on. Every launch goes to the runtime unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* dim3 as the runtime's headers lay it out: passed by value, so the same three unsigned ints. */
typedef struct { unsigned int x, y, z; } grid_dim;
typedef int (*launch_fn)(const void *, grid_dim, grid_dim, void **, size_t, void *);
typedef int (*start_fn)(void);

static long launches;

/* Called before each launch: starts the profiler once, before launch number $LASSM_PROFILE_AFTER. */
static void count_launch(void)
{
    static long after = -2;

    if (after == -2) {
        const char *text = getenv("LASSM_PROFILE_AFTER");

        after = text != NULL ? atol(text) : -1;
    }
    if (launches++ == after) {
        start_fn start = (start_fn)dlsym(RTLD_NEXT, "cudaProfilerStart");

        if (start == NULL || start() != 0) {
            fprintf(stderr, "launch_gate: cudaProfilerStart failed before launch %ld\n", after);
            abort();
        }
        fprintf(stderr, "launch_gate: profiling from launch %ld on\n", after);
    }
}

static launch_fn next(const char *name)
{
    launch_fn fn = (launch_fn)dlsym(RTLD_NEXT, name);

    if (fn == NULL) {
        fprintf(stderr, "launch_gate: no %s after this library (is the program linked with -cudart shared?)\n", name);
        abort();
    }
    return fn;
}

/* Counts a launch, then hands it to the runtime's entry point `name` (looked up once, into `*runtime`). */
static int forward(launch_fn *runtime, const char *name, const void *func, grid_dim grid, grid_dim block, void **args,
                   size_t shared, void *stream)
{
    if (*runtime == NULL)
        *runtime = next(name);
    count_launch();
    return (*runtime)(func, grid, block, args, shared, stream);
}

/* The runtime's launch, as a program calls it by name. */
int cudaLaunchKernel(const void *func, grid_dim grid, grid_dim block, void **args, size_t shared, void *stream)
{
    static launch_fn runtime;

    return forward(&runtime, "cudaLaunchKernel", func, grid, block, args, shared, stream);
}

/* The launch nvcc 13's stubs call for <<<...>>> (its first argument a kernel handle, a pointer too). */
int __cudaLaunchKernel(const void *kernel, grid_dim grid, grid_dim block, void **args, size_t shared, void *stream)
{
    static launch_fn runtime;

    return forward(&runtime, "__cudaLaunchKernel", kernel, grid, block, args, shared, stream);
}

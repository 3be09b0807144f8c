/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What an original program copies between host and GPU, kept as files: its inputs and its outputs.
 *
 * HeCBench's programs check their kernels against their own CPU code and print PASS or FAIL; they
 * write no output. To compare an original's output with ours, this library is preloaded
 * (LD_PRELOAD) into a build of the program linked against the shared CUDA runtime: it stands in
 * for cudaMemcpy, calls the runtime's own, and writes every host-to-device copy (before) and
 * device-to-host copy (after) to $LASSM_CAPTURE/NNNN-h2d.bin or NNNN-d2h.bin, numbered in call
 * order. The program runs as published; only its copies are seen.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*memcpy_fn)(void *, const void *, size_t, int);

/* cudaMemcpyKind, as the runtime's headers number it. */
enum { HOST_TO_DEVICE = 1, DEVICE_TO_HOST = 2 };

static int calls;

static void keep(const void *bytes, size_t count, const char *direction)
{
    const char *dir = getenv("LASSM_CAPTURE");
    char path[4096];
    FILE *fh;

    if (dir == NULL || bytes == NULL)
        return;
    snprintf(path, sizeof path, "%s/%04d-%s.bin", dir, calls, direction);
    fh = fopen(path, "wb");
    if (fh == NULL)
        return;
    fwrite(bytes, 1, count, fh);
    fclose(fh);
}

int cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
    static memcpy_fn runtime;
    int status;

    if (runtime == NULL)
        runtime = (memcpy_fn)dlsym(RTLD_NEXT, "cudaMemcpy");
    if (runtime == NULL) {
        fprintf(stderr, "memcpy_capture: no cudaMemcpy after this library (is the program linked with -cudart shared?)\n");
        abort();
    }
    if (kind == HOST_TO_DEVICE)
        keep(src, count, "h2d");
    status = runtime(dst, src, count, kind);
    if (kind == DEVICE_TO_HOST && status == 0)
        keep(dst, count, "d2h");
    if (kind == HOST_TO_DEVICE || kind == DEVICE_TO_HOST)
        ++calls;
    return status;
}

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The loop shape PoCL 3.1 miscompiles, alone (book/backends.md, "PoCL"; ht_insert.h's matchany).

Each work-item counts rounds until it reaches its own target, in a loop that a work-group vote
(a sum through ``__local`` memory between two barriers) keeps going while any work-item is not
done. ``head``: the vote at the loop head, ``while (any(!done)) { barrier; if (!done) ... }``, as
the matchany and barrier inserts had it; ``end``: the vote closing each round, as they have it
now. Every work-item should end with its own target. On PoCL 3.1 the ``head`` shape gives them all
the last work-item's count: PoCL takes the ``if`` right after its implicit loop-latch barrier once
for the work-group, on the last work-item's ``done``. On Intel's OpenCL both shapes are right.

Usage (repository root): ``python3 tools/pocl_loop_latch.py [device]`` (a ``LASSM_OPENCL_DEVICE``
value; default ``pocl``). Exits 1 when a shape gives a wrong count.
"""
from __future__ import annotations

import os
import sys

import numpy as np

VOTE = """
#define T 8
int any(__local long *lanes, int pred) {
    lanes[get_local_id(0)] = pred != 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    long sum = 0;
    for (int j = 0; j < T; ++j) sum += lanes[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    return sum != 0;
}
"""
SHAPES = {
    "head": """
__kernel void count(__global const int *want, __global int *out) {
    __local long lanes[T];
    int done = 0, n = 0;
    while (any(lanes, !done)) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (!done) { if (++n >= want[get_local_id(0)]) done = 1; }
    }
    out[get_local_id(0)] = n;
}""",
    "end": """
__kernel void count(__global const int *want, __global int *out) {
    __local long lanes[T];
    int done = 0, n = 0;
    int more = any(lanes, !done);
    while (more) {
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (!done) { if (++n >= want[get_local_id(0)]) done = 1; }
        more = any(lanes, !done);
    }
    out[get_local_id(0)] = n;
}""",
}
WANT = np.array([1, 3, 2, 5, 1, 1, 4, 2], dtype=np.int32)


def run(shape: str) -> np.ndarray:
    """Each work-item's count, from one work-group of 8 on this backend's device."""
    from lassm.backends import opencl

    dev = opencl._device()
    cl = opencl.cl
    prg = cl.Program(dev.context, VOTE + SHAPES[shape]).build([opencl.CL_STD])
    out = np.zeros_like(WANT)
    want = cl.Buffer(dev.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=WANT)
    got = cl.Buffer(dev.context, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.count(dev.queue, (len(WANT),), (len(WANT),), want, got)
    cl.enqueue_copy(dev.queue, out, got)
    dev.queue.finish()
    return out


def main() -> int:
    os.environ["LASSM_OPENCL_DEVICE"] = sys.argv[1] if len(sys.argv) > 1 else "pocl"
    from lassm.backends import opencl

    print(f"# {opencl.available()[1]}; each work-item should count to {WANT.tolist()}")
    wrong = 0
    for shape in SHAPES:
        got = run(shape)
        wrong += not np.array_equal(got, WANT)
        print(f"{shape:5s} {got.tolist()} {'right' if np.array_equal(got, WANT) else 'WRONG'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""Look-ahead finds (``LASSM_FAST_SPEC_WALK``, the fast-spec builds) on the host, no GPU: the look-ahead
hash and compare are murmur_hash2 and kmer_eq of the k-mer they stand for, and fast_walk_ahead,
run by 32 threads as the lanes of a warp team, takes the steps fast_walk takes, bit for bit.

g++ (C++20, for std::barrier) builds ``tests/fixtures/fast_ahead/walk_host.cpp`` against the kernel
headers as they are, with fast.cu's two walk functions cut out of the file; without g++ the
test is skipped. The GPU checks the whole kernel against the CPU oracle (tests/backends/test_cuda.py).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lassm.backends import nvrtc
from lassm.paths import kernel_source

HARNESS = Path(__file__).parent.parent / "fixtures" / "fast_ahead" / "walk_host.cpp"
#: fast.cu's functions the harness needs, by the start of their definitions (the visited set,
#: fast_seen, is fast_table.cuh's, which the harness includes).
WALK_FUNCTIONS = ("__device__ u8 fast_walk(", "template <bool BLOCK>\n__device__ u8 fast_walk_ahead(")


def _cut(source: str, start: str) -> str:
    """The definition that begins with ``start``, through its closing brace at column 0."""
    i = source.index(start)
    return source[i:source.index("\n}\n", i) + 3]


def _build(tmp_path: Path, spec: int) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    fast = kernel_source(nvrtc.FAST_KERNEL).read_text()
    (tmp_path / "walk_functions.inc").write_text("\n".join(_cut(fast, s) for s in WALK_FUNCTIONS))
    exe = tmp_path / f"walk_host_{spec}"
    cmd = [gxx, "-std=c++20", "-O1", f"-DLASSM_FAST_SPEC_WALK={spec}", f"-I{kernel_source(nvrtc.KERNEL_DIR)}",
           f"-I{tmp_path}", str(HARNESS), "-o", str(exe), "-pthread"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0 and "barrier" in done.stderr and "No such file" in done.stderr:
        pytest.skip("this g++ has no C++20 <barrier>")
    assert done.returncode == 0, done.stderr[-4000:]
    return exe


@pytest.mark.parametrize("spec", [1, 2])
def test_walk_ahead_takes_fast_walks_steps(tmp_path: Path, spec: int) -> None:
    exe = _build(tmp_path, spec)
    # The 32 lane threads on one CPU (each case on another where there are several): they meet at
    # a barrier at every step, and spread over the CPUs each woken lane waited behind whatever
    # else ran there (another test beside it took a 12 s run to 100 s). The lanes still run as
    # threads, preempted anywhere between their barriers.
    cpus = sorted(os.sched_getaffinity(0))
    done = subprocess.run([str(exe), "3", "400", str(cpus[spec % len(cpus)])], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    counts = dict(re.findall(r"([XFR]) (\d+)", done.stdout))
    assert done.stdout.startswith("agree 400 trials") and all(int(counts[t]) > 0 for t in "XFR"), done.stdout

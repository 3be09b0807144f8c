# SPDX-License-Identifier: BSD-3-Clause
"""``lassm build-kernels``: the command line of :mod:`lassm.backends.cubins`."""
from __future__ import annotations

import argparse

from . import args as t
from ..errors import LassmError


def cmd_build_kernels(args: argparse.Namespace) -> int:
    from ..backends import cubins
    from ..backends.cudadrv import DriverError

    try:
        archs = args.arch or [cubins.this_gpu_arch()]
        rows = cubins.build(archs)
    except (OSError, DriverError) as exc:  # no driver, no device or no NVRTC
        if args.where_a_gpu:
            print(f"lassm build-kernels: nothing built here ({exc})")
            _compile_oracle()
            return 0
        raise LassmError(f"cannot build the kernels: {exc}") from None
    for r in rows:
        done = "cached" if r["cached"] else f"built in {r['seconds']:.1f} s"
        print(f"{r['arch']:7s} {r['label']:24s} {done}")
    _compile_oracle()
    return 0


def _compile_oracle() -> None:
    """The CPU oracle compiled into numba's on-disk cache now: every sweep runs it, and a first
    ``lassm run`` on an H200's node spent 21 s compiling it; loaded from the cache it
    takes under a second. A machine without the sample says so and goes on."""
    import time

    from ..runs.extend import extend
    from ..workloads.local_assembly import datasets
    from ..workloads.local_assembly.config import Params

    t0 = time.perf_counter()
    try:
        ds, k = datasets.load("sample-k77")
    except (OSError, LassmError) as exc:
        print(f"cpu     local-assembly oracle    not compiled ({exc})")
        return
    extend(ds, Params(k=k), backend="cpu")
    print(f"cpu     local-assembly oracle    compiled or loaded in {time.perf_counter() - t0:.1f} s (numba's cache)")


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build-kernels", help="build the CUDA kernels of the GPU commands (and compile the CPU oracle) now, "
                                                "not at their first use")
    p.add_argument("--arch", type=t.arch_list, default=None,
                   help="real architectures to build for, e.g. sm_90 or sm_80,sm_90 (default: this machine's GPU)")
    p.add_argument("--where-a-gpu", action="store_true",
                   help="without a CUDA driver, device or NVRTC, say so and exit 0 (what make venv runs)")
    p.set_defaults(func=cmd_build_kernels)

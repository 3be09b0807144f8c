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
            return 0
        raise LassmError(f"cannot build the kernels: {exc}") from None
    for r in rows:
        done = "cached" if r["cached"] else f"built in {r['seconds']:.1f} s"
        print(f"{r['arch']:7s} {r['label']:24s} {done}")
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build-kernels", help="build the CUDA kernels of the GPU commands now, not at their first use")
    p.add_argument("--arch", type=t.arch_list, default=None,
                   help="real architectures to build for, e.g. sm_90 or sm_80,sm_90 (default: this machine's GPU)")
    p.add_argument("--where-a-gpu", action="store_true",
                   help="without a CUDA driver, device or NVRTC, say so and exit 0 (what make venv runs)")
    p.set_defaults(func=cmd_build_kernels)

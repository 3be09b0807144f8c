# SPDX-License-Identifier: BSD-3-Clause
"""Several ``lassm`` commands in one profiled process, each run by :func:`lassm.cli.main` in turn.

Each command (the code path it takes alone) is followed by the boundary kernel
(:mod:`lassm.analysis.counters.ncu_batch`) where the raw CSV is cut, so Nsight Compute's per-process
cost, interpreter start and imports are paid once. CuPy's pooled device memory is freed after
each, since a replayed pass saves and restores what the process holds. It lives in the
command-line stage because it runs the command line.
``python -m lassm.cli.profiled JSON STATUS``, JSON a list of argument lists."""
from __future__ import annotations

import json
import sys


def release() -> None:
    """Gives back the device memory CuPy's pools keep, where CuPy is in use."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def main(argv: list[str] | None = None) -> int:
    """Runs each command of ``argv[0]`` (JSON) with the boundary after it; failures go to ``argv[1]``."""
    from ..analysis.counters import ncu_batch
    from . import main as lassm

    text, status = argv if argv is not None else sys.argv[1:]
    commands: list[list[str]] = json.loads(text)

    def work(name: str) -> None:
        try:
            code = lassm(list(commands[int(name)]))
        finally:
            release()
        if code:
            raise RuntimeError(f"lassm {' '.join(commands[int(name)][:2])} exited {code}")

    return ncu_batch.run_points([str(i) for i in range(len(commands))], work, status)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "release"]

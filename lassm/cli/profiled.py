# SPDX-License-Identifier: BSD-3-Clause
"""Several ``lassm`` commands in one profiled process: each run by lassm's own ``main`` in turn.

The commands run one after another in one process, the very code path each would take alone
(:func:`lassm.cli.main`), each followed by the boundary kernel
(:mod:`lassm.analysis.counters.batch`) at which the session's raw CSV is cut, so that Nsight
Compute's cost per profiled process, the interpreter's start and the imports are paid once.
After each command the device memory CuPy's pool keeps is given back: a replayed kernel's pass
saves and restores the memory the process holds.

In the command-line stage because it runs lassm's command line. Usage:
``python -m lassm.cli.profiled JSON STATUS`` with JSON a list of argument
lists (what follows ``lassm`` on its command line).
"""
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
    from ..analysis.counters import batch
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

    return batch.run_points([str(i) for i in range(len(commands))], work, status)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "release"]

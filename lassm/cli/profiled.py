# SPDX-License-Identifier: BSD-3-Clause
"""Several ``lassm`` commands in one profiled process: each run by lassm's own ``main`` in turn.

Why: Nsight Compute costs about 1.7 s per profiled process on an H200's node (ht_loc: 0.33 s
alone, 2.0 s under ncu), before a kernel is counted; a counters step of twenty points paid it,
the interpreter's start and the imports twenty times. Here the commands run one after another in
one process, the very code path each would take alone (:func:`lassm.cli.main`), each followed by
the boundary kernel (:mod:`lassm.analysis.counters.batch`) at which the session's raw CSV is cut. After each command the
device memory CuPy's pool keeps is given back: a replayed kernel's pass saves and restores the
memory the process holds. An earlier form of this step, which called ``extend`` directly and kept
the pool, was slower than twenty processes; this form is faster than both (which of the two
changes mattered was not isolated).

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

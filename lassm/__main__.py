# SPDX-License-Identifier: BSD-3-Clause
"""The ``lassm`` command (and ``python -m lassm``): the process around :func:`lassm.cli.main`.

Why a module of its own: two costs of a whole command sit outside the command line's code.
The CUDA driver's start (about a quarter of a second) begins here, before ``lassm.cli``'s own
imports, so that they overlap it. And a command that ran to the end leaves by ``os._exit``
once its output is written and its streams are flushed: the interpreter's clean-up of every
module and the driver's tear-down of the context add a tenth of a second or more to a command
that is otherwise done (``book/fast-kernel-history.md``: what a whole command pays). Only here, never in
:func:`lassm.cli.main`, which tests and notebooks call in their own process.
"""
from __future__ import annotations

import sys

from . import timeline

timeline.mark("interpreter")

from .backends import cuinit  # noqa: E402  (after the first stamp: it is the interpreter's time)

#: Set by profilers that inject a library (Nsight Compute and Systems): theirs may flush at exit.
_INJECTION_ENV = "CUDA_INJECTION64_PATH"


def leaves_early(argv: list[str]) -> bool:
    """Whether a finished ``lassm argv`` may skip the interpreter's clean-up: a one-shot
    ``extend`` or ``xdrop align`` in this process (:func:`lassm.backends.cuinit.one_shot`), not
    under a profiler's injection library."""
    import os

    return _INJECTION_ENV not in os.environ and cuinit.one_shot(argv)


def _leave(code: int) -> None:
    """Ends the process now: kernels being built for later commands finish first, the standard
    streams are flushed (every output file was closed, atomically, before the command returned)."""
    import os

    prebuilds = sys.modules.get("lassm.backends.cudadrv")
    if prebuilds is not None:
        prebuilds.join_prebuilds()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more can reach it
            pass
    timeline.mark("exit")
    os._exit(code)


def main() -> int:
    """Runs ``lassm`` with ``sys.argv``; returns its exit code where the process goes on."""
    argv = sys.argv[1:]
    cuinit.start_early(argv)
    from .cli import main as cli_main

    code = cli_main(argv)
    if leaves_early(argv):
        _leave(code)
    return code


if __name__ == "__main__":
    sys.exit(main())

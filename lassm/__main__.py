# SPDX-License-Identifier: BSD-3-Clause
"""The ``lassm`` command (and ``python -m lassm``): the process around :func:`lassm.cli.main`.

Starts the CUDA driver before ``lassm.cli``'s imports so the two overlap, and leaves a finished
command by ``os._exit`` once its streams are flushed, skipping the driver's tear-down. Only here,
never in :func:`lassm.cli.main`, which tests and notebooks call in their own process.
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
            if stream is not None:  # None: the stream was closed when the process started (>&-)
                stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more can reach it
            pass
    timeline.mark("exit")
    os._exit(code)


def _fill_closed_streams() -> None:
    """Opens ``/dev/null`` on a standard descriptor the process was started without (``>&-``), so
    that the next file lassm opens cannot take that number and receive a library's diagnostics."""
    import os

    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def main() -> int:
    """Runs ``lassm`` with ``sys.argv``; returns its exit code where the process goes on.

    A Ctrl-C that comes before the command line's own handling (while the modules are
    imported) is said in the same one line, not as an import's traceback."""
    try:
        return _command()
    except KeyboardInterrupt:
        print("lassm: error: interrupted", file=sys.stderr)
        return 130


def _command() -> int:
    """:func:`main`'s work: the command, then the early exit where it may take it."""
    _fill_closed_streams()
    argv = sys.argv[1:]
    cuinit.start_early(argv)
    from .cli import main as cli_main

    code = cli_main(argv)
    if leaves_early(argv):
        _leave(code)
    return code


if __name__ == "__main__":
    sys.exit(main())

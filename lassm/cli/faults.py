# SPDX-License-Identifier: BSD-3-Clause
"""The environment's faults in one line: signals, full disks, closed and broken standard output.

No bug and no input mistake, but the user needs one line and nothing half-written:

* SIGINT (``KeyboardInterrupt``) and SIGTERM (:class:`~lassm.errors.Terminated`) unwind the
  command, so :mod:`lassm.atomic` removes its temporaries, ending ``interrupted`` (130) or
  ``terminated`` (143), as a shell reports them;
* SIGXFSZ is ignored, so a file past ``ulimit -f`` fails its write (``EFBIG``, said like a full
  disk) instead of killing the process with its temporary;
* a reader closing standard output early (``| head``) ends the command quietly with exit 0;
* a write the file system refuses names the output (:class:`~lassm.errors.OutputFault`), or
  standard output."""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from typing import Iterator

from ..errors import Terminated, fault_reason, write_refused

#: Exit codes of a command a signal ended, as a shell reports them (128 + the signal's number).
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


#: How a line names standard output, where a write to it failed.
STDOUT = "standard output"


def _terminate(signum: int, frame) -> None:
    raise Terminated()


class _NamedStdout:
    """Standard output whose failed writes name it (``OSError.filename``): a full device behind
    it (``> /dev/full``) is then said to be standard output, as a file's fault names the file."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def _named(self, call, *args):
        try:
            return call(*args)
        except OSError as exc:
            if exc.filename is None:
                exc.filename = STDOUT
            raise

    def write(self, text: str) -> int:
        return self._named(self._stream.write, text)

    def flush(self) -> None:
        self._named(self._stream.flush)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """While a command runs: SIGINT raised as ``KeyboardInterrupt`` (Python's own handler),
    SIGTERM as :class:`~lassm.errors.Terminated`, SIGXFSZ ignored, standard output's faults
    named; all put back after it (tests and notebooks call commands in their own process). Only
    the main thread may set handlers: elsewhere the signals are left as they are."""
    stdout = sys.stdout
    if stdout is not None:
        sys.stdout = _NamedStdout(stdout)
    before = {}
    if threading.current_thread() is threading.main_thread():
        # SIGINT too: a library imported earlier in the process may have set its own (dask-jobqueue's
        # ends it with sys.exit(): exit 0 and no line), where the command needs KeyboardInterrupt.
        before = {signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
                  signal.SIGTERM: signal.signal(signal.SIGTERM, _terminate),
                  signal.SIGXFSZ: signal.signal(signal.SIGXFSZ, signal.SIG_IGN)}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if stdout is not None:
            sys.stdout = stdout


def silence_stdout() -> None:
    """Points the process's standard output at ``/dev/null`` once its reader is gone (or its
    device is full), so that the interpreter's last flush at exit does not report it again;
    only where ``sys.stdout`` is the process's own (a test's capture is left alone)."""
    out = sys.stdout
    if out is not sys.__stdout__ or out is None:
        return
    try:
        fd = out.fileno()
    except (OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def flush_stdout() -> None:
    """Flushes standard output inside the command, so that a full or broken one is reported
    here, in one line, not by the interpreter at exit. A closed one (``>&-``) is ``None``."""
    if sys.stdout is not None:
        sys.stdout.flush()


def describe(exc: OSError) -> str | None:
    """The one line (after ``lassm: error:``) of an ``OSError`` that is the environment's doing, naming
    the file it concerns (standard output as :class:`_NamedStdout`) where known; None for a bug,
    which keeps its traceback."""
    reason = fault_reason(exc)
    if exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or reason}"
    if write_refused(exc) or exc.errno == errno.EIO:
        return f"a write failed: {reason}"
    return None


__all__ = ["INTERRUPTED", "STDOUT", "TERMINATED", "describe", "flush_stdout", "guarded", "silence_stdout"]

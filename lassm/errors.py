# SPDX-License-Identifier: BSD-3-Clause
"""Errors a user can act on: each names the file, line and field at fault."""
from __future__ import annotations

import errno
import os
import re

#: What a full or limited file system answers a write: the disk is full, the user's quota is
#: spent, or the file passes the size limit (``ulimit -f``). The machine's fault, not lassm's:
#: said in one line naming the output, never as a traceback.
WRITE_FAULTS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
#: How a library that checks its own writes says the file system took less than it was given
#: (NumPy's ``np.save``: "3296 requested and 2544 written"), with no errno: a full disk or a
#: file over the size limit (``ulimit -f``) all the same.
_SHORT_WRITE = re.compile(r"(\d+) requested and (\d+) written")


def write_refused(exc: OSError) -> bool:
    """Whether ``exc`` is the file system refusing a write (:data:`WRITE_FAULTS`, or a short write
    a library reported without an errno)."""
    return exc.errno in WRITE_FAULTS or (exc.errno is None and _SHORT_WRITE.search(str(exc)) is not None)


def fault_reason(exc: OSError) -> str:
    """What went wrong with ``exc``, in words: its errno's, or a short write's bytes."""
    short = None if exc.errno else _SHORT_WRITE.search(str(exc))
    if short:
        return (f"the file system took {int(short[2]):,} of {int(short[1]):,} bytes of a write "
                "(a full disk, or a file over the size limit)")
    return os.strerror(exc.errno) if exc.errno else str(exc)


class LassmError(Exception):
    """Base of the errors the CLI reports without a traceback (exit code 2)."""


class InputError(LassmError):
    """Bad input data, located to a file, a line and a field."""

    def __init__(self, path: str, line: int | None, field: str, message: str) -> None:
        self.path, self.line, self.field = str(path), line, field
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {field}: {message}")


class OutputFault(LassmError):
    """An output the file system would not take (:data:`WRITE_FAULTS`), named as the user gave it;
    raised once the temporary is removed, so the line can say nothing of it was kept."""

    def __init__(self, path: str, exc: OSError) -> None:
        self.path, self.errno, self.cause = str(path), exc.errno, exc
        super().__init__(f"{self.path}: {fault_reason(exc)}; nothing of it was kept")


class Terminated(BaseException):
    """SIGTERM, raised in the main thread as SIGINT raises ``KeyboardInterrupt``: so that the
    ``finally`` clauses that remove temporaries run. A ``BaseException``, like
    ``KeyboardInterrupt``, so that no ``except Exception`` takes it for a failure to handle."""


class BackendUnavailable(LassmError):
    """A backend whose runtime, driver or device is missing on this machine."""

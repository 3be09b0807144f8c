# SPDX-License-Identifier: BSD-3-Clause
"""Errors a user can act on: each names the file, line and field at fault."""
from __future__ import annotations

import errno
import os

#: What a full or limited file system answers a write: the disk is full, the user's quota is
#: spent, or the file passes the size limit (``ulimit -f``). The machine's fault, not lassm's:
#: said in one line naming the output, never as a traceback.
WRITE_FAULTS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class LassmError(Exception):
    """Base of the errors the CLI reports without a traceback (exit code 2)."""


class InputError(LassmError):
    """Bad input data, located to a file, a line and a field."""

    def __init__(self, path: str, line: int | None, field: str, message: str) -> None:
        self.path, self.line, self.field = str(path), line, field
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {field}: {message}")


class OutputFault(LassmError):
    """An output the file system would not take (:data:`WRITE_FAULTS`), named as the user gave it.

    Raised by :mod:`lassm.atomic` once the output's temporary is removed, so the line can say
    that nothing of it was kept.
    """

    def __init__(self, path: str, exc: OSError) -> None:
        self.path, self.errno = str(path), exc.errno
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        super().__init__(f"{self.path}: {reason}; nothing of it was kept")


class Terminated(BaseException):
    """SIGTERM, raised in the main thread as SIGINT raises ``KeyboardInterrupt``: so that the
    ``finally`` clauses that remove temporaries run. A ``BaseException``, like
    ``KeyboardInterrupt``, so that no ``except Exception`` takes it for a failure to handle."""


class BackendUnavailable(LassmError):
    """A backend whose runtime, driver or device is missing on this machine."""

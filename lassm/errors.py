# SPDX-License-Identifier: BSD-3-Clause
"""Errors a user can act on: each names the file, line and field at fault."""
from __future__ import annotations


class LassmError(Exception):
    """Base of the errors the CLI reports without a traceback (exit code 2)."""


class InputError(LassmError):
    """Bad input data, located to a file, a line and a field."""

    def __init__(self, path: str, line: int | None, field: str, message: str) -> None:
        self.path, self.line, self.field = str(path), line, field
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {field}: {message}")


class BackendUnavailable(LassmError):
    """A backend whose runtime, driver or device is missing on this machine."""

# SPDX-License-Identifier: BSD-3-Clause
"""What a measuring command checks of the results tree before it measures anything.

Why: a run whose machine folder turned out to be a file, whose results root was a file, or whose
account could not be read measured its first point and only then failed, on the write. Every
such precondition is checked first, with one line that names the path.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .. import paths
from ..errors import LassmError
from .account import read_entries

#: The account files a run appends to, relative to the machine's folder.
ACCOUNTS: tuple[str, ...] = ("campaign.json", "runs.json", "originals.json", "xdrop/campaign.json",
                             "suite/campaign.json")


def _writable_ancestor(path: Path) -> Path:
    """The nearest existing folder at or above ``path`` (what a ``mkdir -p`` would write into)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def check_results(machines: Iterable[str]) -> None:
    """Raises one :class:`LassmError` where a run into ``machines``' folders could not record:
    the results root or a machine folder that is not a folder, a folder that cannot be written,
    an account that cannot be read."""
    root = paths.results_root()
    if root.exists() and not root.is_dir():
        raise LassmError(f"{root}: the results root is not a folder (LASSM_RESULTS names a file?)")
    for name in dict.fromkeys(machines):
        folder = paths.results_dir(name)
        if folder.exists() and not folder.is_dir():
            raise LassmError(f"{folder}: not a folder, where the machine {name!r} records its results; move it or "
                             f"choose another --machine")
        base = _writable_ancestor(folder)
        if not base.is_dir():
            raise LassmError(f"{base}: not a folder, on the way to {folder}")
        if not os.access(base, os.W_OK | os.X_OK):
            raise LassmError(f"{base}: not writable, so {folder} cannot be recorded")
        for account in ACCOUNTS:
            read_entries(folder / account)  # a file that is not an account raises, naming it


__all__ = ["ACCOUNTS", "check_results"]

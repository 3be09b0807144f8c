# SPDX-License-Identifier: BSD-3-Clause
"""What a measuring command checks of the results tree before it measures anything.

Every precondition of a run's writes (its machine folder and the results root are folders, its
account reads) is checked before the first point is measured, with one line that names the
path.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .. import settings
from .. import paths
from ..errors import LassmError
from .account import ACCOUNTS, read_entries
from .host import check_mine

#: The folders a run writes into below the machine's folder (records, counters, parts): a file by
#: one of these names failed the run at its first write there, after the points before it.
SUBFOLDERS: tuple[str, ...] = ("counters", "xdrop", "xdrop/counters", "suite")


def _writable_ancestor(path: Path) -> Path:
    """The nearest existing path at or above ``path`` (what a ``mkdir -p`` would write into)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def _check_folder(folder: Path, what: str) -> None:
    """``folder`` is a folder, or can be made as one, and can be written: else one line naming it."""
    if folder.exists() and not folder.is_dir():
        raise LassmError(f"{folder}: not a folder, where {what}; move it or choose another --machine")
    _check_makeable(folder)


def _check_makeable(folder: Path, named: str = "") -> None:
    """``folder`` can be made (or written) where it is: its nearest existing path is a folder that
    can be written; else one line naming that path (``named`` says what chose ``folder``)."""
    base = _writable_ancestor(folder)
    if not base.is_dir():
        raise LassmError(f"{base}: not a folder, on the way to {folder}{named}")
    if not os.access(base, os.W_OK | os.X_OK) or not _makes_folders(base):
        raise LassmError(f"{base}: not writable, so {folder}{named} cannot be recorded")


def _makes_folders(base: Path) -> bool:
    """Whether a folder can be made in ``base``, tried (and removed): ``os.access`` answers yes to
    root for any folder, ``/proc`` too, where the run's first record would then fail."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".lassm-check-", dir=base))
    except OSError:
        return False
    return True


def check_root() -> Path:
    """The results root, a folder or a path where one can be made, that can be written; else one
    line naming it (and ``LASSM_RESULTS``, where that is what named it)."""
    root = paths.results_root()
    named = " (LASSM_RESULTS)" if settings.value("LASSM_RESULTS") else ""
    if root.exists() and not root.is_dir():
        raise LassmError(f"{root}: the results root is not a folder{named}")
    _check_makeable(root, named)
    return root


def check_results(machines: Iterable[str], accounts: bool = True) -> None:
    """Raises one :class:`LassmError` where a run into ``machines``' folders could not record:
    the results root, a machine folder or one of its :data:`SUBFOLDERS` that is not a folder, a
    folder that cannot be written, another host's folder (:func:`lassm.runs.host.owner`), an account that cannot be read (where ``accounts``: a bench
    writes records and no account). Called before the first point is measured, so a refused run
    measures nothing and writes nothing."""
    check_root()
    for name in dict.fromkeys(machines):
        folder = paths.machine_dir(name)
        _check_folder(folder, f"the machine {name!r} records its results")
        for sub in SUBFOLDERS:
            _check_folder(folder / sub, f"the machine {name!r} records its {sub}")
        for account in ACCOUNTS if accounts else ():
            _check_account(folder / account)
        check_mine(folder)


def _check_account(path: Path) -> None:
    """An account the run will append to: absent, or a file that reads as one (:func:`read_entries`)."""
    if path.exists() and not path.is_file():
        raise LassmError(f"{path}: not a file, where the run appends its account; move it")
    read_entries(path)  # a file that cannot be read, or is not an account, raises, naming it


__all__ = ["SUBFOLDERS", "check_results", "check_root"]

# SPDX-License-Identifier: BSD-3-Clause
"""What a measuring command checks before it measures anything: the results tree, its inputs.

Its writes (machine folder, results root, room, readable accounts) and inputs (dataset files,
the cluster's scheduler) are checked before the first point, one line naming the path; the dry
run checks the same (:func:`check_run`), so a plan it shows is one the run will not refuse.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .. import settings
from .. import paths
from ..atomic import write_fault
from ..errors import LassmError, fault_reason, write_refused
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
    fault: OSError | None = None if os.access(base, os.W_OK | os.X_OK) else PermissionError()
    fault = fault or write_fault(base)
    if fault is not None and write_refused(fault):
        raise LassmError(f"{base}: {fault_reason(fault)}, so {folder}{named} cannot be recorded; nothing was measured")
    if fault is not None:
        raise LassmError(f"{base}: not writable, so {folder}{named} cannot be recorded")


def check_root() -> Path:
    """The results root, a folder or a path where one can be made, that can be written; else one
    line naming it (and ``LASSM_RESULTS``, where that is what named it)."""
    root = paths.results_root()
    named = " (LASSM_RESULTS)" if settings.value("LASSM_RESULTS") else ""
    if root.exists() and not root.is_dir():
        raise LassmError(f"{root}: the results root is not a folder{named}")
    _check_makeable(root, named)
    return root


def check_results(machines: Iterable[str], accounts: Iterable[str] = ACCOUNTS) -> None:
    """Raises one :class:`LassmError`, before anything is measured, where a run into ``machines``'
    folders could not record: the results root, a machine folder, one of its :data:`SUBFOLDERS` or
    an account's folder that is no folder or cannot be written, another host's folder, or one of
    ``accounts`` (relative to the machine folder) that cannot be read."""
    check_root()
    accounts = tuple(accounts)
    subs = dict.fromkeys([*SUBFOLDERS, *(str(Path(a).parent) for a in accounts if Path(a).parent != Path("."))])
    for name in dict.fromkeys(machines):
        folder = paths.machine_dir(name)
        _check_folder(folder, f"the machine {name!r} records its results")
        for sub in subs:
            _check_folder(folder / sub, f"the machine {name!r} records its {sub}")
        for account in accounts:
            _check_account(folder / account)
        check_mine(folder)


def check_datasets(names: Iterable[str]) -> None:
    """Reads each of ``names`` that is a file (a dataset given by its path, ``--datasets``): a file
    no reader takes is one line naming its line and field now, not a failed point after the
    points before it (a name of the study's, ``sample-k77``, is the study's own and read when run)."""
    from ..workloads.local_assembly.formats import read_dataset

    for name in dict.fromkeys(names):
        if Path(name).is_file():
            read_dataset(name)


def check_run(machines: Iterable[str], *, datasets: Iterable[str] = (), cluster: str | None = None,
              accounts: Iterable[str] = ACCOUNTS) -> None:
    """What ``lassm run`` and its dry run check before measuring: the results folders
    (:func:`check_results`), the local-assembly dataset files (:func:`check_datasets`) and
    ``--cluster``'s scheduler (:func:`lassm.runs.dask_address.check`). Raises LassmError, one line
    naming the path, line and field, or the ``--cluster`` value."""
    check_results(machines, accounts)
    check_datasets(datasets)
    if cluster:
        from .dask_address import check

        check(cluster)


def _check_account(path: Path) -> None:
    """An account the run will append to: absent, or a file that reads as one (:func:`read_entries`)."""
    if path.exists() and not path.is_file():
        raise LassmError(f"{path}: not a file, where the run appends its account; move it")
    read_entries(path)  # a file that cannot be read, or is not an account, raises, naming it


__all__ = ["SUBFOLDERS", "check_datasets", "check_results", "check_root", "check_run"]

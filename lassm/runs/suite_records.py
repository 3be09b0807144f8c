# SPDX-License-Identifier: BSD-3-Clause
"""The suite's record: ``data/results/<machine>/suite/times.csv``, one row per kernel, backend,
variant and size (its columns are the contract with the book, ``book/data-contract.md``),
written by :mod:`lassm.campaign.suite_part` through :mod:`.tables` (whole, atomically, after each kernel)."""
from __future__ import annotations

from pathlib import Path

from .. import paths

#: The folder of a machine's suite records, under its results folder.
FOLDER = "suite"
TIMES_FILE = "times.csv"
#: ``times.csv``'s columns; ``host``: the id of the host that timed the row (:func:`lassm.runs.host.host_id`),
#: empty in a table written before rows named their host.
COLUMNS: tuple[str, ...] = (
    "machine", "device", "driver", "kernel", "backend", "variant", "size", "seconds", "host_seconds", "launches",
    "repeats", "matches_reference", "max_error", "status", "git_sha", "command", "host")
#: What names a row.
KEY: tuple[str, ...] = ("kernel", "backend", "variant", "size")


def folder(machine: str) -> Path:
    """``data/results/<machine>/suite/``."""
    return paths.results_dir(machine) / FOLDER


__all__ = ["COLUMNS", "FOLDER", "KEY", "TIMES_FILE", "folder"]

# SPDX-License-Identifier: BSD-3-Clause
"""lassm: MetaHipMer's de Bruijn-graph local-assembly kernel, re-run and measured on GPUs.

This module is the package's front door only: it re-exports the few names a notebook or a user
starts from. Modules inside lassm never import it (they import the module that defines a name),
so it sits above every stage of ``book/architecture.md`` and makes no cycle.

The names are resolved on first use (PEP 562): importing any ``lassm`` module imports this one
first, and ``lassm --help`` or a GPU command should not pay for NumPy and the run machinery here.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .runs.extend import extend
    from .workloads.local_assembly.config import Params
    from .workloads.local_assembly.dataset import Dataset, Reads

__all__ = ["Dataset", "Params", "Reads", "extend", "__version__"]

#: Each lazy name and the module that defines it.
_LAZY: dict[str, str] = {
    "extend": ".runs.extend",
    "Params": ".workloads.local_assembly.config",
    "Dataset": ".workloads.local_assembly.dataset",
    "Reads": ".workloads.local_assembly.dataset",
}


def __getattr__(name: str) -> Any:
    """Imports the module defining ``name`` on first use and keeps the name here."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

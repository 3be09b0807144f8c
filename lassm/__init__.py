# SPDX-License-Identifier: BSD-3-Clause
"""lassm: MetaHipMer's de Bruijn-graph local-assembly kernel, re-run and measured on GPUs.

The front door only: re-exports the names a notebook starts from, resolved on first use (PEP 562)
so that importing any ``lassm`` module stays cheap. No module inside lassm imports it.
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

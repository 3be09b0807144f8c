# SPDX-License-Identifier: BSD-3-Clause
"""lassm: MetaHipMer's de Bruijn-graph local-assembly kernel, re-run and measured on every GPU.

This module is the package's front door only: it re-exports the few names a notebook or a user
starts from. Modules inside lassm never import it (they import the module that defines a name),
so it sits above every stage of ``book/architecture.md`` and makes no cycle.
"""
from __future__ import annotations

from .runs.extend import extend
from .version import __version__
from .workloads.local_assembly.config import Params
from .workloads.local_assembly.dataset import Dataset, Reads

__all__ = ["Dataset", "Params", "Reads", "extend", "__version__"]

# SPDX-License-Identifier: BSD-3-Clause
"""lassm: MetaHipMer's de Bruijn-graph local-assembly kernel, re-run and measured on every GPU."""
from __future__ import annotations

__version__ = "0.1.0"

from .config import Params
from .dataset import Dataset, Reads
from .extend import extend

__all__ = ["Dataset", "Params", "Reads", "extend", "__version__"]

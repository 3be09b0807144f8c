# SPDX-License-Identifier: BSD-3-Clause
"""The package's version, in a module of its own so that run records and the CLI can name it
without importing the package's front door (``lassm/__init__.py``), and so that setuptools reads
it without importing numpy (pyproject.toml: ``attr = "lassm.version.__version__"``)."""
from __future__ import annotations

__version__ = "0.1.0"

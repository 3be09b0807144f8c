# SPDX-License-Identifier: BSD-3-Clause
"""lassm/ passes the type checker as ``[tool.mypy]`` in pyproject.toml sets it: what flows through
the main job's parts (their plans and outcomes) and every other annotated door is what its
annotations say. Its cache, under lassm's cache folder rather than the clone, makes a second run
take seconds, in this clone or another one beside it (mypy checks each cached module against its
file)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lassm.paths import cache_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_lassm_passes_mypy() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache_dir() / "mypy")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mypy over lassm/ (exit {done.returncode}):\n{done.stdout[-6000:]}{done.stderr[-2000:]}"

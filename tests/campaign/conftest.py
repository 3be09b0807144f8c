# SPDX-License-Identifier: BSD-3-Clause
"""The campaign tests' results folder, its X-drop pair cache and commit beside it (a module
that needs another keeps its own ``results``)."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_XDROP_DATA", str(tmp_path / "xcache"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-one")
    return tmp_path / "results"

# SPDX-License-Identifier: BSD-3-Clause
"""The commit a record quotes is asked of git once per process, and spawned, not forked: a
campaign on numba's TBB threads printed TBB's "Unable to join threads to shut down
before fork()" at each ``git`` it started after its first point."""
from __future__ import annotations

import shutil

import pytest

from lassm.runs import records


def test_git_is_asked_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git here")
    monkeypatch.delenv("LASSM_GIT_SHA", raising=False)
    records._checkout_sha.cache_clear()
    first = records.git_sha()
    assert first == records.git_sha() == records.git_sha()
    info = records._checkout_sha.cache_info()
    assert info.misses == 1 and info.hits == 2
    assert first == "unknown" or len(first.split("-")[0]) == 40
    monkeypatch.setenv("LASSM_GIT_SHA", "given")
    assert records.git_sha() == "given", "the node's copy without .git names its commit"

# SPDX-License-Identifier: BSD-3-Clause
"""Shared pytest set-up: GPU tests skip themselves where no NVIDIA GPU answers.

A test marked ``@pytest.mark.gpu`` runs only when CuPy imports and sees at least one CUDA
device; elsewhere it is skipped with the reason. ``LASSM_NO_GPU=1`` skips them on a GPU
machine too. (GPU test modules should still skip at module level without a device, so that
they import nothing GPU-specific there; this hook is the safety net.)
"""
from __future__ import annotations

import functools
import os

import pytest


@functools.lru_cache(maxsize=1)
def no_gpu_reason() -> str | None:
    """Why GPU tests cannot run here, or ``None`` when an NVIDIA GPU answers."""
    if os.environ.get("LASSM_NO_GPU", "") not in ("", "0"):
        return "LASSM_NO_GPU is set"
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 'lassm[cuda12]' or 'lassm[cuda13]')"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        return f"no CUDA device answers ({exc})"
    return None if count > 0 else "no CUDA device"


def pytest_configure(config):
    """Keeps a copy of stderr for :func:`tests.helpers.hang_guard` (pytest captures the tests')."""
    from . import helpers

    helpers.keep_stderr()


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items:
        return
    reason = no_gpu_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"needs an NVIDIA GPU: {reason}")
        for item in gpu_items:
            item.add_marker(skip)


# --- what ran where (lassm.book.ran_where): evidence the book's table reads ---------------------

_RAN: dict[tuple[str, str], set[str]] = {}
_PENDING: dict[str, list[tuple[str, str]]] = {}


@pytest.fixture
def ran_where(request):
    """``ran_where(build, platform)``: this test executed ``build`` on ``platform`` (names of
    :mod:`lassm.book.ran_where`); kept only if the test passes, written at the session's end."""
    from lassm.book import ran_where as rw

    def noted(build: str, platform: str | None) -> None:
        if platform is None:
            return  # a device the table has no column for
        rw.check(build, platform)  # an unknown name fails the test now
        _PENDING.setdefault(request.node.nodeid, []).append((build, platform))

    return noted


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    for build, platform in _PENDING.pop(report.nodeid, []):
        if report.passed:
            _RAN.setdefault((build, platform), set()).add(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    """Adds this session's evidence to the notes file (a partial run adds to a whole one's)."""
    if not _RAN:
        return
    from lassm.book import ran_where as rw

    merged = rw.from_tests()
    for key, tests in _RAN.items():
        merged.setdefault(key, set()).update(tests)
    rw.write_notes(merged)

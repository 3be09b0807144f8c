# SPDX-License-Identifier: BSD-3-Clause
"""Shared pytest set-up: GPU tests skip themselves where no NVIDIA GPU answers.

A test marked ``@pytest.mark.gpu`` runs only when CuPy imports and sees at least one CUDA
device; elsewhere it is skipped with the reason. ``LASSM_NO_GPU=1`` skips them on a GPU
machine too. (GPU test modules should still skip at module level without a device, so that
they import nothing GPU-specific there; this hook is the safety net.)
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

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
    """Keeps a copy of stderr for :func:`tests.helpers.hang_guard` (pytest captures the tests'),
    and names the ``xdist_group`` mark."""
    from . import helpers

    helpers.keep_stderr()
    # Registered here, not only by pytest-xdist: a module that marks its tests still runs under
    # ``-p no:xdist`` (--strict-markers would refuse the unknown mark).
    config.addinivalue_line("markers", "xdist_group(name): the tests of one group run on one worker")


def pytest_collection_modifyitems(config, items):
    _note_modules_that_share_a_fixture(config, items)
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items:
        return
    reason = no_gpu_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"needs an NVIDIA GPU: {reason}")
        for item in gpu_items:
            item.add_marker(skip)


# --- several workers (pytest-xdist: `make test` runs -n auto) ------------------------------------
#
# The tests are dealt to the workers one by one, except those of a module that sets up a fixture
# of its own once for the module (a dataset, a cluster, a built pipeline, the one-node Slurm):
# split across workers, each worker would set it up again, so such a module goes to one worker
# whole; and the tests marked ``xdist_group(name)``, which go to one worker together (a module
# whose tests build the same programs in memory, as test_sycl's). The workers find both as they
# collect and write them to a folder the run shares (the controller names it to them); the
# controller's scheduler reads it once every worker has collected. (pytest-xdist's own
# ``--dist loadgroup`` renames test ids, which pytest 9.2's ids no longer allow; the scheduler
# below needs no rename.)

_SHARED_KEY = "lassm_run_folder"
#: The run's shared folder, on the controller (made when the first worker is configured).
_CONTROLLER_FOLDER: Path | None = None
_GROUPED = "groups.json"


def _shared_folder(config) -> Path | None:
    """The folder this run's controller and workers share; None without pytest-xdist."""
    if hasattr(config, "workerinput"):
        return Path(config.workerinput[_SHARED_KEY])
    return _CONTROLLER_FOLDER


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    global _CONTROLLER_FOLDER
    if _CONTROLLER_FOLDER is None:
        _CONTROLLER_FOLDER = Path(tempfile.mkdtemp(prefix="lassm-tests-"))
    node.workerinput[_SHARED_KEY] = str(_CONTROLLER_FOLDER)


def pytest_unconfigure(config):
    if _CONTROLLER_FOLDER is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_CONTROLLER_FOLDER, ignore_errors=True)


def _note_modules_that_share_a_fixture(config, items) -> None:
    """On a worker: which tests go to one worker together, into the run's folder (every worker
    writes the same): each module whose tests use a module- or class-scoped fixture the module
    defines itself, and each test marked ``xdist_group(name)`` (a module marks all its tests with
    ``pytestmark``), by its group's name."""
    folder = _shared_folder(config)
    if folder is None or not hasattr(config, "workerinput"):
        return
    modules, tests = set(), {}
    for item in items:
        module = item.nodeid.split("::")[0]
        mark = item.get_closest_marker("xdist_group")
        if mark is not None:
            tests[item.nodeid] = str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        info = getattr(item, "_fixtureinfo", None)
        for defs in (info.name2fixturedefs.values() if info else ()):
            if any(d.scope in ("module", "class") and d.baseid == module for d in defs):
                modules.add(module)
    from lassm.atomic import atomic_path

    with atomic_path(folder / _GROUPED) as tmp:
        tmp.write_text(json.dumps({"modules": sorted(modules), "tests": tests}), encoding="utf-8")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``-n`` with ``--dist load`` (its default) or ``loadgroup``: one test a unit, a group or a
    module that shares a fixture one unit (largest units first); another ``--dist`` gets
    pytest-xdist's own."""
    if config.getoption("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        groups: dict | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # read once every worker has collected (scheduling starts then)
                path = _CONTROLLER_FOLDER / _GROUPED if _CONTROLLER_FOLDER else None
                self.groups = (json.loads(path.read_text(encoding="utf-8")) if path and path.is_file()
                               else {"modules": [], "tests": {}})
                self.groups["modules"] = set(self.groups["modules"])
            if nodeid in self.groups["tests"]:
                return "group " + self.groups["tests"][nodeid]
            module = nodeid.split("::")[0]
            return module if module in self.groups["modules"] else nodeid

    return Groups(config, log)


@pytest.fixture(scope="session")
def nvrtc_once():
    """NVRTC's compile (``lassm.backends.nvrtc._compile``) that compiles each source and options
    once, whichever run, clone or worker asks first: the image and the log are kept in
    ``LASSM_CACHE/tests/nvrtc`` (:mod:`tests.compile_store`) under the SHA-256 of NVRTC's version
    and libraries, the source, its name, the options and the headers' bytes (an ``-I`` folder by
    its files' digest, not its path). A compile that fails is never kept: each caller gets
    NVRTC's own error. The compile tests and the PTX digests build the same programs (every
    architecture and protocol); NVRTC is deterministic, so each assertion sees NVRTC's output."""
    from lassm.backends import nvrtc

    from . import compile_store

    compile_ = nvrtc._compile
    where = compile_store.folder("nvrtc")

    def once(source: str, options, name: str, what: str) -> tuple[bytes, str]:
        def make() -> tuple[bytes, dict]:
            image, log = compile_(source, options, name, what)
            return image, {"log": log}

        words = [compile_store.nvrtc_identity(), what, name, source, *map(compile_store.by_bytes, options)]
        image, facts = compile_store.kept(where, compile_store.key(words), f".{what.lower()}", make)
        return image, str(facts.get("log", ""))

    return once


@pytest.fixture(scope="module")
def nvrtc_compiled_once(nvrtc_once):
    """This module's NVRTC compiles go through :func:`nvrtc_once` (and only this module's)."""
    from lassm.backends import nvrtc

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nvrtc, "_compile", nvrtc_once)
        yield


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
    from lassm.atomic import locked
    from lassm.book import ran_where as rw

    notes = rw.notes_file()
    notes.parent.mkdir(parents=True, exist_ok=True)
    with locked(notes):  # the workers of one run end together: each adds its evidence in turn
        merged = rw.from_tests()
        for key, tests in _RAN.items():
            merged.setdefault(key, set()).update(tests)
        rw.write_notes(merged)

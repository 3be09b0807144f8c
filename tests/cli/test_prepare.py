# SPDX-License-Identifier: BSD-3-Clause
"""A backend made ready while the input is read (:mod:`lassm.cli.prepare`): its lookup and its
``warm_up`` run in another thread, its failure is raised once the input is read, and a failure
to read the input is the error reported when both fail."""
from __future__ import annotations

import threading
import types
from pathlib import Path

import pytest

from lassm import cli
from lassm.backends import xdrop as xdrop_backends
from lassm.backends.xdrop import xdrop_cpu as xdrop_cpu
from lassm.cli.prepare import in_background
from lassm.errors import BackendUnavailable
from lassm.workloads.xdrop.pair_files import write_pairs
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate


def test_the_backend_warms_up_in_another_thread() -> None:
    seen: list = []
    module = types.SimpleNamespace(warm_up=lambda *args: seen.append((threading.current_thread().name, args)))
    ready = in_background(lambda: module, "fast", name="fake")
    assert ready() is module
    assert seen == [("lassm-fake-warm-up", ("fast",))]


def test_a_module_without_warm_up_is_only_looked_up() -> None:
    module = types.SimpleNamespace()
    assert in_background(lambda: module)() is module


def test_its_failure_is_raised_when_the_input_was_read() -> None:
    def unavailable():
        raise BackendUnavailable("backend 'x' is not installed")

    ready = in_background(unavailable)
    with pytest.raises(BackendUnavailable, match="not installed"):
        ready()


def test_a_failure_to_read_the_input_is_the_one_reported() -> None:
    def unavailable():
        raise BackendUnavailable("backend 'x' is not installed")

    ready = in_background(unavailable)
    with pytest.raises(ValueError, match="bad input"):
        try:
            raise ValueError("bad input")
        finally:
            assert ready() is None


@pytest.fixture()
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "p.tsv"
    write_pairs(generate(PairKnobs(n_pairs=4, min_length=100, max_length=200, seed=2)), path)
    return path


def _fake_cuda(monkeypatch: pytest.MonkeyPatch, module) -> None:
    real = xdrop_backends.get
    monkeypatch.setattr(xdrop_backends, "get", lambda name: module() if name == "cuda" else real(name))


def test_xdrop_align_warms_the_backend_while_reading(tmp_path: Path, pairs: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture) -> None:
    events: list = []
    fake = types.SimpleNamespace(warm_up=lambda *a: events.append((threading.current_thread().name, a)),
                                 align=lambda p, s, threads=None, **kw: (events.append(("align", kw)),
                                                                         xdrop_cpu.align(p, s))[1])
    _fake_cuda(monkeypatch, lambda: fake)
    out = tmp_path / "a.tsv"
    assert cli.main(["xdrop", "align", str(pairs), "--backend", "cuda", "--xdrop", "30", "--out", str(out)]) == 0
    # the kernel warmed is the one X's plan (or --lanes) picks
    assert events == [("lassm-cuda-warm-up", (30, None, None)), ("align", {})] and out.exists()
    events.clear()
    assert cli.main(["xdrop", "align", str(pairs), "--backend", "cuda", "--lanes", "8", "--out", str(out)]) == 0
    assert [e[1] for e in events] == [(100, 8, None), {"lanes": 8}]


def test_xdrop_align_names_a_missing_backend_after_reading(tmp_path: Path, pairs: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture) -> None:
    def missing():
        raise BackendUnavailable("X-drop backend 'cuda' is not installed (test); it needs CuPy")

    _fake_cuda(monkeypatch, missing)
    out = tmp_path / "a.tsv"
    assert cli.main(["xdrop", "align", str(pairs), "--backend", "cuda", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "lassm: error: X-drop backend 'cuda' is not installed (test); it needs CuPy\n"
    bad = tmp_path / "bad.tsv"
    bad.write_text("ACGT\t0\tACGT\t0\t9\n")
    assert cli.main(["xdrop", "align", str(bad), "--backend", "cuda", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"lassm: error: {bad}:1: seed: the seed (0, 0, length 9)")
    assert not out.exists()


def test_xdrop_align_waits_for_the_backend_before_building_a_named_set(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture) -> None:
    """A named set may be built first (minutes): a missing backend is named before that work."""
    from lassm.workloads.xdrop import pair_sets

    def missing():
        raise BackendUnavailable("X-drop backend 'cuda' is not installed (test)")

    built: list[str] = []
    monkeypatch.setattr(pair_sets, "load", lambda name: built.append(name))
    _fake_cuda(monkeypatch, missing)
    assert cli.main(["xdrop", "align", "xdrop-sim-20k", "--backend", "cuda", "--out", str(tmp_path / "a.tsv")]) == 2
    assert "not installed (test)" in capsys.readouterr().err and built == []

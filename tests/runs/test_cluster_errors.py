# SPDX-License-Identifier: BSD-3-Clause
"""``--cluster`` naming a scheduler that is not there: one ``lassm: error:`` line, exit code 2,
within the stated wait, and nothing written or measured.

The real command runs in a subprocess, as a user runs it. ``LASSM_CLUSTER_TIMEOUT`` shortens
the wait (:mod:`lassm.runs.dask_address`), so that each case takes seconds.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from lassm import paths

pytest.importorskip("distributed", reason="--cluster needs Dask: pip install 'lassm[dask]'")

#: The wait the commands run under here, in seconds.
WAIT = 2


def _lassm(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LASSM_CLUSTER_TIMEOUT": str(WAIT), "LASSM_RESULTS": str(tmp_path / "results")}
    return subprocess.run([sys.executable, "-m", "lassm", *args], cwd=paths.REPO, capture_output=True, text=True,
                          env=env, timeout=120)


def _one_error_line(res: subprocess.CompletedProcess) -> str:
    """The single ``lassm: error:`` line of a refused command (exit code 2, no traceback)."""
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("lassm: error:"), res.stderr
    return lines[0]


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) but never says a word."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "sched.json"
    path.write_text(text)
    return str(path)


#: Each case: the ``--cluster`` value (made from tmp_path and a port), and words the error must hold.
CASES: dict[str, tuple[Callable[[Path, int], str], str]] = {
    "garbage-file": (lambda tmp, port: _file(tmp, "garbage\n"), "not a Dask scheduler file"),
    "no-address": (lambda tmp, port: _file(tmp, json.dumps({"type": "Scheduler", "id": "x"})),
                   "not a Dask scheduler file"),
    "file-closed-port": (lambda tmp, port: _file(tmp, json.dumps({"address": f"tcp://127.0.0.1:{port}",
                                                                  "type": "Scheduler"})),
                         f"no Dask scheduler answered within {WAIT} s"),
    "tcp-closed-port": (lambda tmp, port: f"tcp://127.0.0.1:{port}", f"no Dask scheduler answered within {WAIT} s"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_extend_refuses_a_cluster_that_is_not_there(case: str, tmp_path: Path, closed_port: int) -> None:
    """One line naming the value and what is wrong with it; no output file, not even in part."""
    make, words = CASES[case]
    spec = make(tmp_path, closed_port)
    out = tmp_path / "o.dat"
    res = _lassm(["extend", str(paths.sample("k77")), "--k", "77", "--out", str(out), "--backend", "cpu",
                  "--cluster", spec], tmp_path)
    line = _one_error_line(res)
    assert spec in line and words in line, line
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == (["sched.json"] if spec.endswith(".json") else [])


def test_run_refuses_the_cluster_before_measuring(tmp_path: Path, closed_port: int) -> None:
    """``lassm run`` asks the scheduler before its first point: nothing recorded, one line."""
    spec = f"tcp://127.0.0.1:{closed_port}"
    res = _lassm(["run", "--quick", "--backends", "cpu", "--machine", "m1", "--cluster", spec], tmp_path)
    line = _one_error_line(res)
    assert spec in line and "no Dask scheduler answered" in line, line
    assert not (tmp_path / "results").exists()


def test_a_port_that_never_speaks_fails_within_the_wait(tmp_path: Path, silent_port: int) -> None:
    """Dask's own client would wait for the handshake forever; the check gives up after the wait."""
    spec = f"tcp://127.0.0.1:{silent_port}"
    out = tmp_path / "o.dat"
    started = time.monotonic()
    res = _lassm(["extend", str(paths.sample("k77")), "--k", "77", "--out", str(out), "--cluster", spec], tmp_path)
    line = _one_error_line(res)
    assert spec in line and "no Dask scheduler answered" in line, line
    assert time.monotonic() - started < 60
    assert not out.exists()


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan"])
def test_an_impossible_wait_is_named(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm.errors import LassmError
    from lassm.runs import dask_address

    monkeypatch.setenv(dask_address.TIMEOUT_ENV, value)
    with pytest.raises(LassmError, match=dask_address.TIMEOUT_ENV):
        dask_address.connect_timeout()


def test_the_wait_defaults_to_the_stated_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``LASSM_CLUSTER_TIMEOUT`` nor a Dask setting of its own, the named constant; a Dask
    setting is honoured."""
    import dask

    from lassm.runs import dask_address

    monkeypatch.delenv(dask_address.TIMEOUT_ENV, raising=False)
    assert dask_address.connect_timeout() == dask_address.CONNECT_TIMEOUT_S
    with dask.config.set({"distributed.comm.timeouts.connect": "3s"}):
        assert dask_address.connect_timeout() == 3.0

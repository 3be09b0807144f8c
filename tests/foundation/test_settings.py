# SPDX-License-Identifier: BSD-3-Clause
"""Every ``LASSM_*`` variable is read and checked in one module, listed once in the book.

Bad values that used to end a command in a traceback, late, after work was done, are one line
naming the variable, exit 2, before any work; the install page's table is the module's table;
no other module reads a ``LASSM_*`` variable itself (two that run before any import excepted).
"""
from __future__ import annotations

import ast
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths, settings
from lassm.backends import hip_cpu
from lassm.cli import main
from lassm.errors import LassmError
from lassm.runs import device_lock

REPO = paths.REPO
#: Modules that read their variable themselves: they run before anything else is imported.
RAW_READERS = {"lassm/settings.py", "lassm/timeline.py", "lassm/backends/cuinit.py"}


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


BAD = [("LASSM_DEVICE_WAIT", "abc"), ("LASSM_DEVICE_WAIT", "-5"), ("LASSM_DEVICE_WAIT", "nan"),
       ("LASSM_LOCK_DIR", "/dev/null"), ("LASSM_HIP_CPU_TIMEOUT", "abc"), ("LASSM_HIP_CPU_TIMEOUT", "0"),
       ("LASSM_CLUSTER_TIMEOUT", "inf"), ("LASSM_WORKER_MEMORY_BYTES", "1.5"), ("LASSM_MEMORY_BYTES", "-1"),
       ("LASSM_CUDA_RUNTIME", "opencl"), ("LASSM_SYCL_KEEP_ICD", "yes"), ("LASSM_RESULTS", "/dev/null/x"),
       ("LASSM_CACHE", "/dev/null"), ("LASSM_TIMELINE", "/"), ("LASSM_HIPCC", "/no/such/hipcc"),
       ("LASSM_OPENCL_DEVICE", "two\nlines")]


@pytest.mark.parametrize("name, text", BAD, ids=[f"{n}={t!r}" for n, t in BAD])
def test_a_bad_value_is_one_line_before_any_work(name: str, text: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture) -> None:
    """Each used to be a traceback (``float('abc')``, ``mkdir`` of ``/dev/null``) or a silent
    odd value (a wait of NaN seconds); now the command refuses it as it starts."""
    monkeypatch.setenv(name, text)
    out = tmp_path / "g.parquet"
    code = main(["data", "generate", "--k", "21", "--scale", "0.005", "--out", str(out)])
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and line.startswith(f"lassm: error: {name}={text!r}: "), line
    assert not out.exists()
    with pytest.raises(LassmError, match=name):
        settings.value(name)


def test_good_values_are_read_as_their_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text, want in (("LASSM_DEVICE_WAIT", "0", 0.0), ("LASSM_DEVICE_WAIT", " 2.5 ", 2.5),
                             ("LASSM_MEMORY_BYTES", "1e9", 10 ** 9), ("LASSM_CUDA_RUNTIME", "CuPy", "cupy"),
                             ("LASSM_SYCL_KEEP_ICD", "0", False), ("LASSM_LOCK_DIR", str(tmp_path / "new" / "locks"),
                                                                  tmp_path / "new" / "locks")):
        monkeypatch.setenv(name, text)
        assert settings.value(name) == want
    monkeypatch.setenv("LASSM_DEVICE_WAIT", "")
    assert settings.value("LASSM_DEVICE_WAIT") is None and device_lock.wait_seconds() == device_lock.DEVICE_WAIT_SECONDS
    monkeypatch.delenv("LASSM_HIP_CPU_TIMEOUT", raising=False)
    assert hip_cpu.launch_timeout() == hip_cpu.DEFAULT_TIMEOUT


def test_the_defaults_the_table_quotes_are_the_code_s() -> None:
    quoted = {s.name: s.default for s in settings.SETTINGS}
    assert float(quoted["LASSM_DEVICE_WAIT"]) == device_lock.DEVICE_WAIT_SECONDS
    assert float(quoted["LASSM_HIP_CPU_TIMEOUT"]) == hip_cpu.DEFAULT_TIMEOUT
    assert all(not math.isnan(float(quoted[n])) for n in ("LASSM_DEVICE_WAIT", "LASSM_HIP_CPU_TIMEOUT"))


def test_the_install_page_lists_the_table() -> None:
    page = (REPO / "book" / "install.md").read_text()
    assert settings.table() in page


def _reads(tree: ast.AST) -> list[str]:
    """The ``LASSM_*`` names a module reads from the environment itself (``os.environ[...]``,
    ``os.environ.get``, ``os.getenv``), by a string constant or a module constant holding one."""
    consts = {t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
              and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
              for t in n.targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        arg = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            f = node.func
            if (f.attr == "get" and ast.unparse(f.value) == "os.environ") or ast.unparse(f) == "os.getenv":
                arg = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ" \
                and isinstance(node.ctx, ast.Load):
            arg = node.slice
        if arg is None:
            continue
        name = arg.value if isinstance(arg, ast.Constant) else consts.get(arg.id) if isinstance(arg, ast.Name) else None
        if isinstance(name, str) and name.startswith("LASSM_"):
            found.append(name)
    return found


def test_no_other_module_reads_a_setting_itself() -> None:
    """Every read goes through :func:`lassm.settings.value`; the table names every variable read."""
    raw = {}
    for path in sorted((REPO / "lassm").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        names = _reads(ast.parse(path.read_text()))
        if names and rel not in RAW_READERS:
            raw[rel] = names
    assert raw == {}
    listed = {s.name for s in settings.SETTINGS}
    for rel in RAW_READERS - {"lassm/settings.py"}:
        assert set(_reads(ast.parse((REPO / rel).read_text()))) <= listed, rel


def test_a_timeline_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """``LASSM_TIMELINE=/dev/full``: the stamps fail on a full disk; it was a traceback."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    env = {**os.environ, "LASSM_TIMELINE": "/dev/full", "PYTHONPATH": str(REPO)}
    out = tmp_path / "g.parquet"
    proc = subprocess.run([sys.executable, "-m", "lassm", "data", "generate", "--k", "21", "--scale", "0.005",
                           "--out", str(out), "--quiet"], cwd=REPO, env=env, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "LASSM_TIMELINE='/dev/full': No space left on device" in _one_line(proc.stderr)


def test_a_results_root_that_cannot_hold_a_folder_is_refused_before_any_point(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``LASSM_RESULTS=/proc/nope``: root may "write" /proc by its mode bits, so the first
    record's ``mkdir`` failed with a traceback after a point was measured."""
    if not Path("/proc").is_dir():
        pytest.skip("no /proc on this system")
    monkeypatch.setenv("LASSM_RESULTS", "/proc/nope")
    code = main(["run", "--quick", "--kernel", "local-assembly", "--backends", "cpu", "--machine", "tst"])
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and "/proc/nope (LASSM_RESULTS) cannot be recorded" in line, line

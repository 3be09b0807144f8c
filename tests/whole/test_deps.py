# SPDX-License-Identifier: BSD-3-Clause
"""The two commands set a fresh machine up: `make deps` (tools/deps.sh) and the extras
(book/install.md lists both; the README links that page).

tools/deps.sh runs here against stand-ins for ``id``, ``sudo``, ``dpkg`` and ``apt-get`` on
``PATH``, so that root, a user with passwordless sudo and a user without it are all checked on
any machine, and nothing is installed by the test.
"""
from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPS = ROOT / "tools" / "deps.sh"


def _listed() -> list[str]:
    return subprocess.run(["bash", str(DEPS), "--list"], capture_output=True, text=True, check=True).stdout.split()


def _fake_path(tmp_path: Path, uid: int, sudo_ok: bool, installed: set[str]) -> dict[str, str]:
    """A PATH whose id/sudo/dpkg/apt-get are scripts that log how they were called."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    scripts = {
        "id": f'echo {uid}',
        "sudo": f'echo "sudo $*" >> {log}; [ "$1" = -n ] && shift; {"" if sudo_ok else "exit 1;"} "$@"',
        "dpkg": "case \" {} \" in *\" $2 \"*) exit 0;; esac; exit 1".format(" ".join(sorted(installed))),
        "apt-get": f'echo "apt-get $*" >> {log}',
    }
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/bash\n{body}\n")
        path.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "LASSM_NO_DEPS"}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env


def _run(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(DEPS)], capture_output=True, text=True, env=env, timeout=60)


def test_the_list_is_the_install_page_table() -> None:
    """Every package deps.sh installs is in the install page's table, and the table names no other."""
    page = (ROOT / "book" / "install.md").read_text()
    table = page.split("## What each extra and package enables", 1)[1].split("\n## ", 1)[0]
    in_table = set(re.findall(r"^\| Debian `([a-z0-9.+-]+)` \|", table, re.M))
    assert in_table == set(_listed()) and len(_listed()) >= 8, (in_table, _listed())
    for extra in ("test", "book", "intel", "dask", "opencl", "cuda12", "cuda13"):
        assert f"| extra `{extra}` |" in table, extra


def test_the_readme_links_the_install_page() -> None:
    """The README keeps to a newcomer's page: install internals live on the page it links."""
    readme = (ROOT / "README.md").read_text()
    assert "](book/install.md)" in readme
    assert "| Debian `" not in readme, "the package table belongs on book/install.md"


def test_root_installs_what_is_missing_and_says_so_first(tmp_path: Path) -> None:
    env = _fake_path(tmp_path, uid=0, sudo_ok=False, installed={"hipcc", "chromium"})
    done = _run(env)
    assert done.returncode == 0, done.stderr
    missing = [p for p in _listed() if p not in ("hipcc", "chromium")]
    lines = done.stdout.splitlines()
    assert lines[0] == f"make deps: about to install {len(missing)} Debian package(s): {' '.join(missing)}"
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls[0] == "apt-get update -qq"
    assert calls[1] == "apt-get install -y -qq --no-install-recommends " + " ".join(missing)


def test_passwordless_sudo_is_used(tmp_path: Path) -> None:
    env = _fake_path(tmp_path, uid=1000, sudo_ok=True, installed=set())
    assert _run(env).returncode == 0
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls[0] == "sudo -n true"
    assert any(c.startswith("apt-get install") for c in calls), calls


def test_without_root_or_sudo_it_names_what_is_missing_and_succeeds(tmp_path: Path) -> None:
    env = _fake_path(tmp_path, uid=1000, sudo_ok=False, installed={"samtools"})
    done = _run(env)
    assert done.returncode == 0
    assert "make deps: cannot install " + " ".join(p for p in _listed() if p != "samtools") in done.stdout
    assert "sudo apt-get install" in done.stdout
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert not [c for c in calls if c.startswith("apt-get")], calls


def test_nothing_to_do_when_all_are_installed(tmp_path: Path) -> None:
    env = _fake_path(tmp_path, uid=0, sudo_ok=False, installed=set(_listed()))
    done = _run(env)
    assert done.returncode == 0 and done.stdout.startswith(f"make deps: all {len(_listed())} system packages")
    assert not (tmp_path / "calls.log").exists()


def test_lassm_no_deps_checks_nothing(tmp_path: Path) -> None:
    env = _fake_path(tmp_path, uid=0, sudo_ok=False, installed=set())
    env["LASSM_NO_DEPS"] = "1"
    done = _run(env)
    assert done.returncode == 0 and "LASSM_NO_DEPS" in done.stdout
    assert not (tmp_path / "calls.log").exists()


def _make_dry_run(target: str) -> str:
    return subprocess.run(["make", "-n", "-C", str(ROOT), target, "PYTHON=python3"], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("target", ["test", "book"])
def test_both_commands_set_the_machine_up_first(target: str) -> None:
    """`make test` and `make book` run `make deps`, then install the extras, then their job."""
    steps = _make_dry_run(target)
    assert steps.index("tools/deps.sh") < steps.index("pytest" if target == "test" else "lassm run")
    want = "test,book,intel,dask,opencl" if (platform.system(), platform.machine()) == ("Linux", "x86_64") \
        else "test,book,dask,opencl"
    assert f'.lassm-installed-{want.replace(",", "-")}' in subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-p", "-n", "venv"], capture_output=True, text=True).stdout


def test_ci_is_the_two_commands_and_the_browser_checks() -> None:
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    commands = [ln for ln in lines if not re.match(r"(set|cd|export|start=|step|test -f)", ln)]
    assert commands == ["make test", "make book", ".venv/bin/python -m pytest -q tests/book/test_built_book.py"], commands

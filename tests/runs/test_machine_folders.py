# SPDX-License-Identifier: BSD-3-Clause
"""One rule for ``--machine`` in every command, and a run's results tree checked before it
measures, through the real ``lassm`` process: a refused run prints
one ``lassm: error:`` line, exits 2, and leaves the results tree as it found it (no record, so
nothing was measured)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths

#: The small whole run (the refusals must come before any of its parts measures).
RUN = ["run", "--quick", "--backends", "cpu"]


def _lassm(argv: list[str], root: Path, **env: str) -> subprocess.CompletedProcess:
    """``python -m lassm ARGV`` with ``LASSM_RESULTS`` = ``root`` and no ``LASSM_MACHINE`` but ``env``'s."""
    base = {k: v for k, v in os.environ.items() if k not in ("LASSM_MACHINE", "LASSM_RESULTS")}
    return subprocess.run([sys.executable, "-m", "lassm", *argv], cwd=paths.REPO, capture_output=True, text=True,
                          env={**base, "LASSM_RESULTS": str(root), **env}, timeout=120)


def _tree(path: Path) -> list[str]:
    """Every path under ``path`` (or ``path`` itself, a file), with its size: what a run wrote."""
    if path.is_file():
        return [f". {path.stat().st_size}"]
    return sorted(f"{p.relative_to(path)} {p.stat().st_size if p.is_file() else '-'}" for p in path.rglob("*"))


def _refused(argv: list[str], root: Path, watch: Path | None = None, **env: str) -> str:
    """Runs ``lassm``; asserts exit 2, one ``lassm: error:`` line, no traceback and ``watch``
    (default: the results root) unchanged; returns the line."""
    watch = watch or root
    before = _tree(watch)
    res = _lassm(argv, root, **env)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    assert res.returncode == 2 and len(lines) == 1 and lines[0].startswith("lassm: error: "), (res.returncode,
                                                                                              res.stderr)
    assert _tree(watch) == before, "nothing measured, nothing written"
    return lines[0]


def _setup(case: str, root: Path) -> None:
    """Lays out the results tree of one refusal ``case``, machine ``box``."""
    box = root / "box"
    if case == "results root is a file":
        root.parent.mkdir(parents=True, exist_ok=True)
        root.write_text("not a folder\n")
        return
    root.mkdir(parents=True)
    if case == "machine folder is a file":
        box.write_text("not a folder\n")
    elif case == "campaign.json is not JSON":
        box.mkdir()
        (box / "campaign.json").write_text("{half")
    elif case == "campaign.json is a folder":
        (box / "campaign.json").mkdir(parents=True)
    elif case == "xdrop folder is a file":
        box.mkdir()
        (box / "xdrop").write_text("not a folder\n")


@pytest.mark.parametrize("case, says", [
    ("machine folder is a file", "box: not a folder"),
    ("results root is a file", "not a folder; unset it for the default"),
    ("campaign.json is not JSON", "campaign.json: not JSON"),
    ("campaign.json is a folder", "campaign.json: not a file"),
    ("xdrop folder is a file", "xdrop: not a folder"),
])
def test_a_run_that_could_not_record_is_refused_before_it_measures(case: str, says: str, tmp_path: Path) -> None:
    root = tmp_path / "results"
    _setup(case, root)
    line = _refused([*RUN, "--machine", "box"], root)
    assert says in line and str(root) in line, line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_machine_folder_that_cannot_be_written_is_refused_before_it_measures(tmp_path: Path) -> None:
    root = tmp_path / "results"
    (root / "box").mkdir(parents=True)
    (root / "box").chmod(0o555)
    try:
        assert "not writable" in _refused([*RUN, "--machine", "box"], root)
    finally:
        (root / "box").chmod(0o755)


def test_an_over_long_machine_name_is_refused_at_parsing(tmp_path: Path) -> None:
    root = tmp_path / "results"
    root.mkdir()
    line = _refused([*RUN, "--machine", "a" * 300], root)
    assert "--machine" in line and f"at most {paths.MAX_MACHINE_NAME}" in line, line
    line = _refused(RUN, root, LASSM_MACHINE="b" * 300)  # the same rule for the variable
    assert "LASSM_MACHINE" in line and f"at most {paths.MAX_MACHINE_NAME}" in line, line


def test_the_limit_keeps_a_machine_folder_a_legal_name() -> None:
    assert len(paths.machine_slug("x" * paths.MAX_MACHINE_NAME).encode()) + len(".ipynb") < 255


def test_metrics_derive_reads_the_folder_run_writes(tmp_path: Path) -> None:
    """``a/b`` names ``a-b`` for ``run`` and ``metrics derive`` alike; an absolute path names its
    slug under the results root, never the folder outside it."""
    root = tmp_path / "results"
    res = _lassm(["run", "--quick", "--backends", "cpu", "--kernel", "local-assembly", "--no-profile",
                  "--no-ceilings", "--machine", "a/b"], root)
    assert res.returncode == 0, res.stderr
    assert [p.name for p in root.iterdir()] == ["a-b"]
    line = _refused(["metrics", "derive", "--machine", "a/b"], root)
    assert str(root / "a-b" / "counters") in line, "found a-b, then short of counters"
    outside = tmp_path / "outside"
    (outside / "counters").mkdir(parents=True)
    (outside / "counters" / "ncu__x.csv").write_text("not counters\n")
    line = _refused(["metrics", "derive", "--machine", str(outside)], root, watch=tmp_path)
    assert f"no results folder {root / paths.slug(str(outside))}" in line, line

# SPDX-License-Identifier: BSD-3-Clause
"""One rule for ``--machine`` in every command, and a run's results tree checked before it measures
(issue 38, items 2, 7 and 8): a refused run leaves the tree as it found it."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm import paths
from lassm.cli import main


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.is_dir() else []


def _refused(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    code = main(argv)
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("lassm: error: "), (code, err)
    return err[0]


RUN = ["run", "--quick", "--backends", "cpu", "--kernel", "local-assembly"]


@pytest.mark.parametrize("case", ["machine folder is a file", "results root is a file", "account is not JSON"])
def test_a_run_that_could_not_record_is_refused_before_it_measures(case: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture) -> None:
    root = tmp_path / "results"
    root.mkdir()
    if case == "machine folder is a file":
        (root / "box").write_text("not a folder")
    elif case == "results root is a file":
        root.rmdir()
        root.write_text("not a folder")
    else:
        (root / "box").mkdir()
        (root / "box" / "campaign.json").write_text("{half")
    monkeypatch.setenv("LASSM_RESULTS", str(root))
    before = _tree(root)
    line = _refused([*RUN, "--machine", "box"], capsys)
    assert str(root) in line
    assert _tree(root) == before, "nothing measured, nothing written"


def test_an_over_long_machine_name_is_refused_at_parsing(capsys: pytest.CaptureFixture) -> None:
    assert "at most 100" in _refused([*RUN, "--machine", "a" * 300], capsys)


def test_every_command_reads_a_machine_name_as_run_writes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture) -> None:
    """``a/b`` and ``/abs/path`` name ``a-b`` and ``abs-path`` under the results root, for
    ``metrics derive`` as for ``run``: never a folder outside the root."""
    root = tmp_path / "results"
    (root / "a-b").mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "counters").mkdir(parents=True)
    monkeypatch.setenv("LASSM_RESULTS", str(root))
    line = _refused(["metrics", "derive", "--machine", "a/b"], capsys)
    assert str(root / "a-b") in line and "no results folder" not in line  # found, then short of counters
    line = _refused(["metrics", "derive", "--machine", str(outside)], capsys)
    assert f"no results folder {root / paths.slug(str(outside))}" in line, "the root's own folder, not the path given"

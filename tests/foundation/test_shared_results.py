# SPDX-License-Identifier: BSD-3-Clause
"""Results others can read: atomic writes leave the mode an ordinary write would, under any umask."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lassm import atomic, paths
from lassm.workloads.local_assembly import formats
from lassm.runs import records as runs
from lassm.cli import main


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request: pytest.FixtureRequest):
    """Runs the test under the given umask, restoring the caller's afterwards."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_without_changing(umask: int, monkeypatch: pytest.MonkeyPatch) -> None:
    assert atomic.current_umask() == umask
    # Without /proc (not Linux): the set-and-restore fallback gives the same and restores it.
    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(atomic, "open", no_proc, raising=False)
    assert atomic.current_umask() == umask
    assert os.umask(umask) == umask


def test_new_file_gets_the_umask_mode(umask: int, tmp_path: Path) -> None:
    with atomic.atomic_open(tmp_path / "a.txt") as fh:
        fh.write("x\n")
    with atomic.atomic_path(tmp_path / "sub" / "b.bin") as tmp:
        tmp.write_bytes(b"y")
    want = 0o666 & ~umask
    assert _mode(tmp_path / "a.txt") == want
    assert _mode(tmp_path / "sub" / "b.bin") == want
    plain = tmp_path / "plain.txt"
    plain.write_text("z\n")  # what an ordinary write gives, for comparison
    assert _mode(plain) == want


def test_replaced_file_keeps_its_mode(umask: int, tmp_path: Path) -> None:
    target = tmp_path / "r.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    with atomic.atomic_open(target) as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n"
    assert _mode(target) == 0o640


def test_record_folder_and_files_follow_the_umask(umask: int, tmp_path: Path) -> None:
    from lassm import Params, extend

    ds = formats.read_dat(paths.sample("k21"))
    ext = extend(ds, Params(k=21), backend="cpu")
    summary = runs.summarize(ext, "sample-k21", True, "test", machine="node")
    for _ in range(2):  # written, then replaced
        folder = runs.write_record(summary, ext, root=tmp_path)
        assert _mode(folder) == 0o777 & ~umask
        files = list(folder.iterdir())
        assert {p.name for p in files} >= {"summary.json", "ends.parquet"}
        assert all(_mode(p) == 0o666 & ~umask for p in files), {p.name: oct(_mode(p)) for p in files}
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]


def test_campaign_is_readable_by_group_and_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lassm run`` and ``lassm extend`` under umask 022: every record and output is world-readable."""
    old = os.umask(0o022)
    try:
        monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
        assert main(["run", "--machine", "box", "--backends", "cpu", "--datasets", "sample-k21", "--quiet"]) == 0
        assert main(["extend", str(paths.sample("k21")), "--k", "21", "--out", str(tmp_path / "out" / "ext.txt"),
                     "--ends", str(tmp_path / "out" / "ends.parquet")]) == 0
    finally:
        os.umask(old)
    written = [p for p in tmp_path.rglob("*")]
    assert len([p for p in written if p.is_file()]) >= 4
    for p in written:
        want = stat.S_IRGRP | stat.S_IROTH | ((stat.S_IXGRP | stat.S_IXOTH) if p.is_dir() else 0)
        assert _mode(p) & want == want, f"{p}: {oct(_mode(p))}"

# SPDX-License-Identifier: BSD-3-Clause
"""An output that is no regular file is never replaced: a pipe or a character device is written
through, a symbolic link keeps its place while the file it names gets the output, and a block
device, a socket or a folder is refused with one line and exit code 2. Real nodes: a FIFO, links,
a character device made with ``mknod`` (where root allows) and a UNIX socket."""
from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from lassm import atomic
from lassm.cli import main

from ..whole.test_bad_input import GOOD


def _input(tmp_path: Path) -> Path:
    src = tmp_path / "in.dat"
    src.write_text(GOOD)
    return src


def _extend(src: Path, out: Path | str) -> int:
    return main(["extend", str(src), "--k", "21", "--out", str(out)])


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    src, fifo = _input(tmp_path), tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert _extend(src, fifo) == 0
    reader.join(timeout=60)
    assert got and got[0].startswith(b"7 ")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.dat", "out.fifo"]  # no temporary beside it


def test_a_symlink_keeps_its_place_and_its_target_gets_the_output(tmp_path: Path) -> None:
    src, target, link = _input(tmp_path), tmp_path / "real.txt", tmp_path / "link.txt"
    target.write_text("old\n")
    link.symlink_to(target.name)
    assert _extend(src, link) == 0
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert target.read_text().startswith("7 ")
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("made.txt")
    assert _extend(src, dangling) == 0
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text().startswith("7 ")


def test_a_character_device_is_written_through(tmp_path: Path) -> None:
    src, node = _input(tmp_path), tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("mknod needs root here")
    assert _extend(src, node) == 0
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3


@pytest.mark.parametrize("kind", ["block device", "socket", "folder"])
def test_a_block_device_a_socket_or_a_folder_is_refused(kind: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    src, out = _input(tmp_path), tmp_path / "out"
    if kind == "block device":
        try:  # a major number no driver holds: nothing could be written even by mistake
            os.mknod(out, 0o600 | stat.S_IFBLK, os.makedev(240, 0))
        except PermissionError:
            pytest.skip("mknod needs root here")
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(out))
    else:
        out.mkdir()
    before = os.lstat(out)
    assert _extend(src, out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lassm: error:") and str(out) in err[0]
    assert "argument --out" in err[0]  # refused with the options, before any work
    after = os.lstat(out)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_the_process_own_descriptors_are_written_in_place() -> None:
    """``/dev/stdout`` and ``/proc/self/fd/1`` name the process's own output, never a file to replace."""
    for name in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/2"):
        assert atomic.destination(name) == (Path(name), True)
    assert atomic.destination("/tmp/plain.txt") == (Path("/tmp/plain.txt"), False)

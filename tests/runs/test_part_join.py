# SPDX-License-Identifier: BSD-3-Clause
"""Joining a sharded run's parts (``lassm.runs.part_join``): copies at offsets equal the parts end
to end, with the kernel's copy or without it; a file is replaced through its temporary, and a
destination written in place keeps what it is."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lassm.runs import part_join


def _parts(folder: Path, sizes: list[int]) -> list[Path]:
    paths = []
    for i, n in enumerate(sizes):
        paths.append(folder / f"{i:05d}.out")
        paths[-1].write_bytes(bytes((i * 7 + j) % 251 for j in range(n)))
    return paths


@pytest.mark.parametrize("kernel_copy", [True, False])
def test_parts_placed_at_their_offsets_are_the_parts_end_to_end(tmp_path: Path, monkeypatch, kernel_copy: bool) -> None:
    parts = _parts(tmp_path, [5, 0, 70_000, 3])
    want = b"".join(p.read_bytes() for p in parts)
    if not kernel_copy:  # a file system (or a Python) without copy_file_range: the pread/pwrite loop
        monkeypatch.setattr(os, "copy_file_range", lambda *a, **k: (_ for _ in ()).throw(OSError("not here")))
        monkeypatch.setattr(part_join, "COPY_CHUNK", 4096)
    dest = tmp_path / "joined"
    dest.write_bytes(b"\0" * len(want))
    offsets = [0, 5, 5, 70_005]
    part_join.place_task([(str(p), str(dest), off) for p, off in zip(reversed(parts), reversed(offsets))])
    assert dest.read_bytes() == want
    again = tmp_path / "again"
    assert part_join.concat_parts(parts[:], again) == len(want) and again.read_bytes() == want
    assert not parts[0].exists()  # the first part became the file: renamed, not copied


def test_a_device_is_written_in_place_and_its_parts_folder_is_not_beside_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = part_join.parts_folder(Path("/dev/null"))
    assert folder.parent == tmp_path and folder.name.startswith(".null.")
    parts = _parts(folder, [10, 20])
    before = os.stat("/dev/null")
    assert part_join.concat_parts(parts, Path("/dev/null")) == 30
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert all(p.exists() for p in parts)  # streamed, not moved
    assert part_join.parts_folder(tmp_path / "sub" / "out.txt").parent == tmp_path / "sub"

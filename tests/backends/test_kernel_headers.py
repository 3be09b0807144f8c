# SPDX-License-Identifier: BSD-3-Clause
"""The staged header folders: one path per set of headers, whichever clone asks.

The runtimes' program caches (pyopencl's, PoCL's) key on the build options, the ``-I`` paths
among them: the kernels' headers and pyopencl's own, which lies in the virtual environment. Each
``-I`` names a copy whose path is the headers' digest, so a clone at another path, with its own
environment, finds the programs built.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lassm.backends import clplan, headers
from lassm.backends.opencl import KERNEL
from lassm.paths import kernel_source


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / headers.STAGED


def _clone(tmp_path: Path, name: str) -> Path:
    """The OpenCL kernels' folder as another clone has it, and a subfolder that is not staged."""
    folder = tmp_path / name / "opencl"
    shutil.copytree(kernel_source(KERNEL).parent, folder)
    (folder / "sub").mkdir()
    (folder / "sub" / "x.h").write_text("not a header of this folder\n")
    return folder


def test_two_clones_share_one_copy_and_a_changed_header_gets_its_own(tmp_path: Path, cache: Path) -> None:
    one, two = _clone(tmp_path, "one"), _clone(tmp_path, "two")
    staged = headers.staged_folder(one)
    assert headers.staged_folder(two) == staged and staged.parent == cache
    assert sorted(p.name for p in staged.iterdir()) == sorted(p.name for p in one.iterdir() if p.is_file())
    assert all((staged / p.name).read_bytes() == p.read_bytes() for p in one.iterdir() if p.is_file())
    (two / "team.h").write_text((two / "team.h").read_text() + "// changed\n")
    changed = headers.staged_folder(two)
    assert changed != staged and (changed / "team.h").read_text().endswith("// changed\n")
    assert (staged / "team.h").read_bytes() == (one / "team.h").read_bytes()  # the first copy is untouched
    assert sorted(p.name for p in cache.iterdir()) == sorted([staged.name, changed.name])  # no temporary left


def test_a_damaged_copy_is_made_again(tmp_path: Path, cache: Path) -> None:
    folder = _clone(tmp_path, "one")
    staged = headers.staged_folder(folder)
    (staged / "team.h").write_text("cut short")
    (staged / "common.h").unlink()
    assert headers.staged_folder(folder) == staged
    assert (staged / "team.h").read_bytes() == (folder / "team.h").read_bytes()
    assert (staged / "common.h").read_bytes() == (folder / "common.h").read_bytes()


def test_without_a_writable_cache_the_folder_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(headers, "cache_dir", lambda: blocker / "cache")  # under a file: no folder can be made
    folder = _clone(tmp_path, "one")
    assert headers.staged_folder(folder) == folder


def test_the_opencl_build_names_the_staged_copy(cache: Path) -> None:
    (flag,) = clplan.include_options(KERNEL)
    assert flag == headers.include_flag(headers.staged_folder(kernel_source(KERNEL).parent))
    assert flag.startswith("-I") and str(cache) in flag and str(kernel_source(KERNEL).parent) not in flag


def test_a_tree_is_staged_whole_and_keyed_by_relative_paths(tmp_path: Path, cache: Path) -> None:
    one, two = _clone(tmp_path, "one"), _clone(tmp_path, "two")
    staged = headers.staged_folder(one, tree=True)
    assert headers.staged_folder(two, tree=True) == staged and staged != headers.staged_folder(one)
    assert (staged / "sub" / "x.h").read_bytes() == (one / "sub" / "x.h").read_bytes()
    (two / "sub" / "x.h").rename(two / "sub" / "y.h")  # same bytes, another name
    moved = headers.staged_folder(two, tree=True)
    assert moved != staged and (moved / "sub" / "y.h").is_file() and not (moved / "sub" / "x.h").exists()
    (staged / "sub" / "x.h").unlink()  # damaged: made again
    assert headers.staged_folder(one, tree=True) == staged and (staged / "sub" / "x.h").is_file()


def test_pyopencls_own_include_names_a_staged_copy(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever environment pyopencl lies in, the ``-I`` it adds to a build is the same."""
    from lassm.backends import opencl

    cl = pytest.importorskip("pyopencl")
    own = Path(cl.__file__).parent / "cl"
    monkeypatch.setattr(cl, "_DEFAULT_INCLUDE_OPTIONS", ["-I", str(own)])
    opencl._pyopencl_headers_staged.cache_clear()
    opencl._pyopencl_headers_staged()
    opencl._pyopencl_headers_staged.cache_clear()
    flag, folder = cl._DEFAULT_INCLUDE_OPTIONS
    assert flag == "-I" and Path(folder).parent == cache and Path(folder) == headers.staged_folder(own, tree=True)
    assert sorted(p.relative_to(folder) for p in Path(folder).rglob("*")) == sorted(p.relative_to(own) for p in own.rglob("*"))

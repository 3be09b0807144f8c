# SPDX-License-Identifier: BSD-3-Clause
"""The tests' store of compiler outputs (tests/compile_store.py): made once, checked when read,
never keeping a failure."""
from __future__ import annotations

import pytest

from .. import compile_store


def test_an_output_is_made_once_then_read(tmp_path) -> None:
    calls = []

    def make():
        calls.append(1)
        return b"image", {"log": "ok"}

    assert compile_store.kept(tmp_path, "k", ".ptx", make) == (b"image", {"log": "ok"})
    assert compile_store.kept(tmp_path, "k", ".ptx", make) == (b"image", {"log": "ok"})
    assert len(calls) == 1 and (tmp_path / "k.ptx").read_bytes() == b"image"


def test_a_kept_output_that_fails_its_digest_is_made_again(tmp_path) -> None:
    compile_store.kept(tmp_path, "k", ".s", lambda: (b"first", {}))
    (tmp_path / "k.s").write_bytes(b"edited")
    assert compile_store.kept(tmp_path, "k", ".s", lambda: (b"again", {"log": ""})) == (b"again", {"log": ""})
    (tmp_path / "k.json").write_text("{not json")
    assert compile_store.kept(tmp_path, "k", ".s", lambda: (b"third", {}))[0] == b"third"


def test_a_failed_compile_keeps_nothing(tmp_path) -> None:
    def fails():
        raise RuntimeError("the compiler's own error")

    with pytest.raises(RuntimeError, match="compiler's own error"):
        compile_store.kept(tmp_path, "k", ".o", fails)
    assert not (tmp_path / "k.o").exists() and not (tmp_path / "k.json").exists()
    assert compile_store.kept(tmp_path, "k", ".o", lambda: (b"ok", {}))[0] == b"ok"


def test_a_store_that_cannot_be_written_compiles_every_time(tmp_path) -> None:
    (tmp_path / "file").write_text("")  # a file where the store's folder would be
    assert compile_store.kept(tmp_path / "file" / "store", "k", ".o", lambda: (b"made", {})) == (b"made", {})


def test_the_key_is_of_the_words_and_their_order() -> None:
    assert compile_store.key(["a", "b"]) == compile_store.key(["a", "b"])
    assert compile_store.key(["a", "b"]) != compile_store.key(["b", "a"]) != compile_store.key(["ab"])
    assert len(compile_store.key([])) == 32


def test_an_include_folder_counts_by_its_files_not_its_path(tmp_path) -> None:
    """Two clones' copies of the same headers give one key; a header changed gives another."""
    for clone in ("one", "two"):
        (tmp_path / clone).mkdir()
        (tmp_path / clone / "common.cuh").write_text("#define A 1\n")
    one, two = (compile_store.by_bytes(f"-I{tmp_path / c}") for c in ("one", "two"))
    assert one == two and str(tmp_path) not in one
    (tmp_path / "two" / "common.cuh").write_text("#define A 2\n")
    assert compile_store.by_bytes(f"-I{tmp_path / 'two'}") != one
    assert compile_store.by_bytes("-DWARP_SIZE=32") == "-DWARP_SIZE=32"

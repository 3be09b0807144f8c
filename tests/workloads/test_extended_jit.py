# SPDX-License-Identifier: BSD-3-Clause
"""The compiled output writer (extended_jit) writes the Python writer's bytes, in both walk layouts,
for any contig id, and formats.extended_into picks it only where it pays."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from lassm import paths
from lassm.workloads.local_assembly import dat_bulk, formats
from lassm.workloads.local_assembly.result import Extension, SideResult

pytest.importorskip("numba")
from lassm.workloads.local_assembly import extended_jit  # noqa: E402


def _random_extension(n: int, seed: int, ragged: bool) -> Extension:
    """A sample-k77 subset with random walks (bases, N and lower case included) and ids from
    int64's least to its greatest value."""
    rng = np.random.default_rng(seed)
    ds = formats.read_dat(paths.sample("k77")).subset(np.arange(n) % 3296)
    cids = rng.integers(-(10**6), 10**6, size=n, dtype=np.int64)
    cids[:6] = [0, -1, 9, 10, np.iinfo(np.int64).min, np.iinfo(np.int64).max]
    ds.cids[:] = cids
    sides = []
    for _ in range(2):
        side = SideResult.empty(n, 13)
        side.walk_len[:] = rng.integers(0, 14, size=n)
        side.walks[:] = rng.choice(np.frombuffer(b"ACGTNacgt", dtype=np.uint8), size=side.walks.size)
        sides.append(side.compact() if ragged else side)
    return Extension(ds, sides[0], sides[1], "cpu", {})


@pytest.mark.parametrize("ragged", [False, True], ids=["dense", "ragged"])
@pytest.mark.parametrize("block", [1, 7, dat_bulk.WRITE_BLOCK])
def test_compiled_writer_writes_the_python_writers_bytes(ragged: bool, block: int) -> None:
    ext = _random_extension(500, 3, ragged)
    want = b"".join(dat_bulk.extended_blocks(ext, block))
    assert want.count(b"\n") == 500 and b"-9223372036854775808 " in want
    got = [bytes(b) for b in extended_jit.extended_blocks(ext, block)]
    assert b"".join(got) == want
    assert len(got) == -(-500 // block)  # the Python writer's blocks


def test_extended_into_takes_the_compiled_writer_where_numba_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    ext = _random_extension(40, 5, False)
    calls = []
    real = extended_jit.extended_blocks
    monkeypatch.setattr(extended_jit, "extended_blocks", lambda e, b: calls.append(b) or real(e, b))
    fh = io.BytesIO()
    assert "numba" in sys.modules and formats.extended_into(ext, fh) == len(fh.getvalue())
    assert calls == [dat_bulk.WRITE_BLOCK]
    monkeypatch.setenv("LASSM_PY_WRITER", "1")  # the Python writer, as the comparison above needs
    slow = io.BytesIO()
    formats.extended_into(ext, slow)
    assert calls == [dat_bulk.WRITE_BLOCK] and slow.getvalue() == fh.getvalue()


def test_a_process_without_numba_writes_small_outputs_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below EXTENDED_JIT_MIN_CONTIGS a process that has not loaded numba does not load it to write."""
    ext = _random_extension(40, 7, True)
    monkeypatch.delitem(sys.modules, "numba")
    monkeypatch.setattr(extended_jit, "extended_blocks", lambda e, b: pytest.fail("numba writer used"))
    fh = io.BytesIO()
    formats.extended_into(ext, fh)
    assert fh.getvalue() == b"".join(dat_bulk.extended_blocks(ext))
    monkeypatch.setattr(formats, "EXTENDED_JIT_MIN_CONTIGS", 40)
    with pytest.raises(pytest.fail.Exception, match="numba writer used"):
        formats.extended_into(ext, io.BytesIO())

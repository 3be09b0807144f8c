# SPDX-License-Identifier: BSD-3-Clause
"""NumPy to and from Arrow through the buffers (:mod:`lassm.arrowio`): the values pyarrow's own
conversions give, in writable arrays, for every integer and float type, sliced and chunked."""
from __future__ import annotations

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from lassm import arrowio  # noqa: E402

KINDS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
         pa.float16(), pa.float32(), pa.float64()]


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_numbers_are_pyarrows_values(kind) -> None:
    values = [0, 1, 2, 3, 4, 5, 6, 7, 100, 3]
    whole = pa.array(values, type=kind) if not pa.types.is_floating(kind) else pa.array(np.array(values, dtype=np.float64)).cast(kind)
    for col in (whole, whole.slice(3, 5), pa.chunked_array([whole.slice(0, 4), whole.slice(4)]), whole.slice(2, 0)):
        want = np.asarray(col.to_numpy() if not isinstance(col, pa.ChunkedArray) else col.to_numpy())
        got = arrowio.numbers(col)
        assert got.dtype == want.dtype and np.array_equal(got, want) and got.flags.writeable
        cast = arrowio.numbers(col, np.int64)
        assert cast.dtype == np.int64 and np.array_equal(cast, want.astype(np.int64))


def test_numbers_of_other_columns_fall_back_to_pyarrow() -> None:
    assert arrowio.numbers(pa.array([True, False]), np.int64).tolist() == [1, 0]
    with_null = arrowio.numbers(pa.array([1.0, None]), np.float64)
    assert with_null[0] == 1.0 and np.isnan(with_null[1])


def test_binary_is_the_segments_end_to_end() -> None:
    items = [b"ACGT", b"", b"N", b"TTTTTT"]
    for col in (pa.array(items, pa.binary()), pa.array(items, pa.large_binary()).slice(1, 3),
                pa.chunked_array([pa.array(items[:2], pa.binary()), pa.array(items[2:], pa.binary())])):
        data, off = arrowio.binary(col)
        pieces = col.to_pylist()
        assert data.dtype == np.uint8 and data.flags.writeable and data.tobytes() == b"".join(pieces)
        assert off.dtype == np.int64 and off.tolist() == np.cumsum([0] + [len(p) for p in pieces]).tolist()
    data, off = arrowio.binary(pa.array([b"", b""], pa.large_binary()))
    assert len(data) == 0 and data.dtype == np.uint8 and off.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint64, np.float32, np.float64])
def test_array_equals_pa_array(dtype) -> None:
    values = np.arange(7, dtype=dtype)[::2]  # not contiguous
    assert arrowio.array(values).equals(pa.array(values))
    assert arrowio.array(np.array(["a", "b"])).equals(pa.array(["a", "b"]))


def test_binary_array_round_trip() -> None:
    seqs = np.frombuffer(b"ACGTNNA", dtype=np.uint8)
    arr = arrowio.binary_array(seqs, np.array([0, 4, 4, 7]))
    assert arr.to_pylist() == [b"ACGT", b"", b"NNA"] and arr.type == pa.large_binary()


def test_strings_and_tables_equal_pyarrows() -> None:
    for values in (np.array(["right", "left", "", "é-ß", "-"]), np.full(3, "X"), np.array([], dtype="U1")):
        assert arrowio.strings(values).equals(pa.array(values))
    cols = {"cid": np.arange(3, dtype=np.int64), "side": np.array(["right", "left", "right"]),
            "walk_len": np.array([1, 0, 5], dtype=np.int32), "term": np.array(["X", "-", "F"]),
            "depth": np.array([0.5, 1.0, 2.25])}
    got = arrowio.table(cols)
    assert got.equals(pa.table(cols)) and got.schema == pa.table(cols).schema

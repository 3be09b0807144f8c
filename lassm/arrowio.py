# SPDX-License-Identifier: BSD-3-Clause
"""NumPy arrays to and from Arrow columns through their buffers, without pandas.

pyarrow imports pandas on its first NumPy conversion; the parquet commands need none of it, so
these helpers read and wrap buffers directly (same values). A column of another type, or with
nulls, falls back to pyarrow's conversion. pyarrow is imported inside each function.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np


def single(col: Any) -> Any:
    """The column as one Arrow array: a chunked column's only chunk, else its chunks combined."""
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def _numpy_dtype(kind: Any) -> np.dtype | None:
    """The NumPy dtype of an Arrow integer or floating type (their buffers hold the same bytes)."""
    import pyarrow as pa

    if pa.types.is_integer(kind):
        return np.dtype(f"{'u' if pa.types.is_unsigned_integer(kind) else 'i'}{kind.bit_width // 8}")
    if pa.types.is_floating(kind):
        return np.dtype(f"f{kind.bit_width // 8}")
    return None


def numbers(col: Any, dtype: Any = None) -> np.ndarray:
    """A numeric column as a new, writable NumPy array (of ``dtype``, default the column's own).

    Never a read-only view of Arrow's memory: numba compiles a read-only array as another type.
    Integers or floats without nulls come from the buffer, anything else through ``to_numpy``."""
    arr = single(col)
    kind = _numpy_dtype(arr.type)
    if kind is None or arr.null_count:
        values = np.asarray(arr.to_numpy(zero_copy_only=False))
        return values.astype(dtype or values.dtype)
    if len(arr) == 0:
        return np.zeros(0, dtype=dtype or kind)
    values = np.frombuffer(arr.buffers()[1], dtype=kind)[arr.offset:arr.offset + len(arr)]
    return values.astype(dtype or kind)


def binary(col: Any) -> tuple[np.ndarray, np.ndarray]:
    """A binary column's bytes, end to end, as a new writable uint8 array, and its ``len(col) + 1``
    int64 offsets from 0. The bytes are copied once into NumPy memory, which gets huge pages."""
    import pyarrow as pa

    arr = single(col)
    if arr.type != pa.large_binary():
        arr = arr.cast(pa.large_binary())
    off = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    out = np.empty(int(off[-1] - off[0]) if data is not None else 0, dtype=np.uint8)
    if len(out):
        np.copyto(out, np.frombuffer(data, dtype=np.uint8)[int(off[0]):int(off[-1])])
    return out, (off - off[0]).astype(np.int64)


def threads() -> int:
    """How many threads a read may use: Arrow's pool size (the host's CPUs, ``OMP_NUM_THREADS``, or
    a worker's share: :func:`lassm.runs.dask_settings.take_share`), which the NumPy steps after
    Arrow's own (copies, checks; they let go of the GIL) take too."""
    import pyarrow as pa

    return max(1, int(pa.cpu_count()))


def side_by_side(work: Callable[[Any], Any], items: Sequence[Any], workers: int | None = None) -> list[Any]:
    """``work`` of each item, in the items' order, on up to ``workers`` threads (default
    :func:`threads`): for a read's NumPy steps, which let go of the GIL."""
    n = min(len(items), threads() if workers is None else workers)
    if n <= 1:
        return [work(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(work, items))


def binaries(cols: list[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`binary` of each column, :func:`side_by_side`: a first copy into new memory is mostly
    the kernel's page faults (a gigabyte a second on one core), which threads take in parallel."""
    return side_by_side(binary, cols)


def array(values: np.ndarray) -> Any:
    """A NumPy array of integers or floats as an Arrow array sharing its memory (other kinds
    through ``pa.array``)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        return pa.array(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def strings(values: np.ndarray) -> Any:
    """A NumPy array of ``str`` as an Arrow ``string`` array, built from its UTF-8 bytes."""
    import pyarrow as pa

    texts = [str(v) for v in np.asarray(values).tolist()]
    encoded = [t.encode() for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded)))


def table(columns: dict[str, np.ndarray]) -> Any:
    """An Arrow table of NumPy columns (numbers through :func:`array`, text through :func:`strings`),
    equal to ``pa.table(columns)`` but without pandas."""
    import pyarrow as pa

    return pa.table({name: strings(col) if np.asarray(col).dtype.kind == "U" else array(col)
                     for name, col in columns.items()})


def binary_array(data: np.ndarray, offsets: np.ndarray) -> Any:
    """Segments ``data[offsets[i]:offsets[i+1]]`` as a ``large_binary`` Arrow array, no copy."""
    import pyarrow as pa

    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    return pa.LargeBinaryArray.from_buffers(pa.large_binary(), len(offsets) - 1,
                                            [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))])


def require_columns(table: Any, path: str, columns: Sequence[str]) -> None:
    """Refuses a table that lacks any of ``columns``, naming every one it lacks (every reader of
    a table of ours says it the same way)."""
    from .errors import InputError

    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise InputError(path, None, "columns", f"missing {', '.join(missing)}")


def whole_table(table: Any, path: str, columns: Sequence[str], rows: str) -> Any:
    """``table`` in one chunk per column, once it has ``columns`` (:func:`require_columns`) and
    at least one row; an empty one is refused as ``empty: no <rows>``."""
    from .errors import InputError

    require_columns(table, path, columns)
    if table.num_rows == 0:
        raise InputError(path, None, "file", f"empty: no {rows}")
    return table.combine_chunks()


def read_parquet(path: str, what: str = "parquet file") -> Any:
    """The whole table of the parquet file ``path``, memory-mapped (half the time of a read); a
    file Arrow cannot read raises :class:`lassm.errors.InputError` naming it as ``what``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .errors import InputError

    try:
        with pq.ParquetFile(path, memory_map=True) as pf:
            return pf.read()
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, None, "file", f"not a readable {what} ({exc})") from None


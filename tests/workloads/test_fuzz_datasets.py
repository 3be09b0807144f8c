# SPDX-License-Identifier: BSD-3-Clause
"""Random edits of valid local-assembly datasets, in both input formats, through ``lassm extend``.

Each edited file must give either exit 0 with the extension the other format's reader gives for
the same content (the two readers agree), or exit 2 with one ``lassm: error:`` line, no
traceback and no output file. Text files get byte edits (deletions, insertions, replacements);
Parquet files get the edits a table can take (a value, a type, a null, a column, a read) and
byte edits of the file itself.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lassm.cli import main
from lassm.workloads.local_assembly import formats
from tests.helpers import EDIT_ALPHABET, mutate, random_dataset

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

K = 21
TRIALS = 150


def _extend(src: Path, out: Path, capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """``lassm extend`` on ``src`` (the oracle, at k = 21): exit code and stderr."""
    code = main(["extend", str(src), "--k", str(K), "--out", str(out), "--backend", "cpu"])
    return code, capsys.readouterr().err


def _holds(src: Path, tmp: Path, capsys: pytest.CaptureFixture, what: str) -> str:
    """Asserts the property on ``src``; returns ``"ok"`` or ``"refused"``."""
    out = tmp / "out.dat"
    code, err = _extend(src, out, capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, f"{what}: {err}"
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("lassm: error: "), f"{what}: {lines}"
        assert not out.exists(), f"{what}: refused but wrote {out.name}"
        return "refused"
    assert code == 0, f"{what}: exit {code}: {lines}"
    other = tmp / ("same.dat" if src.suffix == ".parquet" else "same.parquet")
    formats.write_dataset(formats.read_dataset(src), other)  # the same content in the other format
    again = tmp / "again.dat"
    assert _extend(other, again, capsys)[0] == 0, f"{what}: accepted, but not once written as {other.suffix}"
    assert sorted(out.read_bytes().splitlines()) == sorted(again.read_bytes().splitlines()), (
        f"{what}: the {src.suffix} and {other.suffix} readers extend the same content differently")
    out.unlink()
    return "ok"


@pytest.fixture(scope="module")
def valid() -> object:
    return random_dataset(5, n=10, k=K)


def test_edited_dat_files_extend_or_give_one_line(valid, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.dat"
    formats.write_dat(valid, src)
    text = src.read_bytes()
    rng = random.Random(38)
    seen = []
    for trial in range(TRIALS):
        edited = tmp_path / f"e{trial}.dat"
        edited.write_bytes(mutate(text, rng, 3))
        seen.append(_holds(edited, tmp_path, capsys, f"dat trial {trial}"))
    assert {"ok", "refused"} <= set(seen), "the edits must both break files and leave some readable"


def _set(table, column: str, row: int, value):
    """``table`` with one value of ``column`` replaced (its type kept)."""
    values = table.column(column).to_pylist()
    values[row] = value
    return table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type))


def _edit_read(table, rng: random.Random):
    """One base or quality of one read replaced, a read's quality cut short, or a read's base lower-cased."""
    sides = [s for s in ("left", "right") if any(table.column(f"{s}_seqs").to_pylist())]
    side = rng.choice(sides)
    column = f"{side}_{rng.choice(('seqs', 'quals'))}"
    rows = table.column(column).to_pylist()
    row = rng.choice([i for i, reads in enumerate(rows) if reads])
    j = rng.randrange(len(rows[row]))
    read = bytearray(rows[row][j])
    pos = rng.randrange(len(read))
    how = rng.randrange(3)
    if how == 0:
        read[pos] = rng.choice(EDIT_ALPHABET + b"acgt!\x00\x7f")
    elif how == 1:
        del read[pos:]
    else:
        read[pos] = bytes(read[pos:pos + 1]).lower()[0]
    rows[row][j] = bytes(read)
    return table.set_column(table.column_names.index(column), column, pa.array(rows, table.schema.field(column).type))


def _edit_table(table, rng: random.Random):
    """One random edit a Parquet table can take."""
    n = table.num_rows
    how = rng.randrange(7)
    if how == 0:  # a contig's bases
        seqs = table.column("seq").to_pylist()
        row = rng.randrange(n)
        return _set(table, "seq", row, mutate(seqs[row], rng, 2) or b"A")
    if how == 1:  # a depth
        return _set(table, "depth", rng.randrange(n), rng.choice([float("nan"), -1.0, float("inf"), 0.0, 1e308]))
    if how == 2:  # a contig id
        cids = table.column("cid").to_pylist()
        return _set(table, "cid", rng.randrange(n), rng.choice([-1, 0, 2 ** 62, cids[rng.randrange(n)]]))
    if how == 3:  # a column of another type
        column = rng.choice(["cid", "depth", "seq"])
        values = table.column(column).to_pylist()
        text = [v.decode() if isinstance(v, bytes) else str(v) for v in values]
        new = pa.array(text, pa.string()) if column != "seq" else pa.array([len(v) for v in values], pa.int64())
        return table.set_column(table.column_names.index(column), column, new)
    if how == 4:  # a null
        column = rng.choice(table.column_names)
        values = table.column(column).to_pylist()
        values[rng.randrange(n)] = None
        return table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type))
    if how == 5:  # a column gone
        return table.drop_columns([rng.choice(table.column_names)])
    return _edit_read(table, rng)


def test_edited_parquet_files_extend_or_give_one_line(valid, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.parquet"
    formats.write_parquet(valid, src)
    table = pq.read_table(src)
    raw = src.read_bytes()
    rng = random.Random(83)
    seen = []
    for trial in range(TRIALS):
        edited = tmp_path / f"e{trial}.parquet"
        if trial % 8 == 7:  # the file's own bytes
            edited.write_bytes(mutate(raw, rng, 2))
        else:
            pq.write_table(_edit_table(table, rng).replace_schema_metadata(table.schema.metadata), edited)
        seen.append(_holds(edited, tmp_path, capsys, f"parquet trial {trial}"))
    assert {"ok", "refused"} <= set(seen), "the edits must both break files and leave some readable"


@pytest.mark.parametrize("fault", ["X in a contig", "lower-case read base", "quality below the offset",
                                   "NaN depth", "negative depth", "negative contig id"])
def test_a_fault_the_dat_reader_refuses_is_refused_in_parquet(valid, fault: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    """The same fault written into both formats: both refused, each with one line."""
    table = pq.read_table(_written(valid, tmp_path / "v.parquet"))
    row = 1
    right = table.column("right_seqs").to_pylist()
    r = next(i for i, reads in enumerate(right) if reads)
    if fault == "X in a contig":
        table = _set(table, "seq", row, b"X" + table.column("seq").to_pylist()[row][1:])
    elif fault in ("lower-case read base", "quality below the offset"):
        column = "right_seqs" if fault.startswith("lower") else "right_quals"
        rows = table.column(column).to_pylist()
        rows[r][0] = (rows[r][0][:1].lower() if fault.startswith("lower") else b"\x20") + rows[r][0][1:]
        table = table.set_column(table.column_names.index(column), column,
                                 pa.array(rows, table.schema.field(column).type))
    elif fault.endswith("depth"):
        table = _set(table, "depth", row, float("nan") if fault.startswith("NaN") else -2.0)
    else:
        table = _set(table, "cid", row, -7)
    pq.write_table(table.replace_schema_metadata(table.schema.metadata), tmp_path / "bad.parquet")
    dat = tmp_path / "bad.dat"
    _dat_from_table(table, dat)
    for src in (tmp_path / "bad.parquet", dat):
        assert _holds(src, tmp_path, capsys, f"{fault} in {src.suffix}") == "refused", src.name


def _written(ds, path: Path) -> Path:
    formats.write_parquet(ds, path)
    return path


def _dat_from_table(table, path: Path) -> None:
    """The table's content written as ``.dat`` text with no check at all (the writer would refuse nothing)."""
    from lassm.workloads.local_assembly.dataset import Dataset, Reads

    col = {c: table.column(c).to_pylist() for c in table.column_names}
    seqs = col["seq"]
    off = np.zeros(len(seqs) + 1, np.int64)
    np.cumsum([len(s) for s in seqs], out=off[1:])

    def side(prefix: str) -> Reads:
        return Reads.from_lists([list(zip(ids, ss, qs)) for ids, ss, qs in
                                 zip(col[f"{prefix}_ids"], col[f"{prefix}_seqs"], col[f"{prefix}_quals"])])

    ds = Dataset(cids=np.array(col["cid"], np.int64), seqs=np.frombuffer(b"".join(seqs), np.uint8).copy(), offsets=off,
                 depths=np.array(col["depth"], np.float64), left=side("left"), right=side("right"), name="bad", k=K)
    formats.write_dat(ds, path)


def test_columns_checked_side_by_side_answer_as_one_after_another(monkeypatch) -> None:
    """Threads check the columns at once (several blocks each); each answer is its own column's,
    in the columns' order, as the one-thread loop gives."""
    from lassm import byte_sets
    from lassm.arrowio import side_by_side
    from lassm.workloads.local_assembly import parquet_checks as pc

    monkeypatch.setattr(byte_sets, "CHECK_BLOCK", 64)
    rng = np.random.default_rng(11)
    columns = []
    for i in range(12):
        mask = (pc._BASE_MASK, pc._QUAL_MASK)[i % 2]
        values = np.flatnonzero(mask).astype(np.uint8)[rng.integers(0, int(mask.sum()), size=5000)]
        if i % 3:
            values[int(rng.integers(0, len(values)))] = 0  # a fault, at a place of its own
        columns.append((values, mask))
    alone = [byte_sets.first_outside(values, mask) for values, mask in columns]
    assert sum(at >= 0 for at in alone) == 8
    check = lambda pair: byte_sets.first_outside(*pair)  # noqa: E731
    assert side_by_side(check, columns, 4) == alone == side_by_side(check, columns, 1)


@pytest.mark.parametrize("block", [7, 1 << 20])
def test_the_columns_check_finds_the_first_bad_byte_as_the_look_up_does(block: int, monkeypatch) -> None:
    """The Parquet reader's whole-column check (a few comparisons, or a wrapped range, a block at
    a time) names the same first bad byte as a 256-entry look-up per byte, for bases and
    qualities, at any position, in one block or across several."""
    from lassm import byte_sets
    from lassm.workloads.local_assembly import parquet_checks as pc

    monkeypatch.setattr(byte_sets, "CHECK_BLOCK", block)
    rng = np.random.default_rng(7)
    for mask in (pc._BASE_MASK, pc._QUAL_MASK):
        good = np.flatnonzero(mask).astype(np.uint8)
        for trial in range(2000):
            n = int(rng.integers(0, 60))
            values = good[rng.integers(0, len(good), size=n)] if trial % 2 else rng.integers(0, 256, size=n).astype(np.uint8)
            if trial % 3 == 0 and n:
                values[rng.integers(0, n)] = rng.integers(0, 256)
            bad = np.flatnonzero(~mask[values])
            assert byte_sets.first_outside(values, mask) == (int(bad[0]) if len(bad) else -1)
        edge = np.array([good[0] - 1, good[-1] + 1, 0, 255], dtype=np.uint8)  # just outside, and the extremes
        for byte in edge:
            values = np.concatenate([good, [byte]]).astype(np.uint8)
            assert byte_sets.first_outside(values, mask) == (-1 if mask[byte] else len(good))

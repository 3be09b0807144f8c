# SPDX-License-Identifier: BSD-3-Clause
"""Bad input: one clear error naming file, line and field; exit code 2; no output left behind."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm.cli import main

Q = "I" * 30
S = "ACGT" * 7 + "AC"  # 30 bases
GOOD = f"7 {'ACGT' * 20} 3.5 1 1 @a/1 {S} {Q} @b/1 {S} {Q}\n"

CASES = {
    "wrong read counts (too few)": (f"7 {'ACGT' * 20} 3.5 2 1 @a/1 {S} {Q} @b/1 {S} {Q}\n" + GOOD, 1, "n_left/n_right"),
    "wrong read counts (too many)": (GOOD + f"8 {'ACGT' * 20} 3 0 1 @a/1 {S} {Q} @b/1 {S} {Q}\n", 2, "n_left/n_right"),
    "sequence/quality length mismatch": (GOOD + f"8 {'ACGT' * 20} 3 0 1 @c/1 {S} {Q[:-1]}\n", 2, "qualities"),
    "non-ACGTN base in a read": (f"7 {'ACGT' * 20} 3 1 0 @a/1 {S[:-1]}U {Q}\n", 1, "sequence"),
    "non-ACGTN base in a contig": (GOOD + f"8 ACGTXACGT 3 0 0\n", 2, "contig 8 sequence"),
    "unparsable depth": (GOOD + f"8 {'ACGT' * 20} deep 0 0\n", 2, "depth"),
    "negative read count": (f"7 {'ACGT' * 20} 3 -1 0\n", 1, "n_left"),
    "empty file": ("", None, "file"),
    "truncated record": (GOOD + f"8 {'ACGT' * 20} 3 0 2 @a/1 {S} {Q}\n", 2, "n_left/n_right"),
    "repeated contig id": (GOOD + f"8 {'ACGT' * 20} 3 0 0\n" + GOOD, 3, "cid"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_located(name: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text, line, field = CASES[name]
    src = tmp_path / "in.dat"
    src.write_text(text)
    out = tmp_path / "out.txt"
    code = main(["extend", str(src), "--k", "21", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert str(src) + (f":{line}:" if line else ":") in err, err
    assert field in err, err
    assert "Traceback" not in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["in.dat"], "no partial or temporary file may remain"


@pytest.mark.parametrize("k", ["20", "122", "x"])
def test_k_outside_range(k: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.dat"
    src.write_text(GOOD)
    assert main(["extend", str(src), "--k", k, "--out", str(tmp_path / "o")]) == 2
    assert "argument --k" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["extend", str(tmp_path / "nope.dat"), "--k", "21", "--out", str(tmp_path / "o")]) == 2
    assert "nope.dat" in capsys.readouterr().err


def test_good_input_runs(tmp_path: Path) -> None:
    src = tmp_path / "in.dat"
    src.write_text(GOOD)
    assert main(["extend", str(src), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 0
    assert (tmp_path / "o.txt").read_text().startswith("7 ")


def test_failed_write_leaves_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails half-way keeps the previous file whole and leaves no temporary."""
    from lassm import atomic

    target = tmp_path / "r.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic.atomic_open(target) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.txt"]


def test_repeated_contig_id_names_both_lines(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The second record of an id is refused at its own line, naming the first's (multi-line records too)."""
    src = tmp_path / "in.dat"
    other = f"8 {'ACGT' * 20} 3 0 1\n@b/1 {S}\n{Q}\n"  # one record over three lines
    src.write_text(other + GOOD + other.replace("8 ", "9 ", 1) + other)
    assert main(["extend", str(src), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err
    assert f"{src}:8: cid: contig id 8 repeats the record at line 1" in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["in.dat"]


def test_repeated_contig_id_in_parquet_names_both_rows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.workloads.local_assembly import formats
    from tests.helpers import make_dataset

    read = (S.encode(), Q.encode())
    ds = make_dataset([(5, b"ACGT" * 20, 3.0, [], [read]), (6, b"ACGT" * 20, 3.0, [read], []),
                       (5, b"ACGT" * 20, 2.0, [], [])], k=21)
    src = tmp_path / "in.parquet"
    formats.write_parquet(ds, src)
    assert main(["extend", str(src), "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err
    assert f"{src}: cid: row 3: contig id 5 repeats the record at row 1" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet"]


def _not_parquet(path: Path) -> None:
    path.write_text("cid,seq\n1,ACGT\n")


def _missing_columns(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"cid": [1], "seq": [b"ACGT"], "depth": [1.0]}), path)


def _no_rows(path: Path) -> None:
    from lassm.workloads.local_assembly import formats
    from tests.helpers import make_dataset

    formats.write_parquet(make_dataset([(1, b"ACGT" * 20, 1.0, [], [])], k=21).subset([]), path)


@pytest.mark.parametrize("make, message", [(_not_parquet, "file: not a readable parquet file"),
                                           (_missing_columns, "columns: missing left_ids"),
                                           (_no_rows, "file: empty")],
                         ids=["not parquet", "missing columns", "no rows"])
def test_bad_parquet_is_named(make, message: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.parquet"
    make(src)
    assert main(["extend", str(src), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lassm: error: {src}: {message}") and err.count("\n") == 1, err
    assert [p.name for p in tmp_path.iterdir()] == ["in.parquet"]


def test_non_ascii_dat_is_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.dat"
    src.write_bytes(GOOD.encode() + "8 ACGT 1 0 0 é\n".encode())
    assert main(["extend", str(src), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 2
    assert f"{src}:2: encoding: byte 0xc3 at column 14 is not ASCII" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["in.dat"]


# A file of three records, the reads laid out over several lines (the parser reads a record's
# header from one line, then fields, whatever lines hold them):
# record r starts at line START[r]; every cut inside a record must name that line, whatever line
# the cut falls on, and a cut between records must leave a valid file.
LAID_OUT = [
    f"11 {'ACGT' * 20} 2.5 1 1\n@a/1 {S}\n{Q}\n@b/1\n{S} {Q}\n",
    f"12 {'ACGT' * 20} 3 2 0\n@c/1 {S} {Q}\n@d/1 {S} {Q}\n",
    f"13 {'ACGT' * 20} 1 0 1\n@e/1 {S} {Q}\n",
]
START = [1, 6, 9]


def _cuts() -> list[tuple[int, int | None]]:
    """(byte offset, line of the record the cut falls in, or None between records) for every
    place a file can end: after each field of each record."""
    text = "".join(LAID_OUT)
    cuts, offset = [], 0
    for r, rec in enumerate(LAID_OUT):
        pos = 0
        for word in rec.split():
            pos = rec.index(word, pos) + len(word)
            cuts.append((offset + pos, None if pos == len(rec.rstrip()) else START[r]))
        offset += len(rec)
    assert offset == len(text)
    return cuts


def test_every_truncation_names_the_record_start(tmp_path: Path) -> None:
    from lassm.errors import InputError
    from lassm.workloads.local_assembly.formats import read_dat

    text = "".join(LAID_OUT)
    whole = tmp_path / "whole.dat"
    whole.write_text(text)
    assert read_dat(whole).n_contigs == 3
    cuts = _cuts()
    assert len(cuts) == 5 + 3 * 2 + 5 + 3 * 2 + 5 + 3  # every field of every record
    complete = 0  # records whole before the cut
    for end, line in cuts:
        src = tmp_path / f"cut{end}.dat"
        src.write_text(text[:end])
        if line is None:
            complete += 1
            assert read_dat(src).n_contigs == complete
            continue
        with pytest.raises(InputError) as exc:
            read_dat(src)
        assert exc.value.line == line, (end, str(exc.value))
        assert f"{src}:{line}:" in str(exc.value)


def test_a_cut_inside_a_field_names_its_line(tmp_path: Path) -> None:
    """A cut inside the last quality string leaves a record whose qualities are short: the error
    names the line that holds them."""
    from lassm.errors import InputError
    from lassm.workloads.local_assembly.formats import read_dat

    text = "".join(LAID_OUT)
    src = tmp_path / "in.dat"
    src.write_text(text[: len(text) - 5])
    with pytest.raises(InputError) as exc:
        read_dat(src)
    assert exc.value.line == 10 and "qualities" in str(exc.value), str(exc.value)


def _parquet_with(tmp_path: Path, column: str, edit) -> Path:
    """A good dataset as Parquet (``data convert``), one column's values changed by ``edit``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    src, good = tmp_path / "in.dat", tmp_path / "good.parquet"
    src.write_text(GOOD)
    assert main(["data", "convert", str(src), str(good)]) == 0
    table = pq.read_table(good)
    field = table.schema.field(column)
    values = edit(table.column(column).to_pylist())
    out = tmp_path / "bad.parquet"
    kind = field.type if not isinstance(values, pa.Array) else values.type
    pq.write_table(table.set_column(table.schema.get_field_index(column), column,
                                    values if isinstance(values, pa.Array) else pa.array(values, kind)), out)
    return out


def _lower_first_read(reads: list) -> list:
    reads[0][0] = reads[0][0].lower()
    return reads


def _space_in_first_quality(quals: list) -> list:
    quals[0][0] = b" " + quals[0][0][1:]
    return quals


PARQUET_CASES = {
    "negative contig id": ("cid", lambda v: [-7], "row 1 cid"),
    "text contig ids": ("cid", lambda v: __import__("pyarrow").array([str(x) for x in v]), "cid: a column of string"),
    "X in a contig": ("seq", lambda v: [b"ACGTX" + v[0][5:]], "row 1 (contig 7) seq: base 'X' at position 5"),
    "NaN depth": ("depth", lambda v: [float("nan")], "row 1 (contig 7) depth"),
    "negative depth": ("depth", lambda v: [-1.0], "row 1 (contig 7) depth"),
    "lower-case read base": ("left_seqs", _lower_first_read, "row 1 (contig 7) left_seqs read 1: base 'a'"),
    "quality below 33": ("right_quals", _space_in_first_quality, "row 1 (contig 7) right_quals read 1"),
}


@pytest.mark.parametrize("name", list(PARQUET_CASES))
def test_parquet_faults_are_refused_as_in_text(name: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """What the ``.dat`` reader refuses, the Parquet reader refuses too: one line naming the row and
    field, exit code 2, nothing written."""
    column, edit, where = PARQUET_CASES[name]
    bad = _parquet_with(tmp_path, column, edit)
    capsys.readouterr()
    assert main(["extend", str(bad), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lassm: error:") and where in err[0], err
    assert not (tmp_path / "o.txt").exists()


def test_parquet_faults_in_several_columns_name_the_first_in_order(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The columns are checked side by side on threads; of faults in a read quality, a read base
    and a contig, the message is still the contig's (the order the text reader meets them in)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lassm import arrowio

    monkeypatch.setattr(arrowio, "threads", lambda: 4)
    bad = _parquet_with(tmp_path, "right_quals", _space_in_first_quality)
    table = pq.read_table(bad)
    for column, edit in (("left_seqs", _lower_first_read), ("seq", PARQUET_CASES["X in a contig"][1])):
        values = edit(table.column(column).to_pylist())
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, table.schema.field(column).type))
    pq.write_table(table, bad)
    capsys.readouterr()
    assert main(["extend", str(bad), "--k", "21", "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and PARQUET_CASES["X in a contig"][2] in err[0], err


def test_a_contig_id_beyond_64_bits_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "in.dat"
    src.write_text(GOOD.replace("7 ", f"{2**63} ", 1))
    for argv in (["extend", str(src), "--k", "21", "--out", str(tmp_path / "o.txt")],
                 ["data", "convert", str(src), str(tmp_path / "o.parquet")]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "in.dat:1: cid:" in err[0] and "largest contig id" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.dat"]


def test_a_walk_limit_that_cannot_fit_names_the_one_that_would(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.workloads.local_assembly import config

    src = tmp_path / "in.dat"
    src.write_text(GOOD)
    assert main(["extend", str(src), "--k", "21", "--max-walk", str(10**15), "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-walk 1000000000000000" in err[0] and "at most --max-walk" in err[0]
    assert not (tmp_path / "o.txt").exists()
    config.check_walk_room(1000, 500, memory=2 * 1000 * 500)  # exactly half: fits
    with pytest.raises(Exception, match="at most --max-walk 500 fits"):
        config.check_walk_room(1000, 501, memory=2 * 1000 * 500)

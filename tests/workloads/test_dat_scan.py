# SPDX-License-Identifier: BSD-3-Clause
"""The NumPy ``.dat`` scanner (:func:`.dat_bulk.scan`) reads every file it accepts exactly as the
careful field-by-field reader does, whatever the file's layout, field widths, number of threads
or slices; and a file it does not accept still gets the careful reader's own error."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lassm import paths
from lassm.errors import InputError
from lassm.workloads.local_assembly import dat_bulk, formats
from lassm.workloads.local_assembly.dataset import Dataset
from lassm.workloads.local_assembly.generate import generate
from tests.helpers import mutate, random_dataset
from tests.whole.test_bad_input import CASES


def _careful(raw: bytes) -> Dataset:
    return formats._read_dat_careful("x.dat", raw, None, None)


def _assert_same(parsed: dict | None, raw: bytes) -> None:
    """Every column of the scan equals the careful reader's, dtype included."""
    assert parsed is not None, "a well-formed file must take the bulk path"
    back = _careful(raw)
    for mine, theirs in ((parsed["cids"], back.cids), (parsed["depths"], back.depths), (parsed["seqs"], back.seqs),
                         (parsed["offsets"], back.offsets)):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    for mine, theirs in ((parsed["left"], back.left), (parsed["right"], back.right)):
        seqs, quals, offsets, contig_offsets, ids = mine
        for a, b in ((seqs, theirs.seqs), (quals, theirs.quals), (offsets, theirs.offsets),
                     (contig_offsets, theirs.contig_offsets)):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert ids == theirs.ids
    assert seqs.flags.writeable and parsed["seqs"].flags.writeable


def _text(records: list[tuple[str, str, str, list, list]], sep: str = " ", end: str = "\n") -> bytes:
    """A ``.dat`` text of ``(cid, contig, depth, left, right)`` records, reads as (id, seq, qual)."""
    lines = []
    for cid, contig, depth, left, right in records:
        fields = [cid, contig, depth, str(len(left)), str(len(right))]
        for rid, seq, qual in left + right:
            fields += [rid, seq, qual]
        lines.append(sep.join(fields))
    return (end.join(lines)).encode()


def _read(rng: random.Random, length: int, rid_len: int = 8) -> tuple[str, str, str]:
    rid = "@" + "".join(rng.choice("abcdefghr0123456789/_") for _ in range(rid_len - 1))
    seq = "".join(rng.choice("ACGTN") for _ in range(length))
    qual = "".join(chr(rng.randrange(33, 127)) for _ in range(length))
    return rid, seq, qual


def _widths_file() -> bytes:
    """Fields whose lengths sit on either side of every copy width and of the short-field limit."""
    rng = random.Random(3)
    edges = sorted({w + d for w in (*dat_bulk._WIDTHS, dat_bulk._SHORT) for d in (-1, 0, 1) if w + d > 0})
    records = []
    for i, n in enumerate(edges):
        left = [_read(rng, n, rid_len=max(2, n))]
        right = [_read(rng, m) for m in edges[: i % 5]]
        records.append((str(i), "ACGTN"[: max(1, n % 6)] * max(1, n // 5), f"{n}.25", left, right))
    return _text(records)


EDGE_CASES = {
    "no reads anywhere": _text([("1", "ACGT", "1", [], []), ("2", "A", "0", [], [])]),
    "no right reads": _text([("1", "ACGTACGT", "2.5", [("@a", "ACG", "III")], []), ("2", "AC", "3", [], [])]),
    "no newline at the end": _text([("5", "ACGT", "1", [("@a", "AC", "II")], [])]) + b"\n6 A 0 0 0",
    "a short last field": b"7 ACGT 2 0 1 @r A I",
    "a one-field file end": b"7 ACGT 2 0 1\n@r\nA\nI",
    "trailing blanks and blank lines": b"\n\n7 ACGT 2 0 1 @r A I \t \n\n \n",
    "tabs and runs of blanks": _text([("7", "ACGT", "2", [("@r", "AC", "II")], [("@s", "G", "J")])], sep=" \t  "),
    "maximum digit counts": _text([("9" * 18, "ACGT", "1" * 30, [], []), ("0" * 18, "A", "007", [], []),
                                   ("123456789012345678", "C", "0.5", [], [])]),
    "depth syntaxes": b"".join(f"{i} A {d} 0 0\n".encode() for i, d in
                               enumerate(["1e-3", "1_0", ".5", "1.", "2.4615384615384617", "0", "1E+2", "12345678901234567890.5"])),
    "a long line": _text([("3", "ACGTN" * 4000, "9", [_read(random.Random(i), 300 + i, 60) for i in range(300)],
                           [_read(random.Random(-i), 1 + i, 1 + i % 70) for i in range(200)])]),
    "field widths": _widths_file(),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases_read_as_the_careful_reader_reads(name: str) -> None:
    raw = EDGE_CASES[name]
    _assert_same(dat_bulk.scan(raw), raw)


def _dat_bytes(ds: Dataset, tmp_path: Path) -> bytes:
    path = tmp_path / "x.dat"
    formats.write_dat(ds, path)
    return path.read_bytes()


@pytest.mark.parametrize("source", ["sample-k77", "sample-k21", "random", "generated k33", "generated k21"])
def test_real_and_generated_files_read_as_the_careful_reader_reads(source: str, tmp_path: Path) -> None:
    if source.startswith("sample"):
        raw = paths.sample(source.removeprefix("sample-")).read_bytes()
    elif source == "random":
        raw = _dat_bytes(random_dataset(5, n=120), tmp_path)
    else:
        raw = _dat_bytes(generate(k=int(source[-2:]), scale=0.02, seed=1), tmp_path)
    _assert_same(dat_bulk.scan(raw), raw)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("slice_bytes", [7, 64, 1 << 20])
def test_threads_and_slices_change_nothing(threads: int, slice_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The blanks found part by part and slice by slice, cut anywhere (inside fields too)."""
    monkeypatch.setattr(dat_bulk, "THREADS", threads)
    monkeypatch.setattr(dat_bulk, "_SLICE", slice_bytes)
    for raw in (paths.sample("k77").read_bytes(), EDGE_CASES["field widths"], EDGE_CASES["a short last field"]):
        _assert_same(dat_bulk.scan(raw), raw)


@pytest.mark.parametrize("raw", [b"1" * 19 + b" ACGT 1 0 0\n", b"7 ACGT 1 0 " + b"1" * 19 + b"\n",
                                 b"7 ACGT 1 0 0 @a\n", b"7 ACGT inf 0 0\n", b"7 ACGT nan 0 0\n",
                                 b"7 ACGU 1 0 0\n", b"7 ACGT 1 0 1 @a AC III\n", b"7 ACGT 1 0 1 @a AX II\n",
                                 b"7 ACGT 1 0 1 @a AC I\x7f\n", b"7 ACGT 1 0 1\r\n@a AC II\n", b" \n\t\n"],
                         ids=["19-digit cid", "19-digit count", "too few fields", "infinite depth", "nan depth",
                              "contig base", "quality length", "read base", "delete byte", "carriage return",
                              "no field"])
def test_declines_what_it_cannot_prove(raw: bytes) -> None:
    assert dat_bulk.scan(raw) is None


@pytest.mark.parametrize("name", list(CASES))
def test_bad_files_get_the_careful_readers_error(name: str, tmp_path: Path) -> None:
    """read_dat (the NumPy path: these files are far below the numba threshold) raises exactly
    the careful reader's error, located at the same file, line and field."""
    src = tmp_path / "in.dat"
    src.write_text(CASES[name][0])
    with pytest.raises(InputError) as careful:
        formats._read_dat_careful(str(src), src.read_bytes(), None, None)
    with pytest.raises(InputError) as read:
        formats.read_dataset(src)
    assert str(read.value) == str(careful.value)


def test_mutated_edge_cases_agree_with_the_careful_reader(tmp_path: Path) -> None:
    """Random edits of the edge-case files: the scan accepts one only with the careful reader's
    columns, and read_dat refuses one with the careful reader's error."""
    rng = random.Random(29)
    accepted = 0
    texts = [EDGE_CASES[k] for k in ("no right reads", "no newline at the end", "tabs and runs of blanks",
                                     "maximum digit counts", "depth syntaxes")]
    for trial in range(400):
        raw = mutate(texts[trial % len(texts)], rng, 2)
        parsed = dat_bulk.scan(raw)
        src = tmp_path / "in.dat"
        src.write_bytes(raw)
        try:
            formats._read_dat_careful(str(src), raw, None, None)
        except InputError as exc:
            with pytest.raises(InputError) as read:
                formats.read_dat(src)
            assert str(read.value) == str(exc), raw
            continue
        except OverflowError:  # a number past int64 that the careful reader takes for digits
            assert parsed is None, raw
            continue
        if parsed is not None:
            accepted += 1
            _assert_same(parsed, raw)
    assert accepted > 50

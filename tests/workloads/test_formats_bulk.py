# SPDX-License-Identifier: BSD-3-Clause
"""The bulk ``.dat`` readers (NumPy and numba) and the bulk writer agree with the careful
field-by-field reader and the record-by-record writer, byte for byte."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lassm import paths
from lassm.errors import InputError
from lassm.workloads.local_assembly import dat_bulk, formats
from lassm.workloads.local_assembly.dataset import Dataset
from tests.helpers import make_dataset, mutate
from tests.whole.test_bad_input import CASES

Q = "I" * 30
S = "ACGT" * 7 + "AC"
# Multi-line records, a tab, blank lines and trailing blanks: all well formed.
LAID_OUT = (f"11 {'ACGT' * 20} 2.5 1 1\n@a/1 {S}\n{Q}\n@b/1\n{S} {Q} \n\n"
            f"12\t{'ACGT' * 20} 3 2 0\n@c/1 {S} {Q}\n@d/1 {S} {Q}\n"
            f"13 {'ACGT' * 20} 1e-3 0 1\n@e/1 {S} {Q}\n"
            f"14 ACGTN 0 0 0")


def _jit_scan(raw: bytes) -> dict | None:
    pytest.importorskip("numba")
    from lassm.workloads.local_assembly import dat_jit

    return dat_jit.scan(raw)


SCANNERS = {"numpy": dat_bulk.scan, "numba": _jit_scan}


def _careful(raw: bytes) -> Dataset:
    return formats._read_dat_careful("x.dat", raw, None, None)


def _old_write_dat(ds: Dataset) -> bytes:
    """The writer as it was, one record at a time: the reference for the bulk writer's bytes."""
    out = []
    for i in range(ds.n_contigs):
        parts = [str(int(ds.cids[i])), ds.contig(i).decode(), dat_bulk.fmt_depth(ds.depths[i]),
                 str(int(ds.left.counts[i])), str(int(ds.right.counts[i]))]
        for reads in (ds.left, ds.right):
            for j in range(reads.contig_offsets[i], reads.contig_offsets[i + 1]):
                seq, qual = reads.read(j)
                parts += [reads.ids[j] if reads.ids else f"@r{i}_{j}", seq.decode(), qual.decode()]
        out.append(" ".join(parts) + "\n")
    return "".join(out).encode()


@pytest.mark.parametrize("raw", [paths.sample("k77").read_bytes(), paths.sample("k21").read_bytes(),
                                 LAID_OUT.encode()],
                         ids=["sample-k77", "sample-k21", "laid out"])
@pytest.mark.parametrize("scanner", list(SCANNERS))
def test_bulk_reads_what_the_careful_reader_reads(raw: bytes, scanner: str) -> None:
    parsed = SCANNERS[scanner](raw)
    assert parsed is not None, "a well-formed file must take the bulk path"
    back = _careful(raw)
    assert np.array_equal(parsed["cids"], back.cids) and np.array_equal(parsed["depths"], back.depths)
    assert np.array_equal(parsed["seqs"], back.seqs) and np.array_equal(parsed["offsets"], back.offsets)
    for mine, theirs in ((parsed["left"], back.left), (parsed["right"], back.right)):
        seqs, quals, offsets, contig_offsets, ids = mine
        assert np.array_equal(seqs, theirs.seqs) and np.array_equal(quals, theirs.quals)
        assert np.array_equal(offsets, theirs.offsets) and np.array_equal(contig_offsets, theirs.contig_offsets)
        assert ids == theirs.ids


@pytest.mark.parametrize("scanner", list(SCANNERS))
def test_bulk_lines_name_record_starts(scanner: str) -> None:
    assert SCANNERS[scanner](LAID_OUT.encode())["lines"].tolist() == [1, 7, 10, 12]


@pytest.mark.parametrize("raw", [b"7 ACGT 1 0 0\r\n", "7 ACGT 1 0 0 é\n".encode(), b"7 ACGT 1 0 0\x0c",
                                 b"", b"\n \n", b"7 ACGT 1 0 1\n8 ACGT 1 0 0 @a AC II\n",
                                 b"7 ACGT 1 0 0 8 ACGT 1 0 0\n", b"7 ACGT 1 0 1 @a AC II\n8 ACGT 1 0 0 9\n",
                                 b"7 ACGT 1 0 1 @a AC II\n8 ACGT 1 0 1 @b AC I\n"],
                         ids=["crlf", "non-ascii", "form feed", "empty", "blank", "header inside a record",
                              "two records on a line", "a field after a record", "short qualities"])
@pytest.mark.parametrize("scanner", list(SCANNERS))
def test_bulk_declines_what_it_cannot_prove(raw: bytes, scanner: str) -> None:
    assert SCANNERS[scanner](raw) is None


@pytest.mark.parametrize("depth", ["1.5.0", ".", "inf", "nan", "-1", "x"])
def test_numba_declines_depths_the_careful_reader_refuses(depth: str) -> None:
    assert _jit_scan(f"7 ACGT {depth} 0 0\n".encode()) is None


def test_numba_reads_depths_as_python_does() -> None:
    depths = ["2.4615384615384617", "1e-3", "1_0", "0.1", "1.", ".5", "007", "12345678901234567890.5"]
    raw = "".join(f"{i} A {d} 0 0\n" for i, d in enumerate(depths)).encode()
    assert _jit_scan(raw)["depths"].tolist() == [float(d) for d in depths]


@pytest.mark.parametrize("scanner", list(SCANNERS))
def test_mutated_files_never_pass_the_bulk_reader_alone(scanner: str) -> None:
    """Whatever a random edit does to a good file, the bulk reader accepts it only if the careful
    reader does, with the same dataset; otherwise read_dat gives the careful reader's error."""
    rng = random.Random(20)
    text = LAID_OUT.encode()
    accepted = 0
    for trial in range(600):
        raw = mutate(text, rng, 3)
        parsed = SCANNERS[scanner](raw)
        try:
            back = _careful(raw)
        except InputError:
            assert parsed is None, raw
            continue
        if parsed is not None:
            accepted += 1
            assert np.array_equal(parsed["cids"], back.cids) and np.array_equal(parsed["seqs"], back.seqs), raw
            assert parsed["left"][4] == back.left.ids and parsed["right"][4] == back.right.ids, raw
            assert np.array_equal(parsed["left"][1], back.left.quals), raw
    assert accepted > 0


def _jit_blocks(ds: Dataset, block: int) -> list:
    pytest.importorskip("numba")
    from lassm.workloads.local_assembly import dat_jit

    return list(dat_jit.dat_blocks(ds, block))


WRITERS = {"numpy": lambda ds, block: list(dat_bulk.dat_blocks(ds, block)), "numba": _jit_blocks}


@pytest.mark.parametrize("block", [1, 7, dat_bulk.WRITE_BLOCK])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_bulk_writer_bytes_match_the_old_writer(block: int, writer: str) -> None:
    ds = formats.read_dat(paths.sample("k77"))
    assert b"".join(bytes(b) for b in WRITERS[writer](ds, block)) == _old_write_dat(ds)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_bulk_writers_without_read_ids_and_odd_depths(writer: str, tmp_path: Path) -> None:
    read = (S.encode(), Q.encode())
    ds = make_dataset([(5, b"ACGT" * 20, 3.0, [], [read]), (6, b"ACGTN", 0.125, [read, read], []),
                       (9, b"A", 1e-7, [], []), (0, b"C", -2.0, [], []), (11, b"G", 2.0**70, [read], []),
                       (12, b"T", float("inf"), [], []), (2**62, b"A", -0.0, [], [])], k=21)
    ds = Dataset(ds.cids, ds.seqs, ds.offsets, ds.depths,
                 type(ds.left)(ds.left.seqs, ds.left.quals, ds.left.offsets, ds.left.contig_offsets, []),
                 ds.right, k=21)
    assert b"".join(bytes(b) for b in WRITERS[writer](ds, 3)) == _old_write_dat(ds)
    good = ds.subset(np.arange(3))
    formats.write_dat(good, tmp_path / "x.dat")
    back = formats.read_dat(tmp_path / "x.dat")
    assert np.array_equal(back.depths, good.depths) and np.array_equal(back.left.quals, good.left.quals)
    assert back.left.ids == ["@r1_0", "@r1_1"] and back.right.ids == good.right.ids


def test_pieces_cuts_buffers_holding_newlines() -> None:
    buf = np.frombuffer(b"ab\ncdef", dtype=np.uint8)
    off = np.array([0, 2, 4, 7], dtype=np.int64)
    assert dat_bulk.pieces(buf, off) == [b"ab", b"\nc", b"def"]
    assert dat_bulk.pieces(np.frombuffer(b"abcdef", dtype=np.uint8), np.array([1, 1, 4, 6])) == [b"", b"bcd", b"ef"]


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_messages_do_not_depend_on_the_reader(name: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With every file sent to the numba scanner first, a bad file still gets the careful
    reader's exact message."""
    pytest.importorskip("numba")
    text = CASES[name][0]
    src = tmp_path / "in.dat"
    src.write_text(text)
    with pytest.raises(InputError) as careful:
        formats._read_dat_careful(str(src), src.read_bytes(), None, None)
    monkeypatch.setattr(dat_bulk, "JIT_MIN_BYTES", 0)
    with pytest.raises(InputError) as read:
        formats.read_dat(src)
    assert str(read.value) == str(careful.value)


def test_big_files_take_the_numba_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    from lassm.workloads.local_assembly import dat_jit

    calls = []
    real = dat_jit.scan
    monkeypatch.setattr(dat_jit, "scan", lambda raw: calls.append(len(raw)) or real(raw))
    monkeypatch.setattr(dat_bulk, "JIT_MIN_BYTES", 0)
    ds = formats.read_dat(paths.sample("k77"))
    assert calls and ds.n_contigs == 3296
    assert formats.read_dat(paths.sample("k77")).left.ids == ds.left.ids
    raw = b"7 ACGT 1 0 1\n12 AC\nII\n"  # numba declines (a line starting with a number), NumPy reads it
    assert dat_jit.scan(raw) is None and formats._scan(raw)["right"][4] == ["12"]


def test_big_datasets_take_the_numba_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    from lassm.workloads.local_assembly import dat_jit

    calls = []
    real = dat_jit.dat_blocks
    monkeypatch.setattr(dat_jit, "dat_blocks", lambda ds: calls.append(ds.n_contigs) or real(ds))
    monkeypatch.setattr(dat_bulk, "JIT_MIN_BYTES", 0)
    ds = formats.read_dat(paths.sample("k77"))
    formats.write_dat(ds, tmp_path / "x.dat")
    assert calls == [3296] and (tmp_path / "x.dat").read_bytes() == paths.sample("k77").read_bytes().replace(b" \n", b"\n")


def test_extended_contigs_are_written_as_one_at_a_time(tmp_path: Path) -> None:
    """The bulk output equals the extended contigs formatted one by one, whatever the block."""
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly.config import Params

    ext = extend(formats.read_dat(paths.sample("k77")).subset(np.arange(0, 3296, 7)), Params(k=77), backend="cpu")
    one_by_one = "".join(f"{int(c)} {ext.extended(i).decode()}\n" for i, c in enumerate(ext.dataset.cids))
    assert int((ext.left.walk_len > 0).sum()) > 10 and int((ext.right.walk_len > 0).sum()) > 10
    for block in (1, 5, dat_bulk.WRITE_BLOCK):
        assert b"".join(dat_bulk.extended_blocks(ext, block)).decode() == one_by_one
    formats.write_extended(ext, tmp_path / "out.txt")
    assert (tmp_path / "out.txt").read_text() == one_by_one
    assert ext.lines() == one_by_one.splitlines()


def test_numba_reads_more_records_than_it_first_makes_room_for() -> None:
    raw = "".join(f"{i} AC {i % 7}.5 0 0\n" for i in range(3000)).encode()
    parsed = _jit_scan(raw)
    assert parsed["cids"].tolist() == list(range(3000)) and parsed["lines"].tolist() == list(range(1, 3001))
    assert np.array_equal(parsed["depths"], _careful(raw).depths)


def _old_fasta(ds: Dataset) -> str:
    return "".join(f">{int(ds.cids[i])} depth={dat_bulk.fmt_depth(ds.depths[i])}\n{ds.contig(i).decode()}\n"
                   for i in range(ds.n_contigs))


def _old_fastq(ds: Dataset) -> str:
    out = []
    for side_name, reads in (("left", ds.left), ("right", ds.right)):
        for i in range(ds.n_contigs):
            for j in range(reads.contig_offsets[i], reads.contig_offsets[i + 1]):
                seq, qual = reads.read(j)
                rid = (reads.ids[j] if reads.ids else f"@r{j}").lstrip("@")
                out.append(f"@{rid} contig={int(ds.cids[i])} side={side_name}\n{seq.decode()}\n+\n{qual.decode()}\n")
    return "".join(out)


@pytest.mark.parametrize("block", [1, 9, dat_bulk.WRITE_BLOCK])
def test_fasta_and_fastq_are_written_as_one_at_a_time(block: int, tmp_path: Path) -> None:
    ds = formats.read_dat(paths.sample("k77")).subset(np.arange(0, 3296, 5))
    no_ids = Dataset(ds.cids, ds.seqs, ds.offsets, ds.depths, ds.left,
                     type(ds.right)(ds.right.seqs, ds.right.quals, ds.right.offsets, ds.right.contig_offsets, []))
    for d in (ds, no_ids):
        assert b"".join(dat_bulk.fasta_blocks(d, block)).decode() == _old_fasta(d)
        assert b"".join(dat_bulk.fastq_blocks(d, block)).decode() == _old_fastq(d)
    formats.write_fastq(no_ids, tmp_path / "r.fastq")
    formats.write_fasta(ds, tmp_path / "c.fasta")
    assert (tmp_path / "r.fastq").read_text() == _old_fastq(no_ids) and (tmp_path / "c.fasta").read_text() == _old_fasta(ds)

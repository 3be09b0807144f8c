# SPDX-License-Identifier: BSD-3-Clause
"""The bulk ``.dat`` reader and writer agree with the careful field-by-field ones, byte for byte."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lassm import paths
from lassm.errors import InputError
from lassm.workloads.local_assembly import dat_bulk, formats
from lassm.workloads.local_assembly.dataset import Dataset
from tests.helpers import make_dataset

Q = "I" * 30
S = "ACGT" * 7 + "AC"
# Multi-line records, a tab, blank lines and trailing blanks: all well formed.
LAID_OUT = (f"11 {'ACGT' * 20} 2.5 1 1\n@a/1 {S}\n{Q}\n@b/1\n{S} {Q} \n\n"
            f"12\t{'ACGT' * 20} 3 2 0\n@c/1 {S} {Q}\n@d/1 {S} {Q}\n"
            f"13 {'ACGT' * 20} 1e-3 0 1\n@e/1 {S} {Q}\n"
            f"14 ACGTN 0 0 0")


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
                                 LAID_OUT.encode()], ids=["sample-k77", "sample-k21", "laid out"])
def test_bulk_reads_what_the_careful_reader_reads(raw: bytes) -> None:
    parsed = dat_bulk.scan(raw)
    assert parsed is not None, "a well-formed file must take the bulk path"
    back = _careful(raw)
    assert np.array_equal(parsed["cids"], back.cids) and np.array_equal(parsed["depths"], back.depths)
    assert np.array_equal(parsed["seqs"], back.seqs) and np.array_equal(parsed["offsets"], back.offsets)
    for mine, theirs in ((parsed["left"], back.left), (parsed["right"], back.right)):
        seqs, quals, offsets, contig_offsets, ids = mine
        assert np.array_equal(seqs, theirs.seqs) and np.array_equal(quals, theirs.quals)
        assert np.array_equal(offsets, theirs.offsets) and np.array_equal(contig_offsets, theirs.contig_offsets)
        assert ids == theirs.ids


def test_bulk_lines_name_record_starts() -> None:
    assert dat_bulk.scan(LAID_OUT.encode())["lines"].tolist() == [1, 7, 10, 12]


@pytest.mark.parametrize("raw", [b"7 ACGT 1 0 0\r\n", "7 ACGT 1 0 0 é\n".encode(), b"7 ACGT 1 0 0\x0c",
                                 b"", b"\n \n", b"7 ACGT 1 0 1\n8 ACGT 1 0 0 @a AC II\n"],
                         ids=["crlf", "non-ascii", "form feed", "empty", "blank", "header inside a record"])
def test_bulk_declines_what_it_cannot_prove(raw: bytes) -> None:
    assert dat_bulk.scan(raw) is None


def test_mutated_files_never_pass_the_bulk_reader_alone(tmp_path: Path) -> None:
    """Whatever a random edit does to a good file, the bulk reader accepts it only if the careful
    reader does, with the same dataset; otherwise read_dat gives the careful reader's error."""
    rng = random.Random(20)
    text = LAID_OUT.encode()
    alphabet = b"0123456789ACGTNX .\t\n\r@I-e"
    accepted = 0
    for trial in range(600):
        raw = bytearray(text)
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(raw))
            op = rng.randrange(3)
            if op == 0:
                del raw[pos]
            elif op == 1:
                raw.insert(pos, rng.choice(alphabet))
            else:
                raw[pos] = rng.choice(alphabet)
        raw = bytes(raw)
        parsed = dat_bulk.scan(raw)
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


@pytest.mark.parametrize("block", [1, 7, dat_bulk.WRITE_BLOCK])
def test_bulk_writer_bytes_match_the_old_writer(block: int) -> None:
    ds = formats.read_dat(paths.sample("k77"))
    assert b"".join(dat_bulk.dat_blocks(ds, block)) == _old_write_dat(ds)


def test_bulk_writer_without_read_ids_and_odd_depths(tmp_path: Path) -> None:
    read = (S.encode(), Q.encode())
    ds = make_dataset([(5, b"ACGT" * 20, 3.0, [], [read]), (6, b"ACGTN", 0.125, [read, read], []),
                       (9, b"A", 1e-7, [], [])], k=21)
    ds = Dataset(ds.cids, ds.seqs, ds.offsets, ds.depths,
                 type(ds.left)(ds.left.seqs, ds.left.quals, ds.left.offsets, ds.left.contig_offsets, []),
                 ds.right, k=21)
    formats.write_dat(ds, tmp_path / "x.dat")
    assert (tmp_path / "x.dat").read_bytes() == _old_write_dat(ds)
    back = formats.read_dat(tmp_path / "x.dat")
    assert np.array_equal(back.depths, ds.depths) and np.array_equal(back.left.quals, ds.left.quals)
    assert back.left.ids == ["@r1_0", "@r1_1"] and back.right.ids == ds.right.ids


def test_pieces_cuts_buffers_holding_newlines() -> None:
    buf = np.frombuffer(b"ab\ncdef", dtype=np.uint8)
    off = np.array([0, 2, 4, 7], dtype=np.int64)
    assert dat_bulk.pieces(buf, off) == [b"ab", b"\nc", b"def"]
    assert dat_bulk.pieces(np.frombuffer(b"abcdef", dtype=np.uint8), np.array([1, 1, 4, 6])) == [b"", b"bcd", b"ef"]

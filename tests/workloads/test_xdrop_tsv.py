# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop TSV files at I/O speed: the bulk pairs reader (NumPy) gives what the line-by-line
reader it replaced gave, the same pairs for a valid file and the same error (file, line, field)
for a bad one; the bulk result writer writes the bytes that ``str`` of every value wrote.

The reference is the old reader and writer, copied here as they were, so that these tests keep
their meaning whatever the package's careful reader becomes.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lassm.errors import InputError
from lassm.workloads.xdrop import pair_files
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate
from lassm.workloads.xdrop.pairs import Pairs
from lassm.workloads.xdrop.alignments import Alignments

FIELDS = ("seqs_h", "offsets_h", "seqs_v", "offsets_v", "pos_h", "pos_v", "seed_len")
LINE = "ACGTAC\t1\tACGTA\t0\t3"


def _old_read_pairs_tsv(path: str | Path) -> Pairs:
    """``read_pairs_tsv`` before the bulk reader: the line-by-line reader, kept as the careful path
    for the errors, on the whole file."""
    return pair_files._read_pairs_tsv_careful(str(path), Path(path).read_bytes(), None)


def _outcome(read, path: Path) -> tuple:
    """What a reader makes of ``path``: its pairs' arrays and labels, or its error's text."""
    try:
        p = read(path)
    except InputError as exc:
        return ("error", str(exc))
    return ("pairs", p.name, p.provenance, *[(getattr(p, f).dtype.str, getattr(p, f).tobytes()) for f in FIELDS])


def _write(tmp_path: Path, raw: bytes) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_bytes(raw)
    return path


def _generated() -> bytes:
    pairs = generate(PairKnobs(n_pairs=40, min_length=100, max_length=300, unrelated=0.2, seed=3))
    return "".join(f"{h.decode()}\t{ph}\t{v.decode()}\t{pv}\t{k}\n"
                   for h, ph, v, pv, k in map(pairs.pair, range(pairs.n_pairs))).encode()


#: Valid files the bulk reader reads.
BULK = {
    "generated": _generated(),
    "blank lines": f"\n{LINE}\n\n\n{LINE}\n\n".encode(),
    "no final newline": f"{LINE}\n{LINE}".encode(),
    "one line": LINE.encode(),
    "leading zeros": b"ACGT\t0001\tACGT\t000\t02\n",
    "18 digits": b"ACGT\t000000000000000001\tACGT\t0\t000000000000000002\n",
    "empty reads, empty seed": b"\t0\t\t0\t0\nA\t1\t\t0\t0\n",
    "N bases": b"NNACGTN\t2\tACGTNN\t0\t4\n",
}
#: Valid files it leaves to the careful reader, which reads them as the old reader did.
CAREFUL = {
    "CRLF": f"{LINE}\r\n{LINE}\r\n".encode(),
    "CR CR LF": f"{LINE}\r\r\n".encode(),
    "19 digits": b"ACGT\t0000000000000000001\tACGT\t0\t2\n",
    "a blank line of CR": f"{LINE}\n\r\n{LINE}\n".encode(),
}
#: Bad files: each must give the old reader's error, word for word.
BAD = {
    "four fields": b"ACGT\t0\tACGT\t0\n",
    "six fields": b"ACGT\t0\tACGT\t0\t2\t9\n",
    "trailing tab": b"ACGT\t0\tACGT\t0\t2\t\n",
    "tabs only": b"\t\t\t\t\n",
    "bases only, second line": f"{LINE}\nACGT\n".encode(),
    "X in H, line 2": f"{LINE}\nACXT\t0\tACGT\t0\t2\n".encode(),
    "lower case in V": b"ACGT\t0\tacgt\t0\t2\n",
    "digit in H": b"AC1T\t0\tACGT\t0\t2\n",
    "digit in V": b"ACGT\t0\tACG7\t0\t2\n",
    "minus": b"ACGT\t-1\tACGT\t0\t2\n",
    "plus": b"ACGT\t0\tACGT\t+1\t2\n",
    "decimal": b"ACGT\t0\tACGT\t0\t1.5\n",
    "letter in a number": b"ACGT\t0\tACGT\t0\t2A\n",
    "empty number": b"ACGT\t\tACGT\t0\t2\n",
    "space before a number": b"ACGT\t 1\tACGT\t0\t2\n",
    "seed past H": b"ACGT\t3\tACGT\t0\t2\n",
    "seed past V, line 3": f"{LINE}\n\n{'ACGT'}\t0\tAC\t1\t2\n".encode(),
    "empty file": b"",
    "blank lines only": b"\n\n\n",
    "CR inside a line": f"{LINE}\r{LINE}\n".encode(),
    "byte-order mark": "\ufeff".encode() + LINE.encode() + b"\n",
    "non-ASCII": "ACGÉ\t0\tACGT\t0\t2\n".encode(),
    "NUL": b"AC\0T\t0\tACGT\t0\t2\n",
    "space-only line": f"{LINE}\n \n".encode(),
}


@pytest.mark.parametrize("name", list(BULK))
def test_bulk_reader_reads_what_the_old_reader_read(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, BULK[name])
    assert pair_files._scan_tsv(BULK[name], "pairs") is not None, "the bulk reader declined a well-formed file"
    got = _outcome(pair_files.read_pairs, path)
    assert got[0] == "pairs" and got == _outcome(_old_read_pairs_tsv, path)


@pytest.mark.parametrize("name", list(CAREFUL))
def test_valid_files_the_bulk_reader_declines_still_read_as_before(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, CAREFUL[name])
    assert pair_files._scan_tsv(CAREFUL[name], "pairs") is None
    got = _outcome(pair_files.read_pairs, path)
    assert got[0] == "pairs" and got == _outcome(_old_read_pairs_tsv, path)


@pytest.mark.parametrize("name", list(BAD))
def test_bad_file_gives_the_old_error(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, BAD[name])
    assert pair_files._scan_tsv(BAD[name], "pairs") is None, "the bulk reader accepted a bad file"
    got = _outcome(pair_files.read_pairs, path)
    assert got[0] == "error" and got == _outcome(_old_read_pairs_tsv, path)
    assert got[1].startswith(f"{path}:") or got[1].startswith(f"{path}: file: empty")


def test_bad_file_exits_2_naming_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm import cli

    path = _write(tmp_path, f"{LINE}\n\nACGT\t0\tACGT\t0\t1x\n".encode())
    out = tmp_path / "a.tsv"
    assert cli.main(["xdrop", "align", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"lassm: error: {path}:3: seedLength: '1x' is not a non-negative integer\n")
    assert not out.exists()


def test_random_edits_read_as_the_old_reader_read(tmp_path: Path) -> None:
    """Bytes inserted, deleted or replaced at random in a valid file: whatever the file becomes,
    the reader gives the old reader's pairs or the old reader's error."""
    rng = random.Random(29)
    base = f"{LINE}\nAACGTTGCA\t2\tCGTTGC\t1\t4\n\n{LINE}\n".encode()
    alphabet = b"ACGTNacgx0123456789\t\n\r -+\xc3"
    paths = {"bulk": 0, "careful": 0}
    for _ in range(400):
        raw = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(raw) + 1)
            op = rng.choice("idr")
            if op == "i":
                raw[at:at] = bytes([rng.choice(alphabet)])
            elif at < len(raw):
                raw[at:at + 1] = b"" if op == "d" else bytes([rng.choice(alphabet)])
        raw = bytes(raw)
        path = _write(tmp_path, raw)
        paths["bulk" if pair_files._scan_tsv(raw, "pairs") is not None else "careful"] += 1
        assert _outcome(pair_files.read_pairs, path) == _outcome(_old_read_pairs_tsv, path), raw
    assert min(paths.values()) > 50, paths  # both readers were exercised


def test_a_large_file_reads_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines that straddle the bulk reader's chunks are cut where they end."""
    monkeypatch.setattr(pair_files, "_SCAN_CHUNK", 7)
    path = _write(tmp_path, BULK["generated"])
    assert pair_files._scan_tsv(BULK["generated"], "pairs") is not None
    assert _outcome(pair_files.read_pairs, path) == _outcome(_old_read_pairs_tsv, path)


def test_pairs_read_in_bulk_are_writable(tmp_path: Path) -> None:
    """Read-only arrays would be another type to numba, which would build its kernel again."""
    pairs = pair_files.read_pairs(_write(tmp_path, BULK["generated"]))
    assert all(getattr(pairs, f).flags.writeable for f in FIELDS)


# --- the result writer -------------------------------------------------------------------------

def _old_tsv(result: Alignments) -> bytes:
    """``write_alignments``'s TSV before the bulk writer: ``str`` of every value."""
    cols = result.columns()
    lines = ["\t".join(cols) + "\n"] + ["\t".join(map(str, row)) + "\n" for row in zip(*(c.tolist() for c in cols.values()))]
    return "".join(lines).encode()


def test_int_rows_is_str_of_every_value() -> None:
    rng = np.random.default_rng(29)
    edges = np.array([0, -1, 1, 9, 10, -10, 99, 100, -999, 10**18, -10**18, 2**63 - 1, -2**63], dtype=np.int64)
    cases = [[edges], [edges, edges[::-1].astype(np.int64)], [np.array([7], dtype=np.int32)]]
    for _ in range(40):
        n = int(rng.integers(1, 200))
        cases.append([rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64) // 10 ** int(rng.integers(0, 19))
                      for _ in range(int(rng.integers(1, 6)))] + [rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)])
    for cols in cases:
        want = "".join("\t".join(map(str, row)) + "\n" for row in zip(*(c.tolist() for c in cols))).encode()
        assert pair_files.int_rows(cols) == want
    assert pair_files.int_rows([np.zeros(0, dtype=np.int64)]) == b""


def test_tsv_result_is_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks included: a block of 7 rows cuts 40 pairs into six."""
    from lassm.backends.xdrop import xdrop_cpu

    pairs = generate(PairKnobs(n_pairs=40, min_length=100, max_length=300, unrelated=0.2, seed=3))
    result = xdrop_cpu.align(pairs, Scoring(2, -3, -2, 20))
    monkeypatch.setattr(pair_files, "_WRITE_BLOCK", 7)
    path = tmp_path / "r.tsv"
    pair_files.write_alignments(result, path, input_name="x")
    assert path.read_bytes() == _old_tsv(result)
    assert [p.name for p in tmp_path.iterdir()] == ["r.tsv"]  # no temporary left

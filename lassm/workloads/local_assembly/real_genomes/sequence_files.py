# SPDX-License-Identifier: BSD-3-Clause
"""Reading genomes (FASTA, compressed as Debian ships them) and reads (FASTQ), writing FASTQ,
and the reverse complement.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from ....compressed import fasta_records
from ....errors import LassmError

_RC = bytes.maketrans(b"ACGTNacgtn", b"TGCANtgcan")
#: IUPAC ambiguity codes resolved to their first base in ACGT order (MP1's GenBank record holds
#: a few), so that reads hold only A, C, G, T (and N where the genome has one).
_IUPAC = bytes.maketrans(b"RYKMSWBDHVU", b"ACGACACAAAT")


def revcomp(seq: bytes) -> bytes:
    """Reverse complement of a base string (N stays N)."""
    return seq.translate(_RC)[::-1]


def read_fasta(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(header, sequence)`` of every record, upper case, ambiguity codes resolved (_IUPAC)."""
    return fasta_records(path, _IUPAC)


def windowed(records: list[tuple[str, bytes]], length: int | None) -> list[tuple[str, bytes]]:
    """The records a genome is sequenced from: all of them (``length`` None), else the first
    ``length`` bases of the first record only (:attr:`Genome.length`)."""
    if length is None:
        return records
    if not records or length < 1:
        raise LassmError(f"a window of {length} bases needs a genome with a record and a positive length")
    return [(records[0][0], records[0][1][:length])]


def write_fastq(path: Path, records: Iterable[tuple[str, bytes, bytes]]) -> None:
    with open(path, "wb") as fh:
        for name, seq, qual in records:
            fh.write(b"@" + name.encode() + b"\n" + seq + b"\n+\n" + qual + b"\n")

# SPDX-License-Identifier: BSD-3-Clause
"""What a text input really is, by its first bytes: compressed, or text in a wide encoding.

Such a file is named with the command that undoes it (``gunzip``, ``iconv``) instead of failing
on a byte or field that says nothing of what to do.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from pathlib import Path
from typing import IO, Iterator

from .errors import InputError

#: First bytes of each compressed format, and the command that decompresses it, keeping the file.
MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip", "gunzip -k"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k"),
    (b"BZh", "bzip2", "bunzip2 -k"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
)


def compression(head: bytes) -> tuple[str, str] | None:
    """The format (``gzip``) and the command that undoes it, of a file starting with ``head``;
    None for one no compressor made."""
    for magic, name, undo in MAGIC:
        if head.startswith(magic):
            return name, undo
    return None


def compressed_input(path: str | os.PathLike, head: bytes | None = None) -> str | None:
    """The line (after the file's name) saying ``path`` is compressed and how to undo it, or
    None for a file no compressor made. ``head``: its first bytes, where already read."""
    if head is None:
        with open(path, "rb") as fh:
            head = fh.read(8)
    found = compression(head)
    if found is None:
        return None
    name, undo = found
    return f"compressed input ({name}): decompress it first ({undo} {path}) and give the file it makes"


#: Byte-order marks of the wide encodings (UTF-32's first: UTF-16 LE's is its start).
BYTE_ORDER_MARKS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"),
)


def wide_encoding(head: bytes) -> str | None:
    """``UTF-16`` or ``UTF-32`` for text starting with ``head`` in one with a byte-order mark;
    ``UTF-16LE`` or ``UTF-16BE`` for ASCII with zero bytes between, and no mark; else None."""
    for mark, name in BYTE_ORDER_MARKS:
        if head.startswith(mark):
            return name
    pairs = head[: len(head) // 2 * 2]
    if len(pairs) >= 4:
        even, odd = pairs[0::2], pairs[1::2]
        for zeros, text, order in ((odd, even, "LE"), (even, odd, "BE")):
            if not zeros.strip(b"\x00") and all(0x09 <= b < 0x7f for b in text):
                return f"UTF-16{order}"  # iconv needs the byte order where no mark says it
    return None


def unreadable_text(path: str | os.PathLike, head: bytes | None = None) -> str | None:
    """The line (after the file's name) saying a text input is compressed
    (:func:`compressed_input`) or in a wide encoding, and what to do; None for a file that is
    neither. ``head``: its first bytes, where already read."""
    head = _head(path) if head is None else head
    return compressed_input(path, head[:8]) or wide_text(path, head)


def wide_text(path: str | os.PathLike, head: bytes | None = None) -> str | None:
    """The line (after the file's name) saying a file is text in a wide encoding
    (:func:`wide_encoding`) and how to convert it, or None. A reader whose decoder failed asks
    it, rather than quoting the decoder (``'utf-8' codec can't decode byte 0xff``)."""
    encoding = wide_encoding((_head(path) if head is None else head)[:64])
    if encoding is None:
        return None
    return (f"text in {encoding}, not UTF-8 or ASCII: convert it first (iconv -f {encoding} -t UTF-8 {path} "
            f"> {Path(path).stem}-utf8{Path(path).suffix}) and give the file it makes")


def _head(path: str | os.PathLike) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(64)


#: What the decoders raise on a damaged or mislabelled archive (a flipped bit: ``zlib.error``, not
#: an OSError), beside a read's own faults: the readers of compressed text catch them all.
DECODE_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, UnicodeDecodeError, lzma.LZMAError, zlib.error)


def open_text(path: str | os.PathLike) -> IO[str]:
    """A text handle on a plain, ``.gz``, ``.xz`` or ``.bz2`` file, by its name's suffix (Debian
    ships genomes in all three); a plain file in UTF-16 or UTF-32 raises ``UnicodeDecodeError``
    at once (a reader's :data:`DECODE_ERRORS`), whose reader then names it (:func:`wide_text`)."""
    name = str(path)
    for suffix, opener in ((".gz", gzip.open), (".xz", lzma.open), (".bz2", bz2.open)):
        if name.endswith(suffix):
            return opener(path, "rt")
    head = _head(path)
    if wide_encoding(head):  # UTF-16 without a mark decodes as UTF-8, a NUL between every letter
        raise UnicodeDecodeError("utf-8", head, 0, 1, "text in a wide encoding (lassm.compressed.wide_text)")
    return open(path, "r")




def fasta_records(path: str | os.PathLike, table: bytes) -> Iterator[tuple[str, bytes]]:
    """``(header, sequence)`` of every record of a FASTA file (:func:`open_text`), upper case,
    each byte mapped by ``table``; a file that is no FASTA text is refused in one line naming it."""
    name: str | None = None
    parts: list[str] = []
    try:
        with open_text(path) as fh:
            for line in fh:
                line = line.strip()
                if line.startswith(">"):
                    if name is not None:
                        yield name, "".join(parts).upper().encode().translate(table)
                    name, parts = line[1:], []
                elif line:
                    parts.append(line)
    except DECODE_ERRORS as exc:
        raise InputError(str(path), None, "file", wide_text(path) or f"not a readable FASTA file ({exc})") from None
    if name is not None:
        yield name, "".join(parts).upper().encode().translate(table)


def fastq_records(path: str | os.PathLike) -> Iterator[tuple[str, bytes, bytes]]:
    """``(name, sequence, qualities)`` of every record of a 4-line FASTQ file (as the simulators write)."""
    with open(path, "rb") as fh:
        while True:
            head = fh.readline()
            if not head:
                return
            seq, _, qual = fh.readline().strip(), fh.readline(), fh.readline().strip()
            yield head[1:].strip().decode(), seq, qual


__all__ = ["BYTE_ORDER_MARKS", "DECODE_ERRORS", "MAGIC", "compressed_input", "compression", "fasta_records",
           "fastq_records", "open_text", "unreadable_text", "wide_encoding", "wide_text"]

# SPDX-License-Identifier: BSD-3-Clause
"""Which compressor made a file, by its first bytes: an input no reader takes as it is.

A compressed dataset read as text would fail on its second byte ("byte 0x8b is not ASCII"),
which says nothing of what to do; named as compressed input, with the command that undoes it, it
does.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from typing import IO

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


#: What the decoders raise on a damaged or mislabelled archive (a flipped bit: ``zlib.error``, not
#: an OSError), beside a read's own faults: the readers of compressed text catch them all.
DECODE_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, UnicodeDecodeError, lzma.LZMAError, zlib.error)


def open_text(path: str | os.PathLike) -> IO[str]:
    """A text handle on a plain, ``.gz``, ``.xz`` or ``.bz2`` file, by its name's suffix (Debian
    ships genomes in all three)."""
    name = str(path)
    for suffix, opener in ((".gz", gzip.open), (".xz", lzma.open), (".bz2", bz2.open)):
        if name.endswith(suffix):
            return opener(path, "rt")
    return open(path, "r")


__all__ = ["DECODE_ERRORS", "MAGIC", "compressed_input", "compression", "open_text"]

# SPDX-License-Identifier: BSD-3-Clause
"""Which compressor made a file, by its first bytes: an input no reader takes as it is.

Why: a gzip'ed dataset read as text fails on its second byte ("byte 0x8b is not ASCII"), which
says nothing of what to do; named as compressed input, with the command that undoes it, it does.
"""
from __future__ import annotations

import os

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


__all__ = ["MAGIC", "compressed_input", "compression"]

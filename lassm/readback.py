# SPDX-License-Identifier: BSD-3-Clause
"""What lassm wrote, checked as it is read back: a file against its recorded SHA-256, a JSON object.

A changed byte that still parses gives results that look right, so a digest is checked before
use. A file is hashed once per process, remembered by its identity on disk (device, inode, size,
times). A JSON object that is cut, damaged or another value is one line naming it
(:func:`json_object`).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .errors import LassmError

#: Bytes read per step while hashing: large enough that the hashing, not the reads, sets the pace.
CHUNK = 1 << 22

_checked: set[tuple] = set()


def sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of the file at ``path``, as lowercase hex."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _identity(path: Path) -> tuple:
    st = path.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def matches(path: str | os.PathLike, recorded: str) -> bool:
    """Whether the file at ``path`` hashes to ``recorded``; a match is remembered for this process
    while the file stays the same one on disk (a mismatch is hashed again each time it is asked)."""
    path = Path(path)
    key = (str(path.resolve()), recorded, *_identity(path))
    if key in _checked:
        return True
    if sha256(path) != recorded:
        return False
    _checked.add(key)
    return True


def json_object(path: str | os.PathLike, what: str) -> dict:
    """The JSON object in the file at ``path``; refused in one line naming it and saying it is no
    whole ``what`` (not UTF-8, not JSON, cut short, or another JSON value)."""
    try:
        doc = json.loads(Path(path).read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested past the stack
        raise LassmError(f"{path}: not a whole {what} ({exc})") from None
    if not isinstance(doc, dict):
        raise LassmError(f"{path}: not a {what} (a JSON {type(doc).__name__}, not an object)")
    return doc


__all__ = ["CHUNK", "json_object", "matches", "sha256"]

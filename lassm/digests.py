# SPDX-License-Identifier: BSD-3-Clause
"""Files checked against the SHA-256 recorded when they were written, before they are read.

Why: a file lassm wrote and reads back (a shard part, its planning weights) may have changed on
disk since; a changed byte that still parses gives other results that look right. Checking the
digest only once a read fails misses those. A process reads the same part many times (a worker
reads its range piece by piece), so a file is hashed once per process and remembered by its
identity on disk (device, inode, size, modification and change times): a file replaced or
written since is hashed again.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

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


__all__ = ["CHUNK", "matches", "sha256"]

# SPDX-License-Identifier: BSD-3-Clause
"""The form of a shard folder's manifest (``shards.json``), checked field by field before it is
used, a fault one line naming the manifest and the field.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...errors import InputError

_HEX64 = re.compile(r"[0-9a-f]{64}")


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _plain_name(value: Any) -> bool:
    return isinstance(value, str) and value not in ("", ".", "..") and "/" not in value and "\\" not in value \
        and "\x00" not in value


def _check_file_entry(path: Path, field: str, entry: Any) -> None:
    """A part's or the weights' entry: a dict with a plain file name, and a digest and a size
    where given."""
    if not isinstance(entry, dict):
        raise InputError(str(path), None, field, f"{entry!r} is no entry (an object with a file name)")
    if not _plain_name(entry.get("file")):
        raise InputError(str(path), None, f"{field}.file", f"{entry.get('file')!r} is no file name in the folder")
    digest = entry.get("sha256")
    if digest is not None and not (isinstance(digest, str) and _HEX64.fullmatch(digest)):
        raise InputError(str(path), None, f"{field}.sha256", f"{digest!r} is no SHA-256 (64 hex digits)")
    for key in ("bytes", "data_bytes", "contigs", "reads"):
        if key in entry and not _whole(entry[key], 0):
            raise InputError(str(path), None, f"{field}.{key}", f"{entry[key]!r} is no count (a whole number, 0 or more)")


def check_manifest(path: Path, doc: Any) -> dict:
    """``doc``, the manifest read from ``path``, once every field a reader takes has its type and range
    (name, start k, counts; each part's file, digest, size and range, the ranges contiguous from 0
    to the contig count; the weights' entry); else raises InputError naming the manifest and field."""
    if not isinstance(doc, dict):
        raise InputError(str(path), None, "manifest", "not a JSON object")
    if not isinstance(doc.get("name"), str) or not doc["name"]:
        raise InputError(str(path), None, "name", f"{doc.get('name')!r} is no dataset name")
    if doc.get("k") is not None and not _whole(doc["k"], 1):
        raise InputError(str(path), None, "k", f"{doc['k']!r} is no start k (a whole number, 1 or more)")
    for key, least in (("contigs", 1), ("row_group", 1)):
        if not _whole(doc.get(key), least):
            raise InputError(str(path), None, key, f"{doc.get(key)!r} is no count (a whole number, {least} or more)")
    parts = doc.get("shards")
    if not isinstance(parts, list) or not parts:
        raise InputError(str(path), None, "shards", "no list of parts")
    stop = 0
    for i, part in enumerate(parts):
        field = f"shards[{i}]"
        _check_file_entry(path, field, part)
        if not _whole(part.get("start"), stop) or part["start"] != stop or not _whole(part.get("stop"), stop + 1) \
                or part["stop"] > doc["contigs"]:
            raise InputError(str(path), None, field, f"range {part.get('start')!r}..{part.get('stop')!r} does not follow "
                                                     f"the one before it (from {stop}, within {doc['contigs']} contigs)")
        stop = part["stop"]
    if stop != doc["contigs"]:
        raise InputError(str(path), None, "shards", f"the parts end at contig {stop}, not at {doc['contigs']}")
    if len({p["file"] for p in parts}) != len(parts):
        raise InputError(str(path), None, "shards", "a file listed twice")
    if doc.get("weights") is not None:
        _check_file_entry(path, "weights", doc["weights"])
    return doc


__all__ = ["check_manifest"]

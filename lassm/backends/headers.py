# SPDX-License-Identifier: BSD-3-Clause
"""Build options that lead a compiler to a kernel's headers.

Every runtime here takes a kernel as a string, so ``#include "x.h"`` needs ``-I``, and caches
keyed on source and options need the headers' digest as an unread ``-D``. The ``-I`` names a copy
whose path is that digest (:func:`staged_folder`), so clones at other paths share caches.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from ..paths import cache_dir

#: Where the staged header folders live, under ``LASSM_CACHE``.
STAGED = "kernel-headers"


def include_flag(folder: str | Path) -> str:
    """``-I`` of ``folder``, double-quoted where it holds a space (Intel's OpenCL compiler reads
    that; single quotes fail)."""
    folder = str(folder)
    return f'-I"{folder}"' if any(c.isspace() for c in folder) else f"-I{folder}"


def files_digest(paths: Iterable[Path], prefix: bytes = b"") -> str:
    """SHA-256 (hex) over ``prefix``, then each file's name and bytes, in the order given: what
    keys a build on the sources it reads, wherever they lie."""
    digest = hashlib.sha256(prefix)
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def folder_digest(folder: Path) -> str:
    """:func:`files_digest` of every file of ``folder`` (not its subfolders), by name."""
    return files_digest(sorted(path for path in Path(folder).iterdir() if path.is_file()))


def digest_define(name: str, headers: Iterable[Path]) -> str:
    """``-D<name>=<digest>``: the first 16 hex digits of the SHA-256 over each header's name and bytes."""
    return f"-D{name}={files_digest(headers)[:16]}"


def _tree_files(folder: Path, tree: bool) -> list[Path]:
    """``folder``'s files by relative path: its own, or with ``tree`` its subfolders' too."""
    found = folder.rglob("*") if tree else folder.iterdir()
    return sorted((path for path in found if path.is_file()), key=lambda path: path.relative_to(folder).parts)


def _tree_digest(folder: Path, tree: bool) -> str:
    """:func:`folder_digest`, or with ``tree`` the same over every file by its relative path."""
    if not tree:
        return folder_digest(folder)
    digest = hashlib.sha256(b"tree\0")
    for path in _tree_files(folder, tree):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def staged_folder(folder: str | Path, tree: bool = False) -> Path:
    """A copy of ``folder``'s files (with ``tree``, its subfolders' too) at
    ``LASSM_CACHE/kernel-headers/<digest>``, the digest of their names and bytes: the same headers
    have the same path from every clone. A copy found there is checked against its name before it
    is used (one that fails is made again); where the cache cannot be written, ``folder`` itself."""
    folder = Path(folder)
    key = _tree_digest(folder, tree)[:32]
    target = cache_dir() / STAGED / key
    try:
        if target.is_dir() and _tree_digest(target, tree)[:32] == key:
            return target
    except OSError:  # a file missing from a copy cut short: made again below
        pass
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=target.parent))
        try:
            for path in _tree_files(folder, tree):
                copy = tmp / path.relative_to(folder)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, copy)
            for sub in (tmp, *(d for d in tmp.rglob("*") if d.is_dir())):
                os.chmod(sub, 0o755)
            if target.is_dir():  # a damaged copy: replaced whole
                shutil.rmtree(target, ignore_errors=True)
            try:
                os.rename(tmp, target)
            except OSError:  # another process put the same copy there first
                pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return target if _tree_digest(target, tree)[:32] == key else folder
    except OSError:
        return folder

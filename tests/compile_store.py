# SPDX-License-Identifier: BSD-3-Clause
"""A store of compiler outputs the tests keep between runs and clones (``LASSM_CACHE/tests/<name>``).

Why: hipcc and NVRTC are deterministic, and their compiles were the largest CPU cost of the suite
that is the same in every run. A test that compiles through the store gets the compiler's own
output for the same compiler and inputs: the caller's key holds both (sources by their bytes, never
by their path, so that a fresh clone finds what an earlier one kept). A compile that fails is never
kept, so each test sees the compiler's own error; a kept output is checked against its digest
before it is used, and one that fails the check is made again.
"""
from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

from lassm.atomic import atomic_path, locked
from lassm.paths import cache_dir


def folder(name: str) -> Path:
    """The store's folder for one compiler's outputs."""
    return cache_dir() / "tests" / name


def key(words: Iterable[str]) -> str:
    """32 hex digits of the SHA-256 over ``words``, each ended by a NUL."""
    digest = hashlib.sha256()
    for word in words:
        digest.update(word.encode() + b"\0")
    return digest.hexdigest()[:32]


def by_bytes(option: str) -> str:
    """A compiler option with an ``-I`` folder named by its files' digest (what the compiler reads
    there), not by its path; any other option as it is."""
    from lassm.backends.headers import folder_digest

    return f"-I {folder_digest(Path(option[2:]))}" if option.startswith("-I") else option


@functools.lru_cache(maxsize=1)
def nvrtc_identity() -> str:
    """Which NVRTC: its version, and each of its libraries' name, size and SHA-256 (by their bytes,
    not their path or time: every clone's venv holds its own copy of the same wheel)."""
    from lassm.backends import nvrtc

    lib = nvrtc.find_library()
    libs = sorted({lib, *lib.parent.glob("libnvrtc-builtins.so*")})
    return f"{nvrtc.version()}\n" + "".join(
        f"{path.name} {path.stat().st_size} {hashlib.sha256(path.read_bytes()).hexdigest()}\n" for path in libs)


def kept(where: Path, name: str, suffix: str, make: Callable[[], tuple[bytes, dict]]) -> tuple[bytes, dict]:
    """``make()``'s ``(output, facts)`` for ``name``, made once: kept in ``where`` as the output and
    a JSON of the facts (a log, seconds) with the output's SHA-256, written whole under a lock so
    that a second worker asking meanwhile waits and reads them. An exception of ``make`` passes
    through and nothing is kept. Where the store cannot be written, every call compiles, as
    without a store."""
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return make()
    entry, made = where / f"{name}.json", where / f"{name}{suffix}"
    with locked(entry):
        found = _read(entry, made)
        if found is not None:
            return found
        data, facts = make()
        with atomic_path(made) as tmp:
            tmp.write_bytes(data)
        with atomic_path(entry) as tmp:
            tmp.write_text(json.dumps({**facts, "sha256": hashlib.sha256(data).hexdigest()}), encoding="utf-8")
        return data, facts


def _read(entry: Path, made: Path) -> tuple[bytes, dict] | None:
    """The kept ``(output, facts)``, or None where nothing whole and matching is kept."""
    try:
        facts = json.loads(entry.read_text(encoding="utf-8"))
        data = made.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(facts, dict) or facts.pop("sha256", None) != hashlib.sha256(data).hexdigest():
        return None
    return data, facts

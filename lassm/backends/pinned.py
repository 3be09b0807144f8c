# SPDX-License-Identifier: BSD-3-Clause
"""Public sources pinned to one commit each and checked file by file: the machinery.

Here because both the original programs (:mod:`lassm.campaign.originals.sources`) and HIP-CPU
(:mod:`lassm.backends.hip_cpu_build`) are third-party code, never committed, had the same way.
:func:`locate` finds a :class:`Source`'s tree, in order: a folder the user names
(:attr:`Source.folder_env` or an argument: ``DIR/<name>``, ``DIR/<owner>+<name>`` or ``DIR``);
the cache (``LASSM_CACHE``, else ``$XDG_CACHE_HOME/lassm``); GitHub's tarball of the commit
(``LASSM_ORIGINALS_URL`` names a mirror). Every pinned file must match its SHA-256, else the
tree is refused with the differing files, so a measurement names exactly the code that ran.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from .. import settings
from ..errors import LassmError
from ..paths import cache_dir

#: Environment variable replacing GitHub's tarball host (a mirror, or a test's local server).
URL_ENV = "LASSM_ORIGINALS_URL"
DEFAULT_URL = "https://codeload.github.com"
#: Seconds a download may take before it is given up.
DOWNLOAD_TIMEOUT = 60.0


class SourceUnavailable(LassmError):
    """A pinned source cannot be had here (offline, or a tree that is not the pinned one)."""


@dataclass(frozen=True)
class Source:
    """One public repository at its pinned commit.

    Parameters
    ----------
    files : path inside the repository -> SHA-256 of its bytes: every file the build reads.
    why : one line on why this repository and commit.
    folder_env : the environment variable naming a folder that holds it (offline nodes).
    cache_folder : its cache's folder under ``LASSM_CACHE``.
    offline_hint : how a user names that folder, for the message of a failed download.
    """

    name: str
    repo: str
    commit: str
    files: dict[str, str] = field(default_factory=dict)
    why: str = ""
    folder_env: str = "LASSM_ORIGINALS"
    cache_folder: str = "originals"
    offline_hint: str = "--originals DIR or LASSM_ORIGINALS"

    @property
    def label(self) -> str:
        """``owner/name@commit`` (12 hex digits), the provenance the records carry."""
        return f"{self.repo}@{self.commit[:12]}"

    def url(self) -> str:
        """The tarball of the pinned commit."""
        base = (settings.value(URL_ENV) or DEFAULT_URL).rstrip("/")
        return f"{base}/{self.repo}/tar.gz/{self.commit}"

    def cache_root(self) -> Path:
        """``LASSM_CACHE`` (else ``$XDG_CACHE_HOME/lassm``), then :attr:`cache_folder`."""
        return cache_dir() / self.cache_folder

    def cached(self) -> Path:
        """Where the cache keeps this source's tree: ``<cache root>/<name>-<commit, 12 hex digits>``."""
        return self.cache_root() / f"{self.name}-{self.commit[:12]}"


def file_pins(table: Path, name: str) -> dict[str, str]:
    """Source ``name``'s pinned files (path -> SHA-256) from ``table``, a JSON file of
    ``{name: {path: sha256}}``: the hashes are data, kept apart from the code and one format for
    every pinned source, so that refreshing a pin rewrites data, never code."""
    return json.loads(table.read_text(encoding="utf-8"))[name]


def differences(source: Source, tree: Path) -> list[str]:
    """The pinned files of ``source`` that ``tree`` lacks or holds with other bytes (empty: it is the pinned tree)."""
    out = []
    for rel, want in source.files.items():
        path = tree / rel
        if not path.is_file():
            out.append(f"{rel} missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != want:
            out.append(f"{rel} differs")
    return out


def _checked(source: Source, tree: Path, origin: str) -> Path:
    bad = differences(source, tree)
    if bad:
        raise SourceUnavailable(f"{source.name}: {origin} {tree} is not {source.label} ({'; '.join(bad[:4])}"
                                f"{'; ...' if len(bad) > 4 else ''})")
    return tree


def _named(source: Source, folder: Path) -> Path | None:
    """``folder/<name>``, ``folder/<owner>+<name>``, or ``folder`` itself when it is that repository, or None."""
    for candidate in (folder / source.name, folder / source.repo.replace("/", "+"), folder):
        if all((candidate / rel).is_file() for rel in list(source.files)[:1]):
            return candidate
    return None


def _extract(tar: tarfile.TarFile, into: Path) -> None:
    """Plain files and folders only, all inside ``into`` (Python's ``data`` filter where it has one)."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(into, filter="data")
        return
    for member in tar.getmembers():
        target = (into / member.name).resolve()
        if not (member.isfile() or member.isdir()) or not target.is_relative_to(into.resolve()):
            raise SourceUnavailable(f"the tarball holds {member.name!r}, which is not a plain file inside it")
    tar.extractall(into)


def _unpack(source: Source, data: bytes, dest: Path) -> Path:
    """GitHub's tarball (one top folder) into ``dest``, atomically, refusing links and paths out of it."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{source.name}-", dir=dest.parent) as tmp:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            _extract(tar, Path(tmp))
        tops = [p for p in Path(tmp).iterdir() if p.is_dir()]
        if len(tops) != 1:
            raise SourceUnavailable(f"{source.name}: the tarball from {source.url()} holds {len(tops)} top folders, not 1")
        _checked(source, tops[0], "the tarball's tree")
        try:
            os.replace(tops[0], dest)
        except OSError:  # another process unpacked it first: theirs is as good
            if not dest.is_dir():
                raise
    return dest


def download(source: Source, dest: Path, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """The pinned commit's tarball, unpacked into ``dest`` and checked; raises SourceUnavailable when
    offline, refused, or not the pinned files."""
    try:
        with urllib.request.urlopen(source.url(), timeout=timeout) as reply:
            data = reply.read()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SourceUnavailable(f"{source.name}: {source.url()} cannot be downloaded here ({reason}); on a node "
                                f"without internet, copy {source.repo} at {source.commit[:12]} into a folder and "
                                f"name it with {source.offline_hint}") from None
    try:
        return _unpack(source, data, dest)
    except (tarfile.TarError, EOFError) as exc:
        raise SourceUnavailable(f"{source.name}: the download from {source.url()} is no tarball ({exc})") from None


def locate(source: Source, folder: str | os.PathLike | None = None, *, fetch: bool = True) -> Path:
    """The checked source tree of ``source``: from ``folder`` (default its :attr:`Source.folder_env`),
    the cache, or (with ``fetch``) a download; raises SourceUnavailable, one line saying why and
    what to do."""
    folder = folder or settings.value(source.folder_env) or None
    if folder:
        root = Path(folder).expanduser()
        if not root.is_dir():
            raise SourceUnavailable(f"{source.name}: the sources folder {root} does not exist")
        tree = _named(source, root)
        if tree is not None:
            return _checked(source, tree, "the folder")
    cached = source.cached()
    if cached.is_dir():
        if not differences(source, cached):
            return cached
        shutil.rmtree(cached, ignore_errors=True)  # a damaged cache entry is fetched again
    if folder and not fetch:
        raise SourceUnavailable(f"{source.name}: not in {folder} (looked for {source.name}/)")
    if not fetch:
        raise SourceUnavailable(f"{source.name}: not cached and downloads are off")
    return download(source, cached)


__all__ = ["DEFAULT_URL", "DOWNLOAD_TIMEOUT", "URL_ENV", "Source", "SourceUnavailable", "differences", "download",
           "locate"]

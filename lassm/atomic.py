# SPDX-License-Identifier: BSD-3-Clause
"""Atomic file writes: a result file is either whole or absent, never half-written.

A file is written under a hidden temporary name beside its target
(``.<name>.<host>-<pid>.<random>.tmp``) and renamed over it only when the write succeeded. A
process killed before the rename leaves that temporary; the next successful write of the same
target on the same host removes it, once its writer's pid is no longer alive
(:func:`remove_stale`). ``tempfile`` creates that temporary with
mode 0600 (folders 0700) whatever the umask, and a rename keeps the mode, so before the rename
the temporary is given the mode an ordinary write would have left: the target's own mode when
it exists (``open(path, "w")`` keeps it), else ``0o666`` (folders ``0o777``) less the caller's
umask. On a shared file system, results are then as readable as any other file the user writes.

A name that is not a regular file is never replaced (:func:`destination`): a character device or
a pipe (``/dev/null``, ``/dev/stdout``, a FIFO, ``/proc/self/fd/1``) is written through in
place, as a shell redirection would, since a pipe cannot be half-written and then withdrawn
anyway; a symbolic link keeps its place and the file it names is the one replaced; a block
device, a socket or a folder is refused with one line.

A rename alone cannot make a read-modify-write (an account appended to, a table's rows
replaced) or the replacement of a folder (a run record) safe against a second process doing the
same at once: :func:`locked` serializes them with an exclusive ``flock`` on a lock file beside
the target.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import socket
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterator

from .errors import LassmError

#: Paths written in place whatever they resolve to: the process's own descriptors.
_IN_PLACE = re.compile(r"^/(proc/(self|\d+)/fd/\d+|dev/fd/\d+|dev/std(in|out|err))$")


def current_umask() -> int:
    """The process's umask, read without changing it where the kernel allows.

    Linux (4.7 on) reports it in ``/proc/self/status``. Elsewhere the only way to read it is to
    set it and set it back, which is process-global: a file another thread creates in between
    would get mode 0666. That fallback sets the strictest mask (0o077) for that instant, so the
    race can only make such a file less readable, never more.

    Returns
    -------
    int
        The umask bits, e.g. ``0o022``.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def ordinary_mode(path: str | os.PathLike, directory: bool = False) -> int:
    """The permission bits an ordinary ``open(path, "w")`` (or ``mkdir``) would leave ``path`` with.

    Parameters
    ----------
    path : str or PathLike
        The target about to be replaced or created.
    directory : bool
        The target is a folder (``0o777`` less the umask) rather than a file (``0o666``).

    Returns
    -------
    int
        The existing file's mode where ``path`` is a file that an ordinary write would
        truncate in place, else the default less the umask.
    """
    if not directory:
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    return (0o777 if directory else 0o666) & ~current_umask()


def publish(tmp: str | os.PathLike, path: str | os.PathLike, directory: bool = False) -> None:
    """Gives the temporary ``tmp`` the mode of an ordinary write to ``path``, then renames it there.

    Parameters
    ----------
    tmp : str or PathLike
        The whole file (or folder) written under a temporary name beside ``path``.
    path : str or PathLike
        Its final name. A file there is replaced; a folder there must not exist (the caller
        moves it aside first: ``os.replace`` cannot replace a non-empty folder).
    directory : bool
        ``tmp`` is a folder.
    """
    os.chmod(tmp, ordinary_mode(path, directory=directory))
    os.replace(tmp, path)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", socket.gethostname()) or "host"


def temp_prefix(name: str) -> str:
    """``.<name>.<host>-<pid>.``: the start of a temporary's name, saying whose it is.

    Parameters
    ----------
    name : str
        The final name of the file or folder being written.

    Returns
    -------
    str
        The prefix to give ``tempfile.mkstemp`` or ``mkdtemp``.
    """
    return f".{name}.{_host()}-{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale(folder: str | os.PathLike, name: str) -> list[Path]:
    """Removes the temporaries of ``name`` in ``folder`` whose writer, on this host, is dead.

    Only names :func:`temp_prefix` made, with this host's name, are considered; a temporary of
    a live process (or of another host sharing the file system) is left alone.

    Parameters
    ----------
    folder : str or PathLike
        Where ``name`` is written.
    name : str
        The final name whose temporaries to look for.

    Returns
    -------
    list of Path
        What was removed.
    """
    pattern = re.compile(rf"\.{re.escape(name)}\.{re.escape(_host())}-(\d+)\.[a-z0-9_]{{8}}(\.[a-z]+)?")
    removed = []
    for entry in Path(folder).iterdir():
        m = pattern.fullmatch(entry.name)
        if not m or _alive(int(m[1])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


def destination(path: str | os.PathLike) -> tuple[Path, bool]:
    """Where a write of ``path`` goes, and whether in place (not through a temporary).

    A regular file (or a new name) is written through a temporary and replaced; a symbolic link,
    even a dangling one, is followed to the file it names, which is replaced, the link kept; a
    character device or a pipe, or one of the process's own descriptors, is written in place.

    Raises
    ------
    LassmError
        For a block device, a socket or a folder: a result file can be none of them.
    """
    path = Path(path)
    if _IN_PLACE.match(str(path)):
        return path, True
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        return (Path(os.path.realpath(path)) if path.is_symlink() else path), False
    except NotADirectoryError:
        return path, False  # a parent is a file: the write fails, saying so
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return path, True
    if stat.S_ISREG(mode):
        return (Path(os.path.realpath(path)) if path.is_symlink() else path), False
    kind = ("a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "not a regular file")
    raise LassmError(f"{path}: {kind}; an output must be a file, a character device or a pipe")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yields a temporary path beside ``path``; renames it over ``path`` only on success.
    A character device or a pipe is yielded itself, to be written in place (:func:`destination`)."""
    path, in_place = destination(path)
    if in_place:
        yield path
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        publish(tmp_path, path)
        remove_stale(path.parent, path.name)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Opens a temporary file beside ``path`` that replaces it when the block succeeds."""
    with atomic_path(path) as tmp:
        with open(tmp, mode) as fh:
            yield fh


@contextlib.contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Holds an exclusive ``flock`` on ``.<name>.lock`` beside ``path`` (a file or a folder).

    Every process that writes ``path`` through this lock waits for the one holding it, on one
    host or on a shared file system whose ``flock`` reaches the server (Linux NFSv4 does).
    The lock file is unlinked while still locked, so a waiter that opened it before finds, once
    it holds the lock, that the name now points elsewhere (or nowhere) and opens it again: no
    two writers ever hold locks on two different files of the same name, and no lock file
    stays behind. A killed holder's lock is released by the kernel.

    Parameters
    ----------
    path : str or PathLike
        The file or folder about to be written; its parent folder must exist.
    """
    path = Path(path)
    lock = path.with_name(f".{path.name}.lock")
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            now = os.stat(lock)
            held = os.fstat(fd)
            if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)

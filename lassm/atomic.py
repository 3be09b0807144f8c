# SPDX-License-Identifier: BSD-3-Clause
"""Atomic file writes: a result file is either whole or absent, never half-written.

A file is written as ``.<name>.<host>-<pid>.<random>.tmp`` beside its target and renamed over it
on success, with the mode an ordinary write would have left (the target's, else 0o666/0o777 less
the umask). A dead writer's temporary is removed by the next write of the target
(:func:`remove_stale`). A device or pipe is written in place and a symbolic link is followed
(:func:`destination`). :func:`locked` serializes read-modify-writes; :func:`together` publishes a
command's outputs all at once or not at all; :func:`atomic_folder` replaces a folder whole. A
refused write raises :class:`~lassm.errors.OutputFault` naming the output as the caller gave it;
temporaries are removed in ``finally`` clauses, so on a signal too.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
from pathlib import Path
from typing import IO, Iterator

from .errors import LassmError, OutputFault, write_refused

#: Paths written in place whatever they resolve to: the process's own descriptors.
_IN_PLACE = re.compile(r"^/(proc/(self|\d+)/fd/\d+|dev/fd/\d+|dev/std(in|out|err))$")


def current_umask() -> int:
    """The process's umask (e.g. ``0o022``), read without changing it where the kernel allows.

    Linux reads ``/proc/self/status``; elsewhere the mask is set and reset, to 0o077 for that
    instant, so a file another thread makes meanwhile can only be less readable."""
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
    """The permission bits an ordinary ``open(path, "w")`` (or ``mkdir`` when ``directory``) would
    leave ``path`` with: an existing file's own mode, else 0o666 (0o777) less the umask."""
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

    A file at ``path`` is replaced; a folder there must already have been moved aside
    (``os.replace`` cannot replace a non-empty folder)."""
    os.chmod(tmp, ordinary_mode(path, directory=directory))
    os.replace(tmp, path)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", socket.gethostname()) or "host"


def temp_prefix(name: str) -> str:
    """``.<name>.<host>-<pid>.``: the start of a temporary's name, saying whose it is."""
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
    """Removes, and returns, the temporaries of ``name`` in ``folder`` whose writer on this host is
    dead; those of live processes or other hosts are left alone."""
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

    A regular file or new name goes through a temporary; a symbolic link (even dangling) is followed
    and its target replaced; a character device, pipe or own descriptor is written in place.

    Raises
    ------
    LassmError
        For a block device, a socket or a folder, and for a name the file system cannot take (a
        link loop, a name too long, its temporary's included).
    """
    path = Path(path)
    if _IN_PLACE.match(str(path)):
        return path, True
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        final = Path(os.path.realpath(path)) if path.is_symlink() else path
        refuse_long_name(final, shown=path)
        return final, False
    except NotADirectoryError:
        return path, False  # a parent is a file: the write fails, saying so
    except OSError as exc:  # a link loop, a name too long, a folder that may not be searched
        raise LassmError(f"{path}: {exc.strerror}") from None
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return path, True
    if stat.S_ISREG(mode):
        final = Path(os.path.realpath(path)) if path.is_symlink() else path
        refuse_long_name(final, shown=path)
        return final, False
    kind = ("a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "not a regular file")
    raise LassmError(f"{path}: {kind}; an output must be a file, a character device or a pipe")


#: The longest suffix a temporary adds after :func:`temp_prefix`: 8 random characters and
#: ``.parts`` (a sharded run's parts folder), the longest of the suffixes given to ``tempfile``.
_TEMP_TAIL = len("12345678.parts")


def refuse_long_name(path: Path, shown: str | os.PathLike | None = None) -> None:
    """Raises :class:`LassmError`, naming ``shown`` (default ``path``) and the longest name that fits,
    when the file system would refuse the temporary's name as too long; said before any work."""
    parent = path.absolute().parent
    while not parent.is_dir() and parent != parent.parent:
        parent = parent.parent
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    name = len(os.fsencode(path.name))
    extra = len(os.fsencode(temp_prefix(""))) + _TEMP_TAIL
    if name + extra > limit:
        raise LassmError(f"{shown if shown is not None else path}: a name of {name} bytes; this file system takes "
                         f"{limit}, and a temporary named after it is written first: at most {limit - extra} bytes")


#: Per thread: the temporaries a :func:`together` block holds back, or None outside one.
_local = threading.local()


def _publish_all(staged: list[tuple[Path, Path]]) -> None:
    """Renames each finished temporary over its file, then clears the dead writers' leftovers."""
    for tmp, path in staged:
        publish(tmp, path)
    for _, path in staged:
        remove_stale(path.parent, path.name)


@contextlib.contextmanager
def _faults_named(shown: str) -> Iterator[None]:
    """Turns a write the file system refused (:func:`~lassm.errors.write_refused`) into an
    :class:`~lassm.errors.OutputFault` naming ``shown``; any other error goes on as it is."""
    try:
        yield
    except OSError as exc:
        if not write_refused(exc):
            raise
        raise OutputFault(shown, exc) from None


def _temporary(path: Path, shown: str, folder: bool = False) -> Path:
    """A new empty temporary file (or ``folder``) beside ``path``; a folder that cannot take it
    is named as ``shown`` (what the user gave), not by the temporary's hidden name."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if folder:
            return Path(tempfile.mkdtemp(prefix=temp_prefix(path.name), dir=path.parent))
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    except OSError as exc:
        if write_refused(exc):
            raise OutputFault(shown, exc) from None
        raise LassmError(f"{shown}: {exc.strerror}") from None
    os.close(fd)
    return Path(tmp)


def write_fault(folder: str | os.PathLike, data: bytes = b"lassm\n") -> OSError | None:
    """Why a file holding ``data`` cannot be written in ``folder``, tried (made, written, removed),
    or None. Why tried: ``os.access`` answers yes to root for any folder, ``/proc`` too, which then
    refuses the file (``ENOENT``, read as a missing folder); a full disk still makes names, and
    only a write of ``data`` says it is full (``b""``: whether a file can be made at all)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix("write-check"), suffix=".tmp", dir=folder)
    except OSError as exc:
        return exc
    try:
        if data:
            os.write(fd, data)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)
        os.unlink(tmp)
    return None


@contextlib.contextmanager
def atomic_paths(*paths: str | os.PathLike) -> Iterator[list[Path]]:
    """Yields a temporary beside each of ``paths``; renames them over ``paths`` only on success.

    A character device or a pipe is yielded itself, to be written in place (:func:`destination`).
    Inside :func:`together`, the temporaries are left to the block's end. A write the file
    system refuses raises :class:`~lassm.errors.OutputFault`, the temporaries removed.
    """
    places = [destination(p) for p in paths]
    shown = " and ".join(str(p) for p in paths)
    staged: list[tuple[Path, Path]] = []
    given: list[Path] = []
    try:
        with _faults_named(shown):
            for path, in_place in places:
                if in_place:
                    given.append(path)
                    continue
                tmp = _temporary(path, shown)
                staged.append((tmp, path))
                given.append(tmp)
            yield given
            held = getattr(_local, "held", None)
            if held is not None:  # the enclosing together() publishes them, or removes them
                held.extend(staged)
                staged = []
            else:
                _publish_all(staged)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yields a temporary path beside ``path``; renames it over ``path`` only on success.
    A character device or a pipe is yielded itself, to be written in place (:func:`destination`)."""
    with atomic_paths(path) as (tmp,):
        yield tmp


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Opens a temporary file beside ``path`` that replaces it when the block succeeds."""
    with atomic_path(path) as tmp:
        with open(tmp, mode) as fh:
            yield fh


@contextlib.contextmanager
def together() -> Iterator[None]:
    """Every atomic write of this thread inside the block appears at its end, all at once, or none
    does. Nested blocks join the outermost; inside, :func:`written` says where a file really is."""
    if getattr(_local, "held", None) is not None:
        yield
        return
    held: list[tuple[Path, Path]] = []
    _local.held = held
    try:
        yield
        _publish_all(held)
        held.clear()
    finally:
        _local.held = None
        for tmp, _ in held:
            tmp.unlink(missing_ok=True)


def written(path: str | os.PathLike) -> Path:
    """Where ``path``'s content is now: its temporary while a :func:`together` block holds it
    back, else ``path`` itself."""
    final = destination(path)[0]
    for tmp, dest in getattr(_local, "held", None) or ():
        if dest == final:
            return tmp
    return Path(path)


#: The file that marks a folder as a command's output (:func:`atomic_folder`): JSON naming it.
MARKER = ".lassm-output"


def refuse_foreign_folder(path: str | os.PathLike, maker: str) -> None:
    """Raises :class:`LassmError` before any work for an output folder that is a file, a link loop, or
    non-empty without ``maker``'s :data:`MARKER`: a folder output is replaced whole."""
    folder = Path(path)
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        refuse_long_name(folder.absolute(), shown=path)
        return
    except OSError as exc:
        raise LassmError(f"{path}: {exc.strerror}; an output folder must be a new or an empty one") from None
    if not names:
        return
    try:
        made_by = json.loads((folder / MARKER).read_text()).get("made_by")
    except (OSError, ValueError, AttributeError):
        made_by = None
    if made_by == maker:
        return
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    whose = f"made by {made_by}" if made_by else f"holding {shown}"
    raise LassmError(f"{path}: a folder {whose}; {maker} replaces its output folder whole, so it writes only a new "
                     "folder, an empty one or one it made before: give another --out or empty this one")


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike, maker: str) -> Iterator[Path]:
    """Yields a new folder beside ``path`` that replaces it whole when the block succeeds.

    ``path`` must pass :func:`refuse_foreign_folder`; the new folder holds :data:`MARKER` naming
    ``maker``. A refused write raises :class:`~lassm.errors.OutputFault` and removes the new folder."""
    refuse_foreign_folder(path, maker)
    folder = Path(path)
    tmp = _temporary(folder.absolute(), str(path), folder=True)
    try:
        try:
            (tmp / MARKER).write_text(json.dumps({"made_by": maker}) + "\n")
            yield tmp
        except OutputFault as exc:
            inside = Path(exc.path)
            named = folder / inside.relative_to(tmp) if inside.is_relative_to(tmp) else folder
            raise OutputFault(str(named), exc.cause) from None
        except OSError as exc:
            if not write_refused(exc):
                raise
            raise OutputFault(str(path), exc) from None
        aside = None
        if folder.exists():  # empty, or made by maker: moved aside, removed once the new one is in
            aside = Path(tempfile.mkdtemp(prefix=temp_prefix(folder.name), dir=folder.absolute().parent))
            os.replace(folder, aside / "old")
        publish(tmp, folder, directory=True)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
        remove_stale(folder.absolute().parent, folder.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Holds an exclusive ``flock`` on ``.<name>.lock`` beside ``path`` (its parent must exist).

    Serializes writers on one host or over NFSv4. The lock file is unlinked while held and a waiter
    reopens it if the name moved, so no two writers lock different files of one name and none is
    left behind. A killed holder's lock is released by the kernel."""
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

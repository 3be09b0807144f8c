# SPDX-License-Identifier: BSD-3-Clause
"""Where a sharded run's workers leave their parts of an output file, and how the parts become it.

A regular file is written through a temporary beside it: one part is renamed; more are copied by
the workers into the presized temporary at their offsets (:func:`place_task`), which then
replaces the destination. A device or pipe is written in place, parts streamed in order, its
parts folder in the working folder.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from ..atomic import atomic_path, destination, temp_prefix

#: Bytes copied at a time where the kernel cannot copy between the files itself.
COPY_CHUNK = 1 << 22


def parts_folder(dest: Path) -> Path:
    """A hidden folder for ``dest``'s parts, named as :mod:`lassm.atomic` names a temporary of
    ``dest`` (so :func:`lassm.atomic.remove_stale` clears it once its writer is dead): beside a
    file, in the working folder for a destination written in place."""
    dest = Path(dest)
    where = Path.cwd() if destination(dest)[1] else dest.parent
    where.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=temp_prefix(dest.name), suffix=".parts", dir=where))


def _copy_at(src: str, fd: int, offset: int) -> int:
    """Copies the file ``src`` into the open descriptor ``fd`` from ``offset``; returns its size."""
    with open(src, "rb") as fh:
        size = left = os.fstat(fh.fileno()).st_size
        with contextlib.suppress(AttributeError, OSError):  # no copy_file_range here, or not between these
            while left > 0:
                step = os.copy_file_range(fh.fileno(), fd, left, offset_src=size - left, offset_dst=offset + size - left)
                if step == 0:
                    break
                left -= step
        while left > 0:
            chunk = os.pread(fh.fileno(), min(COPY_CHUNK, left), size - left)
            os.pwrite(fd, chunk, offset + size - left)
            left -= len(chunk)
    return size


def place_task(items: Sequence[tuple[str, str, int]]) -> float:
    """On a worker: copies each ``(part, destination temporary, offset)``; returns the seconds."""
    t0 = time.perf_counter()
    for part, dest, offset in items:
        fd = os.open(dest, os.O_WRONLY)
        try:
            _copy_at(part, fd, offset)
        finally:
            os.close(fd)
    return time.perf_counter() - t0


def concat_parts(parts: Sequence[Path], dest: Path) -> int:
    """Puts ``parts`` end to end as ``dest`` in this process and returns its size: a file's first part
    is renamed to the temporary and the rest appended; an in-place destination gets them streamed."""
    with atomic_path(dest) as tmp:
        if destination(dest)[1]:
            with open(tmp, "wb") as out:
                for part in parts:
                    with open(part, "rb") as src:
                        shutil.copyfileobj(src, out, COPY_CHUNK)
            return sum(os.path.getsize(p) for p in parts)  # a device's or a pipe's position says nothing
        if parts:
            os.replace(parts[0], tmp)
        size = os.path.getsize(tmp)
        fd = os.open(tmp, os.O_WRONLY)
        try:
            for part in parts[1:]:
                size += _copy_at(str(part), fd, size)
        finally:
            os.close(fd)
        return size


def join(client: Any, jobs: Sequence[Sequence[tuple[Path, Path, int]]], sizes: dict[Path, int],
         workers: Sequence[str], futures: list[Any], retries: int = 1) -> None:
    """Makes each destination of ``sizes`` from its parts: ``jobs[i]`` are the
    ``(part, destination, offset)`` that worker ``workers[i % len(workers)]`` copies.

    Each destination's temporary replaces it only once every part is in; in-place or single-part
    destinations are joined here (:func:`concat_parts`). Copy futures are added to ``futures`` so a
    failing caller can wait for them before removing the parts."""
    here = {dest for dest in sizes if destination(dest)[1] or sum(d == dest for job in jobs for _, d, _ in job) < 2}
    for dest in sorted(here):
        concat_parts([p for _, p in sorted((off, p) for job in jobs for p, d, off in job if d == dest)], dest)
    with contextlib.ExitStack() as stack:
        tmp = {dest: stack.enter_context(atomic_path(dest)) for dest in sorted(set(sizes) - here)}
        for dest, path in tmp.items():
            os.truncate(path, sizes[dest])
        mine = []
        for i, job in enumerate(jobs):
            items = [(str(p), str(tmp[d]), off) for p, d, off in job if d in tmp]
            if items:
                mine.append(client.submit(place_task, items, workers=[workers[i % len(workers)]],
                                          allow_other_workers=True, retries=retries, pure=False,
                                          key=f"lassm-place-{i}-{os.urandom(6).hex()}"))
        futures.extend(mine)
        client.gather(mine)

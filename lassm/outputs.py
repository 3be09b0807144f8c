# SPDX-License-Identifier: BSD-3-Clause
"""The one rule every command's outputs obey: a result never replaces what the command reads.

An output is refused, before any work, where it would be an input (by any name or link), inside
an input folder or a folder holding one, a file of a results folder the command reads (other
than those it writes there itself), or another output. Paths are compared resolved through links.
"""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .errors import LassmError


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(path))


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two existing paths are one file: a hard link too."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _clash(option: str, out: str, inp: str) -> str | None:
    """How output ``out`` would overwrite input ``inp``, as the end of a line; None if it cannot."""
    real_out, real_in = _real(out), _real(inp)
    if real_out == real_in or _same_file(out, inp):
        return f"is the input {inp}; write the result to another file"
    if real_in.is_dir() and real_out.is_relative_to(real_in):
        return f"is inside the input {inp}; write the result elsewhere"
    if real_in.is_relative_to(real_out):
        return f"holds the input {inp}, which replacing it would remove; write the result elsewhere"
    return None


def refuse_clashes(outputs: Mapping[str, str | None], inputs: Iterable[str],
                   read_folders: Sequence[tuple[str, Sequence[str]]] = ()) -> None:
    """Refuses, with a LassmError naming the option, the path given and what it would overwrite, an
    output that would replace what the command reads, or another output.

    ``outputs``: option (``--out``) -> its path, or None; ``inputs``: the existing files and folders
    read; ``read_folders``: results folders read, each with ``fnmatch`` patterns of the files the
    command writes there itself."""
    inputs = [inp for inp in inputs if inp and os.path.lexists(inp)]
    seen: dict[Path, str] = {}  # the real path of each output given so far -> its option and path
    for option, out in outputs.items():
        if out is None:
            continue
        real = _real(out)
        for other, said in seen.items():
            if real == other or real.is_relative_to(other) or other.is_relative_to(real):
                raise LassmError(f"{option} {out}: is also {said}; give each output its own file")
        seen[real] = f"{option} {out}"
        for inp in inputs:
            why = _clash(option, out, inp)
            if why:
                raise LassmError(f"{option} {out}: {why}")
        for folder, own in read_folders:
            base = _real(folder)
            if not real.is_relative_to(base):  # a new file there too: a later read would take it for its own
                continue
            inside = real.relative_to(base).as_posix()
            if not any(fnmatch.fnmatch(inside, pattern) for pattern in own):
                raise LassmError(f"{option} {out}: is {inside} of the results folder {folder}, which this command "
                                 "reads; write the result elsewhere")


__all__ = ["refuse_clashes"]

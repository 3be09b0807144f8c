# SPDX-License-Identifier: BSD-3-Clause
"""Build options that lead a compiler to a kernel's headers.

Why: every runtime here (CuPy, NVRTC, pyopencl, NVIDIA's driver) takes a kernel as a string, so
its ``#include "x.h"`` needs the headers' folder as ``-I``; and their caches key on the source and
the options alone, so a header that changed must change the options too: its digest rides along
as a ``-D`` no kernel reads.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable


def include_flag(folder: str | Path) -> str:
    """``-I`` of ``folder``, double-quoted where it holds a space (Intel's OpenCL compiler reads
    that; single quotes fail)."""
    folder = str(folder)
    return f'-I"{folder}"' if any(c.isspace() for c in folder) else f"-I{folder}"


def digest_define(name: str, headers: Iterable[Path]) -> str:
    """``-D<name>=<digest>``: the first 16 hex digits of the SHA-256 over each header's name and bytes."""
    digest = hashlib.sha256()
    for path in headers:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"-D{name}={digest.hexdigest()[:16]}"

# SPDX-License-Identifier: BSD-3-Clause
"""Running Debian's ``pbsim`` (PacBio read simulator) and reading what it writes: the reads
(FASTQ) and their alignments to the genome (MAF). Kept apart from the local-assembly pipeline's
tool runner, since one kernel's package imports no other's (``tests/whole/test_layout.py``).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from ...errors import LassmError

#: Where Debian's pbsim keeps its quality model of CLR reads.
MODEL_QC = Path("/usr/share/pbsim/models/model_qc_clr")
PACKAGE = "pbsim"


def check_pbsim() -> None:
    """Raises a :class:`LassmError` naming the Debian package when pbsim or its model is absent."""
    if shutil.which("pbsim") is None:
        raise LassmError(f"pbsim not found; install the Debian package {PACKAGE} (apt-get install {PACKAGE})")
    if not MODEL_QC.is_file():
        raise LassmError(f"pbsim's quality model {MODEL_QC} is absent; install the Debian package {PACKAGE}")


def pbsim_version() -> str:
    """The installed pbsim: its Debian version, else the first line of ``pbsim --version``."""
    if shutil.which("dpkg-query"):
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.strip()
    proc = subprocess.run(["pbsim", "--version"], capture_output=True, text=True)
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


def run_pbsim(args: list[str], log: Path) -> None:
    """Runs ``pbsim args``; on failure raises a LassmError quoting the end of its log."""
    with open(log, "wb") as out:
        proc = subprocess.run(["pbsim", *args], stdout=out, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-10:]
        raise LassmError(f"pbsim failed (exit {proc.returncode}); end of its log:\n" + "\n".join(tail))


def parse_maf(path: Path) -> dict[str, tuple[int, int, str, np.ndarray]]:
    """Each read's ``(start, end, strand, to_read)`` from a pbsim MAF file; ``s`` lines are read from
    the right (genome names may hold spaces); ``to_read[p]`` counts read bases before genome position
    ``start + p``, for ``p`` in ``0..end - start``."""
    out: dict[str, tuple[int, int, str, np.ndarray]] = {}
    rows: list[list[str]] = []
    gap = np.uint8(ord("-"))
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.startswith("s "):
                continue
            fields = line.split()
            if len(fields) < 7:
                raise LassmError(f"{path}:{lineno}: s line: expected 7 fields, got {len(fields)}")
            rows.append(fields)
            if len(rows) < 2:
                continue
            ref, read = rows
            rows = []
            start, size = int(ref[-5]), int(ref[-4])
            ref_text = np.frombuffer(ref[-1].encode(), dtype=np.uint8)
            read_text = np.frombuffer(read[-1].encode(), dtype=np.uint8)
            if len(ref_text) != len(read_text):
                raise LassmError(f"{path}:{lineno}: the read's alignment text is not as long as the genome's")
            is_base = read_text != gap
            read_before = np.cumsum(is_base) - is_base  # read bases before each column
            to_read = np.append(read_before[ref_text != gap], np.count_nonzero(is_base)).astype(np.int64)
            if len(to_read) != size + 1:
                raise LassmError(f"{path}:{lineno}: the genome's alignment text holds {len(to_read) - 1} bases, "
                                 f"its size field says {size}")
            out[read[1]] = (start, start + size, read[-3], to_read)
    return out

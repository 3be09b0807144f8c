# SPDX-License-Identifier: BSD-3-Clause
"""SeqAn 2 itself, as an X-drop backend: the C++ driver ``kernels/xdrop/seqan/seqan_driver.cpp``.

It is the reference the CPU oracle is checked against. The driver is our code, compiled where it
runs (``g++ -O2 -std=c++17 -I/usr/include``) into a cache folder keyed by the source, the flags
and the compiler's version; nothing built is committed. Debian's ``libseqan2-dev`` provides the
headers (``tools/deps.sh`` installs it); without g++ or the headers the backend is unavailable
and says which is missing.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ...atomic import atomic_path
from ...errors import BackendUnavailable
from ...paths import kernel_source
from ...workloads.xdrop.config import Scoring
from ...workloads.xdrop.pairs import Pairs, seed_scores
from ...workloads.xdrop.result import COLUMNS, Alignments

SOURCE = "xdrop/seqan/seqan_driver.cpp"
#: The Debian package that holds SeqAn 2's headers.
PACKAGE = "libseqan2-dev"
INCLUDE = Path(os.environ.get("LASSM_SEQAN_INCLUDE", "/usr/include"))
FLAGS = ("-O2", "-std=c++17")


def compiler() -> str | None:
    """The C++ compiler (``CXX``, else ``g++``), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def header() -> Path:
    """The header the driver needs: SeqAn 2's seed extension."""
    return INCLUDE / "seqan" / "seeds" / "seeds_extension.h"


def available() -> tuple[bool, str]:
    """Whether the driver can be built here: a compiler and SeqAn 2's headers."""
    if compiler() is None:
        return False, f"no C++ compiler ({os.environ.get('CXX', 'g++')}) on PATH"
    if not header().is_file():
        return False, f"SeqAn 2's headers are missing ({header()}); install the Debian package {PACKAGE}"
    return True, f"SeqAn 2 headers in {INCLUDE}, {compiler()}"


def cache_dir() -> Path:
    """Where built drivers are kept: ``LASSM_CACHE``, else ``$XDG_CACHE_HOME/lassm``, else ``~/.cache/lassm``."""
    root = os.environ.get("LASSM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lassm")
    return Path(root) / "xdrop-seqan"


def build() -> Path:
    """Compiles the driver once per source, flags and compiler; returns the executable.

    Raises
    ------
    BackendUnavailable
        When g++ or the headers are missing, or the build fails (its output in the message).
    """
    ok, why = available()
    if not ok:
        raise BackendUnavailable(f"backend 'seqan' cannot run here: {why}")
    source = kernel_source(SOURCE)
    cxx = compiler()
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256(source.read_bytes() + repr((FLAGS, str(INCLUDE), version)).encode()).hexdigest()[:16]
    exe = cache_dir() / f"seqan_driver-{key}"
    if exe.is_file():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(exe) as tmp:
        done = subprocess.run([cxx, *FLAGS, f"-I{INCLUDE}", str(source), "-o", str(tmp)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise BackendUnavailable(f"building {source} failed:\n{done.stderr[-2000:]}")
        os.chmod(tmp, 0o755)
    exe.chmod(exe.stat().st_mode | 0o111)
    return exe


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None) -> Alignments:
    """Runs SeqAn's ``extendSeed`` on every pair through the driver.

    Parameters
    ----------
    pairs : the read pairs and their seeds.
    scoring : match, mismatch, gap and X.
    threads : ignored (the driver runs on one thread); kept for the backends' one signature.

    Returns
    -------
    Alignments
        As SeqAn reports them.
    """
    from ...workloads.xdrop.formats import write_pairs_tsv

    exe = build()
    with tempfile.TemporaryDirectory(prefix="lassm-xdrop-") as tmp:
        tsv = Path(tmp) / "pairs.tsv"
        write_pairs_tsv(pairs, tsv)
        args = [str(exe), str(scoring.match), str(scoring.mismatch), str(scoring.gap), str(scoring.xdrop)]
        start = time.perf_counter()
        with open(tsv, "rb") as fh:
            done = subprocess.run(args, stdin=fh, capture_output=True)
        wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{exe.name} exited with {done.returncode}: {done.stderr.decode(errors='replace')[-2000:]}")
    table = np.loadtxt(done.stdout.decode().splitlines(), dtype=np.int64, ndmin=2, delimiter="\t")
    if table.shape != (pairs.n_pairs, len(COLUMNS)):
        raise RuntimeError(f"{exe.name} printed a {table.shape} table for {pairs.n_pairs} pairs")
    cols = dict(zip(COLUMNS, table.T))
    return Alignments(score_left=cols["score_left"].astype(np.int32), score_right=cols["score_right"].astype(np.int32),
                      begin_h=cols["begin_h"].copy(), begin_v=cols["begin_v"].copy(), end_h=cols["end_h"].copy(),
                      end_v=cols["end_v"].copy(), seed_score=seed_scores(pairs, scoring.match, scoring.mismatch),
                      scoring=scoring, backend="seqan", wall_seconds=wall, extra={"driver": exe.name})

# SPDX-License-Identifier: BSD-3-Clause
"""SeqAn 2 itself, as an X-drop backend: the C++ driver ``kernels/xdrop/seqan/seqan_driver.cpp``.

The reference the CPU oracle is checked against. Compiled where it runs (``g++ -O2 -std=c++17``)
into a cache keyed by source, flags and compiler version; the headers come from Debian's
``libseqan2-dev`` or ``LASSM_SEQAN_INCLUDE``; without g++ or headers the backend says which is
missing. ``align(threads=T)`` runs T single-threaded drivers, pair ``i`` to driver ``i % T``,
timed first start to last end: SeqAn on all cores, as LOGAN's comparison runs it.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ... import paths, settings
from ...atomic import atomic_path, locked
from ...errors import BackendUnavailable
from ...paths import kernel_source
from ...workloads.xdrop.scoring import Scoring
from ...workloads.xdrop.pairs import Pairs, seed_scores
from ...workloads.xdrop.alignments import COLUMNS, Alignments, XdropFigures

SOURCE = "xdrop/seqan/seqan_driver.cpp"
#: The Debian package that holds SeqAn 2's headers.
PACKAGE = "libseqan2-dev"
INCLUDE = settings.value("LASSM_SEQAN_INCLUDE") or Path("/usr/include")
FLAGS = ("-O2", "-std=c++17")


def compiler() -> str | None:
    """The C++ compiler (``CXX``, else ``g++``), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


@functools.lru_cache(maxsize=None)
def compiler_version(cxx: str) -> str:
    """``cxx --version``, asked once per process: :func:`build` runs before every alignment, and
    the driver's cache key needs the version, not a new compiler process each time."""
    return subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout


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
    return paths.cache_dir() / "xdrop-seqan"


def build() -> Path:
    """Compiles the driver once per source, flags and compiler and returns the executable; raises
    BackendUnavailable when g++ or the headers are missing or the build fails (its output included)."""
    ok, why = available()
    if not ok:
        raise BackendUnavailable(f"backend 'seqan' cannot run here: {why}")
    source = kernel_source(SOURCE)
    cxx = compiler()
    assert cxx is not None  # available() found one
    stamp = repr((FLAGS, str(INCLUDE), compiler_version(cxx))).encode()
    key = hashlib.sha256(source.read_bytes() + stamp).hexdigest()[:16]
    exe = cache_dir() / f"seqan_driver-{key}"
    if exe.is_file() and os.access(exe, os.X_OK):
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    with locked(exe):  # a process building it now (a second run, a test worker): wait, then take it
        if exe.is_file() and os.access(exe, os.X_OK):
            return exe
        with atomic_path(exe) as tmp:
            done = subprocess.run([cxx, *FLAGS, f"-I{INCLUDE}", str(source), "-o", str(tmp)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise BackendUnavailable(f"building {source} failed:\n{done.stderr[-2000:]}")
            os.chmod(tmp, 0o755)
        exe.chmod(exe.stat().st_mode | 0o111)
    return exe


def default_threads() -> int:
    """The drivers run at once by default: the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _write_lines(pairs: Pairs, idx: np.ndarray, path: Path) -> None:
    """The driver's input (``seqH posH seqV posV seedLength``) of the pairs ``idx``."""
    with open(path, "w") as fh:
        for i in idx:
            h, ph, v, pv, k = pairs.pair(int(i))
            fh.write(f"{h.decode()}\t{ph}\t{v.decode()}\t{pv}\t{k}\n")


def align(pairs: Pairs, scoring: Scoring, threads: int | None = None) -> Alignments:
    """Runs SeqAn's ``extendSeed`` on every pair through ``threads`` drivers at once (default
    :func:`default_threads`); ``wall_seconds`` runs from the first start to the last end (input files
    written before, outputs read after); ``extra``: driver, threads."""
    exe = build()
    n = pairs.n_pairs
    workers = max(1, min(int(threads or default_threads()), n))
    shares = [np.arange(t, n, workers, dtype=np.int64) for t in range(workers)]
    args = [str(exe), str(scoring.match), str(scoring.mismatch), str(scoring.gap), str(scoring.xdrop)]
    table = np.zeros((n, len(COLUMNS)), dtype=np.int64)
    with tempfile.TemporaryDirectory(prefix="lassm-xdrop-") as tmp:
        ins = [Path(tmp) / f"pairs-{t}.tsv" for t in range(workers)]
        outs = [Path(tmp) / f"out-{t}.tsv" for t in range(workers)]
        errs = [Path(tmp) / f"err-{t}.txt" for t in range(workers)]
        for share, path in zip(shares, ins):
            _write_lines(pairs, share, path)
        procs = []
        start = time.perf_counter()
        try:
            for src, dst, err in zip(ins, outs, errs):
                with open(src, "rb") as fin, open(dst, "wb") as fout, open(err, "wb") as ferr:
                    procs.append(subprocess.Popen(args, stdin=fin, stdout=fout, stderr=ferr))
            codes = [p.wait() for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        wall = time.perf_counter() - start
        for t, code in enumerate(codes):
            if code != 0:
                raise RuntimeError(f"{exe.name} exited with {code}: {errs[t].read_text(errors='replace')[-2000:]}")
        for share, dst in zip(shares, outs):
            lines = dst.read_text().splitlines()
            got = np.loadtxt(lines, dtype=np.int64, ndmin=2, delimiter="\t") if lines else np.zeros((0, len(COLUMNS)), np.int64)
            if got.shape != (len(share), len(COLUMNS)):
                raise RuntimeError(f"{exe.name} printed a {got.shape} table for {len(share)} pairs")
            table[share] = got
    cols = dict(zip(COLUMNS, table.T))
    return Alignments(score_left=cols["score_left"].astype(np.int32), score_right=cols["score_right"].astype(np.int32),
                      begin_h=cols["begin_h"].copy(), begin_v=cols["begin_v"].copy(), end_h=cols["end_h"].copy(),
                      end_v=cols["end_v"].copy(), seed_score=seed_scores(pairs, scoring.match, scoring.mismatch),
                      scoring=scoring, backend="seqan", wall_seconds=wall,
                      extra=XdropFigures(driver=exe.name, threads=workers))

# SPDX-License-Identifier: BSD-3-Clause
"""Small builders shared by the tests."""
from __future__ import annotations

import contextlib
import faulthandler
import os
from collections.abc import Iterator

import numpy as np
import pytest

from lassm.workloads.local_assembly.dataset import Dataset, Reads
from lassm.workloads.xdrop.pairs import Pairs


def make_dataset(contigs: list[tuple[int, bytes, float, list, list]], name: str = "tiny", k: int | None = None) -> Dataset:
    """Builds a Dataset from ``[(cid, seq, depth, left_reads, right_reads)]`` with reads as (seq, qual)."""
    n = len(contigs)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(c[1]) for c in contigs], out=off[1:])

    def side(idx: int) -> Reads:
        return Reads.from_lists([[(f"@r{i}_{j}", s, q) for j, (s, q) in enumerate(c[idx])] for i, c in enumerate(contigs)])

    return Dataset(
        cids=np.array([c[0] for c in contigs], dtype=np.int64),
        seqs=np.frombuffer(b"".join(c[1] for c in contigs), dtype=np.uint8).copy(),
        offsets=off,
        depths=np.array([c[2] for c in contigs], dtype=np.float64),
        left=side(3),
        right=side(4),
        name=name,
        k=k,
    )


def random_dataset(seed: int, n: int = 40, k: int = 21) -> Dataset:
    """Contigs cut from a small random genome with repeats; reads that run off each end."""
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b"ACGT", dtype=np.uint8)
    unit = rng.choice(alphabet, 60)
    genome = rng.choice(alphabet, 6000)
    for pos in rng.integers(0, 5900, 6):  # repeats make forks and loops
        genome[pos:pos + 60] = unit
    genome = genome.tobytes()
    contigs = []
    for i in range(n):
        clen = int(rng.integers(k, 300))
        start = int(rng.integers(400, len(genome) - clen - 400))
        contig = genome[start:start + clen]
        depth = float(rng.uniform(1, 15))

        def reads_at(end: int) -> list:
            out = []
            for _ in range(int(rng.integers(0, 8))):
                rl = int(rng.integers(k - 2, 200))
                s = int(np.clip(end - rng.integers(10, rl + 1), 0, len(genome) - rl))
                seq = bytearray(genome[s:s + rl])
                qual = bytearray(rng.integers(33 + 2, 33 + 41, rl).astype(np.uint8).tobytes())
                for p in rng.integers(0, rl, int(rng.integers(0, 3))):  # errors and Ns
                    seq[p] = ord(rng.choice(list("ACGTN")))
                out.append((bytes(seq), bytes(qual)))
            return out

        right = reads_at(start + clen)
        left = [(s[::-1].translate(bytes.maketrans(b"ACGTN", b"TGCAN")), q[::-1]) for s, q in reads_at(start)]
        contigs.append((1000 + i, contig, depth, left, right))
    return make_dataset(contigs, name=f"random{seed}", k=k)


def shard_folder_without_weights(path, name: str, shards: int):
    """``lassm data shard NAME --shards N --out PATH`` as lassm wrote it before a shard folder held
    its contigs' planning weights (no weights file, no ``weights`` in the manifest); its path."""
    import json

    from lassm.workloads.local_assembly import stream

    stream.write_shards(name, path, shards)
    doc = stream.manifest(path)
    del doc["weights"]
    (path / stream.WEIGHTS).unlink()
    (path / stream.MANIFEST).write_text(json.dumps(doc, indent=1) + "\n")
    return path


def random_pairs(n: int, seed: int) -> Pairs:
    """Short pairs that reach every corner: empty reads and seeds, seeds at the ends, equal reads."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        alphabet = np.frombuffer(b"ACGTN"[:rng.integers(1, 6)], dtype=np.uint8)
        h = rng.choice(alphabet, rng.integers(0, 41)).tobytes()
        v = h if rng.random() < 0.25 else rng.choice(alphabet, rng.integers(0, 41)).tobytes()
        k = int(rng.integers(0, min(len(h), len(v)) + 1))
        place = rng.random()
        if place < 0.15:
            ph, pv = 0, 0
        elif place < 0.3:
            ph, pv = len(h) - k, len(v) - k
        else:
            ph, pv = int(rng.integers(0, len(h) - k + 1)), int(rng.integers(0, len(v) - k + 1))
        rows.append((h, ph, v, pv, k))
    return Pairs.from_lists(rows, name=f"random-{seed}")


#: Bytes the random edits of a ``.dat`` draw from: digits, bases, blanks, line ends, odd bytes.
EDIT_ALPHABET = b"0123456789ACGTNX .\t\n\r@I-e"


def mutate(text: bytes, rng, most_edits: int) -> bytes:
    """``text`` with 1 to ``most_edits`` random byte deletions, insertions or replacements: the
    fuzzing of the bulk readers against the careful one."""
    raw = bytearray(text)
    for _ in range(rng.randint(1, most_edits)):
        pos = rng.randrange(len(raw))
        op = rng.randrange(3)
        if op == 0:
            del raw[pos]
        elif op == 1:
            raw.insert(pos, rng.choice(EDIT_ALPHABET))
        else:
            raw[pos] = rng.choice(EDIT_ALPHABET)
    return bytes(raw)


#: Why the PoCL cases skip where no PoCL device answers.
NO_POCL = ("needs PoCL, the second OpenCL implementation: Debian's pocl-opencl-icd, which make deps installs "
           "(tools/deps.sh), or pip install pocl-binary-distribution")


def opencl_devices() -> list:
    """pytest params of ``LASSM_OPENCL_DEVICE`` values, one per OpenCL device to test: the
    variable's own value alone when it is set; else every device pyopencl sees but PoCL's (by
    name), then ``pocl`` -- skipped, naming the package, where no PoCL device answers -- so that
    CI shows PoCL's cases run or says why not."""
    from lassm.backends import opencl

    chosen = os.environ.get(opencl.DEVICE_ENV, "").strip()
    ok, why = opencl.available()
    if chosen:
        return [pytest.param(chosen, id=chosen, marks=() if ok else pytest.mark.skip(reason=why))]
    found = opencl.devices() if ok else []
    params = [pytest.param(label, id=label)
              for label in dict.fromkeys(opencl._label(d) for d in found if not opencl.is_pocl(d))]
    if not ok:
        params.append(pytest.param("", id="opencl", marks=pytest.mark.skip(
            reason=f"needs pyopencl and an OpenCL device ({opencl.INSTALL}): {why}")))
    pocl = any(opencl.is_pocl(d) for d in found)
    params.append(pytest.param("pocl", id="pocl", marks=() if pocl else pytest.mark.skip(
        reason=NO_POCL if ok else f"{NO_POCL}; and pyopencl: {why}")))
    return params


#: Seconds one OpenCL test may take before :func:`hang_guard` ends the run (the slowest took 13 s
#: on a 2-core box with PoCL's kernel cache empty).
HANG_SECONDS = 600.0


#: A copy of the session's own stderr (:func:`keep_stderr`), past pytest's capture of the test's.
_STDERR_FD: int | None = None


def keep_stderr() -> None:
    """Copies stderr while pytest is not capturing it (tests/conftest.py's ``pytest_configure``),
    so that :func:`hang_guard`'s tracebacks reach the log when the process ends mid-test."""
    global _STDERR_FD
    if _STDERR_FD is None:
        _STDERR_FD = os.dup(2)


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Ends the test process, printing every thread's traceback (the test's name among them), when
    the body runs past ``seconds``: a kernel that never returns -- as the vote loops of matchany and
    barrier did on PoCL 3.1 before they voted at the end of each round -- then fails CI with the test
    named instead of hanging it. The wait is in the driver's C code, which no Python timeout reaches."""
    faulthandler.dump_traceback_later(seconds, exit=True, file=2 if _STDERR_FD is None else _STDERR_FD)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def _rocminfo_gpu(agent: int, arch: str, name: str, wavefront: int, units: int, node: int) -> str:
    """One GPU agent as rocminfo 6.x prints it (the fields lassm reads, and some it must pass over:
    the ISA's own ``Name:`` line, sizes written as ``64(0x40)``)."""
    return f"""\
*******
Agent {agent}
*******
  Name:                    {arch}
  Uuid:                    GPU-8c1b2f3a4d5e6f70
  Marketing Name:          {name}
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Profile:                 BASE_PROFILE
  Float Round Mode:        NEAR
  Max Queue Number:        128(0x80)
  Queue Min Size:          64(0x40)
  Queue Max Size:          131072(0x20000)
  Queue Type:              MULTI
  Node:                    {node}
  Device Type:             GPU
  Cache Info:
    L1:                      16(0x10) KB
    L2:                      8192(0x2000) KB
  Chip ID:                 29704(0x7408)
  Cacheline Size:          64(0x40)
  Max Clock Freq. (MHz):   1700
  Internal Node ID:        {node}
  Compute Unit:            {units}
  SIMDs per CU:            4
  Shader Engines:          8
  Fast F16 Operation:      TRUE
  Wavefront Size:          {wavefront}({hex(wavefront)})
  Workgroup Max Size:      1024(0x400)
  Workgroup Max Size per Dimension:
    x                        1024(0x400)
    y                        1024(0x400)
    z                        1024(0x400)
  Max Waves Per CU:        32(0x20)
  Max Work-item Per CU:    2048(0x800)
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--{arch}:sramecc+:xnack-
      Machine Models:          HSA_MACHINE_MODEL_LARGE
      Profiles:                HSA_PROFILE_BASE
      Workgroup Max Size:      1024(0x400)
"""


_ROCMINFO_HEAD = """\
ROCk module version 6.8.5 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
Runtime Ext Version:     1.6
System Timestamp Freq.:  100.000000MHz
Machine Model:           LARGE
System Endianness:       LITTLE

==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD EPYC 7A53 64-Core Processor
  Uuid:                    CPU-XX
  Marketing Name:          AMD EPYC 7A53 64-Core Processor
  Vendor Name:             CPU
  Feature:                 None specified
  Node:                    0
  Device Type:             CPU
  Compute Unit:            128
  Features:                None
  ISA Info:
"""
#: What ``rocminfo`` prints on a node with an MI250X (its two dies are two agents, gfx90a, 110
#: compute units and a 64-lane wavefront each), for stand-in ``rocminfo`` scripts.
ROCMINFO_MI250X = (_ROCMINFO_HEAD + _rocminfo_gpu(2, "gfx90a", "AMD Instinct MI250X", 64, 110, 4)
                   + _rocminfo_gpu(3, "gfx90a", "AMD Instinct MI250X", 64, 110, 5) + "*** Done ***\n")
#: The same for an RDNA 2 card (gfx1030, HIP's 32-lane wavefront there).
ROCMINFO_RX6800 = (_ROCMINFO_HEAD + _rocminfo_gpu(2, "gfx1030", "AMD Radeon RX 6800", 32, 60, 1)
                   + "*** Done ***\n")
#: What Debian's rocminfo prints, exiting 1, on a machine without the GPU's kernel driver.
ROCMINFO_NO_GPU = "ROCk module is NOT loaded, possibly no GPU devices"


def stand_in(folder, name: str, stdout: str, rc: int = 0):
    """An executable ``folder/name`` printing ``stdout`` with shell built-ins only (a PATH holding
    nothing else still runs it), exiting ``rc``: a GPU tool's stand-in on a machine without the GPU."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    body = "".join(f"printf '%s\\n' '{line}'\n" for line in stdout.splitlines())
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}exit {rc}\n")
    path.chmod(0o755)
    return path


def whole_record(folder, dataset: str, k: int) -> None:
    """A whole record of this host for the point at ``folder`` (``<results>/<machine>/<run-id>``),
    its machine folder claimed for this host: ``lassm.runs.record_check`` finds nothing wrong with it,
    so a run counts the point as done."""
    import json
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    from lassm.runs.host import claim, fingerprint
    from lassm.runs.record_check import ENDS_COLUMNS, problem
    from lassm.runs.records import SUMMARY_KEYS

    folder = Path(folder)
    claim(folder)
    folder.mkdir(parents=True, exist_ok=True)
    summary = {key: "x" for key in SUMMARY_KEYS}
    summary.update(backend="cpu", dataset=dataset, k=k, contig_ends=2, hash_insertions=1, kernel_seconds=1.0,
                   wall_seconds=1.0, matches_cpu=True, host=fingerprint())
    (folder / "summary.json").write_text(json.dumps(summary))
    pq.write_table(pa.table({c: [0] for c in ENDS_COLUMNS}), folder / "ends.parquet")
    assert problem(folder) is None


def this_hosts(folder) -> None:
    """Marks a copied machine folder as this host's (its ``host.json``), as a run on this host would
    have left it: a writer adds rows only to its own host's folder."""
    import json
    from pathlib import Path

    from lassm.runs import host

    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / host.HOST_FILE).write_text(json.dumps(host.fingerprint(), indent=2, sort_keys=True) + "\n")

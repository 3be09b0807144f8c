# SPDX-License-Identifier: BSD-3-Clause
"""The suite's counters step: Nsight Compute on every variant launched through CUDA.

Nsight Compute profiles no OpenCL launch, so the OpenCL side is counted as ``opencl-ptx``: the
OpenCL compiler's PTX launched by CUDA (:func:`lassm.backends.suite.common.opencl_ptx_function`),
beside NVRTC's build (``cuda``). Each (kernel, backend, variant) is one profiled process
(``python -m lassm.campaign.suite_counters KERNEL BACKEND VARIANT SIZE``): it builds the inputs,
runs the variant once untimed (compiles, loads, warms up), then once inside the profiler's range
(``ncu --profile-from-start off``), so that exactly the timed launches are counted, a library's
own kernels included: cuRAND's launches per draw are counted, not assumed. The launches of a run
are summed into one ``suite/counters.csv`` row (the study's metric list,
``data/metric-names.csv``); the raw CSV, ``ncu --version`` and the labels stay under
``suite/counters/``.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..runs import suite as rec
from ..runs import tables
from .steps import NCU_FALLBACK, _importable_here, _one_line, find_ncu

#: ``suite/counters.csv``: the summed quantities of one run, its launches, how many of them were
#: a library's (not the kernel's own entries) and the kernels' names.
FILE = "counters.csv"
COLUMNS: tuple[str, ...] = (
    "machine", "device", "kernel", "backend", "variant", "size", "simd_width", "duration_s", "int_lane_ops",
    "warp_inst", "thread_inst", "dram_read_bytes", "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes",
    "launches", "library_launches", "kernel_names", "peak_warp_inst_per_s", "peak_dram_bytes_per_s", "git_sha",
    "command")
KEY: tuple[str, ...] = ("kernel", "backend", "variant", "size")
#: The backends Nsight Compute counts.
BACKENDS: tuple[str, ...] = ("cuda", "opencl-ptx")
#: Kernels profiled by replaying the whole process per pass: Needleman-Wunsch's 2,047 launches each
#: write the 1 GiB score matrix, which kernel replay would save and restore at every launch.
APPLICATION_REPLAY: frozenset[str] = frozenset({"nw"})
#: Seconds one profiled run may take.
NCU_TIMEOUT = 300.0
#: ncu refusals that hold for every run: the step stops at the first.
_MACHINE_WIDE = ("ERR_NVGPUCTRPERM", "LibraryNotLoaded", "not on PATH")
_QUANTITIES = ("simd_width", "duration_s", "int_lane_ops", "warp_inst", "thread_inst", "dram_read_bytes",
               "dram_write_bytes", "dram_bytes", "l2_bytes", "l1_bytes", "peak_warp_inst_per_s",
               "peak_dram_bytes_per_s")


def raw_file(machine: str, kernel: str, backend: str, variant: str) -> Path:
    """``suite/counters/ncu__<kernel>__<backend>__<variant>.csv``, the names as they are (a slug would
    make ``__powf`` and ``powf`` one file)."""
    for name in (kernel, backend, variant):
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name.startswith("."):
            raise ValueError(f"{name!r} cannot name a file")
    return rec.folder(machine) / "counters" / f"ncu__{kernel}__{backend}__{variant}.csv"


def target(kernel: str, backend: str, variant: str, size: str, python: str | None = None) -> list[str]:
    """The profiled command: this module run on one variant."""
    return [python or sys.executable, "-m", __name__, kernel, backend, variant, size]


def entries(kernel: str) -> set[str]:
    """The kernel's own entry points (a launch of any other name is a library's): every entry its
    variants launch (:func:`lassm.backends.suite.common.entries`)."""
    from ..backends import suite

    return suite.common.entries(suite.get(kernel))


def row_from_raw(raw: str | Path, *, kernel: str, backend: str, variant: str, size: str, machine: str,
                 git_sha: str, command: str) -> dict:
    """One ``counters.csv`` row: ncu's raw CSV of one run, its launches summed.

    Raises
    ------
    ValueError
        When the file holds no launch, or more than one device.
    """
    from ..analysis.counters import ncu

    tidy, p = ncu.one_point(raw, dataset=kernel, k=0, protocol=f"{backend}:{variant}")
    own = entries(kernel)
    names = [str(n) for n in tidy["kernel"]]
    row = {c: float(p[c]) for c in _QUANTITIES}
    row.update(machine=machine, device=p["device"], kernel=kernel, backend=backend, variant=variant, size=size,
               launches=int(p["launches"]), library_launches=sum(1 for n in names if n not in own),
               kernel_names=";".join(sorted(set(names))), git_sha=git_sha, command=command)
    return row


def collect(points: list[tuple[str, str, str]], size: str, machine: str, *, sha: str, force: bool = False,
            say=lambda t: None, ncu_exe: str | None = None, timeout: float = NCU_TIMEOUT) -> list[str]:
    """Counters of each (kernel, backend, variant) of ``points`` into ``suite/counters.csv``; returns
    what it could not count. A point recorded at this commit is skipped unless ``force``."""
    from ..analysis.counters import ncu

    exe = ncu_exe or find_ncu()
    if exe is None:
        return [f"suite counters: ncu not found (not on PATH, nor {NCU_FALLBACK}); install Nsight Compute"]
    table = rec.folder(machine) / FILE
    before = tables.read_rows(table, COLUMNS)
    lacks: list[str] = []
    with _importable_here():
        for kernel, backend, variant in points:
            if not force and tables.recorded(before, sha, kernel=kernel, backend=backend, variant=variant, size=size):
                continue
            replay = " --replay-mode application" if kernel in APPLICATION_REPLAY else ""
            shown = (f"ncu --profile-from-start off{replay} --metrics <data/metric-names.csv> -- "
                     f"python -m {__name__} {kernel} {backend} {variant} {size}")
            try:
                raw = ncu.collect(target(kernel, backend, variant, size), raw_file(machine, kernel, backend, variant),
                                  dataset=kernel, k=0, protocol=f"{backend}:{variant}", kernel_name="regex:.",
                                  ncu=exe, timeout=timeout, from_start=False,
                                  replay_mode="application" if kernel in APPLICATION_REPLAY else None)
                row = row_from_raw(raw, kernel=kernel, backend=backend, variant=variant, size=size, machine=machine,
                                   git_sha=sha, command=shown)
                tables.upsert(table, COLUMNS, KEY, [row])
                say(f"counters {kernel} {backend} {variant}: {row['duration_s'] * 1e3:.3f} ms in {row['launches']} "
                    f"launches ({row['library_launches']} a library's)")
            except Exception as exc:  # a run that cannot be counted is named; the others go on
                if any(marker in str(exc) for marker in _MACHINE_WIDE):
                    return lacks + [f"suite counters: {_one_line(exc)}"]
                lacks.append(f"suite counters: {kernel} {backend} {variant}: {_one_line(exc)}")
    return lacks


def main(argv: list[str] | None = None) -> int:
    """The profiled process: ``KERNEL BACKEND VARIANT SIZE``; one untimed run, then one in the profiler's range."""
    from ..backends import suite
    from ..backends.suite.common import profiled

    kernel, backend, variant, size = argv if argv is not None else sys.argv[1:]
    mod = suite.get(kernel)
    inp = mod.inputs(size)
    mod.run(backend, inp, variant)
    with profiled():
        mod.run(backend, inp, variant)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["APPLICATION_REPLAY", "BACKENDS", "COLUMNS", "FILE", "KEY", "collect", "entries", "main", "raw_file",
           "row_from_raw", "target"]

# SPDX-License-Identifier: BSD-3-Clause
"""The suite's counters step: Nsight Compute on every variant launched through CUDA.

ncu profiles no OpenCL launch, so OpenCL is counted as ``opencl-ptx`` (its compiler's PTX launched
by CUDA, :func:`lassm.backends.suite.common.opencl_ptx_function`) beside ``cuda``. One profiled
process per (kernel, backend) (``python -m lassm.campaign.suite_counters KERNEL BACKEND V1,V2,...
SIZE``) runs each variant untimed, then inside the profiler's range (``--profile-from-start off``,
library kernels such as cuRAND's included), then the boundary kernel that cuts the raw CSV per
variant (:func:`lassm.analysis.counters.ncu_batch.split_at`). A variant's launches sum into one
``suite/counters.csv`` row; raw files stay under ``suite/counters/``.

Needleman-Wunsch's many-launch variants (:data:`ON_REQUEST`) are counted only with
``lassm run --all-counters``: application replay of their 2,047 launches takes minutes each, and
the chapter reads the one-launch ``strips``."""
from __future__ import annotations

import re
import sys
from pathlib import Path

from .. import stderr
from ..runs import suite_records as rec
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
#: Variants profiled by replaying the whole process per pass: Needleman-Wunsch's 2,047 launches each
#: write the 1 GiB score matrix, which kernel replay would save and restore at every launch. Its
#: one-launch ``strips`` is replayed kernel by kernel: one save and restore per pass, where a whole
#: process per pass took 28 s on an H200.
APPLICATION_REPLAY: dict[str, frozenset[str]] = {"nw": frozenset({"stream", "graph"})}
#: Variants counted only on request: minutes each under application replay (see the module's text).
ON_REQUEST: dict[str, frozenset[str]] = APPLICATION_REPLAY
#: Seconds one variant's profiled run may take (a process of several variants gets their sum).
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
    """One ``counters.csv`` row from ncu's raw CSV of one run, launches summed; ``ValueError`` when the
    file holds no launch or more than one device."""
    from ..analysis.counters import ncu

    tidy, p = ncu.one_point(raw, dataset=kernel, k=0, protocol=f"{backend}:{variant}")
    own = entries(kernel)
    names = [str(n) for n in tidy["kernel"]]
    row: dict[str, object] = {c: float(p[c]) for c in _QUANTITIES}
    row.update(machine=machine, device=p["device"], kernel=kernel, backend=backend, variant=variant, size=size,
               launches=int(p["launches"]), library_launches=sum(1 for n in names if n not in own),
               kernel_names=";".join(sorted(set(names))), git_sha=git_sha, command=command)
    return row


def left_on_request(points: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The points of :data:`ON_REQUEST` among ``points``."""
    return [p for p in points if p[2] in ON_REQUEST.get(p[0], ())]


def collect(points: list[tuple[str, str, str]], size: str, machine: str, *, sha: str, force: bool = False,
            say=stderr.nothing, every: bool = False, tick=lambda n: None) -> list[str]:
    """Counters of each (kernel, backend, variant) of ``points`` into ``suite/counters.csv``, each run
    given :data:`NCU_TIMEOUT`; returns what it could not count. Rows at this commit are skipped unless
    ``force``; :data:`ON_REQUEST` variants are left out (one line) unless ``every``; ``tick(n)`` hears
    of every ``n`` points done with."""
    exe = find_ncu()
    if exe is None:
        return [f"suite counters: ncu not found (not on PATH, nor {NCU_FALLBACK}); install Nsight Compute"]
    table = rec.folder(machine) / FILE
    before = tables.read_rows(table, COLUMNS)
    todo = [p for p in points if force or not tables.recorded(before, sha, kernel=p[0], backend=p[1], variant=p[2],
                                                              size=size)]
    lacks: list[str] = []
    later = [] if every else left_on_request(todo)
    if later:
        lacks.append("suite counters: left out, counted on request (lassm run --all-counters; minutes each under "
                     "application replay): " + ", ".join(" ".join(p) for p in later))
    groups: dict[tuple[str, str, bool], list[str]] = {}
    for kernel, backend, variant in todo:
        if (kernel, backend, variant) not in later:
            replay = variant in APPLICATION_REPLAY.get(kernel, ())
            groups.setdefault((kernel, backend, replay), []).append(variant)
    tick(len(points) - sum(map(len, groups.values())))
    with _importable_here():
        for (kernel, backend, replay), variants in groups.items():
            try:
                lacks += _count_group((kernel, backend, replay), variants, size, machine, sha=sha, exe=exe,
                                      timeout=NCU_TIMEOUT * len(variants), say=say)
            except Exception as exc:  # a process that cannot be counted is named; the others go on
                if any(marker in str(exc) for marker in _MACHINE_WIDE):
                    return lacks + [f"suite counters: {_one_line(exc)}"]
                lacks.append(f"suite counters: {kernel} {backend} {','.join(variants)}: {_one_line(exc)}")
            tick(len(variants))
    return lacks


def _count_group(group: tuple[str, str, bool], variants: list[str], size: str, machine: str, *, sha: str, exe: str,
                 timeout: float, say) -> list[str]:
    """One profiled process for ``variants`` of ``group``, :func:`collect`'s (kernel, backend, replay)
    (:mod:`lassm.analysis.counters.ncu_batch`; the whole process replayed per pass where ``replay``);
    a row per variant."""
    from ..analysis.counters import ncu_batch
    from ..analysis.counters.ncu import Session

    kernel, backend, replay = group
    listed = ",".join(variants)
    shown = (f"ncu --profile-from-start off{' --replay-mode application' if replay else ''} --metrics "
             f"<data/metric-names.csv> -- python -m {__name__} {kernel} {backend} {listed} {size}")
    raws = [raw_file(machine, kernel, backend, v) for v in variants]
    missing = ncu_batch.collect(target(kernel, backend, listed, size), variants, raws,
                            [{"dataset": kernel, "k": 0, "protocol": f"{backend}:{v}"} for v in variants],
                            session=Session("regex:.", exe, timeout=timeout, from_start=False,
                                            replay_mode="application" if replay else None))
    lacks = [f"suite counters: {kernel} {backend} {v}: {why}" for v, why in missing.items()]
    for variant, raw in zip(variants, raws):
        if variant in missing:
            continue
        row = row_from_raw(raw, kernel=kernel, backend=backend, variant=variant, size=size, machine=machine,
                           git_sha=sha, command=shown)
        tables.upsert(rec.folder(machine) / FILE, COLUMNS, KEY, [row])
        say(f"counters {kernel} {backend} {variant}: {row['duration_s'] * 1e3:.3f} ms in {row['launches']} "
            f"launches ({row['library_launches']} a library's)")
    return lacks


def main(argv: list[str] | None = None) -> int:
    """The profiled process: ``KERNEL BACKEND V1,V2,... SIZE STATUS``; per variant one untimed run,
    one in the profiler's range, then the boundary (:func:`lassm.analysis.counters.ncu_batch.run_points`)."""
    from ..analysis.counters import ncu_batch
    from ..backends import suite
    from ..backends.suite.common import profiled, unchecked_run

    kernel, backend, variants, size, status = argv if argv is not None else sys.argv[1:]
    mod = suite.get(kernel)
    inp = mod.inputs(size)

    def work(variant: str) -> None:
        unchecked_run(mod, backend, inp, variant)
        with profiled():
            unchecked_run(mod, backend, inp, variant)

    return ncu_batch.run_points(variants.split(","), work, status, profiled_range=True)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["APPLICATION_REPLAY", "BACKENDS", "COLUMNS", "FILE", "KEY", "ON_REQUEST", "collect",
           "entries", "left_on_request", "main", "raw_file", "row_from_raw", "target"]

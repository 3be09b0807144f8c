# SPDX-License-Identifier: BSD-3-Clause
"""NVIDIA Nsight Compute: build the ``ncu`` command, run it, parse its CSV into the tidy table.

The command is ``ncu --csv --page raw --print-units base --clock-control none --kernel-name K
--metrics <list> --log-file <raw.csv> -- <target>``, the metrics being the ``ncu`` rows of
``data/metric-names.csv``. Both the raw page (one row per launch, a units row under the header)
and the details page (one row per metric) are read; columns are selected by name, and quoted
numbers may hold thousands separators.

Derived ceilings per launch (:func:`lassm.analysis.counters.aggregate` keeps the largest), each
a ``.peak_sustained`` metric times its unit's ``cycles_elapsed.avg.per_second``:
``peak_int_lane_ops_per_s`` (``sm__sass_thread_inst_executed_op_integer_pred_on``),
``peak_warp_inst_per_s`` (``sm__inst_executed``; Ding & Williams' warp-level GIPS ceiling,
doi:10.1109/PMBS49563.2019.00007) and ``peak_dram_bytes_per_s`` (``dram__bytes``)."""
from __future__ import annotations

import csv
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from ...errors import LassmError
from .complete import refuse_gaps, refuse_partial_launches
from .tidy import convert, fill_derived, load_metric_names, parse_number, read_meta, tidy_frame, write_sidecars

#: The kernel the study profiles (MetaHipMer's walk kernel).
DEFAULT_KERNEL = "iterative_walks_kernel"

#: Lines of ncu output that mean the counters could not be read, and what to do about each.
_REFUSALS: tuple[tuple[str, str], ...] = (
    ("ERR_NVGPUCTRPERM",
     "the driver refuses access to the GPU performance counters (ERR_NVGPUCTRPERM); run as root, or "
     "load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
     "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)"),
    ("LibraryNotLoaded", "ncu could not load its profiling library on this machine (LibraryNotLoaded)"),
    ("Failed to find metric", "ncu does not know a metric of the list on this GPU or version"),
    ("No kernels were profiled", "ncu profiled no kernel: the kernel name matched no launch"),
)
_DETAIL_COLUMNS = ("Metric Name", "Metric Unit", "Metric Value")


def metrics(rows=None) -> list[str]:
    """The ``--metrics`` list: the ncu metrics of ``rows`` (default: the map's ``ncu`` rows), in map
    order, without duplicates. One ``device__attribute_*`` metric makes the raw page print all of
    them; harmless, since columns are selected by name."""
    rows = load_metric_names(tool="ncu") if rows is None else rows
    out: list[str] = []
    for name in rows["metric"]:
        if name not in out:
            out.append(str(name))
    return out


def extend_command(dataset: str | os.PathLike, *, k: int, protocol: str, out: str | os.PathLike,
                   backend: str = "cuda", python: str | None = None) -> list[str]:
    """The argument vector of ``python -m lassm.cli extend DATASET --backend ... --out OUT``, the
    backend command to profile; ``python`` defaults to the running interpreter."""
    return [python or sys.executable, "-m", "lassm.cli", "extend", str(dataset), "--backend", backend,
            "--k", str(int(k)), "--protocol", str(protocol), "--out", str(out)]


@dataclass(frozen=True)
class Session:
    """How ncu profiles a target, the same for every point it counts.

    kernel_name : ``--kernel-name`` filter (``regex:...`` accepted).
    metric_list : metrics to collect (None: :func:`metrics`).
    timeout : seconds before the run is stopped (None: no limit).
    from_start : False profiles only launches between ``cudaProfilerStart`` and ``cudaProfilerStop``.
    replay_mode : ``--replay-mode``; ``application`` reruns the whole target per pass, so that a
        kernel writing much memory is not saved and restored at each launch."""

    kernel_name: str = DEFAULT_KERNEL
    ncu: str = "ncu"
    metric_list: Sequence[str] | None = None
    timeout: float | None = None
    from_start: bool = True
    replay_mode: str | None = None


def build_command(target: Sequence[str], *, log_file: str | os.PathLike | None = None,
                  session: Session = Session(), page: str = "raw", clock_control: str = "none") -> list[str]:
    """The ``ncu`` argument vector that profiles ``target``.

    Without ``log_file`` the CSV goes to standard output, mixed with the target's own. ``page`` is
    ``raw`` (one column per metric) or ``details`` (one row per metric); ``clock_control`` ``none``
    leaves the GPU's clocks as they run, ``base`` locks them. The session's timeout is the caller's."""
    if not target:
        raise ValueError("no target command to profile")
    mlist = list(session.metric_list) if session.metric_list is not None else metrics()
    cmd = [session.ncu, "--csv", "--page", page, "--print-units", "base", "--clock-control", clock_control,
           "--kernel-name", session.kernel_name, "--metrics", ",".join(mlist)]
    if not session.from_start:
        cmd += ["--profile-from-start", "off"]
    if session.replay_mode:
        cmd += ["--replay-mode", session.replay_mode]
    if log_file is not None:
        cmd += ["--log-file", str(log_file)]
    return cmd + ["--", *[str(t) for t in target]]


def _find_ncu(ncu: str) -> str:
    found = shutil.which(ncu)
    if not found:
        raise LassmError(f"{ncu}: Nsight Compute (ncu) is not on PATH; install the CUDA toolkit's "
                         "nsight-compute package or pass --ncu /path/to/ncu")
    return found


def version(ncu: str = "ncu") -> str:
    """What ``ncu --version`` prints (several lines); :class:`LassmError` when ncu is missing or does
    not answer."""
    exe = _find_ncu(ncu)
    try:
        res = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LassmError(f"{exe} --version failed: {exc}") from None
    if res.returncode != 0:
        raise LassmError(f"{exe} --version exited {res.returncode}: {said(res.stderr or res.stdout, 500)}")
    return res.stdout


def said(text: str, chars: int = 0, lines: int = 0) -> str:
    """The end of what a tool printed, for a line that quotes it: its last ``chars`` characters or
    ``lines`` lines (joined by `` | ``), or "it printed nothing" rather than a line ending on a colon."""
    text = text.strip()
    if lines:
        text = " | ".join(text.splitlines()[-lines:])
    return (text[-chars:] if chars else text) or "it printed nothing"


def version_number(text: str) -> str:
    """The dotted version number in ``ncu --version`` text (``"2023.2.0.0"``), or ``""``."""
    m = re.search(r"Version\s+(\d+(?:\.\d+)+)", text)
    return m.group(1) if m else ""


def check_output(text: str) -> None:
    """Raises a :class:`LassmError` naming the cause when ncu's output (log file and captured streams)
    shows profiling was refused (``ERR_NVGPUCTRPERM`` and the like)."""
    for marker, why in _REFUSALS:
        if marker in text:
            line = next((ln for ln in text.splitlines() if marker in ln), marker)
            raise LassmError(f"ncu: {why}. ncu said: {line.strip()}")


def collect(target: Sequence[str], raw_path: str | os.PathLike, *, dataset: str, k: int, protocol: str,
            device: str | None = None, session: Session = Session()) -> Path:
    """Runs ``target`` under ncu and returns ``raw_path``, the raw CSV.

    Writes ``<raw>.version.txt`` and ``<raw>.meta.json`` (the labels ``dataset``, ``k``,
    ``protocol``, ``device``, default: what ncu reports) beside it. Raises :class:`LassmError` when
    ncu is missing, profiling is refused, the target fails, or nothing was profiled."""
    exe = _find_ncu(session.ncu)
    vtext = version(exe)
    kernel_name, timeout = session.kernel_name, session.timeout
    raw = Path(raw_path)
    raw.parent.mkdir(parents=True, exist_ok=True)
    tmp = raw.with_name(f".{raw.name}.partial")
    if tmp.exists():
        tmp.unlink()
    cmd = build_command(target, log_file=tmp, session=replace(session, ncu=exe))
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        tmp.unlink(missing_ok=True)
        raise LassmError(f"ncu run stopped after {timeout} s: {' '.join(cmd)}") from None
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise LassmError(f"could not start ncu: {exc}") from None
    log = tmp.read_text(errors="replace") if tmp.exists() else ""
    try:
        check_output(log + "\n" + res.stdout + "\n" + res.stderr)
        if res.returncode != 0:
            raise LassmError(f"ncu exited {res.returncode} profiling {' '.join(map(str, target))}: "
                             + said(res.stderr or res.stdout or log, lines=5))
        if _header_index(log.splitlines()) is None:
            raise LassmError(f"ncu wrote no CSV table for kernel {kernel_name!r}; its output ends: "
                             + said(log, lines=3))
    except LassmError:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, raw)
    meta = {"vendor": "nvidia", "tool": "ncu", "tool_version": version_number(vtext), "dataset": dataset,
            "k": int(k), "protocol": protocol, "kernel_name": kernel_name, "raw_file": raw.name,
            "command": [str(c) for c in cmd]}
    if device is not None:
        meta["device"] = device
    write_sidecars(raw, vtext, meta, launches=len(read_raw(raw)[0]))
    return raw


# ----------------------------------------------------------------------------------------------
# Parsing


def _header_index(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        s = line.strip()
        if not s.startswith('"ID"') and not s.startswith("ID,"):
            continue
        cells = next(csv.reader([s]))
        if cells and cells[0] == "ID" and "Kernel Name" in cells:
            return i
    return None


def lines_and_header(source: str | os.PathLike) -> tuple[list[str], int, list[str]]:
    """The lines of ncu's CSV (a file, or the text itself when it holds a newline), the index of
    its header row and the header's cells."""
    text = str(source) if isinstance(source, str) and "\n" in source else Path(source).read_text(errors="replace")
    lines = text.splitlines()
    start = _header_index(lines)
    if start is None:
        raise ValueError("no ncu CSV header (a row starting with \"ID\" and naming \"Kernel Name\")")
    return lines, start, next(csv.reader([lines[start]]))


def read_raw(source: str | os.PathLike):
    """Reads ncu CSV output into a wide table: one row per launch, one column per metric.

    ``source`` is a path, or the CSV text itself when it holds a newline. Lines before the header
    and ``==`` lines after it are skipped; raw and details pages are both accepted. Returns the table
    (string cells: ``ID``, ``Kernel Name``, metrics) and metric name -> unit as printed.

    Raises ``ValueError`` with no ncu header, a row of fewer fields, a details launch with fewer
    metrics than another, or a launch ID missing between two others. A raw file cut exactly at a row
    end looks whole; the callers catch it against the sidecar's launch count and SHA-256
    (:func:`lassm.analysis.counters.refuse_unlike_record`) or the point's run record
    (:func:`lassm.analysis.derive.refuse_fewer_than_recorded`). A file alone is read as it is."""
    import pandas as pd

    lines, start, header = lines_and_header(source)
    rows: list[list[str]] = []
    for n, line in enumerate(lines[start + 1:], start=start + 2):
        s = line.strip()
        if not s or s.startswith("=="):
            continue
        cells = next(csv.reader([s]))
        if len(cells) != len(header):
            raise ValueError(f"line {n}: {len(cells)} fields where the header has {len(header)}")
        rows.append(cells)
    df = pd.DataFrame(rows, columns=header, dtype="object")
    units: dict[str, str] = {}
    if all(c in df.columns for c in _DETAIL_COLUMNS):
        refuse_partial_launches(df)
        keep = [c for c in ("ID", "Kernel Name", "Device", "CC") if c in df.columns]
        wide = df.pivot_table(index=keep, columns="Metric Name", values="Metric Value",
                              aggfunc="first").reset_index()
        wide.columns.name = None
        first = df.drop_duplicates("Metric Name")
        units = {str(n): str(u) for n, u in zip(first["Metric Name"], first["Metric Unit"])}
        return wide, units
    if len(df) and str(df.iloc[0]["ID"]).strip() == "":
        units = {c: str(v) for c, v in df.iloc[0].items()}
        df = df.iloc[1:].reset_index(drop=True)
    return df, units


def parse(source: str | os.PathLike, *, dataset: str | None = None, k: int | None = None,
          protocol: str | None = None, device: str | None = None, simd_width: int | None = None,
          metric_rows=None):
    """Parses ncu CSV output into the tidy counter table, one row per kernel launch.

    Each quantity comes from the metric the map names for it, converted to the quantity's unit.
    Labels come from the file's ``.meta.json`` sidecar unless given; ``simd_width`` is used when
    the file lacks ``device__attribute_warp_size``. Raises ``ValueError`` on a malformed file, an
    unknown unit, or a warp width found nowhere."""
    wide, units = read_raw(source)
    refuse_gaps(list(wide["ID"]))
    rows = load_metric_names(tool="ncu") if metric_rows is None else metric_rows
    is_file = not (isinstance(source, str) and "\n" in source)
    meta = read_meta(source) if is_file else {}
    labels: dict[str, Any] = {
        "vendor": meta.get("vendor", "nvidia"), "tool": "ncu", "tool_version": meta.get("tool_version"),
        "dataset": meta.get("dataset"), "k": meta.get("k"), "protocol": meta.get("protocol"),
        "device": meta.get("device"),
    }
    for key, val in (("dataset", dataset), ("k", k), ("protocol", protocol), ("device", device)):
        if val is not None:
            labels[key] = val
    records = []
    # (metric, quantity, unit) of the map's metrics this file has, read once, not per launch
    present = [(str(m), str(qn), str(u)) for m, qn, u in zip(rows["metric"], rows["quantity"], rows["unit"])
               if str(m) in wide.columns]
    wanted = list(dict.fromkeys(["ID", "Kernel Name", *(name for name, _q, _u in present)]))
    for values in wide[wanted].to_numpy(dtype=object):
        r = dict(zip(wanted, values))
        q: dict[str, Any] = {}
        for name, quantity, to_unit in present:
            if quantity == "device":
                q["device_name"] = str(r[name]).strip()
                continue
            value = parse_number(r[name])
            q[quantity] = convert(value, units.get(name, ""), to_unit) if not math.isnan(value) else value
        rec: dict[str, Any] = dict(labels)
        rec["launch"] = int(parse_number(r["ID"]))
        rec["kernel"] = str(r["Kernel Name"])
        if rec.get("device") is None:
            rec["device"] = q.get("device_name")
        width = q.get("simd_width", math.nan)
        if simd_width is not None:
            width = float(simd_width)
        if math.isnan(width):
            raise ValueError("warp width unknown: collect device__attribute_warp_size or pass simd_width (lassm counters parse --simd-width)")
        rec["simd_width"] = width
        for key in ("duration_s", "int_lane_ops", "warp_inst", "thread_inst", "dram_read_bytes",
                    "dram_write_bytes", "l2_bytes", "l1_bytes", "cycles"):
            rec[key] = q.get(key, math.nan)
        rec["global_ldst_inst"] = q.get("global_ld_inst", math.nan) + q.get("global_st_inst", math.nan)
        rec["global_ldst_sectors"] = q.get("global_ld_sectors", math.nan) + q.get("global_st_sectors", math.nan)
        sm_hz, dram_hz = q.get("sm_clock_hz", math.nan), q.get("dram_clock_hz", math.nan)
        rec["peak_int_lane_ops_per_s"] = q.get("peak_int_lane_ops_per_cycle", math.nan) * sm_hz
        rec["peak_warp_inst_per_s"] = q.get("peak_warp_inst_per_cycle", math.nan) * sm_hz
        rec["peak_dram_bytes_per_s"] = q.get("peak_dram_bytes_per_cycle", math.nan) * dram_hz
        records.append(fill_derived(rec))
    return tidy_frame(records)


def one_point(raw: str | os.PathLike, **labels: Any):
    """A raw file of one profiled run: its tidy launches and their sum (``aggregate``'s one row).
    ``ValueError`` when the file holds no launch, or more than one point."""
    from .tidy import aggregate

    tidy = parse(raw, **labels)
    if tidy.empty:
        raise ValueError(f"{raw}: no kernel launch in the ncu table")
    points = aggregate(tidy)
    if len(points) != 1:
        raise ValueError(f"{raw}: {len(points)} points (devices or labels) in one run")
    return tidy, points.iloc[0]


__all__ = ["DEFAULT_KERNEL", "Session", "build_command", "check_output", "collect", "extend_command", "lines_and_header", "metrics",
           "one_point", "parse", "read_raw", "version", "version_number"]

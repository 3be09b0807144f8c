# SPDX-License-Identifier: BSD-3-Clause
"""Intel unitrace metric-query CSV (``unitrace -q -g <group>``) -> tidy counter table.

``unitrace -q -o perfquery.csv app`` writes ``perfquery.<pid>.csv``: one row per kernel
instance, one column per metric with its unit in brackets (``GpuTime[ns]``). ``ComputeBasic``
has time, HBM and L2 ("L3") bytes and XVE instructions by pipe; integer counts come from another
group (the map's ``XVE_INST_EXECUTED_INT32``/``_INT64`` names are unverified: check
``unitrace --metric-list``). Several groups' files of one program merge by kernel name and
instance. ``int_simd_ops = simd_width * int_simd_inst`` (every lane assumed active); the width
comes from the kernel name (``[SIMD16 ...]``) when printed, else it must be given."""
from __future__ import annotations

import csv
import io
import math
import os
import re
from pathlib import Path
from typing import Any, Sequence

from .tidy import convert, fill_derived, load_metric_names, parse_number, read_meta, tidy_frame

_COLUMN = re.compile(r"^\s*(?P<name>[^\[]+?)\s*(\[(?P<unit>[^\]]*)\])?\s*$")
_SIMD = re.compile(r"\[SIMD(?P<width>\d+)\b")
_KERNEL_COLUMNS = ("Kernel", "KernelName", "Kernel Name")


def build_command(target: Sequence[str], *, out_file: str | os.PathLike, group: str = "ComputeBasic",
                  unitrace: str = "unitrace") -> list[str]:
    """The unitrace argument vector that queries metric ``group`` per kernel instance of ``target``
    (unitrace inserts the process id into ``out_file`` before its suffix)."""
    if not target:
        raise ValueError("no target command to profile")
    return [unitrace, "--metric-query", "--group", group, "-o", str(out_file), *map(str, target)]


def read_raw(source: str | os.PathLike) -> tuple[list[dict[str, str]], dict[str, str], str]:
    """Reads a unitrace metric CSV (path or text): (rows keyed by metric name, units stripped; units by
    metric; the kernel column's name). ``ValueError`` without a header holding a kernel column and
    ``GpuTime``."""
    text = str(source) if isinstance(source, str) and "\n" in source else Path(source).read_text(errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        cells = [c.strip() for c in next(csv.reader([line]))]
        names = [(m.group("name") if (m := _COLUMN.match(c)) else c) for c in cells]
        kcol = next((c for c in _KERNEL_COLUMNS if c in names), None)
        if kcol and "GpuTime" in names:
            units = {}
            for c, n in zip(cells, names):
                m = _COLUMN.match(c)
                units[n] = (m.group("unit") or "") if m else ""
            reader = csv.reader(io.StringIO("\n".join(lines[i + 1:])))
            rows = []
            for n_line, cells_r in enumerate(reader, start=i + 2):
                if len(cells_r) != len(names):
                    raise ValueError(f"line {n_line}: {len(cells_r)} fields where the header has {len(names)}")
                rows.append(dict(zip(names, cells_r)))
            return rows, units, kcol
    raise ValueError("no unitrace metric header (a kernel column and GpuTime[ns])")


def parse(source: str | os.PathLike | Sequence[str | os.PathLike], *, dataset: str | None = None,
          k: int | None = None, protocol: str | None = None, device: str | None = None,
          simd_width: int | None = None, kernel_regex: str | None = None, metric_rows=None):
    """Parses unitrace metric CSV(s), one file or several groups' files of one program, into the tidy
    table, one row per kernel instance.

    Labels override the first file's ``.meta.json``; ``simd_width`` is used when kernel names lack
    ``[SIMDnn``; ``kernel_regex`` keeps matching kernels. ``ValueError`` on malformed files, a unit
    that does not convert, or an unknown SIMD width."""
    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not sources:
        raise ValueError("no unitrace file given")
    rows_map = load_metric_names(tool="unitrace") if metric_rows is None else metric_rows
    first = sources[0]
    meta = read_meta(first) if not (isinstance(first, str) and "\n" in first) else {}
    labels: dict[str, Any] = {"vendor": "intel", "tool": "unitrace", "tool_version": meta.get("tool_version"),
                              "dataset": meta.get("dataset"), "k": meta.get("k"),
                              "protocol": meta.get("protocol"), "device": meta.get("device")}
    for label, val in (("dataset", dataset), ("k", k), ("protocol", protocol), ("device", device)):
        if val is not None:
            labels[label] = val
    instances: dict[tuple[str, int], dict[str, float]] = {}
    order: list[tuple[str, int]] = []
    for src in sources:
        rows, units, kcol = read_raw(src)
        seen: dict[str, int] = {}
        for r in rows:
            kernel = r[kcol].strip()
            n = seen[kernel] = seen.get(kernel, -1) + 1
            key = (kernel, n)
            if key not in instances:
                instances[key] = {}
                order.append(key)
            q = instances[key]
            for _, m in rows_map.iterrows():
                name = str(m["metric"])
                if name not in r:
                    continue
                value = parse_number(r[name])
                if not math.isnan(value):  # the first file that has a quantity gives it
                    q.setdefault(str(m["quantity"]), convert(value, units.get(name, ""), str(m["unit"])))
    records = []
    nan = math.nan
    for launch, key in enumerate(order):
        kernel, _ = key
        if kernel_regex and not re.search(kernel_regex, kernel):
            continue
        q = instances[key]
        m = _SIMD.search(kernel)
        width = float(simd_width) if simd_width is not None else (float(m.group("width")) if m else nan)
        if math.isnan(width):
            raise ValueError(f"sub-group width unknown for {kernel!r}: pass simd_width (lassm counters parse --simd-width)")
        rec: dict[str, Any] = dict(labels)
        rec.update({"launch": launch, "kernel": kernel, "simd_width": width,
                    "duration_s": q.get("duration_s", nan),
                    "int_simd_inst": q.get("int32_simd_inst", nan) + q.get("int64_simd_inst", nan),
                    "warp_inst": sum(q.get(p, nan) for p in ("alu0_simd_inst", "alu1_simd_inst", "xmx_simd_inst",
                                                              "send_simd_inst", "control_simd_inst")),
                    "dram_read_bytes": q.get("dram_read_bytes", nan), "dram_write_bytes": q.get("dram_write_bytes", nan),
                    "l2_bytes": q.get("l2_read_bytes", nan) + q.get("l2_write_bytes", nan),
                    "cycles": q.get("cycles", nan)})
        records.append(fill_derived(rec))
    return tidy_frame(records)


__all__ = ["build_command", "parse", "read_raw"]

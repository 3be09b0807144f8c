# SPDX-License-Identifier: BSD-3-Clause
"""AMD rocprof (v1, ``results.csv``) and rocprofv3 (``*_counter_collection.csv``) -> tidy table.

Counters (gfx90a names, the paper's Appendix B): ``int_simd_inst = SQ_INSTS_VALU_INT32 +
SQ_INSTS_VALU_INT64`` per wavefront, ``int_simd_ops = wave_size * int_simd_inst`` (every lane
assumed active); ``SQ_INSTS_SALU`` kept apart; HBM bytes from the 32- or 64-byte TCC-EA requests::

      read  = 64 (TCC_EA_RDREQ - TCC_EA_RDREQ_32B) + 32 TCC_EA_RDREQ_32B
      write = 64 TCC_EA_WRREQ_64B + 32 (TCC_EA_WRREQ - TCC_EA_WRREQ_64B)

v1 files have one row per dispatch (``TCC_*_sum`` columns, ``wave_size``, ``DurationNs`` or
``BeginNs``/``EndNs``); v3 files one row per counter per dispatch, passes merged by
``Dispatch_Id``. The header tells them apart."""
from __future__ import annotations

import csv
import io
import math
import os
from pathlib import Path
from typing import Any, Sequence

from .complete import refuse_partial_dispatches
from .tidy import fill_derived, load_metric_names, parse_number, read_meta, tidy_frame

#: Bytes of a small and a large TCC-EA request (the sizes in the counter names ``_32B``, ``_64B``).
SMALL_REQUEST_BYTES = 32
LARGE_REQUEST_BYTES = 64
#: The paper's two counter passes (Appendix B), rocprofv3 names.
PASSES_V3: tuple[tuple[str, ...], ...] = (
    ("SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64", "SQ_INSTS_SALU"),
    ("TCC_EA_RDREQ", "TCC_EA_RDREQ_32B", "TCC_EA_WRREQ", "TCC_EA_WRREQ_64B"),
)


def input_text(version: str = "v3") -> str:
    """The counter input file (``pmc:`` lines, one pass each) for ``rocprof -i`` / ``rocprofv3 -i``;
    ``version="v1"`` names the L2 sums ``TCC_EA_*_sum``."""
    lines = []
    for group in PASSES_V3:
        names = [n + "_sum" if (version == "v1" and n.startswith("TCC_")) else n for n in group]
        lines.append("pmc: " + " ".join(names))
    return "\n".join(lines) + "\n"


def build_command(target: Sequence[str], *, input_file: str | os.PathLike, out_dir: str | os.PathLike,
                  name: str = "lassm", kernel_regex: str = "iterative_walks_kernel",
                  version: str = "v3", rocprof: str | None = None) -> list[str]:
    """The rocprof argument vector that collects :data:`PASSES_V3` for ``target``.

    ``input_file`` holds :func:`input_text`; output goes to ``out_dir`` (v3 ``-d``; v1 ``-o
    <name>.csv`` there). ``kernel_regex`` filters kernels in v3 (v1 profiles every dispatch)."""
    if not target:
        raise ValueError("no target command to profile")
    if version == "v3":
        return [rocprof or "rocprofv3", "-i", str(input_file), "--kernel-include-regex", kernel_regex,
                "--output-format", "csv", "-d", str(out_dir), "-o", name, "--", *map(str, target)]
    if version == "v1":
        return [rocprof or "rocprof", "--timestamp", "on", "-i", str(input_file), "-o",
                str(Path(out_dir) / f"{name}.csv"), *map(str, target)]
    raise ValueError(f"version must be 'v3' or 'v1', not {version!r}")


def _rows(path: str | os.PathLike) -> tuple[list[str], list[dict[str, str]]]:
    text = str(path) if isinstance(path, str) and "\n" in path else Path(path).read_text(errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        cells = next(csv.reader([line]))
        if ("Counter_Name" in cells and "Counter_Value" in cells) or ("KernelName" in cells and "Index" in cells):
            reader = csv.DictReader(io.StringIO("\n".join(lines[i:])))
            return list(reader.fieldnames or []), list(reader)
    raise ValueError("no rocprof header (KernelName/Index) or rocprofv3 header (Counter_Name/Counter_Value)")


def _quantities(counters: dict[str, float], rows) -> dict[str, float]:
    q: dict[str, float] = {}
    for _, m in rows.iterrows():
        name = str(m["metric"])
        if name in counters and not math.isnan(counters[name]):
            q[str(m["quantity"])] = counters[name]
    return q


def _record(q: dict[str, float], *, duration_ns: float, width: float | None) -> dict[str, Any]:
    nan = math.nan
    rec: dict[str, Any] = {"duration_s": duration_ns * 1e-9 if not math.isnan(duration_ns) else nan}
    if width is None or math.isnan(width):
        raise ValueError("wavefront width unknown: the file has no wave_size column; pass simd_width (lassm counters parse --simd-width)")
    rec["simd_width"] = width
    rec["int_simd_inst"] = q.get("int32_simd_inst", nan) + q.get("int64_simd_inst", nan)
    rec["scalar_int_inst"] = q.get("scalar_int_inst", nan)
    rd, rd32 = q.get("dram_read_req", nan), q.get("dram_read_req_32b", nan)
    wr, wr64 = q.get("dram_write_req", nan), q.get("dram_write_req_64b", nan)
    rec["dram_read_bytes"] = LARGE_REQUEST_BYTES * (rd - rd32) + SMALL_REQUEST_BYTES * rd32
    rec["dram_write_bytes"] = LARGE_REQUEST_BYTES * wr64 + SMALL_REQUEST_BYTES * (wr - wr64)
    for key in ("int_lane_ops", "warp_inst", "thread_inst", "l2_bytes", "l1_bytes", "global_ldst_inst",
                "global_ldst_sectors", "peak_int_lane_ops_per_s", "peak_warp_inst_per_s",
                "peak_dram_bytes_per_s", "cycles"):
        rec[key] = nan
    return fill_derived(rec)


def _in_file(path: str | os.PathLike, exc: Exception) -> ValueError:
    """``exc`` as a ValueError that starts with ``path`` (unless ``path`` is the CSV text itself), so
    that of several passes the one at fault is named; a missing column (KeyError) says which."""
    text = f"no {exc.args[0]!r} column" if isinstance(exc, KeyError) else str(exc)
    if isinstance(path, str) and "\n" in path:
        return ValueError(text)
    return ValueError(f"{path}: {text}")


def parse(paths: Sequence[str | os.PathLike] | str | os.PathLike, *, dataset: str | None = None,
          k: int | None = None, protocol: str | None = None, device: str | None = None,
          simd_width: int | None = None, kernel_regex: str | None = None, metric_rows=None):
    """Parses rocprof v1 or v3 CSV files (one v1 ``results.csv``, or one run's v3 files, one per pass)
    into the tidy table, one row per dispatch.

    Labels override the first file's ``.meta.json``; ``simd_width`` is used without a ``wave_size``
    column; ``kernel_regex`` keeps matching kernels (``re.search``). ``ValueError`` on malformed
    files, kernels differing between passes, or an unknown wavefront width."""
    import re

    plist = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not plist:
        raise ValueError("no rocprof file given")
    rows_map = load_metric_names(tool="rocprof") if metric_rows is None else metric_rows
    first = plist[0]
    is_file = not (isinstance(first, str) and "\n" in first)
    meta = read_meta(first) if is_file else {}
    labels: dict[str, Any] = {"vendor": "amd", "tool_version": meta.get("tool_version"),
                              "dataset": meta.get("dataset"), "k": meta.get("k"),
                              "protocol": meta.get("protocol"), "device": meta.get("device")}
    for key, val in (("dataset", dataset), ("k", k), ("protocol", protocol), ("device", device)):
        if val is not None:
            labels[key] = val
    dispatches: dict[int, dict[str, Any]] = {}
    source_of: dict[tuple[int, str], int] = {}
    tool = "rocprof"
    for index, path in enumerate(plist):
        try:
            header, rows = _rows(path)
            if "Counter_Name" in header:
                tool = "rocprofv3"
                for r in rows:
                    if not (r.get("Dispatch_Id") or r.get("Correlation_Id")):
                        raise KeyError("Dispatch_Id")
                    did = int(parse_number(r.get("Dispatch_Id") or r.get("Correlation_Id")))
                    d = dispatches.setdefault(did, {"kernel": r["Kernel_Name"], "counters": {}, "duration_ns": math.nan,
                                                    "width": math.nan})
                    if d["kernel"] != r["Kernel_Name"]:
                        raise ValueError(f"dispatch {did}: kernel {r['Kernel_Name']!r} in one pass, {d['kernel']!r} in another")
                    name = r["Counter_Name"].strip()
                    if source_of.setdefault((did, name), index) != index:
                        raise ValueError(f"dispatch {did}: counter {name} appears in two files, this and "
                                         f"{plist[source_of[(did, name)]]} (the same pass twice?)")
                    d["counters"][name] = d["counters"].get(name, 0.0) + parse_number(r["Counter_Value"])
                    if math.isnan(d["duration_ns"]):
                        d["duration_ns"] = parse_number(r["End_Timestamp"]) - parse_number(r["Start_Timestamp"])
            else:
                for r in rows:
                    did = int(parse_number(r["Index"]))
                    d = dispatches.setdefault(did, {"kernel": r["KernelName"], "counters": {}, "duration_ns": math.nan,
                                                    "width": math.nan})
                    for c in header:
                        if c.startswith(("SQ_", "TCC_", "TA_", "TD_", "GRBM_")):
                            d["counters"][c] = parse_number(r[c])
                    if r.get("DurationNs") not in (None, ""):
                        d["duration_ns"] = parse_number(r["DurationNs"])
                    elif r.get("EndNs") not in (None, "") and r.get("BeginNs") not in (None, ""):
                        d["duration_ns"] = parse_number(r["EndNs"]) - parse_number(r["BeginNs"])
                    if r.get("wave_size") not in (None, ""):
                        d["width"] = parse_number(r["wave_size"])
        except (ValueError, KeyError) as exc:  # of several passes, the one at fault
            raise _in_file(path, exc) from None
    if tool == "rocprofv3":
        refuse_partial_dispatches(dispatches)
    records = []
    for did in sorted(dispatches):
        d = dispatches[did]
        kernel = str(d["kernel"]).strip()
        if kernel_regex and not re.search(kernel_regex, kernel):
            continue
        width = float(simd_width) if simd_width is not None else d["width"]
        rec = _record(_quantities(d["counters"], rows_map), duration_ns=d["duration_ns"], width=width)
        rec.update(labels)
        rec.update({"tool": tool, "launch": did, "kernel": kernel})
        records.append(rec)
    return tidy_frame(records)


__all__ = ["LARGE_REQUEST_BYTES", "PASSES_V3", "SMALL_REQUEST_BYTES", "build_command", "input_text", "parse"]

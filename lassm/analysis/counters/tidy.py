# SPDX-License-Identifier: BSD-3-Clause
"""Hardware counters: the tidy table every profiler's parser produces, and the helpers they share.

The pipeline (Ding's and NERSC's roofline scripts): **collect** runs a backend under a profiler
and writes its CSV ``<name>.csv``, with ``<name>.csv.version.txt`` (the profiler's ``--version``)
and ``<name>.csv.meta.json`` (dataset, k, protocol, device, command) beside it; **parse**
(:mod:`.ncu`, :mod:`.rocprof`, :mod:`.unitrace`) turns the CSV into the table below, selecting
columns by name through ``data/metric-names.csv``; :func:`aggregate` sums a point's launches.

Integer work is counted two ways (the paper's NVIDIA column uses the first, AMD and Intel the
second): ``int_lane_ops``, predicate-aware lanes (NVIDIA only), and ``int_simd_ops =
int_simd_inst * simd_width``, every lane assumed active. Where most lanes idle the second
overstates the first by 1 / :func:`lassm.analysis.metrics.predication_ratio`.

=========================  =========  ==================================================
column                     unit       meaning
=========================  =========  ==================================================
vendor, tool, tool_version            who measured (``nvidia``/``amd``/``intel``, ``ncu``...)
device                                device name as the profiler reported it
dataset, k, protocol                  the run's labels (from the ``.meta.json`` sidecar)
launch                                launch index within the raw file
kernel                                kernel name
simd_width                 lanes      warp / wavefront / sub-group width
duration_s                 s          kernel duration
int_lane_ops               ops        integer ops, predicate-aware lanes (NVIDIA only)
int_simd_inst              inst       integer SIMD instructions (warp-, wave-, sub-group-level)
int_simd_ops               ops        ``int_simd_inst * simd_width``
scalar_int_inst            inst       scalar integer instructions (AMD SALU)
warp_inst                  inst       all SIMD-level instructions executed
thread_inst                inst       all thread-level (predicate-aware) instructions
dram_read_bytes            B          HBM bytes read
dram_write_bytes           B          HBM bytes written
dram_bytes                 B          read + write
l2_bytes                   B          bytes through the L2 (Intel: the "L3" counters)
l1_bytes                   B          bytes through L1/TEX
global_ldst_inst           inst       warp-level global load + store instructions
global_ldst_sectors        sectors    global load + store sectors (transactions)
peak_int_lane_ops_per_s    ops/s      profiler's sustained integer lane peak
peak_warp_inst_per_s       inst/s     profiler's sustained warp-instruction issue peak
peak_dram_bytes_per_s      B/s        profiler's sustained DRAM bandwidth peak
cycles                     cycle      elapsed cycles (``gpc__cycles_elapsed.max``)
=========================  =========  ==================================================

A quantity a tool does not measure is NaN, never 0 (0 would read as "measured, none")."""
from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any, Iterable

from ...datafiles import data_csv, read_data_csv
from ...errors import LassmError
from ...readback import json_object, sha256

#: Label columns of the tidy counter table, in order.
ID_COLUMNS: tuple[str, ...] = ("vendor", "tool", "tool_version", "device", "dataset", "k", "protocol",
                               "launch", "kernel")
#: Quantity columns of the tidy counter table, in order (units in the module docstring).
QUANTITY_COLUMNS: tuple[str, ...] = (
    "simd_width", "duration_s", "int_lane_ops", "int_simd_inst", "int_simd_ops", "scalar_int_inst",
    "warp_inst", "thread_inst", "dram_read_bytes", "dram_write_bytes", "dram_bytes", "l2_bytes",
    "l1_bytes", "global_ldst_inst", "global_ldst_sectors", "peak_int_lane_ops_per_s",
    "peak_warp_inst_per_s", "peak_dram_bytes_per_s", "cycles",
)
#: Every column of the tidy counter table, in order.
COUNTER_COLUMNS: tuple[str, ...] = ID_COLUMNS + QUANTITY_COLUMNS
#: Quantities that are rates or properties of the device: a point keeps their largest value
#: instead of summing them over launches.
PEAK_COLUMNS: tuple[str, ...] = ("simd_width", "peak_int_lane_ops_per_s", "peak_warp_inst_per_s",
                                 "peak_dram_bytes_per_s")
#: The labels one (dataset, k, protocol) point is aggregated by.
POINT_KEYS: tuple[str, ...] = ("vendor", "tool", "tool_version", "device", "dataset", "k", "protocol")
#: Profilers :func:`parse` understands.
TOOLS: tuple[str, ...] = ("ncu", "rocprof", "unitrace")

_SI_PREFIX: dict[str, float] = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "K": 1e3, "k": 1e3,
                                "M": 1e6, "G": 1e9, "T": 1e12}
_BASE_UNITS: tuple[str, ...] = ("second", "byte", "inst", "cycle", "hz", "sector", "request",
                                "event", "thread", "warp", "op", "lane")
#: Units that all count things (instructions, events, requests...): one base, "count".
_COUNT_UNITS: frozenset[str] = frozenset({"inst", "event", "op", "request", "sector", "thread", "warp", "lane"})
_ALIASES: dict[str, str] = {"s": "second", "ns": "nsecond", "us": "usecond", "ms": "msecond",
                            "bytes": "byte", "cycles": "cycle", "events": "event", "insts": "inst",
                            "sectors": "sector", "requests": "request", "ops": "op",
                            "mhz": "Mhz", "ghz": "Ghz", "khz": "Khz", "b": "byte"}
_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d*)(\.\d*)?([eE][+-]?\d+)?$")


def load_metric_names(tool: str | None = None, vendor: str | None = None):
    """The metric-name map ``data/metric-names.csv`` (profiler metric -> canonical quantity),
    optionally only one ``tool``'s or ``vendor``'s rows. Columns ``vendor, tool, tool_version_min,
    metric, quantity, unit, aggregate, note``."""
    df = read_data_csv(data_csv("metric-names.csv"))
    need = ["vendor", "tool", "tool_version_min", "metric", "quantity", "unit", "aggregate"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ValueError(f"metric-names.csv lacks the columns {missing}")
    if tool is not None:
        df = df[df["tool"] == tool]
    if vendor is not None:
        df = df[df["vendor"] == vendor]
    return df.reset_index(drop=True)


def parse_number(text: Any) -> float:
    """One profiler CSV cell as a float: thousands separators allowed, ``n/a`` and blanks -> NaN;
    ``ValueError`` for other text."""
    if text is None:
        return math.nan
    if isinstance(text, (int, float)):
        return float(text)
    s = str(text).strip().strip('"').strip()
    if s in ("", "n/a", "N/A", "nan", "NaN", "-"):
        return math.nan
    if not _NUMBER.match(s) or s in (".", "+", "-"):
        raise ValueError(f"not a number: {text!r}")
    return float(s.replace(",", ""))


def _unit_factor(unit: str) -> tuple[str, float]:
    """(base unit, factor to that base) of one unit such as ``nsecond``, ``Mbyte`` or ``inst/cycle``."""
    u = str(unit).strip()
    if u in ("", "%", "none", "ratio"):
        return ("1", 1.0)
    if "/" in u:
        num, den = u.split("/", 1)
        bn, fn = _unit_factor(num)
        bd, fd = _unit_factor(den)
        if bd == "second" and bn == "cycle":
            return ("hz", fn / fd)
        return (f"{bn}/{bd}", fn / fd)
    u = _ALIASES.get(u, _ALIASES.get(u.lower(), u))
    for base in _BASE_UNITS:
        for cand in (u, u.lower()):
            if cand.endswith(base):
                prefix = u[: len(u) - len(base)]
                if prefix in _SI_PREFIX:
                    return ("count" if base in _COUNT_UNITS else base, _SI_PREFIX[prefix])
    raise ValueError(f"unknown unit {unit!r}")


def convert(value: float, unit: str, to_unit: str) -> float:
    """Converts ``value`` from the profiler's ``unit`` (``nsecond``, ``Kbyte``, ``cycle/nsecond``...)
    to the quantity's ``to_unit``; ``ValueError`` when the two are of different kinds."""
    if unit is None or str(unit).strip() == "" or str(unit) == str(to_unit):
        return value
    b1, f1 = _unit_factor(unit)
    b2, f2 = _unit_factor(to_unit)
    if b1 != b2:
        raise ValueError(f"cannot convert {unit!r} to {to_unit!r}")
    return value * f1 / f2


def tidy_frame(records: Iterable[dict]):
    """A tidy counter table from per-launch dicts: exactly :data:`COUNTER_COLUMNS`, in order, absent
    ones NaN/None, quantities float64."""
    import pandas as pd

    rows = [{c: r.get(c) for c in COUNTER_COLUMNS} for r in records]
    df = pd.DataFrame(rows, columns=list(COUNTER_COLUMNS))
    for c in QUANTITY_COLUMNS:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    df["launch"] = pd.to_numeric(df["launch"], errors="coerce").astype("Int64")
    df["k"] = pd.to_numeric(df["k"], errors="coerce").astype("Int64")
    return df


def fill_derived(rec: dict) -> dict:
    """Fills ``dram_bytes`` (read + write) and ``int_simd_ops`` (``int_simd_inst * simd_width``) of one
    launch record where their parts are known; modifies ``rec`` in place and returns it."""
    def known(x: Any) -> bool:
        return x is not None and not (isinstance(x, float) and math.isnan(x))

    if not known(rec.get("dram_bytes")) and known(rec.get("dram_read_bytes")) and known(rec.get("dram_write_bytes")):
        rec["dram_bytes"] = rec["dram_read_bytes"] + rec["dram_write_bytes"]
    if not known(rec.get("int_simd_ops")) and known(rec.get("int_simd_inst")) and known(rec.get("simd_width")):
        rec["int_simd_ops"] = rec["int_simd_inst"] * rec["simd_width"]
    return rec


def aggregate(df):
    """Sums the launches of each (dataset, k, protocol) point of a tidy counter table.

    Counts and durations are summed; :data:`PEAK_COLUMNS` keep their largest value; ``launches``
    counts the rows and ``kernel`` joins the distinct names. A quantity NaN in any launch is NaN for
    the point, since a partial sum would pass for a whole one. Returns one row per point
    (:data:`POINT_KEYS`, ``launches``, ``kernel``, quantities); ``df`` is left unchanged;
    ``ValueError`` when tidy columns are missing."""
    import pandas as pd

    missing = [c for c in COUNTER_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not a tidy counter table: missing {missing}")
    work = df.copy()
    for key in POINT_KEYS:
        work[key] = work[key].astype("object").where(work[key].notna(), "")
    rows = []
    for key, grp in work.groupby(list(POINT_KEYS), sort=True, dropna=False):
        row: dict[str, Any] = dict(zip(POINT_KEYS, key))
        row["launches"] = len(grp)
        row["kernel"] = ";".join(sorted({str(x) for x in grp["kernel"].dropna()}))
        for c in QUANTITY_COLUMNS:
            col = grp[c].astype("float64")
            if col.isna().any():
                row[c] = math.nan
            elif c in PEAK_COLUMNS:
                row[c] = float(col.max())
            else:
                row[c] = float(col.sum())
        rows.append(row)
    out = pd.DataFrame(rows, columns=list(POINT_KEYS) + ["launches", "kernel"] + list(QUANTITY_COLUMNS))
    for key in POINT_KEYS:
        out[key] = out[key].astype("object").where(out[key] != "", None)
    out["k"] = pd.to_numeric(out["k"], errors="coerce").astype("Int64")
    return out


def sidecar_paths(raw: str | os.PathLike) -> tuple[Path, Path]:
    """``(<raw>.version.txt, <raw>.meta.json)``, the files written beside a raw profiler CSV."""
    raw = Path(raw)
    return raw.with_name(raw.name + ".version.txt"), raw.with_name(raw.name + ".meta.json")


def write_sidecars(raw: str | Path, version_text: str, meta: dict, launches: int | None = None) -> None:
    """Writes the profiler's ``--version`` text and the run's labels ``meta`` beside a raw CSV.

    ``git_sha`` is added to ``meta`` unless given. With ``launches``, that count and the CSV's
    SHA-256 are recorded, so that a copy cut at a line end, or changed, is refused when parsed
    (:func:`lassm.analysis.counters.refuse_unlike_record`)."""
    from ...atomic import atomic_open
    from ...runs.records import git_sha


    meta = {"git_sha": git_sha(), **meta, "raw_sha256": sha256(raw)}  # git_sha: the tree the counted kernel was built from
    if launches is not None:
        meta["launches"] = int(launches)
    vpath, mpath = sidecar_paths(raw)
    with atomic_open(vpath) as fh:
        fh.write(version_text if version_text.endswith("\n") else version_text + "\n")
    with atomic_open(mpath) as fh:
        json.dump(meta, fh, indent=2, sort_keys=True)
        fh.write("\n")


#: The sidecar's labels that are text, each checked as such before it labels a launch.
_TEXT_LABELS = ("dataset", "protocol", "device", "tool_version", "vendor", "tool", "kernel_name", "raw_file")


def read_meta(raw: str | os.PathLike) -> dict:
    """The labels in ``raw``'s ``.meta.json`` sidecar, or ``{}`` without one; one-line error naming it
    where it is no JSON object or a label has the wrong type."""
    _, mpath = sidecar_paths(raw)
    if not mpath.exists():
        return {}
    meta = json_object(mpath, "sidecar of labels")
    for key in _TEXT_LABELS:
        if meta.get(key) is not None and not isinstance(meta[key], str):
            raise LassmError(f"{mpath}: {key}: {meta[key]!r} is no label (text)")
    k = meta.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 0):  # 0: the suite's kernels, no k
        raise LassmError(f"{mpath}: k: {k!r} is no k (a whole number, 0 or more)")
    return meta


__all__ = ["COUNTER_COLUMNS", "ID_COLUMNS", "QUANTITY_COLUMNS", "PEAK_COLUMNS", "POINT_KEYS", "TOOLS",
           "aggregate", "convert", "load_metric_names", "parse_number", "read_data_csv", "read_meta",
           "sidecar_paths", "tidy_frame", "write_sidecars"]

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm paper tables``: the command line of :mod:`lassm.analysis.paper`."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ..analysis.paper import percent, tables
from ..analysis.paper_data import platforms
from ..errors import LassmError


def _print_tables(data: dict[str, Any]) -> None:
    from rich.table import Table

    from ..terminal import console as rich_console

    console = rich_console()
    plats = platforms()

    t = Table(title="Table VI recomputed: theoretical II per k (Eqs. 1-4)")
    for c in ("k", "INTOP_1+2", "B1+B2", "II", "paper II", "II (phases)", "csv AI"):
        t.add_column(c, justify="right")
    for r in data["table6"]:
        t.add_row(str(r["k"]), f"{r['ops_per_loop']:.0f}", f"{r['bytes_per_loop']:.0f}", f"{r['ii']:.3f}",
                  f"{r['published_ii']:.3f}", f"{r['ii_phases']:.3f}", f"{r['csv_ai']:.3f}")
    console.print(t)
    for key, title in (("table4_recomputed", "Table IV recomputed: architectural efficiency (P_arch)"),
                       ("table7_recomputed", "Table VII recomputed: algorithm efficiency (P_alg)")):
        t = Table(title=title)
        for c in ["k", *plats, "P", "paper P"]:
            t.add_column(c, justify="right")
        for r in data[key]:
            t.add_row(str(r["k"]), *[percent(r[p]) for p in plats], percent(r["P"]), percent(r["published_P"]))
        console.print(t)
    t = Table(title="Errata", show_lines=True)
    for c in ("what", "published", "recomputed"):
        t.add_column(c, overflow="fold")
    for e in data["errata"]:
        t.add_row(e["what"], e["published"], e["recomputed"] + (f"\n[dim]{e['note']}[/dim]" if e["note"] else ""))
    console.print(t)


def _cmd_tables(args: argparse.Namespace) -> int:
    try:
        data = tables(time_source=args.time_source)
    except (ValueError, KeyError) as exc:
        raise LassmError(f"paper tables: {exc}") from None
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        _print_tables(data)
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``lassm paper tables [--json]``; returns its parser."""
    p = subparsers.add_parser("paper", help="the paper's tables recomputed from its published data")
    sub = p.add_subparsers(dest="paper_command", required=True)
    t = sub.add_parser("tables", help="Tables IV-VII recomputed, with errata")
    t.add_argument("--json", action="store_true", help="print JSON (table6, table4_recomputed, ...)")
    t.add_argument("--time-source", dest="time_source", default="rate", choices=("rate", "kernel_time"),
                   help="kernel time from the published rate (default) or the rounded kernel_time")
    t.set_defaults(func=_cmd_tables)
    return p

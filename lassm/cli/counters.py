# SPDX-License-Identifier: BSD-3-Clause
"""``lassm counters collect | parse``: the command line of :mod:`lassm.analysis.counters`."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..analysis.counters import TOOLS, aggregate, parse
from ..errors import LassmError
from ..outputs import refuse_clashes
from . import args as t



def _cmd_collect(args: argparse.Namespace) -> int:
    from ..backends import check_protocol
    from ..analysis.counters import ncu

    if args.backend == "cpu":  # before its protocol: the default (casptr) is a GPU build's, never given by the user
        raise LassmError("--backend cpu: collect profiles a GPU kernel under Nsight Compute; the cpu backend has no "
                         "GPU counters (choose a GPU backend, e.g. --backend cuda)")
    check_protocol(args.backend, args.protocol)
    beside = str(Path(args.out).with_name(Path(args.out).name + ".extended.txt"))  # the run's own output
    refuse_clashes({"--out": args.out, "--out (its extended contigs)": beside}, [args.input])
    if args.tool != "ncu":
        raise LassmError(f"collect supports --tool ncu on this release; run {args.tool} by hand "
                         f"(see lassm.analysis.counters.{args.tool}.build_command) and use 'lassm counters parse'")
    with_out = Path(args.out)
    target = ncu.extend_command(args.input, k=args.k, protocol=args.protocol, backend=args.backend,
                                out=with_out.with_name(with_out.name + ".extended.txt"))
    raw = ncu.collect(target, with_out, dataset=args.dataset or Path(args.input).stem, k=args.k,
                      protocol=args.protocol, session=ncu.Session(args.kernel_name, args.ncu or "ncu", timeout=args.timeout))
    print(raw)
    return 0


def _cmd_parse(args: argparse.Namespace) -> int:
    from ..atomic import atomic_open

    labels: dict[str, Any] = {}
    for name in ("dataset", "k", "protocol", "device", "simd_width"):
        val = getattr(args, name, None)
        if val is not None:
            labels[name] = val
    try:
        df = parse(args.raw, args.tool, **labels)
    except ValueError as exc:
        raise LassmError(str(exc)) from None
    if args.aggregate:
        df = aggregate(df)
    if args.out:
        with atomic_open(args.out) as fh:
            df.to_csv(fh, index=False)
    else:
        print(df.to_csv(index=False), end="")
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``lassm counters collect|parse``; returns its parser."""
    p = subparsers.add_parser("counters", help="hardware counters: collect (profile) and parse (tidy table)")
    sub = p.add_subparsers(dest="counters_command", required=True)

    c = sub.add_parser("collect", help="run 'lassm extend' under a profiler, keep its raw CSV and version")
    c.add_argument("input", type=t.input_file, help="dataset (.dat or .parquet)")
    c.add_argument("--k", type=t.k_value, required=True, help="start k")
    c.add_argument("--protocol", type=t.protocol_name, default="casptr", help="GPU insert protocol (default %(default)s)")
    c.add_argument("--backend", type=t.backend_name, default="cuda", help="backend to profile (default %(default)s)")
    c.add_argument("--tool", default="ncu", choices=TOOLS, help="profiler (default %(default)s)")
    c.add_argument("--dataset", type=t.label, default=None, help="dataset label (default: the input's file stem)")
    c.add_argument("--kernel-name", type=t.label, default="iterative_walks_kernel", help="kernel to profile")
    c.add_argument("--ncu", type=t.program, default=None, help="ncu executable (default: ncu from PATH)")
    c.add_argument("--timeout", type=t.positive_real, default=None, help="seconds before the run is stopped")
    c.add_argument("--out", type=t.output_file, required=True,
                   help="raw CSV to write; .version.txt and .meta.json go beside it")
    c.set_defaults(func=_cmd_collect)

    q = sub.add_parser("parse", help="raw profiler CSV -> tidy counter table (one row per launch)")
    q.add_argument("raw", nargs="+", type=t.input_file, help="raw CSV file(s)")
    q.add_argument("--tool", required=True, choices=TOOLS)
    q.add_argument("--aggregate", action="store_true", help="one row per (dataset, k, protocol)")
    q.add_argument("--dataset", type=t.label, default=None)
    q.add_argument("--k", type=t.k_value, default=None)
    q.add_argument("--protocol", type=t.protocol_name, default=None)
    q.add_argument("--device", type=t.label, default=None)
    q.add_argument("--simd-width", dest="simd_width", type=t.lane_width, default=None,
                   help="warp/wavefront/sub-group width when the file does not say")
    q.add_argument("--out", type=t.output_file, default=None, help="CSV to write (default: stdout)")
    q.set_defaults(func=_cmd_parse)
    return p

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm metrics derive``: the command line of :mod:`lassm.analysis.derive`."""
from __future__ import annotations

import argparse

from . import args as t


def _cmd_derive(args: argparse.Namespace) -> int:
    import pandas as pd  # here, not at the top: the parser of every command imports this module

    from ..analysis.derive import write_metrics

    path = write_metrics(args.machine, args.out)
    df = pd.read_csv(path)
    cols = ["dataset", "k", "protocol", "ii", "gintops", "arch eff", "alg eff", "predication_ratio", "speedup"]
    print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"-> {path}")
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """``lassm metrics derive --machine NAME``."""
    p = subparsers.add_parser("metrics", help="the study's metrics from a machine's counters and ceilings")
    sub = p.add_subparsers(dest="metrics_command", required=True)
    d = sub.add_parser("derive", help="data/results/<machine>/counters + ceilings.json -> metrics.csv")
    d.add_argument("--machine", type=t.recorded_machine, required=True,
                   help="the name lassm run was given (slugged as run slugs it): a folder directly under data/results/")
    d.add_argument("--out", type=t.output_file, default=None, help="CSV to write (default: data/results/<machine>/metrics.csv)")
    # what it writes in the machine's folder it reads (the guard lets --out name these, no other file there)
    d.set_defaults(func=_cmd_derive, results_outputs=("metrics.csv", "metrics-*.csv"))

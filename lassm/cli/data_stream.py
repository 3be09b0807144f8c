# SPDX-License-Identifier: BSD-3-Clause
"""``lassm data write`` and ``lassm data shard``: the command line of
:mod:`lassm.workloads.local_assembly.stream` (large replicated inputs, written a block at a time)."""
from __future__ import annotations


from .. import stderr
from . import args as t


def add_stream_parsers(data_subparsers) -> None:
    """Adds ``lassm data write`` and ``lassm data shard`` to the ``data`` subparser group."""
    p = data_subparsers.add_parser(
        "write", help="write a named dataset (gen-k21x80, ...) as one file, a block of contigs at a time")
    p.add_argument("name", type=t.stream_name, help="a dataset name (any + x<N>) or a file")
    p.add_argument("--out", type=t.dataset_output, required=True, help=".parquet or .dat")
    p.add_argument("--k", type=t.k_value, default=None, help="start k (default: the name's)")
    p.set_defaults(func=cmd_write)
    p = data_subparsers.add_parser(
        "shard", help="write a named dataset as N parquet files of contiguous contigs, balanced by work")
    p.add_argument("name", type=t.shard_name, help="a dataset name (any + x<N>) or a file")
    p.add_argument("--shards", type=t.count, required=True, help="how many files (one per worker)")
    p.add_argument("--out", type=t.output_folder, required=True, help="the folder (part-NNNNN.parquet, weights.npy, shards.json)")
    p.add_argument("--k", type=t.k_value, default=None, help="start k (default: the name's)")
    p.set_defaults(func=cmd_shard)


def cmd_write(args) -> int:
    """``lassm data write``: :func:`stream.write`, then one line of what it wrote."""
    from ..workloads.local_assembly import stream

    out = stream.write(args.name, args.out, k=args.k)
    stderr.line(f"wrote {out['contigs']:,} contigs, {out['reads']:,} reads ({out['bytes'] / 1e6:,.0f} MB) in "
                f"{out['seconds']:.1f} s -> {args.out}")
    return 0


def cmd_shard(args) -> int:
    """``lassm data shard``: :func:`stream.write_shards`, then one line of what it wrote."""
    from ..workloads.local_assembly import stream

    doc = stream.write_shards(args.name, args.out, args.shards, k=args.k)
    stderr.line(f"wrote {doc['contigs']:,} contigs in {len(doc['shards'])} shard(s) "
                f"({sum(p['bytes'] for p in doc['shards']) / 1e6:,.0f} MB) in {doc['seconds']:.1f} s -> {args.out}")
    return 0

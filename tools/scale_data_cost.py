#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Time and peak memory of making the scaling study's inputs, the whole way and streamed.

Why: ``gen-k21x80`` is four times ``gen-k21x20``; writing it the whole way (``datasets.load``,
then ``formats.write_dataset``) holds the whole replicated set, where the streamed writers of
:mod:`lassm.workloads.local_assembly.stream` hold one block. Each measurement runs in a fresh
process (the base set already cached, as on a reader's second name), which reports its own wall
time and peak resident memory (``getrusage``'s ``ru_maxrss``: the high-water mark of the whole
process, the interpreter and its imports included).

Usage (repository root)::

    PYTHONPATH=$PWD python3 tools/scale_data_cost.py gen-k21x20 gen-k21x40 gen-k21x80 --shards 4
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from lassm.workloads.local_assembly import datasets, formats, stream
how, name, dest, shards = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t0 = time.perf_counter()
if how == "whole":
    formats.write_dataset(datasets.load(name)[0], dest)
elif how == "stream":
    stream.write(name, dest)
else:
    stream.write_shards(name, dest, shards)
print(json.dumps({"how": how, "name": name, "seconds": time.perf_counter() - t0,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def measure(how: str, name: str, folder: Path, shards: int) -> dict:
    """One fresh process making ``name`` the way ``how`` says; its figures."""
    dest = folder / (f"{name}-{how}" if how == "shards" else f"{name}-{how}.parquet")
    out = subprocess.run([sys.executable, "-c", CHILD, how, name, str(dest), str(shards)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+", help="dataset names (gen-k21x20 ...)")
    ap.add_argument("--shards", type=int, default=4, help="shard files of the sharded write")
    ap.add_argument("--ways", default="whole,stream,shards", help="comma list of whole, stream, shards")
    args = ap.parse_args()
    from lassm.workloads.local_assembly import datasets

    for name in args.names:  # the base set, generated and cached outside the measurements
        datasets.load(name.rsplit("x", 1)[0])
    rows = []
    with tempfile.TemporaryDirectory(prefix="lassm-scale-data-") as tmp:
        for name in args.names:
            for how in args.ways.split(","):
                row = measure(how, name, Path(tmp), args.shards)
                rows.append(row)
                print(f"{name:12s} {how:7s} {row['seconds']:7.2f} s  peak {row['peak_rss_bytes'] / 1e9:6.2f} GB",
                      flush=True)
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""A dataset's Table II figures, measured by running the kernel on it, and the real datasets'
publication with them; here in the runs stage because they run the kernel
(:mod:`lassm.workloads.local_assembly.stats` does the counting).
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

from ..atomic import atomic_open, atomic_path
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.formats import read_dataset
from ..workloads.local_assembly.real import DATA_DIR
from ..workloads.local_assembly.stats import table2_row
from .extend import extend


def dataset_stats(ds: Dataset, k: int, backend: str = "cpu", **params) -> dict:
    """Runs the kernel on ``ds`` at start ``k`` and returns its :func:`table2_row`."""
    ext = extend(ds, Params(k=k, **params), backend=backend)
    return table2_row(ds, ext)


#: The paper's Table II figures, in its column order (the keys of ``lassm.workloads.local_assembly.stats.PAPER_TABLE2``).
TABLE2_FIGURES = ("contigs", "reads", "avg_read_length", "hash_insertions", "avg_extension_length",
                  "total_extensions")


def table2_figures(path: str | os.PathLike, k: int, backend: str = "cpu") -> dict:
    """``lassm data stats PATH``'s figures for a dataset at start ``k`` (default walk limit and
    quality offset; every backend gives the same walks, so the same figures): Table II's six (``hash_insertions`` the kernel's exact count),
    plus ``hash_insertions_table2`` (the paper's definition, :mod:`lassm.workloads.local_assembly.stats`), ``all_contigs``
    (with reads or not), ``extended_bases`` and ``walk_steps``."""
    ds = read_dataset(path)
    row = dataset_stats(ds, int(k), backend=backend)
    return {**{f: row[f] for f in TABLE2_FIGURES}, "hash_insertions_table2": row["hash_insertions_table2"],
            "all_contigs": int(ds.n_contigs),
            "extended_bases": row["extended_bases"], "walk_steps": row["walk_steps"]}


def publish(out_dir: str | os.PathLike, data_dir: str | os.PathLike = DATA_DIR, dat_gz: bool = True) -> dict:
    """Copies a build's datasets into ``data_dir`` and records them in its ``provenance.json``.

    Copies every ``<label>-k<k>.parquet`` of ``out_dir`` (with ``dat_gz`` the ``.dat`` gzipped too)
    and sets the preset's entry to the build's provenance plus ``table2`` (:func:`table2_figures` per
    file) and ``files`` (name -> bytes); other presets' entries are kept. Returns the new entry."""
    out, data = Path(out_dir), Path(data_dir)
    prov = json.loads((out / "provenance.json").read_text())
    label = prov["preset"]
    data.mkdir(parents=True, exist_ok=True)
    table2 = {}
    for k in prov["k_list"]:
        base = f"real-{label}-k{k}"
        with atomic_path(data / f"{base}.parquet") as tmp:
            shutil.copyfile(out / f"{base}.parquet", tmp)
        if dat_gz:
            # The header names the final file (as gzip would), not the temporary written to.
            with atomic_path(data / f"{base}.dat.gz") as tmp, open(tmp, "wb") as raw, \
                    open(out / f"{base}.dat", "rb") as src, \
                    gzip.GzipFile(f"{base}.dat.gz", "wb", 9, raw, mtime=0) as dst:
                shutil.copyfileobj(src, dst)
        table2[str(k)] = table2_figures(data / f"{base}.parquet", k)
    files = {p.name: p.stat().st_size for p in sorted(data.glob(f"real-{label}-k*"))}
    target = data / "provenance.json"
    records = json.loads(target.read_text()) if target.exists() else {}
    records[label] = {**prov, "table2": table2, "files": files}
    with atomic_open(target) as fh:
        fh.write(json.dumps(records, indent=2) + "\n")
    return records[label]

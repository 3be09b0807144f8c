# SPDX-License-Identifier: BSD-3-Clause
"""The larger inputs' scaling records as the scaling chapter reads them: where each shard's time
goes, and weak scaling; from the per-shard lists (``files_shard_*``) of ``lassm extend DIR
--cluster`` records, which :mod:`.results` leaves out.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .. import paths

#: Weak scaling's steps: the work per GPU stays that of ``gen-k21x20`` on one GPU.
WEAK_STEPS: tuple[tuple[str, int], ...] = (("gen-k21x20", 1), ("gen-k21x40", 2), ("gen-k21x80", 4))

#: A shard's parts as the chapter names them, from its record's lists.
SHARD_PARTS = {"read_seconds": "files_shard_prep_seconds", "extend_seconds": "files_shard_wall_seconds",
               "kernel_seconds": "files_shard_kernel_seconds", "transfer_seconds": "files_shard_transfer_seconds",
               "write_seconds": "files_shard_write_seconds"}


def _summaries(machine: str, dataset: str) -> list[dict]:
    """The ``scaling__<dataset>__*__gpus<G>`` records of ``machine``, fewest GPUs first."""
    folder = paths.results_dir(machine)
    docs = [json.loads(p.read_text()) for p in sorted(Path(folder).glob(f"scaling__{dataset}__*__gpus*/summary.json"))
            if not p.parent.name.startswith(".")]
    return sorted(docs, key=lambda d: int(d["gpus"]))


def shard_breakdown(machine: str, dataset: str = "gen-k21x80") -> pd.DataFrame:
    """Each shard of each GPU count on the workers-write path, a row per shard (empty without records).

    ``read_seconds`` (waiting for its reads: the first piece whole, later ones what the work did not
    hide), ``extend_seconds``, ``kernel_seconds``, ``transfer_seconds`` (NaN where not recorded),
    ``other_seconds`` (extend less kernels and transfers), ``write_seconds``; per run, repeated on
    its rows, ``plan_seconds``, ``join_seconds`` and ``whole_seconds``."""
    rows = []
    for doc in _summaries(machine, dataset):
        if "files_shard_wall_seconds" not in doc:
            continue
        n = len(doc["files_shard_wall_seconds"])
        parts = {name: [math.nan if v is None else v for v in doc.get(key) or [None] * n]
                 for name, key in SHARD_PARTS.items()}
        bounds = doc.get("files_shard_bounds") or [[0, 0]] * n
        for i in range(n):
            row: dict[str, float] = {"gpus": int(doc["gpus"]), "shard": i, "contigs": int(bounds[i][1] - bounds[i][0])}
            row.update({name: float(vals[i]) for name, vals in parts.items()})
            row["other_seconds"] = (row["extend_seconds"] - row["kernel_seconds"]
                                    - (0.0 if math.isnan(row["transfer_seconds"]) else row["transfer_seconds"]))
            row.update(plan_seconds=float(doc["files_plan_seconds"]), join_seconds=float(doc["files_concat_seconds"]),
                       whole_seconds=float(doc["files_seconds"]))
            rows.append(row)
    return pd.DataFrame(rows)


def weak_scaling(machine: str, steps: tuple[tuple[str, int], ...] = WEAK_STEPS) -> pd.DataFrame:
    """The steps measured on ``machine``: ``dataset``, ``gpus``, ``seconds`` (the workers-write
    path, whole, the file included) and ``efficiency``, the first step's seconds over each one's
    (1.0 where the work per GPU costs the same at every count). Empty without the first step."""
    rows = []
    for dataset, gpus in steps:
        doc = next((d for d in _summaries(machine, dataset) if int(d["gpus"]) == gpus and "files_seconds" in d), None)
        if doc is not None:
            rows.append({"dataset": dataset, "gpus": gpus, "contigs": int(doc["contigs"]),
                         "seconds": float(doc["files_seconds"]),
                         "equal_to_single_process": bool(doc.get("files_matches_single_process", False))})
    if not rows or (rows[0]["dataset"], rows[0]["gpus"]) != steps[0]:
        return pd.DataFrame(columns=["dataset", "gpus", "contigs", "seconds", "equal_to_single_process", "efficiency"])
    table = pd.DataFrame(rows)
    table["efficiency"] = table["seconds"].iloc[0] / table["seconds"]
    return table


def scale_out_sentence(machine: str, dataset: str = "gen-k21x80") -> str:
    """The chapter's sentence on ``dataset``'s strong scaling and on weak scaling, from the records."""
    docs = [d for d in _summaries(machine, dataset) if "files_seconds" in d]
    one = next((d for d in docs if int(d["gpus"]) == 1), None)
    if one is None or len(docs) < 2:
        return f"No strong-scaling run of {dataset} on one GPU and on more was measured on this node."
    top = docs[-1]
    equal = all(d.get("files_matches_single_process") for d in docs)
    text = (f"On {dataset} ({int(one['contigs']):,} contigs) the path of lassm extend DIR --cluster takes "
            f"{float(one['files_seconds']):.2f} s on one GPU and {float(top['files_seconds']):.2f} s on "
            f"{int(top['gpus'])}, the file included: {float(one['files_seconds']) / float(top['files_seconds']):.2f} "
            f"times as fast; every output is {'equal' if equal else 'NOT equal'} to the single-process file.")
    weak = weak_scaling(machine)
    if len(weak) > 1:
        last = weak.iloc[-1]
        text += (f" With the work per GPU held at {weak['dataset'].iloc[0]}'s, {last['dataset']} on {int(last['gpus'])} "
                 f"GPUs keeps {float(last['efficiency']):.2f} of one GPU's time (weak-scaling efficiency).")
    return text

# SPDX-License-Identifier: BSD-3-Clause
"""Before ``lassm run`` times the hip backend on an AMD GPU: its output on the sample, checked
against hip-cpu's.

hip-cpu runs the same HIP sources at the same wavefront on the CPU and equals the oracle, so a
difference from it points at the GPU's side of the HIP code. Each build is run on MetaHipMer's
sample on both; the run stops before timing anything when they differ, naming build and contigs.
The record ``hip-check.json`` (device, wavefront, sources digest, HIP-CPU commit, each build's
result) lets a later run with the same device, wavefront and sources go on at once. A build
hip-cpu cannot run at that wavefront is recorded as not checked; without hip-cpu on the machine
the check is skipped and the run says why.
"""
from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import atomic_open
from ..errors import LassmError
from ..workloads.local_assembly.config import Params
from ..workloads.local_assembly.dataset import Dataset
from ..workloads.local_assembly.result import Extension

#: The dataset the builds are checked on: MetaHipMer's own sample (3296 contigs, k = 77).
DATASET = "sample-k77"
#: The record's file in the machine's results folder.
CHECK_FILE = "hip-check.json"

Runner = Callable[..., Extension]


def differences(hip: Extension, reference: Extension) -> list[str]:
    """What differs between two extensions of one dataset: each walk field that differs, and the
    walks' bases where those agree (:meth:`Extension.compare`, the test every backend passes against
    the oracle); empty when the two are the same, bit for bit. Extensions of different contigs are
    one difference, named, not compared."""
    if not np.array_equal(hip.dataset.cids, reference.dataset.cids):
        return [f"not the same contigs ({hip.dataset.n_contigs} and {reference.dataset.n_contigs})"]
    return hip.compare(reference)


def key(device: str, wavefront: int, dataset: str = DATASET) -> dict[str, Any]:
    """What a record's results hold for: the device, its wavefront, the dataset, the kernels'
    sources (:func:`lassm.backends.nvrtc.sources_digest`) and HIP-CPU's pinned commit."""
    from ..backends.hip_cpu_build import HIP_CPU
    from ..backends.nvrtc import sources_digest

    return {"device": device, "wavefront": int(wavefront), "dataset": dataset, "kernels": sources_digest(),
            "hip_cpu": HIP_CPU.label}


def read(folder: Path) -> dict | None:
    """The record in ``folder``, or None where there is none or it cannot be read."""
    try:
        data = json.loads((folder / CHECK_FILE).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def passed_before(record: dict | None, want: dict[str, Any], protocols: Sequence[str]) -> bool:
    """Whether ``record`` is for ``want`` (:func:`key`) and every one of ``protocols`` passed or
    could not be checked there: a build that differed is checked again."""
    if record is None or any(record.get(k) != v for k, v in want.items()):
        return False
    results = record.get("protocols") or {}
    return all((results.get(p) or {}).get("status") in ("same", "not checked") for p in protocols)


def check(protocols: Sequence[str], wavefront: int, *, data: tuple[Dataset, int] | None = None,
          run: Runner | None = None, say: Callable[[str], None] = print) -> dict[str, dict]:
    """Each build's output on hip and on hip-cpu at ``wavefront``: ``{protocol: {"status": "same" |
    "differs" | "not checked", ...}}``; ``data`` is (dataset, start k), default :data:`DATASET`;
    ``run`` is :func:`lassm.extend` or a stand-in; ``say`` gets one line per build."""
    from ..backends import hip_cpu
    from ..workloads.local_assembly import datasets

    if run is None:
        from .extend import extend

        run = extend
    ds, k = data if data is not None else datasets.load(DATASET)
    params = Params(k=k)
    out: dict[str, dict] = {}
    for protocol in protocols:
        why = hip_cpu.refused(protocol, wavefront)
        if why:
            out[protocol] = {"status": "not checked", "why": f"hip-cpu cannot run it at wavefront {wavefront}: {why}"}
            say(f"hip check: {protocol}: not checked ({out[protocol]['why']})")
            continue
        gpu = run(ds, params, backend="hip", protocol=protocol)
        ref = run(ds, params, backend="hip-cpu", protocol=protocol, warp_size=wavefront)
        diffs = differences(gpu, ref)
        out[protocol] = {"status": "differs" if diffs else "same", "differences": diffs,
                         "contigs": int(ds.n_contigs)}
        say(f"hip check: {protocol}: {'differs: ' + '; '.join(diffs) if diffs else 'the same as hip-cpu'}")
    return out


def before_timing(protocols: Sequence[str], folder: Path, device: str, wavefront: int, *,
                  data: tuple[Dataset, int] | None = None, run: Runner | None = None,
                  say: Callable[[str], None] = print) -> dict | None:
    """``lassm run``'s check of hip against hip-cpu before the first point is timed: returns the record
    made or found, or None where hip-cpu cannot run here. Raises LassmError when a build differs
    (the record is written first)."""
    from ..backends import hip_cpu_build

    ok, why = hip_cpu_build.available()
    if not ok:
        say(f"hip check: not made, hip-cpu cannot run here ({why}); each point is still checked against the "
            f"CPU oracle")
        return None
    want = key(device, wavefront, DATASET if data is None else data[0].name or "a dataset")
    prior = read(folder)
    if prior is not None and passed_before(prior, want, protocols):
        say(f"hip check: passed before ({folder / CHECK_FILE}, {prior.get('created', '?')})")
        return prior
    todo = [p for p in protocols if not passed_before(prior, want, (p,))]  # a build that passed is not run again
    say(f"hip check: {', '.join(todo)} on {want['dataset']}, {device} against hip-cpu at wavefront {wavefront}")
    results = check(todo, wavefront, data=data, run=run, say=say)
    kept = (prior or {}).get("protocols") if passed_before(prior, want, ()) else {}
    record = {**want, "protocols": {**(kept or {}), **results},
              "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    with atomic_open(folder / CHECK_FILE) as fh:
        fh.write(json.dumps(record, indent=1) + "\n")
    bad = [p for p, r in results.items() if r["status"] == "differs"]
    if bad:
        detail = "; ".join(f"{p}: {', '.join(results[p]['differences'][:3])}" for p in bad)
        raise LassmError(f"hip check: on {want['dataset']}, hip's output on {device} differs from hip-cpu's at "
                         f"wavefront {wavefront} for {', '.join(bad)} ({detail}); nothing was timed "
                         f"(record: {folder / CHECK_FILE})")
    return record


def plan_line(protocols: Sequence[str], wavefront: int | None) -> str:
    """The dry run's line on the check: what it will compare, or why it will not be made."""
    from ..backends import hip_cpu, hip_cpu_build

    ok, why = hip_cpu_build.available()
    if not ok:
        return f"hip check: not made here, hip-cpu cannot run ({why})"
    if not wavefront:
        return "hip check: the device's wavefront is unknown here; it is read when the run starts"
    unchecked = [p for p in protocols if hip_cpu.refused(p, wavefront)]
    rest = [p for p in protocols if p not in unchecked]
    tail = f"; {', '.join(unchecked)} not (hip-cpu cannot run it at wavefront {wavefront})" if unchecked else ""
    return (f"hip check: before the first point is timed, {', '.join(rest)} on {DATASET} against hip-cpu at "
            f"wavefront {wavefront}, once per device and kernel sources ({CHECK_FILE}){tail}")


__all__ = ["CHECK_FILE", "DATASET", "before_timing", "check", "differences", "key", "passed_before", "plan_line",
           "read"]

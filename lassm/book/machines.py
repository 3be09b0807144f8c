# SPDX-License-Identifier: BSD-3-Clause
"""The measured machines: which folders under ``data/results/`` hold records, what each holds.

A folder may be complete (records with repeats, counters, ceilings, ``metrics.csv``,
``campaign.json``) or partial (recorded by hand, or the CPU oracle only). This module says what a
folder has and lacks in plain lines, so that its generated chapter (``notebooks/machine.ipynb``
per folder, :func:`write_chapters`) shows what there is instead of failing.
``python -m lassm.book.machines`` writes the chapters (``make html`` and ``make book`` run it)."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pandas as pd

from .. import paths
from ..errors import LassmError
from ..runs.account import PART_ACCOUNTS, latest, measured_by, read_entries
from .prose import reader_words

#: Run ids of records that are not points of the study (``lassm scale``); their chapter is the
#: scaling one.
SCALING_PREFIX = "scaling__"
#: The backend whose records are the oracle every other backend is checked against.
ORACLE = "cpu"
#: Where the generated chapters go, relative to the book's root (a glob of ``_toc.yml``).
CHAPTERS = "machines"
#: The notebook every machine chapter is executed from.
TEMPLATE = "notebooks/machine.ipynb"
#: The word of the template's markdown that becomes the machine's folder name.
TITLE_PLACEHOLDER = "MACHINE"
#: Written in the template's figure captions where the chapter's device name goes.
DEVICE_PLACEHOLDER = "DEVICE"


def chapter_titles(names: list[str]) -> dict[str, str]:
    """Each folder's chapter title: its device's name ("NVIDIA H200"), a second host's id ("NVIDIA
    H200, host 2fdb70f9", :mod:`lassm.runs.host`), and the folder where two still share a name, so
    no two chapters share a title."""
    from ..runs.host import host_suffix

    labels = {name: " ".join(device_label(device(name)).replace("(R)", "").replace("(TM)", "").split())
              + (f", host {host_suffix(name)}" if host_suffix(name) else "") for name in names}
    seen = pd.Series(list(labels.values())).value_counts()
    return {name: (f"{label} ({name})" if seen[label] > 1 else label) for name, label in labels.items()}
#: The campaign's account of a machine folder (:mod:`lassm.runs.account`).
CAMPAIGN_FILE = PART_ACCOUNTS["local-assembly"]


def results_root() -> Path:
    """``data/results/`` (or ``LASSM_RESULTS``): the folder of every machine folder."""
    return paths.results_dir("_").parent


def _summaries(machine: str) -> list[Path]:
    folder = paths.results_dir(machine)
    return sorted(p for p in folder.glob("*/summary.json")
                  if not p.parent.name.startswith(".") and not p.parent.name.startswith(SCALING_PREFIX))


def chapter_machines() -> list[str]:
    """Sorted folders under the results root that hold study run records (not only scaling runs); each
    gets a machine chapter."""
    root = results_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith((".", "_")) and _summaries(p.name))


def campaign_entries(machine: str) -> list[dict]:
    """Every run's account in ``campaign.json`` of ``machine``, oldest first (``[]`` without one)."""
    return read_entries(paths.results_dir(machine) / CAMPAIGN_FILE)


def campaign(machine: str) -> dict | None:
    """The newest account in ``campaign.json`` of ``machine`` (its last ``lassm run``), or None."""
    return latest(campaign_entries(machine))


def campaign_points(machine: str) -> pd.DataFrame:
    """Every point the campaign entries of ``machine`` name, each from the run that measured it.

    A re-run skips recorded points, so time, commit and date are the measuring run's
    (:func:`lassm.runs.account.measured_by`), or the record's where no entry measured it. Columns:
    the rows' (``shared_device`` false where absent), ``entry`` (the measuring entry's index or
    None), ``git_sha``, ``created``."""
    entries = campaign_entries(machine)
    folder = paths.results_dir(machine)
    rows = []
    for r in measured_by(entries):
        source = entries[r["entry"]] if r["entry"] is not None else _record(folder, r.get("run_id"))
        rows.append({**r, "git_sha": source.get("git_sha"), "created": source.get("created")})
    cols = ["dataset", "k", "backend", "protocol", "status", "kernel_seconds", "matches_oracle", "run_id",
            "shared_device", "entry", "git_sha", "created"]
    out = pd.DataFrame(rows, columns=cols)
    out["entry"] = out["entry"].astype("Int64")
    out["shared_device"] = out["shared_device"].eq(True)  # a row before the device lock (None, NaN): not shared
    return out


def _record(folder: Path, run_id: str | None) -> dict:
    """``summary.json`` of a record of ``folder``, or ``{}``."""
    path = folder / str(run_id) / "summary.json"
    return json.loads(path.read_text()) if run_id and path.is_file() else {}


def records(machine: str) -> pd.DataFrame:
    """Every study record of ``machine`` (scaling records aside), one row each, with its repeats.

    ``kernel_seconds`` is the median of repeats, with ``_min``, ``_max`` and ``repeats`` (1 without);
    ``matches_oracle`` (True for the oracle); ``cpu_seconds`` (a bench record's oracle time, else
    NaN); ``shared_device`` (timed while another process held the device; false where absent);
    ``created`` (ISO 8601). :class:`LassmError` when the folder holds no study record."""
    rows = []
    for summary in _summaries(machine):
        rec = json.loads(summary.read_text())
        runs = [float(v) for v in rec.get("kernel_seconds_runs") or [] if v is not None]
        median = float(rec["kernel_seconds"]) if rec.get("kernel_seconds") is not None else float("nan")
        rows.append({"run_id": summary.parent.name, "dataset": rec.get("dataset"), "k": int(rec.get("k", 0)),
                     "backend": rec.get("backend"), "protocol": rec.get("protocol"),
                     "device": rec.get("device", ""), "device_kind": rec.get("device_kind", ""),
                     "benchmark": summary.parent.name.startswith("bench__"),
                     "kernel_seconds": median,
                     "kernel_seconds_min": min(runs) if runs else median,
                     "kernel_seconds_max": max(runs) if runs else median,
                     "repeats": int(rec.get("repeats") or len(runs) or 1),
                     "matches_oracle": bool(rec.get("matches_cpu", rec.get("backend") == ORACLE)),
                     "cpu_seconds": float(rec.get("cpu_seconds") or float("nan")),
                     "shared_device": bool(rec.get("shared_device", False)), "created": str(rec.get("created") or "")})
    if not rows:
        raise LassmError(f"{paths.results_dir(machine)}: no run record of the study")
    return pd.DataFrame(rows)


def times(machine: str) -> pd.DataFrame:
    """Kernel time of every measured point of ``machine``, with the oracle's time beside it.

    Of several records of a point, the one with more repeats, then the benchmark, then the fastest
    is kept. The oracle time is this machine's CPU record, else a benchmark record's reference CPU
    time. Records timed on a shared device are left out (their time is of two runs;
    :mod:`lassm.runs.device_lock`) and counted in :func:`lacks`. One row per (dataset, k, backend,
    protocol): ``kernel_ms``, ``_min``, ``_max``, ``repeats``, ``matches_oracle``, ``oracle_ms``,
    ``oracle_over_ours``."""
    df = records(machine)
    df = df[~df["shared_device"]]
    df = df.sort_values(["repeats", "benchmark", "kernel_seconds"], ascending=[False, False, True])
    df = df.drop_duplicates(["dataset", "k", "backend", "protocol"]).copy()
    for col in ("", "_min", "_max"):
        df[f"kernel_ms{col}"] = df[f"kernel_seconds{col}"] * 1e3
    oracle = df[df["backend"] == ORACLE].groupby(["dataset", "k"])["kernel_ms"].min()
    from_bench = (df["cpu_seconds"] * 1e3).groupby([df["dataset"], df["k"]]).min()
    oracle = oracle.combine_first(from_bench).rename("oracle_ms")
    df = df.merge(oracle, left_on=["dataset", "k"], right_index=True, how="left")
    df["oracle_over_ours"] = df["oracle_ms"] / df["kernel_ms"]
    cols = ["dataset", "k", "backend", "protocol", "device", "kernel_ms", "kernel_ms_min", "kernel_ms_max",
            "repeats", "matches_oracle", "oracle_ms", "oracle_over_ours"]
    return df[cols].sort_values(["dataset", "backend", "protocol"]).reset_index(drop=True)


#: A runtime's tag that names a CPU device (SYCL's ``opencl:cpu:0``, a driver's ``CPU``).
_CPU_TAG = re.compile(r"\((?:[^()]*[:\s])?cpu(?:[:\s][^()]*)?\)\s*$", re.I)


def device_kinds(recs: pd.DataFrame) -> pd.Series:
    """``gpu`` or ``cpu`` per record: its ``device_kind`` where recorded, else read from its device.

    An OpenCL or SYCL backend may have run on a CPU driver. Without the field, a record is a CPU's
    when it is the oracle's, its runtime's tag names a CPU, or its device (tag aside) is the
    oracle's CPU."""
    cpus = {device_label(d).casefold() for d in recs.loc[recs["backend"] == ORACLE, "device"]}

    def kind(row) -> str:
        if row.get("device_kind") in ("gpu", "cpu"):
            return row["device_kind"]
        name = str(row["device"])
        cpu = row["backend"] == ORACLE or bool(_CPU_TAG.search(name)) or device_label(name).casefold() in cpus
        return "cpu" if cpu else "gpu"

    return recs.apply(kind, axis=1) if len(recs) else pd.Series(dtype=str)


def device(machine: str) -> str:
    """The device named by the records of ``machine`` (its GPU, else the CPU as the oracle names it)."""
    recs = records(machine)
    gpu = recs[device_kinds(recs) == "gpu"]["device"]
    oracle = recs[recs["backend"] == ORACLE]["device"]
    names = [d for d in (list(gpu) + list(oracle) + list(recs["device"])) if d]
    return names[0] if names else machine


#: A runtime's tag at the end of a device name: ``NVIDIA H100 80GB HBM3 (NVIDIA CUDA)``,
#: ``AMD EPYC (Intel(R) OpenCL)``, ``AMD EPYC (opencl:cpu:0)``.
_RUNTIME_TAG = re.compile(r"\s+\((?:[^()]|\([^()]*\))*\)\s*$")
#: The pooling rule of :func:`pool_by_device`, as the chapters say it.
POOLING = "best time per point"


def device_label(name: str) -> str:
    """A device name without the runtime's tag its record may carry, spaces collapsed."""
    return " ".join(_RUNTIME_TAG.sub("", str(name)).split())


def device_key(name: str) -> str:
    """What two folders must share to be one platform: :func:`device_label`, case aside."""
    return device_label(name).casefold()


def platform_of(folders: pd.Series, devices: pd.Series) -> pd.Series:
    """Each row's platform: its device's label, that of the device's first folder by name (so
    ``NVIDIA H100 80GB HBM3`` and ``nvidia h100 80gb hbm3`` are one platform, one label)."""
    keys = devices.map(device_key)
    first = pd.DataFrame({"folder": folders, "key": keys, "label": devices.map(device_label)})
    first = first.sort_values("folder", kind="stable").drop_duplicates("key")
    return keys.map(dict(zip(first["key"], first["label"])))


def pool_by_device(frame: pd.DataFrame, point: list[str], time: str) -> pd.DataFrame:
    """One platform per device: of the folders with the same device, per ``point``, the row with the
    least ``time`` (:data:`POOLING`), with ``platform`` (:func:`platform_of`) and its ``folder``.

    Why: two folders of one GPU model would otherwise be two platforms, weighting a
    performance-portability mean toward that device."""
    out = frame.assign(platform=platform_of(frame["folder"], frame["device"]))
    return out.sort_values([time, "folder"], kind="stable").drop_duplicates(["platform", *point]).sort_index()


def inventory(machine: str) -> dict:
    """What the folder of ``machine`` holds, for the chapter's first table: ``machine``, ``device``,
    ``records``, ``datasets``, ``backends``, ``protocols``, ``device_kinds`` (:func:`device_kinds`),
    ``gpu``, ``repeats`` (most repeats of a point), ``shared`` (records left out as shared-device),
    ``counters`` (raw profiler files), and whether ``ceilings``, ``metrics``, ``campaign`` exist."""
    folder = paths.results_dir(machine)
    recs = records(machine)
    counter_files = [p for p in (folder / "counters").glob("*.csv") if not p.name.startswith(".")]
    kinds = device_kinds(recs)
    return {"machine": machine, "device": device(machine), "records": len(recs),
            "datasets": sorted(recs["dataset"].unique()), "backends": sorted(recs["backend"].unique()),
            "protocols": sorted(recs["protocol"].unique()),
            "device_kinds": sorted(set(kinds)), "gpu": bool((kinds == "gpu").any()),
            "repeats": int(recs["repeats"].max()), "shared": int(recs["shared_device"].sum()),
            "counters": len(counter_files), "ceilings": (folder / "ceilings.json").is_file(),
            "metrics": (folder / "metrics.csv").is_file(), "campaign": (folder / CAMPAIGN_FILE).is_file()}


def campaign_lacks(machine: str) -> list[str]:
    """The ``lacks`` lines of the newest account of ``lassm run``'s parts in the folder: the
    local-assembly campaign's (``campaign.json``), then the original programs' (``originals.json``),
    each in a reader's words (:func:`reader_words`)."""

    out = list((campaign(machine) or {}).get("lacks", []))
    out += (latest(read_entries(paths.results_dir(machine) / PART_ACCOUNTS["originals"])) or {}).get("lacks", [])
    return [reader_words(line) for line in out]




def lacks(machine: str) -> list[str]:
    """What the folder of ``machine`` cannot show, one plain line each (empty when complete): the
    campaign's own ``lacks`` lines first, then what the folder's files say is missing."""
    inv = inventory(machine)
    out = campaign_lacks(machine)
    if not inv["campaign"]:
        out.append("No campaign.json: this folder was recorded before `lassm run` measured a machine "
                   "completely, so its plan and the time of each step are unknown.")
    if not inv["gpu"]:
        out.append("No GPU ran: only CPU times (the oracle's, and any backend on a CPU driver), so no GPU kernel "
                   "variant, no roofline, no counters.")
    if inv["repeats"] <= 1:
        out.append("No timing repeats: one time per point, without a median or a spread.")
    if inv["shared"]:
        n = inv["shared"]
        out.append(f"{n} record{'s' if n != 1 else ''} timed while another process held the device past the wait "
                   "(shared_device): left out of the times and figures; `lassm run --force` alone re-times them.")
    if inv["gpu"] and not inv["counters"]:
        out.append("No profiler ran (no counters/ folder): no II, no architectural or algorithm efficiency.")
    if inv["gpu"] and not inv["ceilings"]:
        out.append("No ceilings.json: no measured roof, so no roofline of this machine.")
    if inv["counters"] and inv["ceilings"] and not inv["metrics"]:
        out.append(f"No metrics.csv: run `lassm metrics derive --machine {machine}`.")
    return list(dict.fromkeys(out))


#: The protocols a machine chapter plots: the four faithful ones and ``fast`` (its ablation builds
#: have their own chapter, so the colours stay within the palette).
CHAPTER_PROTOCOLS = ("casptr", "matchany", "doneflag", "barrier", "fast")


def figure_data(machine: str) -> dict[str, bool]:
    """Which of the machine chapter's captioned figures (by name) the folder has data for. Why:
    a figure without data is a note, and :func:`write_chapters` leaves its caption out."""
    t = times(machine)
    kernel = t[(t["backend"] != ORACLE) & t["protocol"].isin(CHAPTER_PROTOCOLS)]
    profiled = metrics(machine) is not None and (paths.results_dir(machine) / "ceilings.json").is_file()
    return {"fig-machine-times": not kernel.empty, "fig-machine-roofline": profiled, "fig-machine-speedup": profiled,
            "fig-machine-published": bool((kernel["dataset"] == "gen-k" + kernel["k"].astype(str)).any())}


def metrics(machine: str) -> pd.DataFrame | None:
    """``metrics.csv`` of ``machine`` where it exists, else None."""
    path = paths.results_dir(machine) / "metrics.csv"
    return pd.read_csv(path) if path.is_file() else None


def spec_row(device_name: str) -> str | None:
    """The ``machine`` of the ``data/machines.csv`` row whose model (``H100``) is in ``device_name``,
    or None."""
    from ..analysis.machine import load_machines

    flat = re.sub(r"[^a-z0-9]", "", device_name.lower())
    for name in load_machines()["machine"]:
        model = re.sub(r"[^a-z0-9]", "", str(name).split("-")[0].lower())
        if model and model in flat:
            return str(name)
    return None


# --------------------------------------------------------------------------------------------
# The generated chapters


def write_chapters(book: str | Path = paths.REPO, *, machines: list[str] | None = None) -> list[Path]:
    """Writes one machine chapter per folder, ``<book>/machines/<machine>.ipynb``, and returns them.

    Parameters are injected but the chapters are not executed (Papermill ``prepare_only``): the
    book's build executes them. Chapters of folders that no longer exist are removed. ``machines``
    defaults to :func:`chapter_machines`."""
    import papermill

    book = Path(book)
    names = chapter_machines() if machines is None else machines
    out_dir = book / CHAPTERS
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    written = []
    titles = chapter_titles(names)
    for name in names:
        out = out_dir / f"{name}.ipynb"
        papermill.execute_notebook(str(paths.REPO / TEMPLATE), str(out), parameters={"machine": name},
                                   prepare_only=True, kernel_name="python3", progress_bar=False)
        nb = json.loads(out.read_text(encoding="utf-8"))
        has = figure_data(name)
        for cell in nb["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if "injected-parameters" in tags and "hide-input" not in tags:
                tags.append("hide-input")  # folded like the template's code
            if cell["cell_type"] == "markdown":  # the title names the machine, a table's label the folder
                src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                cell["source"] = re.sub(r"^(:name: tbl-[\w-]+)$", rf"\1-{name}", src.replace(TITLE_PLACEHOLDER, titles[name]), flags=re.M)
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
            if figure and not has.get(figure["name"], True):  # no data: the cell's note stands uncaptioned
                del cell["metadata"]["mystnb"]["figure"]
            elif figure:  # captions name the device, targets the folder (unique per chapter)
                figure["caption"] = figure["caption"].replace(DEVICE_PLACEHOLDER, titles[name])
                figure["name"] = f"{figure['name']}-{name}"
        out.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(out)
    return written


def toc_chapters(toc: str | Path, book: str | Path) -> list[str]:
    """Every document ``toc`` puts in the book rooted at ``book``, without suffix: ``file:`` entries as
    written, ``glob:`` ones expanded as jupyter-book 1.x (sphinx-external-toc) does."""
    from sphinx_external_toc.parsing import parse_toc_yaml

    site = parse_toc_yaml(Path(toc))
    book = Path(book)
    docs = list(site)
    for pattern in sorted(site.globs()):
        found = {str(p.relative_to(book).with_suffix("")) for s in (".ipynb", ".md")
                 for p in book.glob(pattern + s) if not p.name.startswith(".")}
        docs += sorted(found)
    return docs


def main(argv: list[str] | None = None) -> int:
    """``python -m lassm.book.machines [--book DIR]``: write the machine chapters, list them."""
    p = argparse.ArgumentParser(prog="python -m lassm.book.machines", description=main.__doc__)
    p.add_argument("--book", default=str(paths.REPO), help="the book's root (default: the repository)")
    args = p.parse_args(argv)
    for path in write_chapters(args.book):
        print(f"machine chapter -> {path}")
    return 0


__all__ = ["CAMPAIGN_FILE", "CHAPTERS", "DEVICE_PLACEHOLDER", "chapter_titles", "ORACLE", "POOLING", "TEMPLATE", "campaign", "campaign_entries", "campaign_lacks",
           "campaign_points",
           "chapter_machines", "device", "device_key", "device_label", "inventory", "lacks",
           "metrics", "platform_of", "pool_by_device", "records", "results_root", "spec_row", "times", "toc_chapters", "write_chapters"]

if __name__ == "__main__":
    raise SystemExit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""What ran where: every kernel build against every place it has executed, from the evidence alone.

Evidence: the records under ``data/results/`` (``summary.json``, X-drop's and the suite's
``times.csv``), and the notes passing tests write through the ``ran_where`` fixture
(``LASSM_RAN_WHERE``, default ``_build/ran-where.json``; ``make test`` writes, ``make book``
reads). A place no evidence names is empty; a build without evidence is "never"."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from .. import paths, settings

#: The kernel builds, in the table's order: (key, what it is).
BUILDS: tuple[tuple[str, str], ...] = (
    ("la-cuda-faithful", "local assembly, CUDA/HIP source, faithful protocols"),
    ("la-cuda-fast", "local assembly, CUDA/HIP source, fast"),
    ("la-opencl-faithful", "local assembly, OpenCL source, faithful protocols"),
    ("la-opencl-fast", "local assembly, OpenCL source, fast"),
    ("la-sycl-faithful", "local assembly, SYCL source, faithful protocols"),
    ("la-sycl-fast", "local assembly, SYCL source, fast"),
    ("xdrop-cuda", "X-drop, CUDA/HIP source"),
    ("xdrop-opencl", "X-drop, OpenCL source"),
    ("suite-cuda", "Jin and Vetter's five kernels, CUDA source"),
    ("suite-opencl", "Jin and Vetter's five kernels, OpenCL source"),
)
#: The places a build can execute (or only compile, the last), in the table's order.
PLATFORMS: tuple[str, ...] = ("NVIDIA GPU", "NVIDIA OpenCL", "Intel OpenCL (CPU)", "PoCL (CPU)",
                              "HIP-CPU wavefront 64", "HIP-CPU wavefront 32", "AMD GPU",
                              "hipcc only (gfx908, gfx90a, gfx1030)")
#: The platform that compiles without executing.
COMPILE_ONLY = PLATFORMS[-1]
#: Where the test suite's notes go (``LASSM_RAN_WHERE`` moves them).
NOTES_ENV = "LASSM_RAN_WHERE"


def notes_file() -> Path:
    """The test suite's notes: ``LASSM_RAN_WHERE``, else ``_build/ran-where.json`` in the repository."""
    return settings.value(NOTES_ENV) or paths.REPO / "_build" / "ran-where.json"


def build_of(kernel: str, backend: str, variant: str = "") -> str | None:
    """The build a (kernel family, backend, protocol or variant) ran, or None (the CPU oracle)."""
    source = {"cuda": "cuda", "hip": "cuda", "hip-cpu": "cuda", "opencl": "opencl", "opencl-ptx": "opencl",
              "sycl": "sycl"}.get(backend)
    if source is None:
        return None
    if kernel == "local-assembly":
        return f"la-{source}-{'fast' if variant.startswith('fast') else 'faithful'}"
    if kernel in ("xdrop", "suite") and source != "sycl":
        return f"{kernel}-{source}"
    return None


def platform_of(backend: str, device: str) -> str | None:
    """The place ``backend`` on ``device`` (as the records and backends name it) executed, or None."""
    text = device.lower()
    if backend in ("cuda", "opencl-ptx"):
        return "NVIDIA GPU"
    if backend == "hip":
        return "AMD GPU"
    if backend == "hip-cpu":
        return "HIP-CPU wavefront 32" if "32" in text.split("wavefront")[-1] else "HIP-CPU wavefront 64"
    if backend in ("opencl", "sycl"):
        if "portable computing language" in text or "pocl" in text:
            return "PoCL (CPU)"
        if "nvidia" in text:
            return "NVIDIA OpenCL"
        if "intel" in text or (backend == "sycl" and "opencl:cpu" in text):  # dpctl on Intel's CPU runtime
            return "Intel OpenCL (CPU)"
    return None


def _device_label(device: str) -> str:
    """A short device name for a cell (``NVIDIA H100 80GB HBM3`` -> ``H100 80GB HBM3``)."""
    name = device.split(" (")[0].strip()
    return name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name


def from_records(root: Path | None = None) -> dict[tuple[str, str], set[str]]:
    """(build, platform) -> the devices the records under ``root`` (the results root) saw it on,
    counting only outputs checked equal (the oracle's, the reference's)."""
    root = root or paths.results_root()
    seen: dict[tuple[str, str], set[str]] = {}

    def add(kernel: str, backend: str, variant: str, device: str) -> None:
        build, platform = build_of(kernel, backend, variant), platform_of(backend, device)
        if build and platform:
            seen.setdefault((build, platform), set()).add(_device_label(device))

    for summary in root.glob("*/*/summary.json"):
        try:
            s = json.loads(summary.read_text())
        except (OSError, ValueError):
            continue
        if s.get("matches_cpu") is True:
            add("local-assembly", str(s.get("backend", "")), str(s.get("protocol", "")), str(s.get("device", "")))
    for kernel, pattern, ok in (("xdrop", "*/xdrop/times.csv", "matches_oracle"),
                                ("suite", "*/suite/times.csv", "matches_reference")):
        for table in root.glob(pattern):
            with table.open(newline="") as fh:
                for row in csv.DictReader(fh):
                    if str(row.get(ok, "")).lower() == "true":
                        add(kernel, row.get("backend", ""), row.get("variant", ""), row.get("device", ""))
    return seen


def from_tests(path: Path | None = None) -> dict[tuple[str, str], set[str]]:
    """(build, platform) -> the tests that executed it there and passed (the notes :func:`note` wrote)."""
    path = path or notes_file()
    try:
        notes = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {(n["build"], n["platform"]): set(n["tests"]) for n in notes.get("notes", [])}


def table(root: Path | None = None, notes: Path | None = None):
    """One row per build, one column per platform: "records: <devices>", "tests" (or both), or
    empty; and ``status``: executed, compiled only, or never."""
    import pandas as pd

    records, tests = from_records(root), from_tests(notes)
    rows = []
    for key, label in BUILDS:
        row = {"build": label}
        for platform in PLATFORMS:
            cell = []
            if (key, platform) in records:
                cell.append("records: " + ", ".join(sorted(records[(key, platform)])))
            if (key, platform) in tests:
                cell.append(f"tests ({len(tests[(key, platform)])})")
            row[platform] = "; ".join(cell)
        ran = any(row[p] for p in PLATFORMS if p != COMPILE_ONLY)
        row["status"] = "executed" if ran else "compiled only" if row[COMPILE_ONLY] else "never"
        rows.append(row)
    return pd.DataFrame(rows, columns=["build", *PLATFORMS, "status"])


def check(build: str, platform: str) -> None:
    """Refuses a build or platform the table does not have (a typo would otherwise vanish from the book)."""
    if build not in dict(BUILDS) or platform not in PLATFORMS:
        raise ValueError(f"ran_where: unknown build {build!r} or platform {platform!r}")


def note(notes: dict[tuple[str, str], set[str]], build: str, platform: str, test: str) -> None:
    """Adds one test's evidence (:func:`check`ed)."""
    check(build, platform)
    notes.setdefault((build, platform), set()).add(test)


def write_notes(notes: dict[tuple[str, str], set[str]], path: Path | None = None) -> Path:
    """The notes as JSON, atomically (the end of a test run calls this)."""
    from ..atomic import atomic_open

    path = path or notes_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"notes": [{"build": b, "platform": p, "tests": sorted(t)} for (b, p), t in sorted(notes.items())]}
    with atomic_open(path) as fh:
        json.dump(body, fh, indent=1)
        fh.write("\n")
    return path


__all__ = ["BUILDS", "COMPILE_ONLY", "NOTES_ENV", "PLATFORMS", "build_of", "check", "from_records", "from_tests", "note",
           "notes_file", "platform_of", "table", "write_notes"]

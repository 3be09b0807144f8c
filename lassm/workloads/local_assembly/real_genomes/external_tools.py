# SPDX-License-Identifier: BSD-3-Clause
"""Finding and running the pipeline's external tools (ART, MEGAHIT, minimap2, samtools): which
are missing, the apt line that installs them with the presets' genomes, their versions, and a
run that fails with the end of the tool's log.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ....atomic import write_fault
from ....errors import LassmError, OutputFault, write_refused
from .presets import PRESETS

#: tool executable -> (Debian package, bioconda package).
TOOLS: dict[str, tuple[str, str]] = {
    "art_illumina": ("art-nextgen-simulation-tools", "art"),
    "megahit": ("megahit", "megahit"),
    "minimap2": ("minimap2", "minimap2"),
    "samtools": ("samtools", "samtools"),
}


def apt_line(preset: str | None = None) -> str:
    """The apt line that installs the tools and the genome packages of ``preset`` (None: all)."""
    chosen = [PRESETS[preset]] if preset else list(PRESETS.values())
    genomes = sorted({p for pr in chosen for p in pr.packages})
    return "apt-get install " + " ".join([deb for deb, _ in TOOLS.values()] + genomes)


#: The apt line that installs everything every preset needs (tools first, then genome packages).
APT_LINE = apt_line()


def missing_tools() -> list[str]:
    """Executables of :data:`TOOLS` that are not on ``PATH``."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def check_tools() -> None:
    """Raises a :class:`LassmError` naming the Debian and bioconda packages of missing tools."""
    missing = missing_tools()
    if missing:
        deb = " ".join(TOOLS[t][0] for t in missing)
        conda = " ".join(TOOLS[t][1] for t in missing)
        raise LassmError(f"{', '.join(missing)} not found; install with `apt-get install {deb}` "
                         f"(Debian) or `conda install -c bioconda {conda}`")


def tool_versions() -> dict[str, str]:
    """Version of every tool (and of the Debian packages where dpkg knows them), for provenance."""
    out: dict[str, str] = {}
    for tool, (deb, _) in TOOLS.items():
        out[tool] = dpkg_version(deb) or _self_reported_version(tool)
    return out


def dpkg_version(package: str) -> str:
    """The installed version of a Debian package; empty where dpkg does not know it."""
    if shutil.which("dpkg-query") is None:
        return ""
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _self_reported_version(tool: str) -> str:
    """The first line of a tool's ``--version``, for tools that dpkg did not install."""
    flag = {"minimap2": "--version", "megahit": "--version", "samtools": "--version"}.get(tool)
    if flag is None:
        return "unknown"
    proc = subprocess.run([tool, flag], capture_output=True, text=True)
    return (proc.stdout or proc.stderr).strip().splitlines()[0] if proc.returncode == 0 else "unknown"


def run_tool(cmd: list[str], log: Path, stdout: Path | None = None) -> None:
    """Runs a tool; on failure raises a LassmError quoting the end of its log. A tool may exit 0 on a
    full disk (ART does), so its log's folder is asked first whether it still takes a write
    (:func:`lassm.atomic.write_fault`), and a full disk is said as such."""
    with open(log, "ab") as err:
        err.write((" ".join(cmd) + "\n").encode())
        err.flush()
        out = open(stdout, "wb") if stdout else None
        try:
            proc = subprocess.run(cmd, stdout=out if out is not None else subprocess.DEVNULL, stderr=err)
        finally:
            if out is not None:
                out.close()
    fault = write_fault(log.parent)
    if fault is not None and write_refused(fault):
        raise OutputFault(str(log.parent), fault)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise LassmError(f"{cmd[0]} failed (exit {proc.returncode}); end of {log}:\n" + "\n".join(tail))

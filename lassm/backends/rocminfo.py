# SPDX-License-Identifier: BSD-3-Clause
"""The AMD GPUs ``rocminfo`` lists: their gfx architecture, name and wavefront width.

Known before CuPy for ROCm is installed, so ``lassm run --dry-run`` can name an AMD machine's
target and a run's ``lacks`` line the GPU it could not use. Only rocminfo's output (found on
``PATH``) is read; a rocminfo that fails lists no GPU.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

#: Seconds rocminfo may take before it counts as no answer.
PROBE_TIMEOUT = 20.0
_AGENT = re.compile(r"^\s*Agent\s+\d+\s*$")
_FIELD = re.compile(r"^\s*([^:]+?):\s*(.*?)\s*$")
_NUMBER = re.compile(r"^(\d+)")


@dataclass(frozen=True)
class Agent:
    """One GPU agent of rocminfo: ``arch`` the gfx target (``Name:``), ``name`` the product (``Marketing
    Name:``, else the arch), ``wavefront`` the kernels' ``WARP_SIZE``, ``compute_units`` or None."""

    arch: str
    name: str
    wavefront: int
    compute_units: int | None = None

    def describe(self) -> str:
        """``gfx90a (AMD Instinct MI250X, 110 compute units), wavefront 64``."""
        extra = [self.name] if self.name != self.arch else []
        if self.compute_units:
            extra.append(f"{self.compute_units} compute units")
        return f"{self.arch}{' (' + ', '.join(extra) + ')' if extra else ''}, wavefront {self.wavefront}"


def _number(text: str) -> int | None:
    """``64(0x40)`` -> 64; None where the field does not start with a number."""
    match = _NUMBER.match(text)
    return int(match.group(1)) if match else None


def parse(text: str) -> list[Agent]:
    """The GPU agents of rocminfo's output in its order: an agent's first ``Name:`` is its own; one
    without ``Wavefront Size:`` is left out, since nothing could be built for it."""
    agents: list[dict[str, str]] = []
    for line in text.splitlines():
        if _AGENT.match(line):
            agents.append({})
            continue
        match = _FIELD.match(line)
        if agents and match and match.group(1) not in agents[-1]:
            agents[-1][match.group(1)] = match.group(2)
    out = []
    for fields in agents:
        wavefront = _number(fields.get("Wavefront Size", ""))
        if fields.get("Device Type") != "GPU" or not wavefront or not fields.get("Name"):
            continue
        arch = fields["Name"]
        out.append(Agent(arch=arch, name=fields.get("Marketing Name") or arch, wavefront=wavefront,
                         compute_units=_number(fields.get("Compute Unit", ""))))
    return out


@functools.lru_cache(maxsize=8)
def _gpus(program: str | None) -> tuple[Agent, ...]:
    if program is None:
        return ()
    try:
        done = subprocess.run([program], capture_output=True, text=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(parse(done.stdout)) if done.returncode == 0 else ()


def gpus() -> list[Agent]:
    """The AMD GPUs of ``rocminfo`` on ``PATH``: empty where it is absent, fails or lists none.
    Asked once per rocminfo program (its path) in a process: a dry run asks more than once."""
    return list(_gpus(shutil.which("rocminfo", path=os.environ.get("PATH"))))


__all__ = ["Agent", "PROBE_TIMEOUT", "gpus", "parse"]

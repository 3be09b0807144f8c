# SPDX-License-Identifier: BSD-3-Clause
"""``fast``'s builds and knobs tried on one GPU (``lassm measure fast-knobs``): per build and knob
setting, the kernel's registers and local memory and its median time on a few datasets, each
output checked against the oracle, then a table of every row against ``fast``'s.

An exploration, not a committed result: it picks knob values (e.g.
:data:`lassm.backends.nvrtc.SCALE_REGISTERS`) and first times an added build (``nvrtc.ADDED``);
``lassm run`` then measures a choice properly. Knobs are the modules' own settings, set per row
and put back after."""
from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from .. import stderr

#: A ``caps`` value for the build as the backend makes it (no cap override).
BUILT = None


@dataclass(frozen=True)
class Knobs:
    """The values each knob is tried at, as the options of the same names say (an empty tuple: the
    build's or the module's own). A cap is timed as one build at every launch size (0: the
    compiler's choice; :data:`BUILT`: as the backend builds it, its cap at scale included);
    ``scale_team_bases``, when given, is swept in place of ``team_bases``."""

    caps: tuple[int | None, ...] = (0, 64, 48, 40, 32)
    steps: tuple[int, ...] = ()
    team_bases: tuple[int, ...] = ()
    scale_team_bases: tuple[int, ...] = ()
    team_lanes: tuple[int, ...] = ()
    lane_walks: tuple[int, ...] = ()
    sort_bytes: tuple[int, ...] = ()
    sort_max_k: tuple[int, ...] = ()


@dataclass(frozen=True)
class Setting:
    """One row's knobs (None: the build's own); ``team``: ("team" or "scale-team", bases)."""

    team: tuple[str, int]
    cap: int | None = BUILT
    steps: int | None = None
    lanes: int | None = None
    walks: int | None = None
    sort_bytes: int | None = None
    sort_max_k: int | None = None


def ht_loc_seconds(path: str | Path | None) -> dict[str, float]:
    """MetaHipMer's ``ht_loc`` kernel seconds per dataset from an ``against-original.csv`` (the
    ``original ht_loc`` rows; measured on that file's machine only), or {} without one."""
    from ..runs import tables
    from ..runs.results import AGAINST_ORIGINAL_COLUMNS
    from .originals.ht_loc import ORIGINAL

    if not path:
        return {}
    return {r["dataset"]: float(r["kernel_seconds"]) for r in tables.read_rows(path, AGAINST_ORIGINAL_COLUMNS)
            if r["program"] == ORIGINAL and r["kernel_seconds"]}


def settings(proto: str, knobs: Knobs) -> list[Setting]:
    """Every setting ``proto`` is timed at: the grid of ``knobs`` its build takes; one (as built)
    for a build that is not one of ``nvrtc.VARIANTS``."""
    from ..backends import cuda, nvrtc

    teams = ([("scale-team", n) for n in knobs.scale_team_bases] or [("team", n) for n in knobs.team_bases]
             or [("team", cuda.TEAM_MIN_BASES)])
    if proto not in nvrtc.VARIANTS:
        return [Setting(team=teams[0])]
    build = nvrtc.VARIANTS[proto]
    sorting = bool(build.sort_bytes)
    walks = (knobs.lane_walks if build.lane_walks else ()) or [None]
    sort_bytes = (knobs.sort_bytes if sorting else ()) or [None]
    sort_ks = (knobs.sort_max_k if sorting else ()) or [None]
    return [Setting(team, cap, n, lanes, w, sb, sk) for cap in knobs.caps for n in knobs.steps or [None]
            for team in teams for lanes in knobs.team_lanes or [None] for w in walks for sb in sort_bytes
            for sk in sort_ks]


def variant(base, s: Setting):
    """``base`` (an ``nvrtc.VARIANTS`` build) with ``s``'s knobs."""
    extra = () if s.steps is None else (f"-DLASSM_FAST_SCAN_STEPS={s.steps}",)
    width = base.team_lanes if s.lanes is None else (s.lanes or None)
    v = dataclasses.replace(base, defines=base.defines + extra, team_lanes=width)
    if s.walks is not None:  # lane walks' ends to a warp: the kernel's and the launch's
        v = dataclasses.replace(v, lane_walks=s.walks, defines=tuple(
            d for d in v.defines if "LANE_WALKS" not in d) + (f"-DLASSM_FAST_LANE_WALKS={s.walks}",))
    if s.sort_bytes is not None:  # the sorted table's region per warp team
        v = dataclasses.replace(v, sort_bytes=s.sort_bytes)
    if s.sort_max_k is not None:  # the largest k the sorted table takes
        v = dataclasses.replace(v, defines=v.defines + (f"-DLASSM_SORT_MAX_K={s.sort_max_k}",))
    if s.cap is not None:  # one build at every launch size (no scale build): a row's cap is the one timed
        v = dataclasses.replace(v, max_registers=s.cap or None, scale_registers=None)
    return v


def explore(names: Sequence[str], protocols: Sequence[str], knobs: Knobs, repeat: int,
            say: Callable[[str], None] = stderr.line) -> list[dict]:
    """Each build of ``protocols`` at each of its :func:`settings` on the datasets ``names``: a row
    per setting (``protocol``, ``label``, ``knobs``, ``ms`` and ``equal`` per dataset), its
    registers and times said as it lands. The modules' knobs are put back after."""
    from ..backends import cuda, nvrtc
    from ..runs.extend import extend
    from ..workloads.local_assembly import datasets
    from ..workloads.local_assembly.config import Params

    base, teams = dict(nvrtc.VARIANTS), (cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE)
    loaded = {name: datasets.load(name) for name in names}
    oracle = {name: extend(ds, Params(k=k), backend="cpu") for name, (ds, k) in loaded.items()}
    rows = []
    try:
        for proto in protocols:
            for s in settings(proto, knobs):
                cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE = teams
                setattr(cuda, "TEAM_MIN_BASES_SCALE" if s.team[0] == "scale-team" else "TEAM_MIN_BASES", s.team[1])
                if proto in base:
                    nvrtc.VARIANTS[proto] = variant(base[proto], s)
                rows.append(_row(proto, s, loaded, oracle, repeat, say))
            if proto in base:
                nvrtc.VARIANTS[proto] = base[proto]
    finally:
        nvrtc.VARIANTS.update(base)
        cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE = teams
    return rows


def _row(proto: str, s: Setting, loaded: dict, oracle: dict, repeat: int, say: Callable[[str], None]) -> dict:
    """One setting of ``proto`` (already set in the modules) timed on every dataset."""
    from ..backends import cuda, nvrtc
    from ..runs.extend import extend
    from ..workloads.local_assembly.config import Params

    build = nvrtc.VARIANTS.get(proto)
    kern = cuda.kernel(proto, 32)
    shown = build.team_lanes if build else None
    label = (f"cap={s.cap if s.cap is not None else 'built'!s:5s} steps={s.steps!s:4s} "
             f"{s.team[0]}>={s.team[1]!s:6s} lanes={shown!s:4s}"
             + (f" walks={build.lane_walks}" if build and build.lane_walks else "")
             + (f" sort={build.sort_bytes}" if build and build.sort_bytes else "")
             + (f" sort_max_k={s.sort_max_k}" if s.sort_max_k is not None else ""))
    regs = f"regs={kern.num_regs:3d} local={kern.local_size_bytes:4d}B"
    if s.cap is None and build and build.scale_registers is not None:
        big = cuda.kernel(proto, 32, scaled=True)
        regs += f" (at scale {big.num_regs:3d} local={big.local_size_bytes:4d}B)"
    row: dict = {"protocol": proto, "label": label, "knobs": (s.cap, s.steps, s.team, shown, s.sort_max_k),
                 "ms": {}, "equal": {}}
    cells = [f"{proto:16s} {label} {regs}"]
    for name, (ds, k) in loaded.items():
        ext = extend(ds, Params(k=k), backend="cuda", protocol=proto)
        equal = not ext.compare(oracle[name])
        times = [extend(ds, Params(k=k), backend="cuda", protocol=proto).kernel_seconds for _ in range(repeat)]
        row["ms"][name], row["equal"][name] = statistics.median(times) * 1e3, equal
        scaled = any(launch.get("max_registers") for launch in ext.right.extra.launches)
        cells.append(f"{name} {row['ms'][name]:7.2f} ms{' (capped)' if scaled else ''}{'' if equal else ' DIFFERS'}")
    say("  ".join(cells))
    return row


def table(rows: list[dict], names: Sequence[str], ht_loc: dict[str, float]) -> str:
    """Median kernel ms per row and dataset, the ratio to fast's row of the same knobs, whether it
    equals the oracle ('=' or 'DIFF'), and with ``ht_loc``, the ratio to MetaHipMer's kernel."""
    fast = {r["knobs"]: r for r in rows if r["protocol"] == "fast"}
    head = f"{'build':16s} {'knobs':34s} " + " ".join(f"{n:>28s}" for n in names)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for n in names:
            ms, eq = r["ms"][n], "=" if r["equal"][n] else "DIFF"
            ref = fast.get(r["knobs"])
            ratio = f"x{ms / ref['ms'][n]:.3f}" if ref is not None and ref["ms"][n] > 0 else "-"
            loc = f" {ms / 1e3 / ht_loc[n]:.3f}hl" if n in ht_loc else ""
            cells.append(f"{ms:8.2f} {ratio:>7s} {eq:>4s}{loc:>8s}")
        lines.append(f"{r['protocol']:16s} {r['label']:34s} " + " ".join(f"{c:>28s}" for c in cells))
    note = "; Nhl: kernel time / ht_loc's, measured on that file's GPU" if ht_loc else ""
    lines.append(f"(ms: median kernel ms; xN: against fast with the same knobs; '=': equal to the CPU oracle{note})")
    return "\n".join(lines)


__all__ = ["BUILT", "Knobs", "Setting", "explore", "ht_loc_seconds", "settings", "table", "variant"]

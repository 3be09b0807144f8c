# SPDX-License-Identifier: BSD-3-Clause
"""Whose records a machine chapter shows (measured here, or on which host, and when), and the times
of the other hosts of the same device model beside them: two hosts are two machines
(:func:`lassm.runs.host.place`), and their spread is a finding."""
from __future__ import annotations

import pandas as pd

from . import machines as mach
from .prose import note
from .. import paths
from ..runs import host

#: The columns that name a point across hosts.
POINT = ["dataset", "k", "backend", "protocol"]


def siblings(machine: str) -> list[str]:
    """Every chapter folder of ``machine``'s model (itself included), the model's own folder first."""
    model = host.model_of(machine)
    found = [m for m in mach.chapter_machines() if host.model_of(m) == model]
    return sorted(found, key=lambda m: (m != model, m))


def host_label(machine: str) -> str:
    """A host of the model in a few words: ``host 2fdb70f9``, or the first host, whose records name none."""
    found = host.owner(paths.results_dir(machine))
    if found.host:
        return f"host {found.host['id'][:host.SHORT]}"
    return "the first host"


def _dates(machine: str) -> str:
    created = sorted(d[:10] for d in mach.records(machine)["created"] if d)
    if not created:
        return "on dates its records do not give"
    return created[0] if created[0] == created[-1] else f"{created[0]} to {created[-1]}"


def whose(machine: str) -> str:
    """Whose and when, as the chapter says it after "Measured": ``here, 2026-12-07`` for this host's
    folder, else on which host (or by the folder's first host, whose records name none) and when."""
    found = host.owner(paths.results_dir(machine))
    when = _dates(machine)
    if found.state == "mine":
        return f"here, {when}"
    if found.host:
        return f"on {host.describe(found.host)}, {when}"
    return (f"on the {mach.device_label(mach.device(machine))} host that first recorded this folder, before records "
            f"named their host, {when}")


def side_by_side(machine: str) -> pd.DataFrame:
    """Per point measured on two hosts of the model or more: each host's kernel time [ms] and the
    spread, the slowest host's time over the fastest's minus one, in percent. Empty for one host."""
    hosts = siblings(machine)
    if len(hosts) < 2:
        return pd.DataFrame()
    frames = [mach.times(m).assign(host=host_label(m)) for m in hosts]
    long = pd.concat(frames, ignore_index=True)
    wide = long.pivot_table(index=POINT, columns="host", values="kernel_ms", aggfunc="first")
    wide = wide[[host_label(m) for m in hosts]].dropna()  # the model's own folder first, as siblings()
    if wide.empty:
        return pd.DataFrame()
    wide.columns.name = None
    wide["spread %"] = (wide.max(axis=1) / wide.min(axis=1) - 1) * 100
    return wide.round(3).reset_index()


def hosts_table(machine: str):
    """:func:`side_by_side`, or a note that says why there is nothing to set beside this host."""
    table = side_by_side(machine)
    if not table.empty:
        return table
    others = [m for m in siblings(machine) if m != machine]
    if not others:
        return note("One host of this model is recorded: there is no other to set beside it.")
    return note(f"Other hosts of this model ({', '.join(others)}) measured no point that this one did.")


def hosts_fact(machine: str) -> str:
    """How many hosts of the model the records span, and how far apart their times are."""
    hosts = siblings(machine)
    if len(hosts) < 2:
        return "its figures are of this one host, the only one of its model recorded"
    table = side_by_side(machine)
    spread = (f"; on the {len(table):d} points measured on all of them, the slowest host's time is "
              f"{table['spread %'].min():.1f} % to {table['spread %'].max():.1f} % above the fastest's"
              if not table.empty else "; no point was measured on all of them")
    return (f"its figures are of this one host; {len(hosts):d} hosts of its model are recorded "
            f"({', '.join(hosts)}){spread}")


__all__ = ["POINT", "host_label", "hosts_fact", "hosts_table", "side_by_side", "siblings", "whose"]

# SPDX-License-Identifier: BSD-3-Clause
"""Which machine folders a run writes: one rule, for the pre-run check, the parts and the whole run's account.

Why: the folder of a run was worked out in several places (the whole run's account took the
first GPU backend's device, the pre-run check every backend's, each part its own), and they
drifted apart. Every caller now asks :func:`folder_of` (one backend), :func:`run_folder` (the
run as a whole) or :func:`machine_folders` (everything a run may write).
"""
from __future__ import annotations

from collections.abc import Iterable

from .. import paths
from .host import place
from .records import default_machine, machine_for_backend


def folder_of(backend: str, machine: str | None = None, targets: dict[str, dict] | None = None,
              dry: bool = False) -> str:
    """The machine folder a run files ``backend``'s records under.

    Parameters
    ----------
    backend : str
        A backend's name (a local-assembly, X-drop or suite backend; one that is no local-assembly
        backend, such as ``seqan``, runs on the CPU).
    machine : str, optional
        ``--machine``: then its folder, whatever the backend.
    targets : dict, optional
        What a plan found of each backend's device (:attr:`lassm.campaign.plan.Plan.targets`): the
        AMD GPU rocminfo lists names the folder where hip's runtime is absent (a dry run).
    dry : bool
        A dry run: a CUDA GPU's name is asked of its driver directly, without importing CuPy.

    Returns
    -------
    str
        The folder's name: this host's folder of the device, else of the CPU (``LASSM_MACHINE``
        where set; :func:`lassm.runs.host.place`).
    """
    if machine:
        return paths.machine_slug(machine)
    from .. import backends

    if backend not in backends.BACKENDS:
        return default_machine()
    try:
        if dry and backend == "cuda" and not paths.env_machine():
            from ..backends import cudadrv

            return place(paths.slug(cudadrv.context().facts.name))
        return machine_for_backend(backend)
    except Exception:  # noqa: BLE001  a backend that cannot name its device: the plan's target, else the CPU's
        target = (targets or {}).get(backend)
        return place(paths.slug(target["device"])) if target else default_machine()


def run_folder(backends: Iterable[str], machine: str | None = None, targets: dict[str, dict] | None = None,
               dry: bool = False) -> str:
    """The folder of a run as a whole (``runs.json``, the X-drop part's records): ``--machine``'s,
    else that of the first of ``backends`` on a GPU (in :data:`lassm.backends.BACKENDS`' order:
    ``cuda`` before ``opencl``), else the CPU's. The other arguments are :func:`folder_of`'s."""
    if machine:
        return paths.machine_slug(machine)
    from .. import backends as la

    cpu = default_machine()
    wanted = set(backends)
    for name in la.BACKENDS:
        if name in wanted and name != "cpu":
            folder = folder_of(name, targets=targets, dry=dry)
            if folder != cpu:
                return folder
    return cpu


def machine_folders(backends: Iterable[str], machine: str | None = None) -> list[str]:
    """Every folder a run over ``backends`` may write, once each: ``--machine``'s alone, else the
    CPU's (where a CPU backend, and a part's lacks, file) and each backend's device's."""
    if machine:
        return [paths.machine_slug(machine)]
    return list(dict.fromkeys([default_machine(), *(folder_of(b) for b in backends)]))


__all__ = ["folder_of", "machine_folders", "run_folder"]

# SPDX-License-Identifier: BSD-3-Clause
"""Which machine folders a run writes: one rule for the pre-run check, the parts and the account
(:func:`folder_of`, :func:`run_folder`, :func:`machine_folders`).
"""
from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .. import paths
from .host import HOST_FILE, place
from .records import default_machine, machine_for_backend


def folder_of(backend: str, machine: str | None = None, targets: dict[str, dict] | None = None,
              dry: bool = False) -> str:
    """The machine folder a run files ``backend``'s records under: ``machine`` where given, else this
    host's folder of the backend's device, else of the CPU (``LASSM_MACHINE`` where set;
    :func:`lassm.runs.host.place`).

    ``targets`` (:attr:`lassm.campaign.assembly_plan.Plan.targets`) lets a rocminfo-listed AMD GPU name the
    folder where hip's runtime is absent; ``dry`` asks a CUDA GPU's name of its driver, without CuPy."""
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


def machine_folders(backends: Iterable[str], machine: str | None = None, targets: dict[str, dict] | None = None,
                    dry: bool = False) -> list[str]:
    """Every folder a run over ``backends`` may write, once each: ``--machine``'s alone, else the
    CPU's (where a CPU backend, and a part's lacks, file) and each backend's device's (``targets``
    and ``dry`` as :func:`folder_of` takes them)."""
    if machine:
        return [paths.machine_slug(machine)]
    return list(dict.fromkeys([default_machine(), *(folder_of(b, targets=targets, dry=dry) for b in backends)]))


__all__ = ["dropped_unless_done", "folder_of", "kept_if_done", "machine_folders", "run_folder"]


def _holds_no_measure(folder: Path, accounts: Iterable[str]) -> bool:
    """Whether ``folder`` holds nothing but ``accounts`` (their rows of failures), its host's fingerprint
    (:data:`lassm.runs.host.HOST_FILE`), locks and temporaries."""
    accounts = set(accounts)
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir() or rel in accounts or rel == HOST_FILE or path.name.startswith("."):
            continue
        return False
    return True


@contextlib.contextmanager
def dropped_unless_done(accounts: Iterable[str] | None = None) -> Iterator[dict[str, bool]]:
    """After a failed run, removes the machine folders it made that hold nothing but ``accounts``
    (default :data:`lassm.runs.account.ACCOUNTS`), and the results root it made if left empty, so the
    book never takes them for machines. Folders that existed before or hold a record are kept. The
    caller sets ``done["ok"]`` on success; an exception is a failure."""
    from .account import ACCOUNTS

    kept_apart = tuple(ACCOUNTS if accounts is None else accounts)
    root = paths.results_root()
    made_root = not os.path.lexists(root)
    before = {p.name for p in root.iterdir()} if root.is_dir() else set()
    done = {"ok": False}
    try:
        yield done
    finally:
        if not done["ok"] and root.is_dir():
            for folder in root.iterdir():
                if folder.name not in before and folder.is_dir() and not folder.is_symlink() \
                        and _holds_no_measure(folder, kept_apart):
                    shutil.rmtree(folder, ignore_errors=True)
            if made_root:
                with contextlib.suppress(OSError):  # not empty: it holds what the run measured
                    root.rmdir()


def kept_if_done(command: Callable[[], int], accounts: Iterable[str] | None = None) -> int:
    """Runs ``command`` (a measuring command's body, returning its exit status) inside
    :func:`dropped_unless_done` (``accounts`` as it takes them): done where it returns 0. Why: ``lassm run``
    and ``lassm bench`` alike leave no new machine folder behind when they fail before anything of it was kept."""
    with dropped_unless_done(accounts) as done:
        code = command()
        done["ok"] = code == 0
    return code

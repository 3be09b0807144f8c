# SPDX-License-Identifier: BSD-3-Clause
"""Which host made a record, and which machine folder is this host's.

Folders are named by device model, so two hosts may share a model. Every record carries
:func:`fingerprint`, every folder says whose it is (``host.json``), and a run writes only its own
host's folder: the model's where free or already its own, else ``<model>-host-<host id>``. The
fingerprint names hardware, never a person. A non-empty folder without ``host.json`` belongs to
the host that recorded it, never this one.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..atomic import atomic_open, locked
from ..errors import LassmError
from ..readback import json_object
from .devices import cpu_model

#: The file of a machine folder that names the host writing it.
HOST_FILE = "host.json"
#: Characters of the host id that name a second host's folder (``<model>-host-<id>``).
SHORT = 8
#: What separates the model from the host id in a second host's folder name (a folder name is a
#: slug, :func:`lassm.paths.slug`, in which ``--`` would become ``-``).
SEPARATOR = "-host-"
#: A salt for the digests, so that they match no other tool's digest of the same id.
_SALT = b"lassm-host:"


def _digest(text: str, n: int = 16) -> str:
    return hashlib.sha256(_SALT + text.encode()).hexdigest()[:n]


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def _nvidia_gpus() -> tuple[list[dict], str]:
    """NVIDIA GPUs as the driver's ``/proc`` files list them (no library loaded), and its version."""
    gpus = []
    root = Path("/proc/driver/nvidia/gpus")
    for info in sorted(root.glob("*/information")) if root.is_dir() else []:
        fields = dict(line.split(":", 1) for line in _read(str(info)).splitlines() if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        gpus.append({"model": fields.get("Model", ""), "pci": fields.get("Bus Location", info.parent.name),
                     "uuid_sha": _digest(fields["GPU UUID"]) if fields.get("GPU UUID") else ""})
    version = _read("/proc/driver/nvidia/version").splitlines()
    driver = next((w for line in version[:1] for w in line.split() if w[:1].isdigit() and "." in w), "")
    return gpus, driver


def _pci_displays() -> list[dict]:
    """Display controllers (PCI class 0x03) and accelerators (0x12) by bus place and vendor:device."""
    out = []
    root = Path("/sys/bus/pci/devices")
    for dev in sorted(root.iterdir()) if root.is_dir() else []:
        cls = _read(str(dev / "class")).strip()
        if cls.startswith(("0x03", "0x12")):
            ids = [_read(str(dev / n)).strip().removeprefix("0x") for n in ("vendor", "device")]
            out.append({"pci": dev.name, "id": ":".join(ids)})
    return out


@functools.lru_cache(maxsize=None)
def fingerprint() -> dict:
    """This host's fingerprint, carried by every record under ``host``.

    ``id`` (16 hex digits, a digest of the rest but the driver, so a driver update keeps the host),
    ``cpu``, ``cpus``, ``gpus`` (``model``, ``pci``, ``uuid_sha``), ``pci`` (display and accelerator
    devices' places and ids), ``machine_sha`` (of ``/etc/machine-id``, or empty) and ``driver``
    (NVIDIA's version, or empty)."""
    gpus, driver = _nvidia_gpus()
    machine_id = _read("/etc/machine-id").strip()
    facts = {"cpu": cpu_model(), "cpus": os.cpu_count() or 0, "gpus": gpus, "pci": _pci_displays(),
             "machine_sha": _digest(machine_id) if machine_id else ""}
    return {"id": _digest(json.dumps(facts, sort_keys=True)), **facts, "driver": driver}


def host_id() -> str:
    """This host's id (:func:`fingerprint`'s ``id``)."""
    return fingerprint()["id"]


def describe(host: dict) -> str:
    """A host in words for a chapter or a message: its short id and its GPUs' models (else its CPU)."""
    gpus = [g.get("model") for g in host.get("gpus") or [] if g.get("model")]
    what = ", ".join(gpus) if gpus else f"{host.get('cpu', '?')} x{host.get('cpus', '?')}"
    return f"host {str(host.get('id', '?'))[:SHORT]} ({what})"


@dataclass(frozen=True)
class Owner:
    """Whose a machine folder is.

    ``state``: ``new`` (absent or empty), ``mine``, ``other`` (another host's ``host.json``),
    ``legacy`` (records without ``host.json``) or ``damaged`` (an unreadable ``host.json``: never
    written into); ``host``: the folder's ``host.json`` where it reads; ``why``: the state in a clause."""

    state: str
    host: dict | None
    why: str

    @property
    def writable(self) -> bool:
        return self.state in ("new", "mine")


def owner(folder: str | os.PathLike) -> Owner:
    """Whose ``folder`` is (:class:`Owner`); reads ``host.json`` and checks it."""
    folder = Path(folder)
    path = folder / HOST_FILE
    if path.is_file():
        try:
            host = json_object(path, "host's fingerprint")
        except (OSError, LassmError) as exc:
            return Owner("damaged", None, f"{path} does not read ({exc})")
        if not isinstance(host.get("id"), str) or not host["id"]:
            return Owner("damaged", None, f"{path} names no host id")
        if host["id"] == host_id():
            return Owner("mine", host, f"{HOST_FILE} names this host ({host['id'][:SHORT]})")
        return Owner("other", host, f"{HOST_FILE} names {describe(host)}")
    if not folder.is_dir() or not any(not p.name.startswith(".") for p in folder.iterdir()):
        return Owner("new", None, "nothing is recorded there yet")
    return Owner("legacy", None, "it has no host.json: its records are those of the host that made them, "
                                 "before records named their host")


def model_of(machine: str) -> str:
    """The device model's folder of a machine folder: ``<model>`` of ``<model>-host-<id>``, else itself."""
    head, sep, tail = machine.rpartition(SEPARATOR)
    return head if sep and tail.isalnum() and len(tail) >= SHORT else machine


def host_suffix(machine: str) -> str:
    """The short host id a second host's folder name ends with (``<model>-host-<id>``), else empty."""
    model = model_of(machine)
    return machine[len(model) + len(SEPARATOR):] if model != machine else ""


def check_mine(folder: str | os.PathLike) -> None:
    """Refuses, in one line, a machine folder that is not this host's (:func:`owner`): a run never
    takes another host's records as done, replaces them or adds to them. Only a name given by hand
    (``--machine``, ``LASSM_MACHINE``) can lead there: a folder chosen by :func:`place` is this host's."""
    found = owner(folder)
    if not found.writable:
        raise LassmError(f"{folder}: not this host's folder ({found.why}); a run never adds to another host's "
                         f"records: leave --machine (and LASSM_MACHINE) out, and this host's folder is chosen")


def place(model: str) -> str:
    """The folder this host files ``model``'s records under: the model's own folder where it is new
    or this host's; else ``<model>-host-<short id>`` (the whole id, should the short one be another
    host's). Nothing is written: the first writer claims the folder (:func:`claim`)."""
    if owner(paths.results_dir(model)).writable:
        return model
    for n in (SHORT, len(host_id())):
        name = f"{model}{SEPARATOR}{host_id()[:n]}"
        if owner(paths.results_dir(name)).writable:
            return name
    raise AssertionError(f"{model}: no folder of this host")  # a digest's collision of 64 bits


def resume_line(name: str) -> str:
    """What a run does with the machine folder ``name``, and why, in one line (``lassm run --dry-run``):
    resumes (this host's), starts fresh (new) or is refused (another host's, by ``--machine``)."""
    folder = paths.results_dir(name)
    found = owner(folder)
    verb = {"mine": "resumes", "new": "starts fresh"}.get(found.state, "refused")
    why, model = found.why, model_of(name)
    if model != name and found.writable:  # why not the model's own folder
        why = f"{model}/ is not this host's ({owner(paths.results_dir(model)).why}); {name}/: {why}"
    return f"== records of this host ({host_id()[:SHORT]}): {folder}/ {verb}: {why}"


def claim(path: str | os.PathLike) -> None:
    """Marks the machine folder holding ``path`` as this host's where it is still empty and has no
    ``host.json``; every writer calls it first. Paths outside the results root are left alone. Raises
    LassmError for another host's folder (:func:`check_mine`)."""
    root = paths.results_root().resolve()
    try:
        rel = Path(path).resolve().relative_to(root)
    except ValueError:
        return
    if len(rel.parts) < 2:  # the root itself, or a file directly in it: no machine folder
        return
    folder = root / rel.parts[0]
    check_mine(folder)
    if (folder / HOST_FILE).is_file():
        if (folder / f".{HOST_FILE}.lock").exists():  # a writer killed while claiming: taken, it goes
            with locked(folder / HOST_FILE):
                pass
        return
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder / HOST_FILE):
        if owner(folder).state != "new":
            return  # another writer of this host claimed it meanwhile
        with atomic_open(folder / HOST_FILE) as fh:
            json.dump(fingerprint(), fh, indent=2, sort_keys=True)
            fh.write("\n")


__all__ = ["HOST_FILE", "Owner", "check_mine", "claim", "describe", "fingerprint", "host_id", "host_suffix",
           "model_of", "owner", "place", "resume_line"]

# SPDX-License-Identifier: BSD-3-Clause
"""Argument types of the ``lassm`` command line: each refuses an impossible value when parsed.

Every valued option has one of these as its ``type`` (or fixed ``choices``), so a mistake is one
``lassm: error:`` line naming the option, before any dataset is read or kernel built;
``tests/cli/test_cli_errors.py`` feeds every option values these must refuse. Checks of two options
together are the subcommand's, first thing (:func:`lassm.backends.check_protocol`). Path types
carry their role (:func:`_role`), so :mod:`lassm.cli.guard` applies the output rule to every
command alike."""
from __future__ import annotations

import argparse
import errno
import math
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import NoReturn

from ..workloads.local_assembly.config import MAX_KMER_LEN, MIN_KMER_LEN
from ..errors import LassmError

#: Sub-group / warp / wavefront widths any device could have (which ones a device has is asked
#: of the device when the kernel is built).
LANE_WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128)


def _fail(message: str) -> NoReturn:
    raise argparse.ArgumentTypeError(message)


def _checked(check, *args):
    """``check(*args)``, a :class:`~lassm.errors.LassmError` it raises turned into argparse's refusal."""
    try:
        return check(*args)
    except LassmError as exc:
        _fail(str(exc))


def _role(role: str, folder: bool = False):
    """Marks a type's paths as ``input`` (read, where they exist: a name is none), ``output`` (a
    file, or a ``folder``, written) or ``results`` (a machine's results folder, read)."""
    def mark(check):
        check.role, check.folder = role, folder
        return check

    return mark


def _int(text: str, what: str = "an integer") -> int:
    try:
        return int(text)
    except ValueError:
        _fail(f"{text!r} is not {what}")


def _real(text: str) -> float:
    try:
        val = float(text)
    except ValueError:
        _fail(f"{text!r} is not a number")
    if not math.isfinite(val):
        _fail(f"{text!r} is not a finite number")
    return val


def _items(text: str) -> list[str]:
    """A comma list's items: none empty, none given twice (a point named twice would be counted
    and measured twice)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        _fail(f"{text!r}: expected a comma-separated list without empty items")
    twice = sorted({t for t in items if items.count(t) > 1})
    if twice:
        _fail(f"{text!r}: {', '.join(twice)} given twice")
    return items


# ------------------------------------------------------------------------------ numbers

def k_value(text: str) -> int:
    """A start k-mer length, 21..121."""
    k = _int(text, "an integer k")
    if not MIN_KMER_LEN <= k <= MAX_KMER_LEN:
        _fail(f"k = {k} is outside {MIN_KMER_LEN}..{MAX_KMER_LEN}")
    return k


def _listed(one, name: str, doc: str):
    """The type of a comma list whose every item ``one`` reads: one shape for every such list."""
    def parse(text: str) -> list:
        return [one(t) for t in _items(text)]

    parse.__name__, parse.__qualname__, parse.__doc__ = name, name, doc
    return parse


k_list = _listed(k_value, "k_list", "Comma-separated start k values, each 21..121.")


def odd_k_list(text: str) -> str:
    """Comma-separated contig k values for MEGAHIT: odd, 21..121. Returned as given."""
    for k in (k_value(t) for t in _items(text)):
        if k % 2 == 0:
            _fail(f"k = {k} is even; MEGAHIT builds odd k only")
    return text


def _bounded(name: str, parse, ok, why: str, doc: str):
    """A type that parses a value with ``parse`` and refuses it, saying ``why`` (``{v}``: the
    value, ``{text}``: as given), where ``ok`` says no: one shape for every bounded number."""
    def check(text: str):
        val = parse(text)
        if not ok(val):
            _fail(why.format(v=val, text=repr(text)))
        return val

    check.__name__, check.__qualname__, check.__doc__ = name, name, doc
    return check


#: The bounded numbers: name, how the text is read, what it must satisfy, what a refusal says, what it is.
_BOUNDED = (
    ("count", _int, lambda n: n >= 1, "{v} must be at least 1",
     "A positive integer: a number of threads, repeats, bytes, warps, lanes, bases."),
    ("natural", _int, lambda n: n >= 0, "{v} must not be negative",
     "A non-negative integer (a seed, a standard deviation)."),
    ("negative", _int, lambda n: n < 0, "{v} must be below 0",
     "A negative integer (a mismatch or gap score)."),
    ("qual_offset", _int, lambda n: 0 <= n <= 127, "{v} is outside 0..127",
     "A Phred quality offset, 0..127 (ASCII)."),
    ("positive_real", _real, lambda v: v > 0, "{text} must be above 0",
     "A finite number above 0 (a scale, a coverage, seconds)."),
    ("nonneg_real", _real, lambda v: v >= 0, "{text} must not be negative",
     "A finite number, 0 or above (a spread)."),
    ("fraction", _real, lambda v: 0 <= v <= 1, "{text} is outside 0..1",
     "A share, 0 to 1 (an error rate, a share of pairs)."),
)
count, natural, negative, qual_offset, positive_real, nonneg_real, fraction = (_bounded(*b) for b in _BOUNDED)
count_list = _listed(count, "count_list", "Comma-separated positive integers (GPU counts).")
natural_list = _listed(natural, "natural_list", "Comma-separated non-negative integers (a knob's values).")


def _cap(text: str) -> int | None:
    return None if text == "built" else natural(text)


register_caps = _listed(_cap, "register_caps", "Comma-separated register caps (0: the compiler's choice) or "
                        "``built`` (as the backend builds it: None).")


def integer(text: str) -> int:
    """Any integer (a shift that may be negative)."""
    return _int(text)


def lane_width(text: str) -> int:
    """A warp / wavefront / sub-group width: a power of two, :data:`LANE_WIDTHS`."""
    n = _int(text)
    if n not in LANE_WIDTHS:
        _fail(f"{n} is not a lane width; use one of {', '.join(map(str, LANE_WIDTHS))}")
    return n


lane_width_list = _listed(lane_width, "lane_width_list", "Comma-separated lane widths.")


# ------------------------------------------------------------------------------ names

def backend_name(text: str) -> str:
    """A key of :data:`lassm.backends.BACKENDS` (present here or not)."""
    from ..backends import BACKENDS

    if text not in BACKENDS:
        _fail(f"unknown backend {text!r}; choose one of {', '.join(BACKENDS)}")
    return text


backend_list = _listed(backend_name, "backend_list", "Comma-separated backend names.")


def protocol_name(text: str) -> str:
    """An insert protocol (or build) some backend has; ``none`` is the CPU's."""
    from ..backends import all_protocols

    known = all_protocols()
    if text not in known:
        _fail(f"unknown protocol {text!r}; choose one of {', '.join(known)}")
    return text


protocol_list = _listed(protocol_name, "protocol_list", "Comma-separated protocol names.")


@_role("input")
def dataset_name(text: str) -> str:
    """A dataset name or file (:func:`lassm.workloads.local_assembly.datasets.check_name`)."""
    from ..workloads.local_assembly.datasets import check_name

    _checked(check_name, text)
    return text


dataset_list = _role("input")(_listed(dataset_name, "dataset_list", "Comma-separated dataset names or files."))


@_role("input")
def stream_name(text: str) -> str:
    """A dataset name or file the streamed writers take (:func:`lassm.workloads.local_assembly.stream.check_name`)."""
    from ..workloads.local_assembly.stream import check_name

    return _checked(check_name, text)


@_role("input")
def shard_name(text: str) -> str:
    """A dataset name or file ``lassm data shard`` takes (its blocks are a shard file's row groups)."""
    from ..workloads.local_assembly.stream import SHARD_ROW_GROUP, check_name

    return _checked(check_name, text, SHARD_ROW_GROUP)


def part_key(text: str) -> str:
    """A part of ``lassm run`` by its key: :data:`lassm.campaign.whole.PARTS`, read where ``--kernel`` is given."""
    from ..campaign.whole import PARTS

    keys = [p.key for p in PARTS]
    return text if text in keys else _fail(f"unknown part {text!r}; choose one of {', '.join(keys)}")


def run_backend_list(text: str) -> list[str]:
    """Comma-separated backend names of either kernel (``lassm run --kernel`` says whose; checked there)."""
    from ..backends import BACKENDS
    from ..backends.xdrop import XDROP_BACKENDS

    known = list(dict.fromkeys([*BACKENDS, *XDROP_BACKENDS]))
    names = _items(text)
    for name in names:
        if name not in known:
            _fail(f"unknown backend {name!r}; choose one of {', '.join(known)}")
    return names


@_role("input")
def run_dataset_list(text: str) -> list[str]:
    """Comma-separated dataset names or files of either kernel: ``xdrop-*`` names and pairs files
    are X-drop pair sets (:func:`lassm.workloads.xdrop.pair_sets.is_xdrop`), the others local assembly's."""
    from ..workloads.local_assembly.datasets import check_name
    from ..workloads.xdrop.pair_sets import check_name as check_xdrop, is_xdrop

    names = _items(text)
    for name in names:
        _checked(check_xdrop if is_xdrop(name) else check_name, name)
    return names


def xdrop_list(text: str) -> list[int]:
    """Comma-separated X values (the X-drop kernel's drop-off), each 0..2**24."""
    from ..workloads.xdrop.scoring import MAX_XDROP

    values = [natural(t) for t in _items(text)]
    for x in values:
        if x > MAX_XDROP:
            _fail(f"X = {x} is above {MAX_XDROP}")
    return values


def xdrop_layouts(text: str) -> tuple[str, ...]:
    """Comma-separated plans of the CUDA X-drop kernel (:data:`lassm.backends.xdrop.xdrop_host.LAYOUTS`), each once."""
    from ..backends.xdrop.xdrop_host import LAYOUTS

    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names or any(n not in LAYOUTS for n in names) or len(set(names)) != len(names):
        _fail(f"{text!r}: want distinct names of {', '.join(LAYOUTS)}")
    return tuple(names)


def machine_name(text: str) -> str:
    """A results folder name, read one way by every command (:func:`lassm.paths.machine_slug`):
    slugged, directly under the results root, at most :data:`lassm.paths.MAX_MACHINE_NAME`
    characters; refused here, before any work."""
    from .. import paths

    return _checked(paths.machine_slug, text)


@_role("results")
def recorded_machine(text: str) -> str:
    """A machine (:func:`machine_name`'s rule) that has a folder under the results root."""
    from .. import paths

    name = machine_name(text)
    folder = paths.machine_dir(name)
    if not folder.is_dir():
        _fail(f"no results folder {folder}")
    return name


def label(text: str) -> str:
    """A free label recorded with a result (a dataset, a device, a kernel name): one printable line."""
    if not text.strip() or not text.isprintable():
        _fail(f"{text!r}: a label must be one line of printable text")
    return text


def program(text: str) -> str:
    """An executable, by path or on ``PATH``."""
    if shutil.which(text) is None:
        _fail(f"{text!r} is not an executable file, nor a program on PATH")
    return text


def shell_words(text: str) -> str:
    """Options for another tool, one string split as a shell would. Returned as given."""
    try:
        shlex.split(text)
    except ValueError as exc:
        _fail(f"{text!r}: {exc}")
    return text


def cluster_spec(text: str) -> str:
    """A ``--cluster`` value: ``local[:N]``, ``local-cuda[:N]``, ``slurm[:PARTITION[:N]][,KEY=VALUE...]``
    (:func:`lassm.runs.slurm.parse`), ``SCHEME://HOST:PORT`` or a scheduler file (JSON with an address)."""
    from ..runs import slurm
    from ..runs.distributed import CLUSTER_HELP

    if slurm.is_slurm(text):
        _checked(slurm.parse, text)
        return text
    if "://" in text:
        scheme, _, where = text.partition("://")
        if not scheme or not where:
            _fail(f"{text!r}: expected SCHEME://HOST:PORT")
        return text
    if text.endswith(".json"):  # its content now; whether its scheduler answers, before any work (dask_address.check)
        from ..runs.dask_address import read_scheduler_file

        input_file(text)
        _checked(read_scheduler_file, text)
        return text
    kind, colon, n = text.partition(":")
    if kind not in ("local", "local-cuda"):
        _fail(f"{text!r}: {CLUSTER_HELP}")
    if colon:
        count(n)
    return text


# ------------------------------------------------------------------------------ files

def _exists(text: str | Path) -> bool:
    """Whether a path exists; one the system cannot look up (a link loop, a name too long) is refused."""
    try:
        os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        _fail(f"{text}: {exc.strerror}")
    return True


def _readable(text: str, folder: bool) -> str:
    """A file (or folder) that exists and can be read."""
    p, what = Path(text), "folder" if folder else "file"
    if not _exists(p):
        _fail(f"{text}: no such {what}")
    if not (p.is_dir() if folder else p.is_file()):
        _fail(f"{text}: not a {what}")
    if not os.access(p, os.R_OK | (os.X_OK if folder else 0)):
        _fail(f"{text}: not readable")
    return text


@_role("input")
def input_file(text: str) -> str:
    """A file that exists and can be read."""
    return _readable(text, folder=False)


@_role("input")
def dataset_input(text: str) -> str:
    """A dataset file that exists, or a finished shard folder (``lassm data shard``)."""
    from ..workloads.local_assembly.stream import MANIFEST

    if _exists(text) and Path(text).is_dir():
        if not (Path(text) / MANIFEST).is_file():
            _fail(f"{text}: a folder, and not a shard folder (no {MANIFEST}: see lassm data shard)")
        return _readable(text, folder=True)
    return input_file(text)


@_role("input")
def input_dir(text: str) -> str:
    """A folder that exists and can be read."""
    return _readable(text, folder=True)


@_role("input")
def pairs_input(text: str) -> str:
    """An X-drop pairs file that exists (:func:`input_file`), or a set's name (``xdrop-sim-20k``,
    :func:`lassm.workloads.xdrop.pair_sets.check_name`), loaded or built when the command runs."""
    if text.startswith("xdrop-") and not _exists(text):
        from ..workloads.xdrop.pair_sets import check_name

        _checked(check_name, text)
        return text
    return input_file(text)


def _writable_parent(p: Path, text: str) -> None:
    """The nearest existing folder above ``p`` takes a new file (:func:`lassm.atomic.write_fault`), so
    the refusal names the real cause rather than a later "No such file or directory". A full disk
    still takes a name; its write fails naming the output (:class:`lassm.errors.OutputFault`)."""
    from ..atomic import write_fault
    from ..errors import fault_reason

    parent = p.absolute().parent
    while not _exists(parent):
        parent = parent.parent
    if not parent.is_dir():
        _fail(f"{text}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        _fail(f"{text}: cannot write in {parent}")
    fault = write_fault(parent, b"")
    if fault is not None and fault.errno in (errno.ENOENT, errno.EPERM, errno.EACCES, errno.EROFS):
        why = "" if fault.errno == errno.ENOENT else f" ({fault_reason(fault)})"  # ENOENT: not that it is missing
        _fail(f"{text}: cannot be written: {parent} takes no new file{why}")
    if fault is not None:
        _fail(f"{text}: {fault_reason(fault)}: no file can be written in {parent}")


@_role("output")
def output_file(text: str) -> str:
    """A file to write: not a folder, in a folder that exists or can be made; a block device or a
    socket is refused here, before any work (:func:`lassm.atomic.destination`)."""
    from ..atomic import destination

    p = Path(text)
    if not text:
        _fail("'': an empty name; give the file to write")
    if text.endswith(os.sep) or (_exists(p) and p.is_dir()):
        _fail(f"{text}: names a folder; give the file to write")
    where, in_place = _checked(destination, p)
    if not in_place:
        _writable_parent(where, text)
    return text


def output_with_suffix(*suffixes: str, refuse: tuple[str, ...] = (), writes: str = ""):
    """An :func:`output_file` type that takes only ``suffixes`` (any, when none are given) and
    never one of ``refuse``: a format is chosen by its suffix, so a suffix that names another
    format is refused rather than written in this one (``writes`` says what is written)."""
    def check(text: str) -> str:
        suffix = Path(text).suffix.lower()
        if suffixes and suffix not in suffixes:
            _fail(f"{text}: {suffix or 'no suffix'} is not a format this writes; use {' or '.join(suffixes)}")
        if suffix in refuse:
            _fail(f"{text}: {suffix} names another format; this writes {writes or 'text'}")
        return output_file(text)

    return _role("output")(check)


#: Suffixes of formats ``lassm`` reads or writes other than MetaHipMer's text output.
OTHER_FORMATS: tuple[str, ...] = (".parquet", ".tsv", ".csv", ".json", ".fasta", ".fa", ".fastq", ".fq")

#: ``extend --out``: MetaHipMer's text, under any name but another format's.
extended_output = output_with_suffix(refuse=OTHER_FORMATS, writes="MetaHipMer's text (name it .txt or .dat)")
#: ``extend --ends``: the per-end table, Parquet or TSV.
ends_output = output_with_suffix(".parquet", ".tsv")
#: ``data generate --out``: a dataset, ``.dat`` or Parquet.
dataset_output = output_with_suffix(".dat", ".parquet")


@_role("output", folder=True)
def output_folder(text: str) -> str:
    """A folder to write, replaced whole: new, or a folder already (empty, or made by the same
    command: :func:`lassm.atomic.refuse_foreign_folder`, applied by :mod:`lassm.cli.guard`)."""
    p = Path(text)
    if not text:
        _fail("'': an empty name; give the folder to write")
    if _exists(p) and not p.is_dir():
        _fail(f"{text}: exists and is not a folder")
    _writable_parent(p, text)
    return text


def arch_list(text: str) -> list[str]:
    """``sm_90`` or ``sm_80,sm_90``: real GPU architectures to build cubins for."""
    archs = text.split(",")
    if not text or not all(re.fullmatch(r"sm_[0-9]{2,3}[a-z]?", a) for a in archs):
        raise argparse.ArgumentTypeError(f"{text!r}: name real architectures such as sm_90 or sm_80,sm_90")
    return archs

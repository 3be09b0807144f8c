# SPDX-License-Identifier: BSD-3-Clause
"""Named datasets, so a sweep, a notebook and the CLI speak of inputs the same way.

* ``sample-k77`` / ``sample-k21``: the embedded real MetaHipMer inputs (``data/metahipmer-sample``).
* ``gen-k<K>[-s<SCALE>][-seed<N>]``: the Table II generator at start k ``K`` (scale 1 by default).
* ``real-<preset>-k<K>``: a committed real-genome dataset (``data/real/``).
* anything else: a path to a ``.dat`` or ``.parquet`` file.

Any name may end in ``x<N>`` (``sample-k77x20``): the dataset replicated N times. Generated sets
are cached as parquet (:func:`generated`), made once per machine.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

from . import formats
from ... import paths
from .dataset import Dataset
from ...errors import LassmError

_TIMES = re.compile(r"^(?P<base>.+)x(?P<times>\d+)$")
_GEN = re.compile(r"^gen-k(?P<k>\d+)(?:-s(?P<scale>[0-9.]+))?(?:-seed(?P<seed>\d+))?$")
_REAL = re.compile(r"^real-(?P<preset>[a-z0-9]+)-k(?P<k>\d+)$")


def load(name: str, k: int | None = None) -> tuple[Dataset, int]:
    """Returns the dataset called ``name`` and its start k (``k`` overrides it)."""
    m = _TIMES.match(name)
    if m and not name.endswith((".dat", ".parquet")):
        ds, start_k = load(m["base"], k)
        return replace(ds.replicate(int(m["times"])), name=name), start_k
    if name.startswith("sample-"):
        key = name.removeprefix("sample-")
        if key not in paths.SAMPLE_K:
            raise LassmError(f"unknown sample {name!r}; choose sample-k77 or sample-k21")
        ds = formats.read_dat(paths.sample(key), name=name, k=paths.SAMPLE_K[key])
        return ds, k or paths.SAMPLE_K[key]
    m = _GEN.match(name)
    if m:
        gk = int(m["k"])
        return generated(gk, float(m["scale"] or 1.0), int(m["seed"] or 0)), k or gk
    m = _REAL.match(name)
    if m:
        path = paths.data_dir() / "real" / f"{name}.parquet"
        if not path.exists():
            raise LassmError(f"unknown real-genome dataset {name!r}: no {path} (build it with lassm data real)")
        return replace(formats.read_dataset(str(path), k=int(m["k"])), name=name), k or int(m["k"])
    ds = formats.read_dataset(name, k=k)
    start = k or ds.k
    if start is None:
        raise LassmError(f"{name}: the start k is not recorded in the file; pass --k")
    return ds, start


#: Bumped when a cached generated dataset's form changes (part of its key).
GENERATED_FORMAT = 1


def generated_key(k: int, scale: float, seed: int) -> str:
    """A digest of the knobs, numpy's version (its random streams), :data:`GENERATED_FORMAT` and
    the source of every module that makes the data, so that a changed generator never serves a
    stale file."""
    import numpy as np

    here = Path(__file__).resolve().parent
    h = hashlib.sha256(repr((int(k), float(scale), int(seed), np.__version__, GENERATED_FORMAT)).encode())
    for source in [here / "generate.py", here / "dataset.py", *sorted((here / "synthetic").glob("*.py"))]:
        h.update(source.name.encode() + source.read_bytes())
    return h.hexdigest()[:16]


def generated_path(k: int, scale: float, seed: int) -> Path:
    """Where :func:`generated` keeps ``gen-k<k>-s<scale>-seed<seed>`` (present or not)."""
    name = f"gen-k{k}-s{float(scale)}-seed{seed}-{generated_key(k, scale, seed)}.parquet"
    return paths.cache_dir() / "gen-datasets" / name


def generated(k: int, scale: float = 1.0, seed: int = 0) -> Dataset:
    """:func:`lassm.workloads.local_assembly.generate.generate`'s dataset, from the cache
    (:func:`generated_path`, bit for bit) when made before, else made and cached; made each time
    where pyarrow is missing or the cache cannot be written."""
    from .generate import generate

    try:
        import pyarrow  # noqa: F401  the parquet file's reader and writer
    except ImportError:
        return generate(k=k, scale=scale, seed=seed)
    path = generated_path(k, scale, seed)
    if path.is_file():
        try:
            return formats.read_parquet(path)
        except LassmError:  # a damaged file is made again, and replaced
            pass
    ds = generate(k=k, scale=scale, seed=seed)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        formats.write_parquet(ds, path)
    except OSError:  # a read-only cache costs the time, not the run
        pass
    return ds


def named_k(name: str) -> int | None:
    """The start k that dataset name ``name`` gives, without reading or generating anything;
    None for a file (its k is inside it). Lets a step find what it recorded before loading."""
    m = _TIMES.match(name)
    if m and not name.endswith((".dat", ".parquet")):
        return named_k(m["base"])
    if name.startswith("sample-"):
        return paths.SAMPLE_K.get(name.removeprefix("sample-"))
    m = _GEN.match(name) or _REAL.match(name)
    return int(m["k"]) if m else None


def check_name(name: str) -> str:
    """Returns ``name`` when :func:`load` could load it (a known sample, a generator name with k in
    range, a committed real-genome dataset, an existing file), without reading or generating
    anything; refuses it otherwise."""
    from .config import MAX_KMER_LEN, MIN_KMER_LEN

    m = _TIMES.match(name)
    if m and not name.endswith((".dat", ".parquet")):
        if int(m["times"]) < 1:
            raise LassmError(f"dataset {name!r}: replicated {m['times']} times; use x1 or more")
        check_name(m["base"])
        _replicas_fit(name, m["base"], int(m["times"]))
        return name
    if name.startswith("sample-"):
        if name.removeprefix("sample-") not in paths.SAMPLE_K:
            raise LassmError(f"unknown sample {name!r}; choose sample-k77 or sample-k21")
        return name
    m = _GEN.match(name)
    if m:
        if not MIN_KMER_LEN <= int(m["k"]) <= MAX_KMER_LEN:
            raise LassmError(f"dataset {name!r}: k = {m['k']} is outside {MIN_KMER_LEN}..{MAX_KMER_LEN}")
        try:
            scale = float(m["scale"] or 1.0)
        except ValueError:
            raise LassmError(f"dataset {name!r}: scale {m['scale']!r} is not a number") from None
        if not scale > 0:
            raise LassmError(f"dataset {name!r}: scale {m['scale']} must be above 0")
        from .generate import check_fits

        check_fits(int(m["k"]), scale, f"dataset {name!r}")
        return name
    if _REAL.match(name):
        path = paths.data_dir() / "real" / f"{name}.parquet"
        if not path.is_file():
            raise LassmError(f"unknown real-genome dataset {name!r}: no {path} (build it with lassm data real)")
        return name
    if not Path(name).is_file():
        raise LassmError(f"{name!r} is neither a dataset name (sample-k77, sample-k21, gen-k<K>[-s<SCALE>]"
                         f"[-seed<N>], real-<preset>-k<K>, any of them + x<N>) nor a file")
    return name


#: A replicated dataset's peak memory per byte of its base's file: the base, its replicas, the
#: extension and its output (a generous bound; the sample x20 takes about a third of it).
REPLICA_BYTES_PER_FILE_BYTE = 8
#: A replicated generated set's peak memory per replica, per contig of Table II's row (the
#: generator's scale 1): ``gen-k21x20``, ``x40`` and ``x80`` loaded and written whole peak at
#: 0.98, 1.63 and 2.89 GB (each in a fresh process), 2.2 kB a contig and replica; rounded up
#: to leave room for the extension. The replicas are copies, not generator runs: the
#: generator's own bound (:data:`.generate.PEAK_BYTES_PER_CONTIG`) holds for the base alone.
REPLICA_BYTES_PER_CONTIG = 4_000


def _replicas_fit(name: str, base: str, times: int) -> None:
    """Refuses ``times`` replicas of ``base`` that would not fit this machine's memory, naming the
    largest count that would (the base itself was checked: :func:`check_name`)."""
    from ...fits import refuse_beyond

    m = _GEN.match(base)
    if m:
        from .synthetic.profiles import profile_for

        per_replica = profile_for(int(m["k"])).contigs * float(m["scale"] or 1.0) * REPLICA_BYTES_PER_CONTIG
        refuse_beyond(f"dataset {name!r}", times, per_replica)
        return
    if base.startswith("sample-"):
        source = paths.sample(base.removeprefix("sample-"))
    elif _REAL.match(base):
        source = paths.data_dir() / "real" / f"{base}.parquet"
    else:
        source = Path(base)
    refuse_beyond(f"dataset {name!r}", times, source.stat().st_size * REPLICA_BYTES_PER_FILE_BYTE)


def reference_output(name: str) -> dict[int, str] | None:
    """MetaHipMer's own output for an embedded sample, else None."""
    if name.startswith("sample-") and name.removeprefix("sample-") in paths.SAMPLE_K:
        return formats.read_extended(paths.sample_reference(name.removeprefix("sample-")))
    return None

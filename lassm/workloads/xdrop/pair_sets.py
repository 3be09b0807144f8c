# SPDX-License-Identifier: BSD-3-Clause
"""Named X-drop pair sets, so the campaign, the tools and the book speak of inputs the same way.

* ``xdrop-sim-<N>[-seed<S>]``: ``N`` synthetic pairs like LOGAN's (:mod:`.synthetic_pairs`), ``N`` in
  digits with an optional ``k`` (thousands).
* ``xdrop-short-<N>[-seed<S>]``: the same with reads ten times shorter, for CI.
* ``xdrop-real-<genome>-<N>``: ``N`` pbsim pairs of a genome in :data:`GENOMES` (:mod:`.real_pairs`).
* anything else: a path to a ``.parquet`` or ``.tsv`` pairs file.

A synthetic set's first ``M`` pairs are the set of ``M`` with the same seed. Sets are
deterministic and cached as parquet (:func:`cache_dir`) under a digest of their knobs and code,
so a changed generator never serves a stale file. A real set is looked for in
``data/real/<name>.parquet``, then the cache; building one needs pbsim (``LASSM_XDROP_DATA``
carries files to nodes without it).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ... import paths, settings
from ...errors import LassmError
from .pairs import Pairs

_SIM = re.compile(r"^xdrop-(?P<kind>sim|short)-(?P<n>\d+)(?P<k>k?)(?:-seed(?P<seed>\d+))?$")
_REAL = re.compile(r"^xdrop-real-(?P<genome>[a-z0-9]+)-(?P<n>\d+)(?P<k>k?)$")
#: The shortest and longest H read of each synthetic family (LOGAN's lengths, and a tenth of them).
LENGTHS: dict[str, tuple[int, int]] = {"sim": (2500, 7500), "short": (250, 750)}
#: Files whose code makes each family's pairs: part of the cache key.
_SOURCES: dict[str, tuple[str, ...]] = {"sim": ("synthetic_pairs.py", "pairs.py"), "short": ("synthetic_pairs.py", "pairs.py"),
                                        "real": ("real_pairs.py", "seeds.py", "pbsim.py", "pairs.py")}
#: Bumped when the cached file's form changes.
_CACHE_FORMAT = 1


@dataclass(frozen=True)
class Genome:
    """A genome shipped by a Debian package: its FASTA file and length (bases, every record)."""

    path: str
    package: str
    length: int


#: The genomes real sets are simulated from (the local-assembly ``tiny`` preset's two).
GENOMES: dict[str, Genome] = {
    "lambda": Genome("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz", "bowtie2-examples", 48_502),
    "mp1": Genome("/usr/share/doc/shovill-examples/test.fna.gz", "shovill-examples", 177_466),
}


@dataclass(frozen=True)
class Spec:
    """What a name means: its family (``sim``, ``short``, ``real`` or ``file``), pairs and knobs."""

    name: str
    family: str
    n_pairs: int | None
    knobs: dict


def _count(digits: str, thousands: str) -> int:
    return int(digits) * (1000 if thousands else 1)


def real_depth(genome: Genome, n_pairs: int, length: int = 5000, min_overlap: int = 1000) -> float:
    """pbsim's depth for about three times ``n_pairs`` overlapping candidates (a margin for candidates
    sharing no seed): pairs number about ``G D^2 (L - min_overlap) / L^2``; rounded up to a whole
    depth, at least pbsim's default 10."""
    per_depth2 = genome.length * (length - min_overlap) / length ** 2
    return float(max(10, math.ceil(math.sqrt(3 * n_pairs / per_depth2))))


#: Peak memory while a set is made and aligned, per base of a pair's shortest plus longest read:
#: 26 kB a pair measured for ``xdrop-sim`` (2.5 + 7.5 kb), rounded up to 32 kB.
PEAK_BYTES_PER_BASE = 3.2


def refuse_pairs_beyond(what: str, n: int, min_length: int, max_length: int,
                        lengths: tuple[str, str] = ("--min-length", "--max-length")) -> None:
    """Refuses ``n`` pairs of reads ``min_length``..``max_length`` long that would not fit this
    machine's memory (:mod:`lassm.fits`). One pair must fit first, else the length at fault is
    named (``lengths``: its options) with the longest that fits, not the count; then ``n`` pairs."""
    from ...fits import refuse_beyond

    shortest, longest = lengths
    refuse_beyond(shortest, min_length, 2 * PEAK_BYTES_PER_BASE)  # both reads at least this long
    refuse_beyond(longest, max_length, PEAK_BYTES_PER_BASE, beside=PEAK_BYTES_PER_BASE * min_length)
    refuse_beyond(what, n, PEAK_BYTES_PER_BASE * (min_length + max_length))


def _fits(name: str, family: str, n: int) -> int:
    """``n`` when ``n`` pairs of ``family`` (a real set's reads as long as ``sim``'s) fit this machine."""
    refuse_pairs_beyond(f"dataset {name!r}", n, *LENGTHS.get(family, LENGTHS["sim"]))
    return n


def spec(name: str) -> Spec:
    """Parses a dataset name (module docstring) or pairs file into a Spec without reading or generating
    anything; raises LassmError for a name that is neither, or a count of 0."""
    m = _SIM.match(name)
    if m:
        n = _count(m["n"], m["k"])
        if n < 1:
            raise LassmError(f"dataset {name!r}: 0 pairs; use 1 or more")
        _fits(name, m["kind"], n)
        lo, hi = LENGTHS[m["kind"]]
        from .synthetic_pairs import PairKnobs

        knobs = asdict(PairKnobs(n_pairs=n, min_length=lo, max_length=hi, seed=int(m["seed"] or 0)))
        return Spec(name, m["kind"], n, knobs)
    m = _REAL.match(name)
    if m:
        if m["genome"] not in GENOMES:
            raise LassmError(f"dataset {name!r}: unknown genome {m['genome']!r}; choose one of {', '.join(GENOMES)}")
        n = _count(m["n"], m["k"])
        if n < 1:
            raise LassmError(f"dataset {name!r}: 0 pairs; use 1 or more")
        _fits(name, "real", n)
        from .real_pairs import RealKnobs

        genome = GENOMES[m["genome"]]
        knobs = asdict(RealKnobs(n_pairs=n, depth=real_depth(genome, n)))
        return Spec(name, "real", n, {"genome": m["genome"], **knobs})
    if name.startswith("xdrop-"):
        raise LassmError(f"unknown X-drop dataset {name!r}: use xdrop-sim-<N>[-seed<S>], xdrop-short-<N>[-seed<S>] "
                         f"or xdrop-real-<{'|'.join(GENOMES)}>-<N> (N in digits, k for thousands), or a pairs file")
    if not Path(name).is_file() or Path(name).suffix not in (".parquet", ".tsv"):
        raise LassmError(f"{name!r} is neither an X-drop dataset name (xdrop-sim-<N>, xdrop-short-<N>, "
                         f"xdrop-real-<genome>-<N>) nor a .parquet or .tsv pairs file")
    return Spec(name, "file", None, {})


def is_xdrop(name: str) -> bool:
    """Whether ``name`` (of ``lassm run --datasets``, which takes both kernels' sets) is an X-drop
    pair set: an ``xdrop-*`` name or a pairs file (:func:`lassm.workloads.xdrop.pair_files.is_pairs_file`);
    any other name is local assembly's."""
    from .pair_files import is_pairs_file

    return name.startswith("xdrop-") or is_pairs_file(name)


def check_name(name: str) -> str:
    """``name`` when :func:`load` can load it (a registry name or an existing pairs file); else LassmError."""
    spec(name)
    return name


def n_pairs(name: str) -> int:
    """How many pairs ``name`` holds, from the name alone where it says (a file is read)."""
    s = spec(name)
    return s.n_pairs if s.n_pairs is not None else load(name).n_pairs


def cache_dir() -> Path:
    """Where built sets are kept: ``LASSM_XDROP_DATA``, else ``LASSM_CACHE/xdrop-datasets``, else
    ``$XDG_CACHE_HOME/lassm/xdrop-datasets`` (``~/.cache`` by default)."""
    return settings.value("LASSM_XDROP_DATA") or paths.cache_dir() / "xdrop-datasets"


def cache_key(s: Spec) -> str:
    """A digest of the name, its knobs, the cache format and the source of the code that makes it."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(json.dumps([s.name, s.family, s.knobs, _CACHE_FORMAT], sort_keys=True).encode())
    for source in _SOURCES[s.family]:
        h.update((here / source).read_bytes())
    return h.hexdigest()[:12]


def cached_path(name: str) -> Path:
    """The cache file of registry set ``name`` (present or not)."""
    s = spec(name)
    if s.family == "file":
        raise LassmError(f"{name}: a file is not cached")
    return cache_dir() / f"{name}-{cache_key(s)}.parquet"


def committed_path(name: str) -> Path:
    """Where a committed real set would be: ``data/real/<name>.parquet``."""
    return paths.data_dir() / "real" / f"{name}.parquet"


def build(s: Spec) -> Pairs:
    """Makes registry set ``s`` afresh (the generator, or pbsim for a real set)."""
    if s.family in ("sim", "short"):
        from .synthetic_pairs import PairKnobs, generate

        return generate(PairKnobs(**s.knobs), name=s.name)
    from .real_pairs import RealKnobs, real_pairs

    knobs = {k: v for k, v in s.knobs.items() if k != "genome"}
    genome = GENOMES[s.knobs["genome"]]
    if not Path(genome.path).is_file():
        raise LassmError(f"dataset {s.name}: genome {genome.path} is absent; install the Debian package "
                         f"{genome.package}, or build the set where it is and carry "
                         f"{cache_dir() / (s.name + '-' + cache_key(s) + '.parquet')} (LASSM_XDROP_DATA)")
    return real_pairs(genome.path, RealKnobs(**knobs), name=s.name)


def unavailable(name: str) -> str | None:
    """Why set ``name`` cannot be had here, or None where it is committed, cached or can be built; only
    a real set lacking its genome's package or pbsim can be, and the campaign leaves it out."""
    s = spec(name)
    if s.family != "real" or committed_path(name).is_file() or cached_path(name).is_file():
        return None
    genome = GENOMES[s.knobs["genome"]]
    if not Path(genome.path).is_file():
        return f"{name}: its genome {genome.path} is absent (Debian package {genome.package})"
    from .pbsim import check_pbsim

    try:
        check_pbsim()
    except LassmError as exc:
        return f"{name}: {exc}"
    return None


def load(name: str) -> Pairs:
    """The pair set ``name`` (a registry name or a pairs file): from the committed folder or the cache,
    else built and cached; named ``name``, its knobs (and generator's or pbsim's facts) as provenance."""
    from .pair_files import read_pairs, read_pairs_parquet, write_pairs_parquet

    s = spec(name)
    if s.family == "file":
        return read_pairs(name)
    if s.family == "real" and committed_path(name).is_file():
        return read_pairs_parquet(committed_path(name))
    path = cached_path(name)
    if path.is_file():
        return read_pairs_parquet(path)
    pairs = build(s)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_pairs_parquet(pairs, path)
    return pairs


def head(pairs: Pairs, n: int) -> Pairs:
    """The first ``n`` pairs (all when ``n`` is larger), named ``<name>[:n]``: of a synthetic set, the
    set of ``n`` pairs with the same seed."""
    n = min(int(n), pairs.n_pairs)
    if n == pairs.n_pairs:
        return pairs
    oh, ov = pairs.offsets_h[:n + 1], pairs.offsets_v[:n + 1]
    return Pairs(pairs.seqs_h[:oh[-1]].copy(), oh.copy(), pairs.seqs_v[:ov[-1]].copy(), ov.copy(),
                 pairs.pos_h[:n].copy(), pairs.pos_v[:n].copy(), pairs.seed_len[:n].copy(),
                 name=f"{pairs.name}[:{n}]", provenance={**pairs.provenance, "head": n})

# SPDX-License-Identifier: BSD-3-Clause
"""A synthetic cudaMap data set, laid out and written as HeCBench's ``cm-cuda`` reads one.

``cm-cuda``'s own data are handed out by request; its ``main.cpp`` and ``io.cpp`` (HeCBench at the
pinned commit) fix the layout this module writes from a seed:

- ``queries/``: files ``*.sig`` in byte order; lines starting ``#``, ``AffyProbeSetID`` or
  ``uniqueID`` are skipped, others are whitespace-separated (probe, +1 or -1) pairs. One query,
  :data:`QUERY_FILE`, of :data:`QUERY_GENES` distinct probes.
- ``reffiles-tab/``: files ``*.tab`` in byte order; line 1 skipped, then 22,283 lines
  (``U133AArrayLength``) of probe name, tab, ``atoi`` value. Probe names come from the first file
  only, so all list them in one order. A file's drug is its name up to the first ``_``;
  consecutive files of one drug are summed. Here one file per drug, of signed ranks.
- ``Results/``: where it writes ``sscMap_Result_[<query>].tab`` (:func:`read_results`).

Size: the program prompts for nothing at the pinned commit, so each drug's p-value uses
``defaultRandomGenerations`` = 100,000 random signatures (:data:`RANDOM_SIGNATURES`); with
:data:`DRUGS` = 10 and a 100-gene query that is 10^6 signatures from 10^8 uniform numbers, Jin and
Vetter's size (:data:`lassm.backends.suite.cmap.SIZES` ``"gpu"``). Each drug is planted with a
connection to the query (:data:`CONNECTIONS`, all disagreeing to all agreeing) so p-values span
the range, boundary cases included. The program's ``UCmax``, single-precision threshold and
two-sided p-value, which :mod:`.hecbench_outputs` needs, are here too."""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...atomic import publish, remove_stale, temp_prefix
from ...backends.suite.cmap import GENES

#: The sub-folders the program reads and writes (``subDirQueries``, ``subDirFiles``, ``subDirResults``).
QUERIES, REFERENCES, RESULTS = "queries", "reffiles-tab", "Results"
#: The one query signature.
QUERY_FILE = "query.sig"
#: Random signatures per p-value: the program's ``defaultRandomGenerations`` (it prompts for nothing).
RANDOM_SIGNATURES = 100_000
#: Genes of the query, hence of every random signature: Jin and Vetter's 100.
QUERY_GENES = 100
#: Drugs, one reference profile each: 10 x 100,000 = Jin and Vetter's 10^6 random signatures.
DRUGS = 10
#: Per drug, how the query's signs are planted in its profile: -1 all disagree, 0 chance, +1 all agree.
CONNECTIONS: tuple[float, ...] = (-1.0, -0.5, -0.25, -0.1, 0.0, 0.0, 0.1, 0.25, 0.5, 1.0)
#: The seed the default set is drawn from.
SEED = 4
#: The data set's name: the folder the program is given, and its ``args`` in ``suite/originals.csv``.
DATASET = "cudamap-synthetic"
#: Drugs the program counts for compound choice 1 (``getNDrugs``): ENFP = p-value x this.
ENFP_DRUGS = 1309
#: Rows of the program's results table, as its header names them.
RESULT_HEADER = ("Compound", "setSize", "averageSetScore", "P-value result", "ENFP", "Significant")


@dataclass(frozen=True)
class DataSet:
    """A cudaMap data set: the probes, one query, and each drug's file and profile."""

    probes: tuple[str, ...]
    query_genes: np.ndarray  # int64: the query's probes, as indices into ``probes``, in file order
    query_regulation: np.ndarray  # int32: +1 or -1 each
    files: tuple[str, ...]  # the reference files' names, in byte order
    profiles: np.ndarray  # int32, (files, genes): each file's values

    @property
    def drugs(self) -> tuple[str, ...]:
        """Each file's drug (compound choice 1: its name up to the first ``_``)."""
        return tuple(drug_of(f) for f in self.files)

    def query_vector(self) -> np.ndarray:
        """The program's ``qIndex``: the query's regulation at its probes, 0 elsewhere (int32)."""
        out = np.zeros(len(self.probes), dtype=np.int32)
        out[self.query_genes] = self.query_regulation
        return out

    def dots(self) -> np.ndarray:
        """Each profile's dot product with :meth:`query_vector` (int64): the query's score, unnormalised."""
        return self.profiles.astype(np.int64) @ self.query_vector().astype(np.int64)


def drug_of(name: str) -> str:
    """A reference file's drug for compound choice 1: its name up to the first ``_`` (all of it without one)."""
    return name.split("_", 1)[0]


def make(seed: int = SEED, drugs: int = DRUGS, query_genes: int = QUERY_GENES,
         connections: tuple[float, ...] | None = None) -> DataSet:
    """A data set drawn from ``seed``: probe names, a query of ``query_genes`` distinct probes with
    random signs, and ``drugs`` signed-rank profiles whose signs at the query's probes agree with
    probability (1 + connection) / 2 (``connections`` one per drug, default :data:`CONNECTIONS`,
    evenly spread when ``drugs`` differs from its length)."""
    if connections is None:
        connections = CONNECTIONS if drugs == len(CONNECTIONS) else tuple(np.linspace(-1.0, 1.0, drugs))
    if len(connections) != drugs or not 1 <= query_genes <= GENES:
        raise ValueError(f"{drugs} drugs need as many connections (got {len(connections)}), "
                         f"and 1 to {GENES} query genes")
    rng = np.random.default_rng(seed)
    probes = tuple(f"syn{i:05d}_at" for i in range(GENES))
    genes = rng.choice(GENES, query_genes, replace=False).astype(np.int64)
    regulation = rng.choice(np.array([-1, 1], dtype=np.int32), query_genes)
    profiles = np.empty((drugs, GENES), dtype=np.int32)
    for k, c in enumerate(connections):
        ranks = rng.permutation(GENES).astype(np.int32) + 1
        signs = rng.choice(np.array([-1, 1], dtype=np.int32), GENES)
        agree = rng.random(query_genes) < (1.0 + float(c)) / 2.0
        signs[genes] = np.where(agree, regulation, -regulation)
        profiles[k] = signs * ranks
    files = tuple(f"synth{k:02d}_10uM_MCF7_{1000 + k}.tab" for k in range(drugs))
    return DataSet(probes, genes, regulation, files, profiles)


def _query_text(data: DataSet) -> str:
    lines = ["# a synthetic query signature (lassm.campaign.originals.cmap_data)", "AffyProbeSetID\tregulation"]
    lines += [f"{data.probes[g]}\t{int(r)}" for g, r in zip(data.query_genes, data.query_regulation)]
    return "\n".join(lines) + "\n"


def _profile_text(data: DataSet, k: int) -> str:
    lines = [f"AffyProbeSetID\t{drug_of(data.files[k])}"]
    lines += [f"{p}\t{v}" for p, v in zip(data.probes, data.profiles[k].tolist())]
    return "\n".join(lines) + "\n"


def write(data: DataSet, folder: str | os.PathLike) -> Path:
    """Writes ``data`` as the folder ``folder`` (``queries/``, ``reffiles-tab/``, an empty
    ``Results/``), whole or not at all: it is written beside under a temporary name and renamed
    into place; a folder already there is replaced. Returns ``folder``."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(folder.name), dir=folder.parent))
    try:
        for sub in (QUERIES, REFERENCES, RESULTS):
            (tmp / sub).mkdir()
        (tmp / QUERIES / QUERY_FILE).write_text(_query_text(data), encoding="ascii", newline="\n")
        for k, name in enumerate(data.files):
            (tmp / REFERENCES / name).write_text(_profile_text(data, k), encoding="ascii", newline="\n")
        old = None
        if folder.exists():  # moved aside, then removed once the new one is in place
            old = Path(tempfile.mkdtemp(prefix=temp_prefix(folder.name), dir=folder.parent))
            os.replace(folder, old / "old")
        publish(tmp, folder, directory=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        remove_stale(folder.parent, folder.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


# --- reading, as io.cpp does ------------------------------------------------------------------------

def _listed(folder: Path, ext: str) -> list[str]:
    """``getFilesInDirectory``: names as long as ``ext`` or longer, not starting with ``.``, ending
    with ``ext``, in byte order."""
    names = [p.name for p in folder.iterdir() if len(p.name) >= len(ext) and not p.name.startswith(".")
             and p.name.endswith(ext)]
    return sorted(names, key=lambda n: n.encode())


def _atoi(text: str) -> int:
    """C's ``atoi``: leading whitespace, an optional sign, then digits; 0 when none."""
    s = text.lstrip(" \t\n\v\f\r")
    end = 1 if s[:1] in ("+", "-") else 0
    while end < len(s) and s[end].isdigit():
        end += 1
    digits = s[:end]
    return int(digits) if digits.lstrip("+-") else 0


def read_query(path: str | os.PathLike) -> tuple[list[str], list[int]]:
    """``parseQueryFile``: (probe names, regulation values) of a ``.sig`` file."""
    names, values = [], []
    for line in Path(path).read_text(encoding="ascii").split("\n"):
        if line.startswith(("#", "AffyProbeSetID", "uniqueID")):
            continue
        tokens = line.split()
        for i in range(0, len(tokens) - 1, 2):
            try:
                value = int(tokens[i + 1])
            except ValueError:
                break  # the stream fails: the rest of the line is dropped
            names.append(tokens[i])
            values.append(value)
    return names, values


def read_profile(path: str | os.PathLike) -> tuple[list[str], np.ndarray]:
    """``populateRefGeneNameList`` and ``populateRefRegulationValues``: the 22,283 lines after the
    first, each a name up to its first tab and ``atoi`` of the rest (int32)."""
    lines = Path(path).read_text(encoding="ascii").split("\n")[1:1 + GENES]
    if len(lines) < GENES or "\t" not in lines[-1]:
        raise ValueError(f"{path}: {len(lines)} lines after the first, {GENES} tab-separated ones expected")
    names, values = [], np.empty(GENES, dtype=np.int32)
    for j, line in enumerate(lines):
        tab = line.find("\t")
        if tab < 0:
            raise ValueError(f"{path}: line {j + 2} has no tab")
        names.append(line[:tab])
        values[j] = _atoi(line[tab:])
    return names, values


def read(folder: str | os.PathLike) -> DataSet:
    """The data set in ``folder`` as the program reads it (one ``.sig``; each ``.tab`` its own
    profile); ``ValueError`` where the program would fail or read something else (no query or more
    than one, a query probe absent from the first profile, files whose probes differ)."""
    folder = Path(folder)
    queries = _listed(folder / QUERIES, ".sig")
    if len(queries) != 1:
        raise ValueError(f"{folder / QUERIES}: {len(queries)} .sig files, 1 expected")
    names, regulation = read_query(folder / QUERIES / queries[0])
    files = _listed(folder / REFERENCES, ".tab")
    if not files:
        raise ValueError(f"{folder / REFERENCES}: no .tab files")
    probes, profiles = None, np.empty((len(files), GENES), dtype=np.int32)
    for k, name in enumerate(files):
        got, profiles[k] = read_profile(folder / REFERENCES / name)
        if probes is None:
            probes = got
        elif got != probes:
            raise ValueError(f"{name}: its probes are not those of {files[0]}")
    assert probes is not None  # files is not empty
    where = {p: i for i, p in enumerate(probes)}
    missing = [n for n in names if n not in where]
    if missing or len(set(names)) != len(names):
        raise ValueError(f"{queries[0]}: probes absent from the profiles or repeated ({missing[:3]})")
    return DataSet(tuple(probes), np.array([where[n] for n in names], dtype=np.int64),
                   np.array(regulation, dtype=np.int32), tuple(files), profiles)


@dataclass(frozen=True)
class Result:
    """One row of the program's results table, its numbers as it printed them (6 significant digits)."""

    compound: str
    set_size: int
    average_set_score: float
    p_value: float
    enfp: float
    significant: int


def results_file(folder: str | os.PathLike, query: str = QUERY_FILE) -> Path:
    """Where the program writes its results for ``query``: ``Results/sscMap_Result_[<query>].tab``."""
    return Path(folder) / RESULTS / f"sscMap_Result_[{query}].tab"


def read_results(folder: str | os.PathLike, query: str = QUERY_FILE) -> list[Result]:
    """The rows of the program's results table for ``query`` after its ``Compound`` header;
    ``ValueError`` without the file, its header or a well-formed row."""
    path = results_file(folder, query)
    if not path.is_file():
        raise ValueError(f"the program wrote no {path.name} in {path.parent}")
    lines = path.read_text(encoding="ascii", errors="replace").split("\n")
    heads = [i for i, line in enumerate(lines) if [c.strip() for c in line.split("\t")] == list(RESULT_HEADER)]
    if not heads:
        raise ValueError(f"{path}: no results header ({' / '.join(RESULT_HEADER)})")
    out = []
    for line in lines[heads[0] + 1:]:
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(RESULT_HEADER):
            raise ValueError(f"{path}: a row of {len(cells)} cells: {line!r}")
        out.append(Result(cells[0], int(cells[1]), float(cells[2]), float(cells[3]), float(cells[4]), int(cells[5])))
    return out


# --- the program's arithmetic -------------------------------------------------------------------------

def ucmax(query_genes: int, genes: int = GENES) -> float:
    """``computeUCMax``: the largest score of an unordered query, the normalisation of every score."""
    n = int(query_genes)
    return float(n * genes - (n * (n + 1)) // 2 + n)


def p_value(above: int, signatures: int) -> float:
    """``computePValueHelper``: twice the smaller tail share, a tail of none counted as half a signature."""
    n = int(signatures)
    if above < 1:
        low, high = 0.5 / n, (n - 0.5) / n
    elif above > n - 1:
        low, high = (n - 0.5) / n, 0.5 / n
    else:
        low, high = above / n, (n - above) / n
    return 2 * high if high < low else 2 * low if high > low else 0.0


def threshold(dot: int, query_genes: int, genes: int = GENES) -> int:
    """The least integer sum whose score exceeds the query's, as the program compares them.

    A random signature scores its integer sum (exact in ``float`` below 2^24) over ``UCmax`` in
    single precision; the query ``dot / UCmax`` in double, rounded to ``float``; scores strictly
    above count. Division by a positive number is monotone, so counted signatures are those whose
    sum is at least the returned integer (for a set size of one profile)."""
    u = np.float32(ucmax(query_genes, genes))
    limit = np.float32(float(dot) / ucmax(query_genes, genes))

    def above(s: int) -> bool:
        return bool(np.float32(s) / u > limit)

    t = int(dot) - 2
    while above(t):  # walks down at most a few steps: the quotients of neighbouring integers differ
        t -= 1
    while not above(t):
        t += 1
    return t


__all__ = ["CONNECTIONS", "DATASET", "DRUGS", "DataSet", "ENFP_DRUGS", "QUERIES", "QUERY_FILE", "QUERY_GENES",
           "RANDOM_SIGNATURES", "REFERENCES", "RESULTS", "RESULT_HEADER", "Result", "SEED", "drug_of", "make",
           "p_value", "read", "read_profile", "read_query", "read_results", "results_file", "threshold", "ucmax",
           "write"]

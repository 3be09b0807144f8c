# SPDX-License-Identifier: BSD-3-Clause
"""The architecture page's recipes (``book/architecture.md``, "Where a new piece plugs in"),
followed step by step with a toy kernel, a vector sum, from its part to its chapter.

The toy lives in this file, not in the package: its "modules" are registered for the test alone
(``monkeypatch``), so the real main job keeps its four parts. Each step is marked with the page's
words. What the test holds: ``lassm run --kernel toy`` plans, runs and accounts the part once it
has its one line in the parts list, each backend's sum is checked against the oracle's, the
record is whole, carries its provenance and is checked as it is read back, and a chapter
notebook executed by Papermill glues the sum the record holds.
"""
from __future__ import annotations

import errno
import logging
import math
import sys
import time
import types
import dataclasses
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from lassm import paths
from lassm.backends import load
from lassm.campaign import runs_account, whole
from lassm.campaign.outcome import PartOutcome
from lassm.campaign.part import Ask, How, LeftOut, Part, Planned, Where, Work
from lassm.cli import main
from lassm.errors import BackendUnavailable, InputError, LassmError
from lassm.runs import tables
from lassm.runs.account import SKIPPED, append_part, read_entries
from lassm.runs.devices import cpu_model
from lassm.runs.folders import run_folder
from lassm.runs.host import check_mine, host_id
from lassm.runs.records import command_line, git_sha

REPO = Path(__file__).resolve().parents[2]

# --- "A new kernel", step 1, its data model --------------------------------------------------------
# (in the package: lassm/workloads/<kernel>/, its parameters, inputs and named datasets)

#: The toy's named inputs: a length not a multiple of a block, and a seed.
VECTORS: dict[str, tuple[int, int]] = {"toy-100k": (100_003, 7)}


def vector(name: str) -> np.ndarray:
    """The named vector: int64 values in [-1000, 1000] drawn from its seed (the sum is exact)."""
    n, seed = VECTORS[name]
    return np.random.default_rng(seed).integers(-1000, 1001, size=n, dtype=np.int64)


# --- "A new kernel", step 2, its backends: a registry of its own, one signature, a cpu oracle ------
# (in the package: modules in lassm/backends/<kernel>/, each name resolved by lassm.backends.load)

#: name -> (module, what provides its runtime): the toy kernel's registry; ``cpu`` is its oracle.
TOY_BACKENDS: dict[str, tuple[str, str]] = {"cpu": ("toy_sum_cpu", "cpu")}


def _module(name: str, vector_sum: Callable[[np.ndarray], int]) -> types.ModuleType:
    """A backend module: ``available()`` and the kernel's one signature, ``vector_sum(values)``."""
    mod = types.ModuleType(name)
    vars(mod).update(available=lambda: (True, ""), vector_sum=vector_sum)
    return mod


def _oracle_sum(values: np.ndarray) -> int:
    """Python's integers, one value at a time: exact, and no NumPy reduction."""
    return sum(values.tolist())


def _blocks_sum(values: np.ndarray) -> int:
    """A GPU's two passes: a sum per block of 256, then the sum of the blocks' sums."""
    return int(np.add.reduceat(values, np.arange(0, len(values), 256)).sum())


def get(name: str) -> types.ModuleType:
    """The toy backend ``name``, as every registry resolves a name (:func:`lassm.backends.load`)."""
    return load(TOY_BACKENDS, name, "toy backend", "it needs {}")


# --- "A new kernel", step 3, its record: a table, its columns with their provenance, its key ------
# (in the package: lassm/runs/<kernel>_records.py; rows added by lassm.runs.tables.upsert)

FOLDER, TABLE = "toy", "sums.csv"
COLUMNS: tuple[str, ...] = ("machine", "device", "vector", "n", "backend", "sum", "seconds", "repeats",
                            "matches_oracle", "git_sha", "command", "host")
KEY: tuple[str, ...] = ("vector", "backend")


def table(machine: str) -> Path:
    return paths.results_dir(machine) / FOLDER / TABLE


# --- "A new kernel in lassm run": one module with a Part (then one line in PARTS: `listed`) --------
# (in the package: lassm/campaign/<kernel>_part.py)

@dataclass(frozen=True)
class ToyPlan:
    """What the toy part runs: its backends, its vectors, its timed runs."""

    backends: tuple[str, ...]
    vectors: tuple[str, ...]
    repeats: int = 1

    def as_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


@dataclass
class ToyOutcome(PartOutcome):
    """A status row per (vector, backend), and the folder the part wrote."""

    machine: str = ""


def _todo(plan: ToyPlan, rows: list[dict], sha: str, force: bool) -> list[tuple[str, str]]:
    """The (vector, backend) without a timed row of this host at ``sha``."""
    return [(v, b) for v in plan.vectors for b in plan.backends
            if force or not tables.recorded(rows, sha, timed="seconds", vector=v, backend=b, host=host_id())]


class ToyPart(Part[ToyPlan, ToyOutcome]):
    """The vector sum as a part of ``lassm run``."""

    key, label, account = "toy", "the toy vector sum", "toy/campaign.json"

    def needs(self, ask: Ask, planned: Planned) -> LeftOut | None:
        if ask.datasets:
            return LeftOut("--datasets names no toy vector")
        return None

    def plan(self, ask: Ask, planned: Planned) -> ToyPlan | LeftOut:
        found = []
        for name in TOY_BACKENDS:
            try:
                get(name)
            except BackendUnavailable:
                continue
            found.append(name)
        names = ask.backends_among(found)
        chosen = tuple(found if names is None else names)
        return ToyPlan(chosen, tuple(VECTORS), ask.repeats or 1) if chosen else LeftOut("no toy backend here")

    def describe(self, plan: ToyPlan) -> str:
        return (f"vectors   {', '.join(plan.vectors)}\nbackends  {', '.join(plan.backends)}, each checked against "
                f"the cpu oracle")

    def work(self, plan: ToyPlan, where: Where) -> Work:
        left = _todo(plan, tables.read_rows(table(where.folder), COLUMNS), where.sha, where.force)
        return Work(len(left), len(plan.vectors) * len(plan.backends), float(len(left)))

    def run(self, plan: ToyPlan, how: How) -> ToyOutcome:
        start = time.perf_counter()
        sha, command = git_sha(), command_line()
        machine = run_folder(plan.backends, how.machine)
        check_mine(paths.results_dir(machine))
        out = ToyOutcome(machine=machine)
        where = table(machine)
        todo = _todo(plan, tables.read_rows(where, COLUMNS), sha, how.force)
        for name in plan.vectors:
            values = vector(name)
            oracle = get("cpu").vector_sum(values)
            for backend in plan.backends:
                if (name, backend) not in todo:
                    out.rows.append({"vector": name, "backend": backend, "status": SKIPPED})
                    continue
                seconds, got = [], None
                for _ in range(plan.repeats):
                    t0 = time.perf_counter()
                    got = get(backend).vector_sum(values)
                    seconds.append(time.perf_counter() - t0)
                same = got == oracle
                row = {"machine": machine, "device": cpu_model(), "vector": name, "n": len(values), "backend": backend,
                       "sum": got, "seconds": float(np.median(seconds)), "repeats": plan.repeats,
                       "matches_oracle": same, "git_sha": sha, "command": command, "host": host_id()}
                tables.upsert(where, COLUMNS, KEY, [row])  # whole and atomic, as each point lands
                out.rows.append({"vector": name, "backend": backend, "sum": got,
                                 "status": "ok" if same else "MISMATCH"})
                how.say(f"{name} {backend}: {got}{'' if same else '  DIFFERS from the oracle'}")
        out.files["sums"] = where
        out.files["campaign"] = append_part(paths.results_dir(machine) / self.account,
                                            {"kernel": "toy", "machine": machine, "plan": plan.as_dict()},
                                            out, sha, command, time.perf_counter() - start)
        return out


# --- "A new chapter": a module whose facts the notebook glues ---------------------------------------
# (in the package: lassm/book/<chapter>_chapter.py; notebooks/<chapter>.ipynb from _template.ipynb, in _toc.yml)

NOT_MEASURED = "not measured"


def read_sums(machine: str) -> list[dict]:
    """The record's rows, each cell checked as it is read back (the header by :func:`tables.read_rows`)."""
    path = table(machine)
    rows = []
    for line, raw in enumerate(tables.read_rows(path, COLUMNS), start=2):
        row: dict = dict(raw)
        for field in ("n", "sum", "repeats"):
            try:
                row[field] = int(raw[field])
            except ValueError:
                raise InputError(str(path), line, field, f"{raw[field]!r} is no integer") from None
        try:
            row["seconds"] = float(raw["seconds"])
        except ValueError:
            row["seconds"] = math.nan
        if not (math.isfinite(row["seconds"]) and row["seconds"] >= 0):
            raise InputError(str(path), line, "seconds", f"{raw['seconds']!r} is no time")
        if raw["matches_oracle"] not in ("True", "False"):
            raise InputError(str(path), line, "matches_oracle", f"{raw['matches_oracle']!r} is neither True nor False")
        row["matches_oracle"] = raw["matches_oracle"] == "True"
        rows.append(row)
    return rows


def facts(machine: str) -> dict[str, str]:
    """What the chapter's text quotes: the sum, as wide as the rows that equal the oracle's."""
    rows = read_sums(machine)
    good = [r for r in rows if r["matches_oracle"]]
    if not good:
        return {"toy_sum": NOT_MEASURED, "toy_backends": NOT_MEASURED, "toy_device": NOT_MEASURED,
                "toy_differing": str(len(rows))}
    sums = {r["sum"] for r in good}
    assert len(sums) == 1, f"backends equal to the oracle disagree: {sums}"
    return {"toy_sum": f"{sums.pop():,}", "toy_backends": ", ".join(sorted({r["backend"] for r in good})),
            "toy_device": ", ".join(sorted({r["device"] for r in good})),
            "toy_differing": str(len(rows) - len(good))}


# --- "A new backend", for local assembly: extend_side(side, protocol, ...), its result naming it ----
# (in the package: lassm/backends/<name>.py, its entry in BACKENDS, its builds in PROTOCOL_LISTS)

def _walks_on_the_oracle(side, protocol: str = "plain", threads: int | None = None):
    """A backend whose walks are the numba oracle's; its result names the build that ran."""
    from lassm.backends import cpu

    out = cpu.extend_side(side, threads=threads)
    out.extra = dataclasses.replace(out.extra, protocol=protocol)
    return out


def _walks_cut(side, protocol: str = "plain", threads: int | None = None):
    """The same, every walk cut to nothing: a backend that differs from the oracle."""
    out = _walks_on_the_oracle(side, protocol, threads)
    out.walk_len[:] = 0
    return out


# --- the test's set-up -----------------------------------------------------------------------------

@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-toy")
    monkeypatch.setitem(sys.modules, "toy_sum_cpu", _module("toy_sum_cpu", _oracle_sum))
    return tmp_path / "results"


@pytest.fixture
def listed(results: Path, monkeypatch: pytest.MonkeyPatch) -> ToyPart:
    """"One line in PARTS": the toy part appended to the main job's list, for this test alone."""
    toy = ToyPart()
    monkeypatch.setattr(whole, "PARTS", (*whole.PARTS, toy))
    return toy


def add_backend(monkeypatch: pytest.MonkeyPatch, name: str, vector_sum: Callable[[np.ndarray], int]) -> None:
    """"A new backend": a module with ``available()`` and the kernel's signature, and its entry in
    the kernel's registry."""
    monkeypatch.setitem(sys.modules, f"toy_sum_{name}", _module(f"toy_sum_{name}", vector_sum))
    monkeypatch.setitem(TOY_BACKENDS, name, (f"toy_sum_{name}", "numpy"))


def expected_sum() -> int:
    """The sum, computed here without any backend: Python's integers over the values."""
    return sum(int(v) for v in vector("toy-100k"))


RUN = ["run", "--kernel", "toy", "--machine", "box", "--quiet"]


def add_local_assembly_backend(monkeypatch: pytest.MonkeyPatch, extend_side: Callable) -> None:
    """"A new backend" of local assembly: ``available()``, ``extend_side`` and its ``PROTOCOLS``,
    an entry in ``BACKENDS`` and its builds' list in ``PROTOCOL_LISTS``."""
    from lassm import backends

    mod = types.ModuleType("toy_extend")
    vars(mod).update(available=lambda: (True, ""), extend_side=extend_side, PROTOCOLS=("plain",))
    monkeypatch.setitem(sys.modules, "toy_extend", mod)
    monkeypatch.setitem(backends.BACKENDS, "toy", ("toy_extend", "cpu"))
    monkeypatch.setitem(backends.PROTOCOL_LISTS, "toy", ("toy_extend", "PROTOCOLS"))


LOCAL = ["run", "--kernel", "local-assembly", "--backends", "toy,cpu", "--datasets", "sample-k21", "--quick",
         "--no-profile", "--no-ceilings", "--repeats", "1", "--warmup", "0", "--machine", "box", "--quiet"]


def execute_chapter(tmp_path: Path, machine: str) -> dict[str, str]:
    """A chapter of three cells (imports, parameters, the facts glued) executed as the book's
    notebooks are tested (Papermill, the ``parameters`` cell overridden), its glue read back as
    the book's build reads it (myst-nb)."""
    papermill = pytest.importorskip("papermill")
    pytest.importorskip("ipykernel")
    nbformat = pytest.importorskip("nbformat")
    from myst_nb.ext.glue import extract_glue_data

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from myst_nb import glue\n\nfrom tests.whole.test_recipe_toy_kernel import facts",
                                          metadata={"tags": ["remove-input"]}),
                nbformat.v4.new_code_cell('machine = "nowhere"', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("for key, value in facts(machine).items():\n"
                                          "    glue(key, value, display=False)"),
                nbformat.v4.new_markdown_cell("The sum is {glue:text}`toy_sum` on {glue:text}`toy_device`.")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source, done = tmp_path / "toy.ipynb", tmp_path / "toy-run.ipynb"
    nbformat.write(nb, str(source))
    papermill.execute_notebook(str(source), str(done), parameters={"machine": machine}, kernel_name="python3",
                               cwd=str(REPO), progress_bar=False, log_output=False)
    ran = nbformat.read(str(done), as_version=4)
    glued = extract_glue_data(ran, list(range(len(ran.cells))), logging.getLogger("toy"))
    return {key: out["data"]["text/plain"].strip("'") for key, out in glued.items()}


# --- the recipes, followed -------------------------------------------------------------------------

def test_the_recipes_carry_a_vector_sum_from_its_part_to_its_chapter(
        listed: ToyPart, results: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture) -> None:
    add_backend(monkeypatch, "blocks", _blocks_sum)
    # the plan: --kernel toy is a choice, the dry run shows the part's block and the new backend in it
    assert main([*RUN, "--dry-run"]) == 0
    assert "== the toy vector sum\nvectors   toy-100k\nbackends  cpu, blocks, each checked" in capsys.readouterr().out
    # run: the part alone, every other part left out
    assert main(RUN) == 0
    (run_entry,) = runs_account.read(paths.results_dir("box"))
    assert run_entry["parts"]["toy"]["measured"] == 2 and run_entry["parts"]["toy"]["failed"] == 0
    assert {k: v for k, v in run_entry["parts"].items() if k != "toy"} == {
        p.key: {"left_out": "--kernel toy"} for p in whole.PARTS if p.key != "toy"}
    # record: one row a backend, each sum the oracle's and the true one, with its provenance
    rows = read_sums("box")
    assert [(r["backend"], r["sum"], r["matches_oracle"]) for r in rows] == [("cpu", expected_sum(), True),
                                                                           ("blocks", expected_sum(), True)]
    assert {(r["git_sha"], r["host"], r["machine"], r["n"]) for r in rows} == {("sha-toy", host_id(), "box", 100_003)}
    assert all(r["command"].startswith("lassm ") and r["device"] == cpu_model() for r in rows)
    (account,) = read_entries(paths.results_dir("box") / "toy" / "campaign.json")
    assert account["plan"] == {"backends": ["cpu", "blocks"], "vectors": ["toy-100k"], "repeats": 1}
    assert account["git_sha"] == "sha-toy" and account["host"]["id"] == host_id() and "numpy" in account["versions"]
    assert [r["status"] for r in account["rows"]] == ["ok", "ok"]
    left = sorted(p.name for p in (results / "box").rglob("*") if p.name.endswith(".tmp"))
    assert left == []  # no temporary of an atomic write is left behind
    # a second run reads its record back and measures nothing again
    assert main(RUN) == 0
    assert [r["status"] for r in read_entries(paths.results_dir("box") / "toy" / "campaign.json")[-1]["rows"]] == \
        [SKIPPED, SKIPPED]
    # chapter: the facts a notebook glues, and the notebook itself
    want = {"toy_sum": f"{expected_sum():,}", "toy_backends": "blocks, cpu", "toy_device": cpu_model(),
            "toy_differing": "0"}
    assert facts("box") == want
    assert execute_chapter(tmp_path, "box") == want


def test_a_backend_with_a_wrong_sum_is_a_mismatch_the_chapter_leaves_out(listed: ToyPart, results: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    add_backend(monkeypatch, "off-by-one", lambda values: _blocks_sum(values) + 1)
    assert main(RUN) == 1  # a point that differs from the oracle fails the run
    rows = {r["backend"]: r for r in read_sums("box")}
    assert rows["off-by-one"]["sum"] == expected_sum() + 1 and not rows["off-by-one"]["matches_oracle"]
    assert facts("box")["toy_backends"] == "cpu" and facts("box")["toy_differing"] == "1"


def test_without_its_line_in_the_list_the_part_is_no_choice(results: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(RUN) == 2
    assert "unknown part 'toy'; choose one of local-assembly, xdrop, suite, originals" in capsys.readouterr().err
    assert not (results / "box").exists()


def test_a_damaged_account_stops_the_run_before_any_work(listed: ToyPart, results: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    account = results / "box" / "toy" / "campaign.json"
    account.parent.mkdir(parents=True)
    account.write_text('{"entries": [{"rows": 3}]}\n')
    assert main(RUN) == 2
    assert f"{account}: entry 1 of 1: rows" in capsys.readouterr().err
    assert not table("box").exists()


def test_the_record_is_whole_or_as_it_was(listed: ToyPart, results: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture) -> None:
    assert main(RUN) == 0
    before = table("box").read_bytes()
    from lassm import atomic

    def full(tmp, path, directory: bool = False) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "publish", full)
    assert main([*RUN, "--force"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert table("box").read_bytes() == before
    assert [p.name for p in table("box").parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("column", "value", "field"), [("sum", "12x", "sum"), ("seconds", "-1", "seconds"),
                                                        ("matches_oracle", "yes", "matches_oracle")])
def test_a_damaged_record_is_refused_as_it_is_read_back(listed: ToyPart, results: Path, column: str, value: str,
                                                        field: str) -> None:
    assert main(RUN) == 0
    rows = tables.read_rows(table("box"), COLUMNS)
    tables.write_rows(table("box"), COLUMNS, [{**rows[0], column: value}])
    with pytest.raises(InputError, match=f"{table('box')}:2: {field}: "):
        facts("box")
    table("box").write_text("vector,sum\ntoy-100k,1\n")
    with pytest.raises(LassmError, match="header"):
        facts("box")


def test_a_local_assembly_backend_is_one_module_and_its_registry_entries(results: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm.readback import json_object

    add_local_assembly_backend(monkeypatch, _walks_on_the_oracle)
    assert main(LOCAL) == 0  # the sweep plans it, runs it at its protocol, checks it against the cpu oracle
    record = results / "box" / "sample-k21__k21__toy__plain" / "summary.json"
    summary = json_object(record, "record")
    assert (summary["backend"], summary["protocol"], summary["matches_cpu"]) == ("toy", "plain", True)
    assert summary["git_sha"] == "sha-toy" and summary["host"]["id"] == host_id()
    assert main(LOCAL) == 0  # its record is found again: a second run measures nothing
    rows = read_entries(results / "box" / "campaign.json")[-1]["rows"]
    assert [(r["backend"], r["status"]) for r in rows] == [("cpu", SKIPPED), ("toy", SKIPPED)]
    add_local_assembly_backend(monkeypatch, _walks_cut)
    assert main([*LOCAL, "--force"]) == 1  # a backend whose walks differ fails the run
    assert json_object(record, "record")["matches_cpu"] is False


def test_what_the_recipes_name_exists() -> None:
    """Each name the page's recipes quote (a dotted name in the package, a file of the tree) is
    there: a recipe step renamed or moved away fails here before a newcomer follows it."""
    import importlib
    import re

    page = (REPO / "book" / "architecture.md").read_text()
    recipes = page[page.index("## Where a new piece plugs in"):page.index("A new machine\n")]
    for step in ("A new kernel\n", "A new kernel in `lassm run`\n", "A new backend\n", "A new chapter\n"):
        assert step in recipes
    assert "tests/whole/test_recipe_toy_kernel.py" in recipes
    dotted = set(re.findall(r"`(lassm(?:\.\w+)+)", recipes))
    assert len(dotted) >= 8
    for name in sorted(dotted):
        module, _, attribute = name.rpartition(".")
        try:
            found = importlib.import_module(name)
        except ImportError:
            found = getattr(importlib.import_module(module), attribute, None)
        assert found is not None, f"the page's recipes name {name}, which is not there"
    files = {f for f in re.findall(r"`([\w./-]+\.(?:py|ipynb|yml))`", recipes)}
    assert {"lassm/campaign/xdrop_run.py", "notebooks/_template.ipynb", "_toc.yml"} <= files
    assert [f for f in sorted(files) if not (REPO / f).exists()] == []
    for module, name in (("lassm.backends", "PROTOCOL_LISTS"), ("lassm.cli.args", "run_backend_list")):
        assert name in vars(importlib.import_module(module)), f"the page's recipes name {module}.{name}"

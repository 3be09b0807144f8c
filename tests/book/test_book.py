# SPDX-License-Identifier: BSD-3-Clause
"""The book's sources: the table of contents, the notebooks' shape, the execution settings.

The notebook list is read from ``_toc.yml``, as the book builds it. Executing the notebooks is
``make book``'s job (jupyter-book runs every page and fails on any error or warning); these
checks are the fast ones that need no kernel.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TOC = ROOT / "_toc.yml"
CONFIG = ROOT / "_config.yml"
NOTEBOOKS = ROOT / "notebooks"

#: The skeleton every notebook follows (STYLE.md item 7); see notebooks/_template.ipynb.
SKELETON = ("Overview", "Prerequisites", "Imports", "Summary", "Resources")

#: Notebooks that are not chapters: ``run.ipynb`` is what ``lassm run --notebooks`` executes for
#: each sweep point (its executed copies live in the run records; tests/runs/test_sweep.py runs it);
#: ``machine.ipynb`` is the template of the generated machine chapters (``machines/*``, a glob of
#: _toc.yml; tests/book/test_machine_chapters.py executes it).
NOT_CHAPTERS = {"run.ipynb", "machine.ipynb"}


def _toc_files(node) -> list[str]:
    """Every ``file:`` (and the ``root:``) of a jupyter-book table of contents, in order."""
    out = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                out.append(node[key])
        for value in node.values():
            if isinstance(value, (list, dict)):
                out += _toc_files(value)
    elif isinstance(node, list):
        for item in node:
            out += _toc_files(item)
    return out


def _toc_paths() -> list[Path]:
    paths = []
    for entry in _toc_files(yaml.safe_load(TOC.read_text())):
        candidates = [ROOT / f"{entry}{s}" for s in (".md", ".ipynb")] + [ROOT / entry]
        found = [c for c in candidates if c.is_file()]
        paths.append(found[0] if found else ROOT / entry)
    return paths


def _toc_notebooks() -> list[Path]:
    return [p for p in _toc_paths() if p.suffix == ".ipynb"]


def _all_notebooks() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.glob("*.ipynb"))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _markdown_without_code(text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)


def test_toc_lists_pages_that_exist():
    missing = [_rel(p) for p in _toc_paths() if not p.is_file()]
    assert not missing, f"_toc.yml names pages that do not exist: {missing}"


def test_toc_has_notebooks():
    assert _toc_notebooks(), "_toc.yml lists no notebook"


def test_every_chapter_notebook_is_in_the_toc():
    """A notebook outside the table of contents would never be executed (only_build_toc_files)."""
    listed = set(_toc_notebooks())
    orphans = [_rel(p) for p in _all_notebooks()
               if not p.name.startswith("_") and p.name not in NOT_CHAPTERS and p not in listed]
    assert not orphans, f"notebooks missing from _toc.yml: {orphans}"


@pytest.mark.parametrize("path", _all_notebooks(), ids=_rel)
def test_notebook_has_a_parameters_cell(path):
    tagged = [c for c in _cells(path) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{_rel(path)}: {len(tagged)} cells tagged 'parameters' (want exactly one)"
    assert tagged[0]["cell_type"] == "code"
    # Papermill injects values after this cell: it must only assign literals.
    for node in ast.parse(_source(tagged[0])).body:
        assert isinstance(node, (ast.Assign, ast.AnnAssign)), f"{_rel(path)}: parameters cell does more than assign"
        ast.literal_eval(node.value)


@pytest.mark.parametrize("path", _all_notebooks(), ids=_rel)
def test_notebook_committed_without_outputs(path):
    dirty = [i for i, c in enumerate(_cells(path))
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{_rel(path)}: cells {dirty} have outputs; clear them before committing"


@pytest.mark.parametrize("path", _all_notebooks(), ids=_rel)
def test_notebook_follows_the_skeleton(path):
    markdown = "\n".join(_markdown_without_code(_source(c)) for c in _cells(path) if c["cell_type"] == "markdown")
    titles = re.findall(r"^# \S.*$", markdown, re.M)
    assert len(titles) == 1, f"{_rel(path)}: {len(titles)} top-level '# ' titles (want one)"
    sections = re.findall(r"^## +(.+?)\s*$", markdown, re.M)
    missing = [s for s in SKELETON if not any(h.startswith(s) for h in sections)]
    assert not missing, f"{_rel(path)}: no '## ' section for {missing}"


@pytest.mark.parametrize("path", _all_notebooks(), ids=_rel)
def test_notebook_code_defines_nothing(path):
    """Notebooks call into lassm; functions and classes belong in the package (exercises excepted)."""
    for i, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "code" or "exercise" in cell.get("metadata", {}).get("tags", []):
            continue
        src = "\n".join(line for line in _source(cell).splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(src)):
            assert not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)), (
                f"{_rel(path)}: cell {i} defines {node.name}; move it into lassm"
            )


def test_execution_settings():
    cfg = yaml.safe_load(CONFIG.read_text())
    assert cfg["only_build_toc_files"] is True
    assert cfg["execute"]["execute_notebooks"] in ("cache", "force")
    assert cfg["execute"]["allow_errors"] is False
    assert cfg["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    assert "sphinx_design" in cfg["sphinx"]["extra_extensions"]


def _tab_sets(text: str) -> list[list[str]]:
    """The ``:sync:`` keys of every tab-set synchronised on ``backend``, one list per set."""
    sets = []
    for chunk in re.split(r"[`:]{3,}\{tab-set\}", text)[1:]:
        chunk = re.split(r"[`:]{3,}\{tab-set\}", chunk)[0]
        if re.search(r"^\s*:sync-group:\s*backend\s*$", chunk, re.M):
            sets.append(re.findall(r"^\s*:sync:\s*(\S+)\s*$", chunk, re.M))
    return sets


def _pages_text() -> list[tuple[str, str]]:
    pages = [(_rel(p), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "book").rglob("*.md"))]
    for nb in _all_notebooks():
        pages.append((_rel(nb), "\n".join(_source(c) for c in _cells(nb) if c["cell_type"] == "markdown")))
    return pages


def test_backend_tabs_use_every_backend_once():
    """Backend tabs (sphinx-design ``:sync-group: backend``) use all, and only, the registry's names."""
    from lassm.backends import BACKENDS

    for name, text in _pages_text():
        for keys in _tab_sets(text):
            assert sorted(keys) == sorted(BACKENDS), (
                f"{name}: a backend tab-set has :sync: keys {keys}; want each of {list(BACKENDS)} once"
            )


# --- the backends page: synchronised tabs over the registry's keys --------------------------

BACKENDS_PAGE = ROOT / "book" / "backends.md"
CONTRACT = ROOT / "book" / "data-contract.md"


def test_backends_page_has_backend_tabs():
    """The page exists for its tabs: the check above must not pass by finding none."""
    sets = _tab_sets(BACKENDS_PAGE.read_text(encoding="utf-8"))
    assert len(sets) >= 2, "book/backends.md: want the call and the source excerpts in backend tab-sets"


def test_every_tab_item_of_a_backend_set_is_synced():
    """A tab-item without ``:sync:`` would not follow the reader's choice of backend."""
    for name, text in _pages_text():
        for chunk in re.split(r"[`:]{3,}\{tab-set\}", text)[1:]:
            if not re.search(r"^\s*:sync-group:\s*backend\s*$", chunk, re.M):
                continue
            items = re.findall(r"[`:]{3,}\{tab-item\}", chunk)
            syncs = re.findall(r"^\s*:sync:\s*(\S+)\s*$", chunk, re.M)
            assert len(items) == len(syncs), f"{name}: {len(items)} tab-items, {len(syncs)} :sync: keys"


def test_backend_source_excerpts_match_the_backend():
    """Each backend's tab quotes that backend's kernel source, nothing else."""
    sources = {"cuda": "kernels/local_assembly/cuda/ht_insert.cuh", "hip": "kernels/local_assembly/cuda/common.cuh",
               "sycl": "kernels/local_assembly/opencl/ht_insert.h", "opencl": "kernels/local_assembly/opencl/team.h",
               "opencl-ptx": "lassm/backends/opencl_ptx.py", "hip-cpu": "kernels/hip_cpu/hip_cpu.h",
               "cpu": "lassm/backends/cpu.py"}
    text = BACKENDS_PAGE.read_text(encoding="utf-8")
    quoted = {}
    for item in re.split(r"[`:]{3,}\{tab-item\}", text)[1:]:
        key = re.search(r"^\s*:sync:\s*(\S+)\s*$", item, re.M)
        files = re.findall(r"\{literalinclude\}\s+\.\./(\S+)", item.split("\n::::")[0])
        if key and files:
            quoted[key[1]] = files
    assert quoted == {key: [path] for key, path in sources.items()}


# --- the data contract: the documented columns are the written ones -------------------------

def _contract_rows(heading: str) -> list[list[str]]:
    """Cells of the table under the ``## `` heading that contains ``heading``."""
    sections = re.split(r"^## ", CONTRACT.read_text(encoding="utf-8"), flags=re.M)
    section = next(s for s in sections if heading in s.splitlines()[0])
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 4:
            rows.append([cells[0].strip("`")] + cells[1:])
    assert rows, f"data-contract.md: no table under {heading!r}"
    return rows


def _contract_columns(heading: str) -> list[str]:
    return [row[0] for row in _contract_rows(heading)]


def _records(name: str) -> list[Path]:
    return sorted((ROOT / "data" / "results").glob(f"*/*/{name}"))


@pytest.fixture(scope="module")
def fresh_cpu_record(tmp_path_factory) -> Path:
    """A CPU run record of ``sample-k21`` written now, the way ``lassm run`` writes one (outside a
    Slurm job, whose id a record inside one keeps: ``slurm_job``)."""
    from lassm.runs import point
    from lassm.runs.records import RunOptions

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SLURM_JOB_ID", raising=False)
        folder, _ = point.run_one("sample-k21", None, "cpu", "none", "contract-test",
                                  run=RunOptions(root=tmp_path_factory.mktemp("results")))
    return folder


def test_contract_summary_keys_equal_a_fresh_cpu_record(fresh_cpu_record):
    rows = _contract_rows("summary.json")
    documented = {row[0] for row in rows if row[3] in ("every record", "embedded samples")}
    written = set(json.loads((fresh_cpu_record / "summary.json").read_text()))
    assert documented == written, (
        f"book/data-contract.md vs a fresh CPU record: undocumented {sorted(written - documented)}, "
        f"documented but not written {sorted(documented - written)}"
    )


def test_contract_covers_every_committed_summary_key():
    documented = set(_contract_columns("summary.json"))
    for path in _records("summary.json"):
        extra = set(json.loads(path.read_text())) - documented
        assert not extra, f"{_rel(path)}: keys {sorted(extra)} are not in book/data-contract.md"


def test_contract_ends_columns_equal_a_fresh_cpu_record(fresh_cpu_record):
    pq = pytest.importorskip("pyarrow.parquet")
    assert _contract_columns("ends.parquet") == pq.read_schema(fresh_cpu_record / "ends.parquet").names


def test_contract_covers_every_committed_launches_column():
    pq = pytest.importorskip("pyarrow.parquet")
    documented = set(_contract_columns("launches.parquet"))
    for path in _records("launches.parquet"):
        extra = set(pq.read_schema(path).names) - documented
        assert not extra, f"{_rel(path)}: columns {sorted(extra)} are not in book/data-contract.md"


def test_contract_counter_columns():
    from lassm.analysis.counters import COUNTER_COLUMNS

    assert _contract_columns("counter table") == list(COUNTER_COLUMNS)


def test_contract_metrics_columns_equal_the_written_metrics():
    files = sorted((ROOT / "data" / "results").glob("*/metrics.csv"))
    assert files, "no metrics.csv under data/results to check the contract against"
    for path in files:
        header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert _contract_columns("metrics.csv") == header, f"{_rel(path)}: columns differ from the contract"


PROMISES = ROOT / "book" / "promises.md"
#: A test as the promises page names it: ``tests/<stage>/test_file.py::test_name``, or ``test_name`` in
#: ``tests/<stage>/test_file.py`` (two code spans, so that a printed line can break between them).
_TEST_REF = re.compile(r"`(tests/(?:\w+/)?test_\w+\.py)::(test_\w+)`|`(test_\w+)` in `(tests/(?:\w+/)?test_\w+\.py)`")


def _named_tests(text: str) -> list[tuple[str, str]]:
    """(file, test) of every test ``text`` names in either form of :data:`_TEST_REF`."""
    return [(f or f2, t or t2) for f, t, t2, f2 in _TEST_REF.findall(text)]


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_promises_page_names_tests_that_exist():
    """Every test the promises page names exists, so no promise outlives the test that holds it."""
    text = PROMISES.read_text(encoding="utf-8")
    named = _named_tests(text)
    assert len(named) >= 20, "book/promises.md names too few tests"
    missing = [f"{f}::{t}" for f, t in named if not (ROOT / f).is_file() or t not in _test_functions(ROOT / f)]
    assert not missing, f"book/promises.md names tests that do not exist: {missing}"
    assert PROMISES in _toc_paths(), "book/promises.md is not in _toc.yml"


def test_every_promise_section_names_a_test():
    sections = re.split(r"^## ", PROMISES.read_text(encoding="utf-8"), flags=re.M)[1:]
    bare = [s.splitlines()[0] for s in sections if not _TEST_REF.search(s)]
    assert not bare, f"book/promises.md sections without a test: {bare}"


# --- a reader's book: code folded, results shown --------------------------------------------

#: Tags that keep a cell's code out of a reader's way (myst-nb); lassm.book.folds adds them.
FOLDS = ("hide-input", "remove-input", "remove-cell", "hide-cell")


def _book_notebooks() -> list[Path]:
    return _all_notebooks() + sorted((ROOT / "book").glob("*.ipynb"))


def _is_import_cell(cell: dict) -> bool:
    body = ast.parse(_source(cell)).body
    return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)


def _imports_section_cells(cells: list[dict]) -> list[int]:
    """The code cells between an ``## Imports`` heading and the next markdown cell."""
    out, inside = [], False
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            inside = bool(re.search(r"^## +Imports\b", _source(cell), re.M))
        elif inside:
            out.append(i)
    return out


@pytest.mark.parametrize("path", _book_notebooks(), ids=_rel)
def test_notebook_import_cells_are_not_shown(path):
    """A reader sees results, not imports: every import cell carries a folding tag."""
    cells = _cells(path)
    imports = {i for i, c in enumerate(cells) if c["cell_type"] == "code" and _is_import_cell(c)}
    imports |= set(_imports_section_cells(cells))
    shown = [i for i in sorted(imports) if not set(cells[i].get("metadata", {}).get("tags", [])) & set(FOLDS)]
    assert not shown, f"{_rel(path)}: import cells {shown} are shown; run python -m lassm.book.folds"


@pytest.mark.parametrize("path", _book_notebooks(), ids=_rel)
def test_notebook_code_is_folded(path):
    """Code a reader does not need is folded (exercises stay open): results and charts stay."""
    shown = [i for i, c in enumerate(_cells(path)) if c["cell_type"] == "code"
             and not set(c.get("metadata", {}).get("tags", [])) & (set(FOLDS) | {"exercise"})]
    assert not shown, f"{_rel(path)}: code cells {shown} are shown unfolded; run python -m lassm.book.folds"


# --- teaching: objectives at the top, "What this shows" at the end --------------------------

#: Pages of the book that are reference, not chapters: no objectives or closing paragraph.
NOT_TAUGHT = {"book/intro", "book/data-contract", "book/promises", "book/architecture", "book/cite", "book/glossary",
              "notebooks/provenance", "book/install", "book/design-notes"}


def _chapter_texts() -> list[tuple[str, str]]:
    pages = [p for p in _toc_paths() if str(p.relative_to(ROOT).with_suffix("")) not in NOT_TAUGHT]
    pages.append(NOTEBOOKS / "machine.ipynb")  # the template of every machine chapter
    out = []
    for p in pages:
        if p.suffix == ".ipynb":
            text = "\n\n".join(_source(c) for c in _cells(p) if c["cell_type"] == "markdown")
        else:
            text = p.read_text(encoding="utf-8")
        out.append((_rel(p), text))
    return out


@pytest.mark.parametrize("name,text", _chapter_texts(), ids=[n for n, _ in _chapter_texts()])
def test_chapter_opens_with_objectives_and_closes_with_what_it_shows(name, text):
    body = _markdown_without_code(text.replace("```{admonition} Learning objectives", "LEARNING-OBJECTIVES\n```"))
    title = re.search(r"^# \S", body, re.M)
    first_section = re.search(r"^## ", body, re.M)
    assert title and "LEARNING-OBJECTIVES" in body[title.start():first_section.start() if first_section else None], (
        f"{name}: no 'Learning objectives' admonition between the title and the first section")
    sections = re.findall(r"^## +(.+?)\s*$", body, re.M)
    assert "What this shows" in sections, f"{name}: no '## What this shows' section"
    after = sections[sections.index("What this shows") + 1:]
    assert set(after) <= {"Resources", "References", "Where to read more"}, (
        f"{name}: '## What this shows' is followed by {after}; it closes the chapter")


# --- every chart is a numbered, captioned figure --------------------------------------------

#: What a cell calls to show a chart.
_CHART_CALLS = ("to_svg(", "to_interactive(", "_chart(", "show_gcups(", "show_speedup(", "show_lanes(")


@pytest.mark.parametrize("path", [p for p in _all_notebooks() if p.name != "run.ipynb"], ids=_rel)
def test_every_chart_cell_has_a_caption(path):
    """A chart without a caption has no number to cite and says nothing of where it was measured."""
    bare = []
    for i, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "code" or "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        last = _source(cell).strip().splitlines()[-3:]
        if any(call in line for line in last for call in _CHART_CALLS):
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if len(str(figure.get("caption", ""))) < 40 or not figure.get("name"):
                bare.append(i)
    assert not bare, f"{_rel(path)}: chart cells {bare} have no caption and name (metadata mystnb.figure)"

# SPDX-License-Identifier: BSD-3-Clause
"""The package's layout is its architecture (``book/architecture.md``), and stays so.

Every module under ``lassm/`` is parsed (imports inside functions included) into an import
graph (:mod:`lassm.book.layout`, which also draws the page's picture of it), and checked: (a) no cycle; (b) every import goes from a stage to the same stage or a
lower one (:data:`STAGES`, low to high); (c) no module over :data:`MAX_LINES` lines unless its
docstring says why ("over 500 lines because ..."); (d) the stage folders under ``lassm/`` are the
rows of the architecture page's table. The checkers are plain functions, and each is also fed a
small synthetic case it must reject, so a checker that cannot fail is caught too.

Importing a module also runs its parent packages' ``__init__``; those implicit edges are not in
the graph (only the import statements are), and the front door ``lassm/__init__.py`` sits above
every stage, so that no module may import it.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lassm.book.layout import (FOUNDATION, PACKAGE, PICTURE, STAGES, import_graph, modules, picture, stage_edges,
                               stage_of, stages_svg)

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "book" / "architecture.md"

#: Stages that are modules at the top rather than folders.
NOT_FOLDERS = frozenset({"foundation", "front door"})
MAX_LINES = 500
REASON = re.compile(r"over 500 lines because \S")


# ------------------------------------------------------------------------------ the checkers

def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (``[a, b, ..., a]``), or None when the graph has none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def upward_imports(graph: dict[str, set[str]], stages=STAGES, foundation=FOUNDATION) -> list[str]:
    """Every import from a stage to a higher one, or from or to a module of no stage."""
    rank = {s: i for i, s in enumerate(stages)}
    bad = []
    for src, targets in sorted(graph.items()):
        for dst in sorted(targets):
            a, b = stage_of(src, foundation), stage_of(dst, foundation)
            if a not in rank or b not in rank:
                bad.append(f"{src} -> {dst}: {a if a not in rank else b} is in no stage")
            elif rank[a] < rank[b]:
                bad.append(f"{src} ({a}) imports {dst} ({b}), a higher stage")
    return bad


def cross_kernel_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports from one kernel's package (``lassm.workloads.<kernel>``) into another kernel's."""
    def kernel(name: str) -> str | None:
        parts = name.split(".")
        return parts[2] if len(parts) > 2 and parts[1] == "workloads" else None

    return [f"{s} -> {d}" for s, ts in sorted(graph.items()) for d in sorted(ts)
            if kernel(s) and kernel(d) and kernel(s) != kernel(d)]


def long_modules(mods: dict[str, Path], limit: int = MAX_LINES) -> list[str]:
    """Modules over ``limit`` lines whose docstring gives no reason."""
    bad = []
    for name, path in sorted(mods.items()):
        text = path.read_text()
        n = len(text.splitlines())
        if n > limit and not REASON.search(ast.get_docstring(ast.parse(text)) or ""):
            bad.append(f"{name}: {n} lines and no 'over {limit} lines because ...' in its docstring")
    return bad


def stage_folders(root: Path = PACKAGE) -> set[str]:
    """``lassm/<stage>/`` for every package folder directly under ``lassm/``."""
    return {f"lassm/{p.name}/" for p in root.iterdir() if (p / "__init__.py").is_file()}


def page_folders(page: Path = PAGE) -> list[str]:
    """The ``lassm/<folder>/`` cells of the first column of the page's stage table."""
    rows = []
    for line in page.read_text().splitlines():
        m = re.match(r"^\|\s*`(lassm/[a-z_]+/)`\s*\|", line)
        if m:
            rows.append(m.group(1))
    return rows


# ------------------------------------------------------------------------------ the package

@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_graph_sees_imports_inside_functions(graph):
    """The checker reads lazy imports too: ``lassm run`` imports the campaign, which imports the sweep,
    inside functions."""
    assert "lassm.campaign" in graph["lassm.cli.run_command"] and "lassm.campaign.whole" in graph["lassm.cli.run_command"]
    assert "lassm.runs.sweep" in graph["lassm.campaign.assembly_run"]
    assert "lassm.runs.point" in graph["lassm.runs.distributed"]


def test_no_import_cycle(graph):
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_imports_run_down_the_stages(graph):
    assert upward_imports(graph) == []


def test_no_kernel_imports_another(graph):
    assert cross_kernel_imports(graph) == []


def test_nothing_imports_the_front_door(graph):
    assert [m for m, ts in graph.items() if "lassm" in ts] == []


def test_long_modules_say_why():
    assert long_modules(modules()) == []


def test_stage_folders_are_the_architecture_page():
    rows = page_folders()
    assert len(rows) == len(set(rows)), f"a folder is listed twice on {PAGE.name}: {rows}"
    assert set(rows) == stage_folders(), f"{PAGE.name} lists {sorted(rows)}; lassm/ has {sorted(stage_folders())}"
    assert {f"lassm/{s}/" for s in STAGES if s not in NOT_FOLDERS} == stage_folders()


def test_page_lists_the_stages_in_order():
    """The page's table runs from the lowest stage to the highest, as :data:`STAGES`."""
    order = [r.split("/")[1] for r in page_folders()]
    assert order == [s for s in STAGES if s not in NOT_FOLDERS]


# ------------------------------------------------------------------------------ the checkers can fail

def test_find_cycle_finds_one():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


def test_upward_import_is_reported():
    graph = {"lassm.workloads.k.data": {"lassm.runs.sweep", "lassm.errors"},
             "lassm.runs.sweep": {"lassm.workloads.k.data"},
             "lassm.stray": {"lassm.errors"}}
    bad = upward_imports(graph)
    assert any("lassm.workloads.k.data (workloads) imports lassm.runs.sweep (runs)" in b for b in bad)
    assert any("unplaced module lassm.stray" in b for b in bad)
    assert not any(b.startswith("lassm.runs.sweep ") for b in bad)
    assert upward_imports({"lassm.cli": {"lassm"}}) != []  # the front door is above everything


def test_cross_kernel_import_is_reported():
    assert cross_kernel_imports({"lassm.workloads.xdrop.spec": {"lassm.workloads.local_assembly.config"}}) != []


def test_relative_imports_resolve(tmp_path):
    pkg = tmp_path / "lassm"
    (pkg / "runs").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("")
    (pkg / "runs" / "__init__.py").write_text("")
    (pkg / "runs" / "a.py").write_text("from . import b\nfrom ..errors import X\n\ndef f():\n    from .b import g\n")
    (pkg / "runs" / "b.py").write_text("def g():\n    from .a import f\n")
    graph = import_graph(pkg)
    assert graph["lassm.runs.a"] == {"lassm.runs.b", "lassm.errors"}
    assert find_cycle(graph) is not None  # the cycle through a function-level import is seen


def test_long_module_without_reason_is_reported(tmp_path):
    long = tmp_path / "long.py"
    long.write_text('"""Does much."""\n' + "x = 1\n" * MAX_LINES)
    assert long_modules({"long": long}) != []
    long.write_text('"""Does much; over 500 lines because it is one table."""\n' + "x = 1\n" * MAX_LINES)
    assert long_modules({"long": long}) == []


def test_the_pages_picture_is_drawn_from_the_imports():
    """``_static/stages.svg`` is the picture of this tree's import graph: a change of who imports
    whom between stages redraws it (``python -m lassm.book.layout``), and the page shows it."""
    assert (REPO / PICTURE).read_text() == picture(), "the stages' picture is stale: python -m lassm.book.layout"
    assert f"../{PICTURE.as_posix()}" in PAGE.read_text()


def test_the_picture_draws_an_import_up_as_a_ring():
    graph = {"lassm.cli.run_command": {"lassm.campaign.whole"}, "lassm.campaign.whole": {"lassm.runs.sweep"},
             "lassm.runs.sweep": {"lassm.book.plots", "lassm.runs.records"}}
    edges = stage_edges(graph)
    assert edges == {("cli", "campaign"), ("campaign", "runs"), ("runs", "book")}
    svg = stages_svg(edges)
    assert svg.count("<circle") == 3 and svg.count('fill="none"') == 1  # runs -> book, the one import up


def test_page_rows_are_parsed(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("| folder | owns |\n| --- | --- |\n| `lassm/runs/` | runs |\n| `lassm/cli/` | cli |\n")
    assert page_folders(page) == ["lassm/runs/", "lassm/cli/"]


def repeated_names(root: Path = REPO / "lassm") -> dict[str, list[str]]:
    """File names two modules of the package share (``__init__.py`` and ``__main__.py`` aside)."""
    seen: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py") and "__pycache__" not in path.parts:
            seen.setdefault(path.name, []).append(path.relative_to(root.parent).as_posix())
    return {name: where for name, where in seen.items() if len(where) > 1}


def test_module_names_are_unique():
    """A file name alone says where a module lives (the architecture page says why)."""
    assert repeated_names() == {}


def test_a_repeated_name_is_reported(tmp_path):
    (tmp_path / "lassm" / "a").mkdir(parents=True)
    (tmp_path / "lassm" / "b").mkdir()
    for rel in ("a/x.py", "b/x.py", "a/__init__.py", "b/__init__.py", "a/y.py"):
        (tmp_path / "lassm" / rel).write_text("")
    assert repeated_names(tmp_path / "lassm") == {"x.py": ["lassm/a/x.py", "lassm/b/x.py"]}

# SPDX-License-Identifier: BSD-3-Clause
"""Every table of the book is numbered and captioned.

A table typed in Markdown sits in MyST's ``{table}`` directive, with a caption and a ``tbl-``
name; a table a code cell shows carries a caption and a ``tbl-`` name in the cell's metadata
(``mystnb: figure``), which :mod:`lassm.book.table_numbers` numbers as a table. The checks read
the sources (no notebook runs here); the detector of a table-showing cell is tested on cells
made to fail it.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from lassm.book import table_numbers

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("book/*.ipynb")])
PAGES = sorted(ROOT.glob("book/*.md"))

#: What in a cell's last expression shows a table: a Styler, the book's table helpers, a pandas
#: reshaping that prints as a table, or a frame's columns picked by a list (``df[["a", "b"]]``).
_TABLE_CALL = re.compile(r"\.style\b|long_table\(|_table\(|\bshown\(|\.describe\(|pivot_table\(|\.set_index\(|"
                         r"\.agg\(|\.to_frame\(|DataFrame\(|\.assign\(|\.round\(|\.loc\[")


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _tables_in_markdown(text: str) -> list[tuple[int, str | None]]:
    """Each pipe table of ``text``: its first line and the directive it sits in (None: bare)."""
    lines, out, fence, i = text.split("\n"), [], None, 0
    while i < len(lines):
        m = re.match(r"^\s*(```+|:::+)(.*)$", lines[i])
        if m:
            tok, rest = m.group(1), m.group(2).strip()
            if fence is None:
                fence = (tok[0], len(tok), rest)
            elif tok[0] == fence[0] and len(tok) >= fence[1] and not rest:
                fence = None
            i += 1
            continue
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            out.append((i, fence[2] if fence else None))
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                i += 1
            continue
        i += 1
    return out


def _markdown_sources():
    for page in PAGES:
        yield page.relative_to(ROOT).as_posix(), page.read_text(encoding="utf-8")
    for nb in NOTEBOOKS:
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                yield f"{nb.relative_to(ROOT).as_posix()}#{cell.get('id')}", _source(cell)


def bare_tables(text: str) -> list[int]:
    """The lines of the pipe tables of ``text`` outside a captioned, named ``{table}`` directive."""
    lines = text.split("\n")
    bad = []
    for line, directive in _tables_in_markdown(text):
        if directive is None or not directive.startswith("{table}") or not directive[len("{table}"):].strip():
            bad.append(line)
            continue
        header = [ln.strip() for ln in lines[max(0, line - 4):line]]
        if not any(ln.startswith(":name: " + table_numbers.PREFIX) for ln in header):
            bad.append(line)
    return bad


def shows_table(code: str) -> bool:
    """Whether a code cell's last statement shows a table (a Styler, a helper's table, a frame's
    columns picked by a list), by its source; a name shows one where the cell assigned it so."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: no table of ours
        return False
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    last = tree.body[-1].value

    def tabular(node: ast.AST) -> bool:
        text = ast.unparse(node)
        if re.search(r"to_svg\(|_chart\(", text):  # a chart, whatever frame it was drawn from
            return False
        picked = any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.List) for n in ast.walk(node))
        return bool(_TABLE_CALL.search(text)) or picked

    if isinstance(last, ast.Call) and ast.unparse(last.func) in ("glue", "print", "display"):
        return False
    if isinstance(last, ast.Name):
        assigned = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == last.id for t in n.targets)]
        return any(tabular(v) for v in assigned)
    return tabular(last)


def captioned_as_table(cell: dict) -> bool:
    figure = cell.get("metadata", {}).get("mystnb", {}).get("figure") or {}
    return bool(str(figure.get("caption", "")).strip()) and table_numbers.is_table_name(str(figure.get("name", "")))


def _code_cells():
    for nb in NOTEBOOKS:
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if cell["cell_type"] == "code" and not {"remove-cell", "remove-output"} & set(tags):
                yield nb, cell


# ---------------------------------------------------------------------------------------------- the book


def test_every_markdown_table_is_numbered_and_captioned() -> None:
    bad = [f"{where}: line {line + 1}" for where, text in _markdown_sources() for line in bare_tables(text)]
    assert not bad, f"tables without a captioned {{table}} directive and a tbl- name: {bad}"


def test_every_table_a_code_cell_shows_is_captioned_as_a_table() -> None:
    bad = [f"{nb.relative_to(ROOT)}#{cell.get('id')}" for nb, cell in _code_cells()
           if shows_table(_source(cell)) and not captioned_as_table(cell)]
    assert not bad, f"code cells that show a table without a caption and a tbl- name: {bad}"


def test_a_table_caption_captions_a_table() -> None:
    """A tbl- name on a cell that shows no table would number a chart or a note as a table."""
    bad = [f"{nb.relative_to(ROOT)}#{cell.get('id')}" for nb, cell in _code_cells()
           if captioned_as_table(cell) and not shows_table(_source(cell))]
    assert not bad, bad


def test_table_names_are_unique() -> None:
    names = [cell["metadata"]["mystnb"]["figure"]["name"] for _nb, cell in _code_cells() if captioned_as_table(cell)]
    names += re.findall(r"^:name: (tbl-[\w-]+)$", "\n".join(text for _w, text in _markdown_sources()), flags=re.M)
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    assert len(names) > 100, "the book has well over a hundred tables"


def test_the_book_loads_the_table_extension() -> None:
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*- lassm\.book\.table_numbers\s*$", config, flags=re.M)


# ---------------------------------------------------------------------------------------------- the checks can fail


def test_the_markdown_check_finds_a_bare_or_unnamed_table() -> None:
    table = "| a | b |\n| --- | --- |\n| 1 | 2 |"
    assert bare_tables(f"Text.\n\n{table}\n") == [2]
    assert bare_tables(f":::{{table}}\n:name: tbl-x\n\n{table}\n:::\n") == [3], "no caption"
    assert bare_tables(f":::{{table}} A caption.\n\n{table}\n:::\n") == [2], "no tbl- name"
    assert bare_tables(f":::{{table}} A caption.\n:name: tbl-x\n\n{table}\n:::\n") == []
    assert bare_tables(f"```python\n{table}\n```\n") == [1], "a table in a code fence is still bare"


@pytest.mark.parametrize("code, table", [
    ("df.style.format('{:.2f}')", True),
    ("tables.long_table(x.style.hide(axis='index'), 'name')", True),
    ("counts[['device', 'k']]", True),
    ("shown = frame.style.format(precision=2)\nshown", True),
    ("machine_chapter.shown(machine_chapter.suite_table(m))", True),
    ("plots.to_svg(chart, 'a chart')", False),
    ("plots.to_svg(plots.roofline(roof, point.assign(label='x')), 'a roofline')", False),
    ("pd.DataFrame({'P': p, 'published': q})", True),
    ("glue('x', table.style, display=False)", False),
    ("x = df.style", False),
    ("note", False),
])
def test_the_cell_detector(code: str, table: bool) -> None:
    assert shows_table(code) is table


def test_a_table_named_figure_becomes_a_numbered_table_caption_first() -> None:
    doc = new_document("test", get_default_settings(Parser))
    fig = nodes.figure("", nodes.container("", nodes.paragraph(text="the table")), nodes.caption(text="A caption."))
    fig["names"].append("tbl-one")
    other = nodes.figure("", nodes.caption(text="A chart."))
    other["names"].append("fig-one")
    doc += [fig, other]
    table_numbers.TablesFromFigures(doc).apply()
    assert type(fig) is table_numbers.table_output and isinstance(fig[0], nodes.caption)
    assert type(other) is nodes.figure, "a figure stays a figure"

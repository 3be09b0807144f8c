# SPDX-License-Identifier: BSD-3-Clause
"""The package's stages and who imports whom, read from the code: the architecture page's picture and its checks.

``tests/whole/test_layout.py`` and the picture (:func:`stages_svg`, written to ``_static/stages.svg`` by
``python -m lassm.book.layout``) read the one import graph built here (imports inside functions
included), so the test fails when the picture is stale."""
from __future__ import annotations

import ast
from html import escape
from pathlib import Path

from .. import stderr
from .. import paths

#: The package's folder.
PACKAGE = Path(__file__).resolve().parent.parent
#: The stages, lowest first: a module may import its own stage or one listed before it.
STAGES = ("foundation", "workloads", "backends", "runs", "analysis", "campaign", "book", "cli", "front door")
#: The foundation: single modules at the top of ``lassm/`` that any stage may use.
FOUNDATION = frozenset({"lassm.arrowio", "lassm.atomic", "lassm.byte_sets", "lassm.compressed", "lassm.datafiles", "lassm.readback",
                        "lassm.errors", "lassm.fits", "lassm.outputs", "lassm.paths", "lassm.settings", "lassm.stderr", "lassm.terminal",
                        "lassm.timeline",
                        "lassm.version"})
#: Where the picture is written, from the repository's root.
PICTURE = Path("_static") / "stages.svg"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """``lassm/runs/sweep.py`` -> ``lassm.runs.sweep``; a package's ``__init__`` is the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``path`` (module ``name``) imports, wherever the statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in known:
                continue
            for alias in node.names:  # `from pkg import mod` imports the module, else a name of pkg
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in known else source)
    found.discard(name)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    mods = modules(root)
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def stage_of(name: str, foundation: frozenset[str] = FOUNDATION) -> str:
    """The stage a module belongs to: the front door, the foundation, or its first folder."""
    if name in ("lassm", "lassm.__main__"):  # the package's names, and the process around the command line
        return "front door"
    if name in foundation:
        return "foundation"
    parts = name.split(".")
    if len(parts) < 2 or parts[1] not in STAGES:  # a top-level module that is not foundation
        return f"unplaced module {name}"
    return parts[1]


def stage_edges(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importing stage, imported stage) for every import between two different stages."""
    return {(stage_of(a), stage_of(b)) for a, targets in graph.items() for b in targets
            if stage_of(a) != stage_of(b)}


def stages_svg(edges: set[tuple[str, str]], stages: tuple[str, ...] = STAGES) -> str:
    """The stages as a grid: a row per importing stage (the highest on top), a column per imported
    stage (the lowest on the left), a dot where some module of the row imports one of the column.
    Every dot lies left of the diagonal when imports run down the stages; one right of it (an
    import up) is drawn as a ring."""
    cell, left, top = 34, 120, 104
    order = list(reversed(stages))  # rows: the front door first
    width, height = left + cell * len(stages) + 80, top + cell * len(stages) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
           '<title>The stages of lassm and which imports which, read from the code</title>']
    for j, stage in enumerate(stages):  # the column labels, slanted
        x = left + cell * j + cell / 2
        out.append(f'<text x="{x:.0f}" y="{top - 8}" transform="rotate(-45 {x:.0f} {top - 8})">{escape(stage)}</text>')
    for i, row in enumerate(order):
        y = top + cell * i
        out.append(f'<text x="{left - 8}" y="{y + cell / 2 + 4:.0f}" text-anchor="end">{escape(row)}</text>')
        for j, col in enumerate(stages):
            x = left + cell * j
            shade = "#e8e8e8" if row == col else "#ffffff"
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{shade}" stroke="#bbbbbb"/>')
            if (row, col) in edges:
                up = stages.index(col) > stages.index(row)
                fill, stroke = ("none", "#c0392b") if up else ("#1f4e79", "#1f4e79")
                out.append(f'<circle cx="{x + cell / 2:.0f}" cy="{y + cell / 2:.0f}" r="8" fill="{fill}" '
                           f'stroke="{stroke}" stroke-width="2"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def picture() -> str:
    """The picture of this checkout's package (:func:`stages_svg` of its import graph)."""
    return stages_svg(stage_edges(import_graph()))


def main(argv: list[str] | None = None) -> int:
    """``python -m lassm.book.layout``: writes :data:`PICTURE` under the repository's root."""
    target = paths.REPO / PICTURE
    target.write_text(picture())
    stderr.line(str(target))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["FOUNDATION", "PACKAGE", "PICTURE", "STAGES", "import_graph", "imports_of", "main", "module_name",
           "modules", "picture", "stage_edges", "stage_of", "stages_svg"]

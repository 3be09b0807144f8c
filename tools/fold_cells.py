#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fold the code a reader does not need: tags every code cell of the book's notebooks.

Run once after adding a notebook (``python tools/fold_cells.py``); tests/test_book.py fails on a
notebook whose code is shown. Import cells get ``remove-input`` (they print nothing); every other
code cell, the ``parameters`` cell included, gets ``hide-input``: its result stays, its code is
one click away. Cells tagged ``exercise`` stay open (a reader works on them), and a cell that
already carries a folding tag is left as it is. Other tags (``parameters``) are kept.
"""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDS = ("hide-input", "remove-input", "remove-cell", "hide-cell")


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_import_cell(cell: dict) -> bool:
    """A code cell whose every statement is an import."""
    try:
        body = ast.parse(_source(cell)).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)


def fold(path: Path) -> int:
    """Tag the unfolded code cells of one notebook; returns how many changed."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    changed = 0
    for cell in nb["cells"]:
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if cell["cell_type"] != "code" or "exercise" in tags or any(t in tags for t in FOLDS):
            if not tags:
                del cell["metadata"]["tags"]
            continue
        tags.append("remove-input" if is_import_cell(cell) else "hide-input")
        changed += 1
    if changed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb")) + [ROOT / "book" / "intro.ipynb"]
    for path in paths:
        print(f"{path}: {fold(path)} cells folded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

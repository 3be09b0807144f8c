# SPDX-License-Identifier: BSD-3-Clause
"""Tags every code cell of the book's notebooks so a reader sees results, not code.

Import cells get ``remove-input``; every other code cell ``hide-input``. Cells tagged
``exercise`` or already folded are left alone; other tags are kept. Run
``python -m lassm.book.folds [NOTEBOOK...]`` (default: every notebook) after adding one; the
tests fail on a notebook whose code is shown."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from ..atomic import atomic_open
from ..paths import REPO

#: The tags that fold a cell (myst-nb's).
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
    """Tags the unfolded code cells of one notebook, rewritten whole; returns how many changed."""
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
        with atomic_open(path, "w") as fh:
            fh.write(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return changed


def main(argv: list[str]) -> int:
    """Folds the notebooks named (default: the book's), one line each."""
    books = [Path(a) for a in argv] or sorted((REPO / "notebooks").glob("*.ipynb")) + [REPO / "book" / "intro.ipynb"]
    for path in books:
        print(f"{path}: {fold(path)} cells folded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = ["FOLDS", "fold", "is_import_cell", "main"]

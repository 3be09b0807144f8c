# SPDX-License-Identifier: BSD-3-Clause
"""Functions take few parameters: what travels together is one dataclass (a backend's side and
choices, a part's plan). Numba kernels are apart (they take arrays one by one). The functions
that still take more than :data:`MOST` are counted, and the count may only fall."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The most parameters a function should take (``self`` and ``cls`` not counted).
MOST = 8
#: Functions outside numba kernels that still take more than MOST: lower it as they are folded.
STILL_OVER = 0


def _numba(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a decorator compiles it with numba (``njit``, ``jit``, ``vectorize``...)."""
    return any("jit" in ast.unparse(d) or "vectorize" in ast.unparse(d) for d in node.decorator_list)


def over(folder: Path, most: int = MOST) -> list[str]:
    """``path:line name (n)`` of each function under ``folder`` that takes more than ``most``
    parameters and is no numba kernel."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _numba(node):
                continue
            args = node.args
            names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
            if names[:1] in (["self"], ["cls"]):
                names = names[1:]
            if len(names) > most:
                found.append(f"{path.relative_to(folder)}:{node.lineno} {node.name} ({len(names)})")
    return found


def test_few_functions_take_more_than_eight_parameters() -> None:
    found = over(ROOT / "lassm")
    assert len(found) <= STILL_OVER, "\n".join(["more functions than before take over eight parameters:", *found])


def test_the_count_sees_a_wide_function(tmp_path: Path) -> None:
    (tmp_path / "wide.py").write_text("def wide(a, b, c, d, e, f, g, h, i):\n    pass\n"
                                      "def narrow(self, a, b, c, d, e, f, g, h):\n    pass\n"
                                      "@njit\ndef kernel(a, b, c, d, e, f, g, h, i):\n    pass\n")
    assert over(tmp_path) == ["wide.py:1 wide (9)"]

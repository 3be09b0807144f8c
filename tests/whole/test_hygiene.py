# SPDX-License-Identifier: BSD-3-Clause
"""Small checks that keep the tree tidy: licence headers, relative imports, packaging."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SPDX = "SPDX-License-Identifier:"
SPDX_BSD = "SPDX-License-Identifier: BSD-3-Clause"


def _python_files() -> list[Path]:
    files = []
    for folder in ("lassm", "tests", "kernels"):
        files += [p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(files)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _head(path: Path, lines: int = 3) -> str:
    with open(path, encoding="utf-8") as f:
        return "".join(f.readline() for _ in range(lines))


@pytest.mark.parametrize("path", _python_files(), ids=_rel)
def test_python_file_has_spdx_header(path):
    head = _head(path, 2)  # line 1, or line 2 after a shebang
    assert f"# {SPDX_BSD}" in head, f"{_rel(path)}: first line must be '# {SPDX_BSD}'"


def _project_files() -> list[Path]:
    """Files other than Python that carry a licence header too (first lines or first cell)."""
    names = ["pyproject.toml", "environment.yml", "Makefile", ".ci/run", "README.md", "CITATION.cff",
             "_config.yml", "_toc.yml"]
    files = [ROOT / n for n in names if (ROOT / n).exists()]
    files += sorted((ROOT / "book").rglob("*.md"))
    files += sorted((ROOT / "notebooks").glob("*.ipynb"))
    for pattern in ("*.cu", "*.cuh", "*.cl", "*.h", "*.cpp"):
        files += sorted((ROOT / "kernels").rglob(pattern))
    return files


@pytest.mark.parametrize("path", _project_files(), ids=_rel)
def test_project_file_has_spdx_header(path):
    if path.suffix == ".ipynb":
        import json

        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        head = "".join(cells[0]["source"]) if cells else ""
    else:
        head = _head(path, 5)
    assert SPDX in head, f"{_rel(path)}: no '{SPDX}' line at the top"


def _lassm_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "lassm").rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", _lassm_modules(), ids=_rel)
def test_lassm_imports_itself_relatively(path):
    """Inside the package, ``from . import x`` and ``from .x import y``, never ``lassm.x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [(node.lineno, a.name) for a in node.names if a.name == "lassm" or a.name.startswith("lassm.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "lassm" or node.module.startswith("lassm."):
                bad.append((node.lineno, node.module))
    assert not bad, "\n".join(f"{_rel(path)}:{line}: absolute import of {name}; use a relative import"
                              for line, name in bad)


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_is_packaged():
    """pyproject.toml lists its packages by hand (lassm.kernels lives in kernels/): keep it complete."""
    listed = set(_setuptools()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lassm").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    missing = sorted(found - listed)
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml"


def test_every_listed_package_exists():
    cfg = _setuptools()
    package_dir = cfg.get("package-dir", {})
    for name in cfg["packages"]:
        folder = ROOT / package_dir.get(name, name.replace(".", "/"))
        assert (folder / "__init__.py").is_file(), f"{name}: {folder.relative_to(ROOT)}/__init__.py is missing"


def test_kernel_sources_are_package_data():
    """Every kernel source under kernels/ matches a package-data pattern, so the wheel ships it."""
    import fnmatch

    patterns = _setuptools()["package-data"]["lassm.kernels"]
    kernels = ROOT / "kernels"
    for path in kernels.rglob("*"):
        if path.is_file() and path.suffix in {".cu", ".cuh", ".cl", ".h", ".cpp"}:
            rel = path.relative_to(kernels).as_posix()
            assert any(fnmatch.fnmatch(rel, p) for p in patterns), f"kernels/{rel} is not shipped in the wheel"

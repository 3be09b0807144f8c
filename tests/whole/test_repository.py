# SPDX-License-Identifier: BSD-3-Clause
"""One repository URL: the book's configuration, the citation file, the README and the front page agree."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _url() -> str:
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert url.startswith("https://") and not url.endswith((".git", "/")), url
    return url


def test_citation_names_the_configured_repository() -> None:
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["repository-code"] == _url()


def test_readme_clones_the_configured_repository() -> None:
    assert f"git clone {_url()}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_front_page_says_where_the_code_lives_and_links_the_rerun_page() -> None:
    cells = json.loads((ROOT / "book" / "intro.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    first = markdown[0]
    assert f"git clone {_url()}" in first, "the first cell of the front page names the clone command"
    assert "{doc}`Run it on your machine </book/rerun>`" in first

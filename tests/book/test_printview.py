# SPDX-License-Identifier: BSD-3-Clause
"""The print view (lassm.book.printview) on a small fake build: order, links, figures.

The real build is checked by tests/book/test_built_book.py; this runs anywhere, without a build.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm.book import printview as pv

from .test_book import ROOT, TOC


def _page(title: str, body: str, head: str = "") -> str:
    return (f"<html><head><title>{title}</title>{head}</head><body><nav>menu</nav>"
            f'<article class="bd-article" role="main"><h1>{title}</h1>{body}</article>'
            "<footer>foot</footer></body></html>")


@pytest.fixture
def fake_book(tmp_path: Path) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "machines").mkdir()
    for doc in ("book/intro.md", "notebooks/a.ipynb", "machines/gpu-b.ipynb", "machines/gpu-a.ipynb"):
        (tmp_path / doc).write_text("")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: A\n    chapters:\n      - file: notebooks/a\n"
        "  - caption: B\n    chapters:\n      - glob: machines/*\n")
    html = tmp_path / "_build" / "html"
    for d in ("book", "notebooks", "machines", "_images", "_static"):
        (html / d).mkdir(parents=True)
    (html / "book" / "intro.html").write_text(_page(
        "Intro", '<a href="../notebooks/a.html#sec">see a</a><a href="https://example.org/">out</a>',
        head='<link rel="stylesheet" href="../_static/book.css">'), encoding="utf-8")
    (html / "notebooks" / "a.html").write_text(_page(
        "A", '<img src="../_images/fig.png"><svg><path d="M0 0"/></svg><article class="inner">x</article>'
             '<a href="../machines/gpu-a.html">gpu</a>'), encoding="utf-8")
    for m in ("gpu-a", "gpu-b"):
        (html / "machines" / f"{m}.html").write_text(_page(m, "<p>×</p>"), encoding="utf-8")
    return tmp_path


def test_page_order_follows_the_toc_with_globs_in_place(fake_book):
    assert pv.page_order(fake_book / "_toc.yml", fake_book) == [
        "book/intro", "notebooks/a", "machines/gpu-a", "machines/gpu-b"]


def test_the_book_order_starts_at_the_introduction():
    order = pv.page_order(TOC, ROOT)
    assert order[0] == "book/intro" and "notebooks/discussion" in order
    assert order.index("notebooks/portability") < order.index("notebooks/discussion")


def test_print_view_joins_every_article_with_rewritten_links(fake_book):
    out = pv.build(fake_book / "_build" / "html", fake_book / "_toc.yml", fake_book)
    text = out.read_text(encoding="utf-8")
    assert text.count('class="lassm-print-page"') == 4
    assert text.index(">Intro<") < text.index(">A<") < text.index(">gpu-a<") < text.index(">gpu-b<")
    assert 'href="_static/book.css"' in text and 'src="_images/fig.png"' in text
    assert 'href="#sec"' in text and 'href="#page-machines-gpu-a"' in text and 'id="page-machines-gpu-a"' in text
    assert 'href="https://example.org/"' in text
    assert "<svg>" in text and 'class="inner">x</article>' in text
    assert "menu" not in text and "foot" not in text and "×" in text


def test_a_page_missing_from_the_build_is_an_error(fake_book):
    (fake_book / "_build" / "html" / "machines" / "gpu-b.html").unlink()
    with pytest.raises(FileNotFoundError, match="gpu-b"):
        pv.build(fake_book / "_build" / "html", fake_book / "_toc.yml", fake_book)
    assert pv.main(["--html", str(fake_book / "_build" / "html"), "--book", str(fake_book), "--pdf", ""]) == 2


def test_print_view_drops_folded_code_and_takes_the_books_title(fake_book):
    """On paper a folded cell is a stub ("Show code cell source") nobody can open, and the PDF was
    titled "Print view"."""
    (fake_book / "_config.yml").write_text('title: "A study of one kernel"\n')
    page = fake_book / "_build" / "html" / "notebooks" / "a.html"
    folded = ('<div class="cell tag_hide-input"><details class="admonition hide above-input">'
              '<summary>Show code cell source</summary><pre>plots.to_svg(x)</pre></details>'
              '<div class="cell_output"><p>the chart</p></div></div>')
    page.write_text(page.read_text(encoding="utf-8").replace("<h1>A</h1>", "<h1>A</h1>" + folded), encoding="utf-8")
    text = pv.build(fake_book / "_build" / "html", fake_book / "_toc.yml", fake_book).read_text(encoding="utf-8")
    assert "Show code cell source" not in text and "plots.to_svg" not in text
    assert "the chart" in text
    assert "<title>A study of one kernel</title>" in text and "Print view" not in text

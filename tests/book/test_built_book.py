# SPDX-License-Identifier: BSD-3-Clause
"""The built book (_build/html) loads nothing from outside, and its charts render in a browser.

Skips unless ``make book`` (or ``make html``) has built ``_build/html``. The browser check also
needs Debian's ``chromium`` at /usr/bin/chromium; its screenshot goes to
``_build/screenshots/roofline.png`` (a CI artifact).
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CHROMIUM = Path("/usr/bin/chromium")
PAGE = HTML / "notebooks" / "roofline.html"

pytestmark = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="no built book in _build/html")
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="needs Debian's chromium (make deps, or apt-get install chromium)")

#: A <script src=...> or a stylesheet <link href=...> that points outside the book.
_EXTERNAL = [re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//", re.I),
             re.compile(r"<link\b(?=[^>]*\brel\s*=\s*[\"']?stylesheet)[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//", re.I),
             re.compile(r"@import\s+(?:url\()?[\"']?(?:https?:)?//", re.I)]


def _chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path}"]
    return subprocess.run([str(CHROMIUM), *flags, *args], capture_output=True, text=True, timeout=120)


def _screenshot(name: str, page: Path, size: str, tmp_path: Path) -> Path:
    """Chromium's screenshot of ``page`` at ``size``, taken afresh into ``_build/screenshots/<name>.png``
    (a CI artifact): a stale one from an earlier run cannot pass for it."""
    png = ROOT / "_build" / "screenshots" / f"{name}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    _chromium(f"--screenshot={png}", f"--window-size={size}", page.as_uri(), tmp_path=tmp_path / "shot")
    return png


def test_no_external_scripts_or_stylesheets():
    bad = []
    for page in sorted(HTML.rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        for pattern in _EXTERNAL:
            bad += [f"{page.relative_to(HTML)}: {m.group(0)}" for m in pattern.finditer(text)]
    assert not bad, "the book loads from outside:\n" + "\n".join(bad)


def test_roofline_page_has_inline_svg_charts():
    text = PAGE.read_text(encoding="utf-8")
    assert text.count("<svg") >= 1 and "role-mark" in text


@needs_chromium
def test_roofline_page_renders_in_chromium(tmp_path):
    png = _screenshot("roofline", PAGE, "1280,2400", tmp_path)
    assert png.is_file() and png.stat().st_size > 10_000
    dom = _chromium("--dump-dom", PAGE.as_uri(), tmp_path=tmp_path / "dom").stdout
    svgs = re.findall(r"<svg\b.*?</svg>", dom, re.S)
    charts = [s for s in svgs if "role-mark" in s]
    assert charts, "no rendered chart in the roofline page"
    assert sum(s.count("<path") for s in charts) > 10


@needs_chromium
def test_interactive_chart_runs_on_the_served_bundle(tmp_path):
    """The roofline page frames an interactive chart whose page draws marks from the local bundle."""
    frames = re.findall(r'<iframe[^>]*class="lassm-interactive"[^>]*src="([^"]+)"', PAGE.read_text(encoding="utf-8"))
    assert frames, "no interactive chart on the roofline page"
    chart_page = (PAGE.parent / frames[0]).resolve()
    assert chart_page.is_file() and (chart_page.parent.parent / "vega-bundle.js").is_file()
    png = ROOT / "_build" / "screenshots" / "roofline-interactive.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    _chromium(f"--screenshot={png}", "--window-size=800,560", "--virtual-time-budget=5000", chart_page.as_uri(),
              tmp_path=tmp_path / "shot")
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", chart_page.as_uri(), tmp_path=tmp_path / "dom").stdout
    assert dom.count("role-mark") > 0, "the interactive chart drew nothing"
    assert png.is_file() and png.stat().st_size > 5_000


@needs_chromium
def test_formulas_typeset_from_the_served_mathjax(tmp_path):
    """The method page's formulas are typeset by the MathJax copy shipped in the build, offline."""
    page = HTML / "book" / "method.html"
    assert "_static/mathjax/" in page.read_text(encoding="utf-8")
    dom = _chromium("--virtual-time-budget=8000", "--dump-dom", page.as_uri(), tmp_path=tmp_path / "dom").stdout
    assert dom.count("<mjx-container") >= 3, "the formulas were not typeset"


# --- the introduction's findings and the print view -----------------------------------------

INTRO = HTML / "book" / "intro.html"
PRINT = HTML / "print.html"
PDF = ROOT / "_build" / "lassm-book.pdf"


def test_intro_lists_the_findings_with_numbers():
    """The glued list is in the page: one item per finding, each with a number and a link."""
    from lassm.book import findings

    text = INTRO.read_text(encoding="utf-8")
    section = text[text.index('id="findings-at-a-glance"'):]
    items = re.findall(r"<li>(.*?)</li>", section[:section.index('id="how-the-book-is-organized"')], re.S)
    assert len(items) == len(findings.findings())
    for item in items:
        assert re.search(r"\d", re.sub(r"<[^>]+>", "", item)), f"a finding without a number: {item[:200]}"
        assert "<a " in item, f"a finding without a link: {item[:200]}"


@needs_chromium
def test_intro_screenshot_shows_the_findings(tmp_path):
    png = _screenshot("intro", INTRO, "1280,1600", tmp_path)
    assert png.is_file() and png.stat().st_size > 10_000
    dom = _chromium("--dump-dom", INTRO.as_uri(), tmp_path=tmp_path / "dom").stdout
    assert "Findings at a glance" in dom and "bit-exact" in dom


def test_no_chapter_shows_its_imports():
    """In every built notebook page, `import` lines sit only inside a folded (details) cell."""
    shown = []
    for page in sorted((HTML / "notebooks").glob("*.html")) + sorted((HTML / "machines").glob("*.html")):
        text = re.sub(r"<details\b.*?</details>", "", page.read_text(encoding="utf-8"), flags=re.S)
        for block in re.findall(r'<div class="cell_input.*?</div>\s*</div>', text, re.S):
            if re.search(r'<span class="kn">(from|import)</span>', block):
                shown.append(page.name)
    assert not shown, f"pages that show an import cell: {sorted(set(shown))}"


def test_print_view_holds_every_page_and_every_chart():
    from lassm.book import printview

    assert PRINT.is_file(), "no print view: make book (or make print) writes _build/html/print.html"
    text = PRINT.read_text(encoding="utf-8")
    docs = printview.page_order(ROOT / "_toc.yml", ROOT)
    assert text.count('class="lassm-print-page"') == len(docs)
    charts = sum((HTML / f"{d}.html").read_text(encoding="utf-8").count('class="lassm-chart"') for d in docs)
    assert charts > 0 and text.count('class="lassm-chart"') == charts
    assert text.count("role-mark") > 100


@needs_chromium
def test_print_view_renders_in_chromium(tmp_path):
    """The page is drawn, not blank: the theme's styles hide a bare bd-main, for one."""
    png = _screenshot("print", PRINT, "1000,1400", tmp_path)
    assert png.is_file() and png.stat().st_size > 50_000, "the print view renders blank"


@needs_chromium
def test_pdf_of_the_book_has_its_pages_and_figures():
    assert PDF.is_file(), "no PDF: make book (or make print) writes _build/lassm-book.pdf where Chromium is"
    data = PDF.read_bytes()
    assert data.startswith(b"%PDF")
    from lassm.book import printview

    assert len(re.findall(rb"/Type\s*/Page\b", data)) >= len(printview.page_order(ROOT / "_toc.yml", ROOT))
    assert len(re.findall(rb"/S\s*/Figure\b", data)) > 0, "no figure tagged in the PDF"


@needs_chromium
def test_pdf_has_bookmarks_a_title_and_no_code_stubs():
    """A 270-page PDF without an outline cannot be navigated; its title was "Print view" and it
    held a "Show code cell source" stub per folded cell."""
    data = PDF.read_bytes()
    assert re.search(rb"/Outlines\s+\d+\s+0\s+R", data), "the PDF has no document outline (bookmarks)"
    text = PRINT.read_text(encoding="utf-8")
    assert "Show code cell source" not in text
    assert "<title>Print view</title>" not in text


def test_machine_chapters_number_and_caption_their_figures():
    for page in sorted((HTML / "machines").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        charts = text.count('class="lassm-chart"')
        captions = re.findall(r'<span class="caption-number">Fig\. [\d.]+ </span>', text)
        assert len(captions) >= charts, f"{page.name}: {charts} charts but {len(captions)} numbered captions"
        title = re.search(r"<h1>(.*?)<", text, re.S).group(1)
        assert page.stem not in title, f"{page.name}: the chapter is titled by its folder ({title!r})"


def test_built_pages_speak_of_the_study_alone():
    """What a reader sees, glued values included, keeps the rules of tests/whole/test_book_words.py (no
    words of the study's making: its issues, its numbered changes, borrowed machines, run names)."""
    from ..whole.test_book_words import hits

    found = []
    for page in sorted(HTML.rglob("*.html")):
        if page.name in ("search.html", "genindex.html") or "_static" in page.parts:
            continue
        text = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"<details\b.*?</details>", " ", text, flags=re.S)  # folded code is not prose
        found += [f"{page.relative_to(HTML)}: {h}" for h in hits(re.sub(r"<[^>]+>", " ", text), prose=True)]
    assert not found, "\n".join(found[:20])


# --- the PDF read back: its bookmarks, its margins, its tables ------------------------------

needs_pdftotext = pytest.mark.skipif(not shutil.which("pdftotext"),
                                     reason="needs pdftotext (Debian's poppler-utils: make deps)")
needs_pdf = pytest.mark.skipif(not PDF.is_file(), reason="no PDF: make book (or make print) writes it where Chromium is")


def _outline(node, depth: int = 0) -> list[tuple[int, str]]:
    """``(depth, title)`` of every bookmark, in reading order."""
    out = []
    for item in node:
        if isinstance(item, list):
            out += _outline(item, depth + 1)
        else:
            out.append((depth, str(item.title)))
    return out


@needs_pdf
def test_pdf_bookmarks_are_the_chapter_titles():
    """Chromium wrote "1. 1. Local assembly on a de Bruijn graphLocal assembly on a de Bruijn graph"
    for chapter 1 and "The The fast kernel kernel" elsewhere: every bookmark must read as its heading."""
    pypdf = pytest.importorskip("pypdf", reason="the book extra installs pypdf")
    from lassm.book import printview

    marks = _outline(pypdf.PdfReader(str(PDF)).outline)
    chapters = [next(t for level, t in printview.headings(printview.article((HTML / f"{d}.html").read_text(
        encoding="utf-8"))) if level == 1) for d in printview.page_order(ROOT / "_toc.yml", ROOT)]
    assert [t for depth, t in marks if depth == 0] == chapters
    heads = {t for _, t in printview.headings(PRINT.read_text(encoding="utf-8"))}
    assert [t for _, t in marks if t not in heads] == [], "bookmarks that are no heading of the book"


def _pdftotext(*args: str) -> str:
    return subprocess.run(["pdftotext", *args, str(PDF), "-"], capture_output=True, text=True, check=True).stdout


def _words() -> list[tuple[int, float, float, float, str]]:
    """``(page, page width, xMin, xMax, word)`` of every word pdftotext finds in the PDF."""
    out = _pdftotext("-bbox")
    words = []
    for number, page in enumerate(re.split(r"<page ", out)[1:], 1):
        width = float(re.search(r'width="([\d.]+)"', page).group(1))
        words += [(number, width, float(a), float(b), html.unescape(w)) for a, b, w in
                  re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', page)]
    return words


@needs_pdf
@needs_pdftotext
def test_no_pdf_line_runs_past_the_margins():
    """About 35 pages had a table or a line cut at the right edge: every word lies inside the
    print style's margins (the page's width less the side margin, and a point of slack)."""
    from lassm.book import printview

    side_mm = float(re.search(r"@page\s*\{[^}]*margin:\s*[\d.]+mm\s+([\d.]+)mm", printview.PRINT_CSS).group(1))
    side = side_mm / 25.4 * 72
    words = _words()
    assert len(words) > 10_000
    out = [f"p. {p}: {w!r} at x = {x0:.0f}-{x1:.0f} of {width:.0f}" for p, width, x0, x1, w in words
           if x1 > width - side + 1 or x0 < side - 1]
    assert not out, f"{len(out)} words past the margins:\n" + "\n".join(out[:20])


def _visible(page: str) -> str:
    """A page's HTML without what is not printed as text (scripts, styles, charts' SVG)."""
    return re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)


@needs_pdf
@needs_pdftotext
def test_every_table_and_listing_word_is_in_the_pdf():
    """A table or a listing wider than the page was cut at the right edge ("wa" for its last column's
    name), and only the open tab of a tab set printed: every word of the print view's table cells
    and code listings must be in the PDF's text (in content order, where a wrapped word's two
    pieces meet again once the spaces are gone)."""
    pdf = "".join(_pdftotext("-raw").split())
    words = set()
    for _, cell in re.findall(r"<(td|th|pre)\b[^>]*>(.*?)</\1>", _visible(PRINT.read_text(encoding="utf-8")), re.S):
        words |= set(html.unescape(re.sub(r"<[^>]+>", "", cell)).split())
    assert len(words) > 1000
    missing = sorted(w for w in words if w not in pdf)
    assert not missing, f"{len(missing)} words of tables and listings are not in the PDF: {missing[:20]}"


@needs_pdf
@needs_pdftotext
def test_pdf_table_columns_stay_apart():
    """Cells had no gap between them, so "5000" and "638.38" printed as "5000638.38": no two
    neighbouring numeric cells of a table read as one word in the PDF's text, unless the
    book itself holds that word."""
    text = PRINT.read_text(encoding="utf-8")
    own = set(re.sub(r"<[^>]+>", " ", text).split())
    pdf_words = set(_pdftotext("-raw").split())
    number = re.compile(r"-?[\d][\d,.]*%?")
    glued, pairs = [], 0
    for row in re.findall(r"<tr\b.*?</tr>", text, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                 for c in re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row, re.S)]
        for a, b in zip(cells, cells[1:]):
            if number.fullmatch(a) and number.fullmatch(b) and min(len(a), len(b)) >= 2 and len(a + b) >= 5:
                pairs += 1
                if a + b in pdf_words and a + b not in own:
                    glued.append(f"{a} | {b}")
    assert pairs > 100
    assert not glued, f"{len(glued)} neighbouring cells print as one word: {glued[:10]}"


def test_print_view_shows_no_interactive_frame():
    """An interactive chart printed as a copy of the static one above it, under a caption that
    promised zoom: on paper a note says what the figure is instead."""
    from lassm.book import printview

    text = PRINT.read_text(encoding="utf-8")
    frames = sum(len(re.findall(r'<iframe\b[^>]*class="lassm-interactive"', (HTML / f"{d}.html").read_text(encoding="utf-8")))
                 for d in printview.page_order(ROOT / "_toc.yml", ROOT))
    assert frames > 0 and "<iframe" not in text
    assert text.count(printview.FRAME_NOTE) == frames

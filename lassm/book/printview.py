# SPDX-License-Identifier: BSD-3-Clause
"""The whole built book as one page (``print.html``) and, where Chromium is installed, a PDF.

Rather than build again with another Sphinx builder (executing every notebook again), this joins
every built page's article in table-of-contents order into one HTML file beside them, relative
links and images rewritten and links between pages made internal; headless Chromium prints it.

``python -m lassm.book.printview [--html _build/html] [--pdf _build/lassm-book.pdf]``"""
from __future__ import annotations

import argparse
import html
import posixpath
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from .. import stderr
from .. import paths
from ..atomic import atomic_open

#: The article of a page in the sphinx-book-theme (pydata) layout.
_ARTICLE = re.compile(r"<article\b[^>]*\bclass=\"[^\"]*\bbd-article\b[^\"]*\"[^>]*>", re.I)
_TAG = re.compile(r"<(/?)article\b[^>]*>", re.I)
#: A src= or href= attribute, quoted.
_URL = re.compile(r"\b(src|href)=(\"|')([^\"']*)\2", re.I)
_HEAD = re.compile(r"<head\b[^>]*>(.*?)</head>", re.I | re.S)
#: A folded code cell's input: the toggle and the code behind it, which paper cannot unfold.
_FOLDED_INPUT = re.compile(r"<details\b[^>]*\bclass=\"[^\"]*\babove-input\b[^\"]*\"[^>]*>.*?</details>", re.I | re.S)
_ABSOLUTE = ("http:", "https:", "//", "#", "data:", "mailto:", "javascript:")
#: Print rules: a page per chapter, folded code stays folded, no navigation chrome, every tab of a
#: tab set one after the other (paper cannot switch tabs), and nothing wider than the page. On screen a wide table or listing scrolls; paper cannot scroll, so Chromium
#: cut them at the right edge: here text and code wrap, a table shrinks its type and breaks long
#: cells (a table of many columns more), every cell keeps a gap to the next (pandas' tables had
#: none, so "5000" and "638.38" printed as "5000638.38"), and a chart scales to the column.
PRINT_CSS = """
<style>
  @page { size: letter; margin: 14mm 12mm; }
  .lassm-print-page { break-before: page; }
  .lassm-print-page:first-of-type { break-before: auto; }
  .headerlink, .toggle-details__summary, .prev-next-area { display: none !important; }
  details.below-input > summary { display: none !important; }
  body { max-width: 60rem; margin: 0 auto; padding: 1rem; }
  .lassm-print, .lassm-print * { max-width: 100%; box-sizing: border-box; }
  .lassm-print div, .lassm-print pre, .lassm-print .pst-scrollable-table-container { overflow: visible !important; }
  .lassm-print pre { white-space: pre-wrap !important; overflow-wrap: anywhere; word-break: break-all; }
  .lassm-print p, .lassm-print li, .lassm-print dd, .lassm-print code { overflow-wrap: anywhere; }
  .lassm-print table { width: auto !important; max-width: 100%; table-layout: auto; border-collapse: collapse;
                       font-size: 8pt; break-inside: auto; }
  .lassm-print table.lassm-wide { font-size: 6.5pt; }
  .lassm-print th, .lassm-print td { padding: 0.15em 0.6em !important; white-space: normal !important;
                                     overflow-wrap: anywhere; word-break: normal; vertical-align: top; }
  .lassm-print th { text-align: left; }
  .lassm-print tr { break-inside: avoid; }
  .lassm-print svg, .lassm-print img { max-width: 100% !important; height: auto !important; }
  .lassm-print-note { font-style: italic; border-left: 3px solid #999; padding-left: 0.6em; }
  .lassm-print .sd-tab-set { display: block !important; }
  .lassm-print .sd-tab-set > input { display: none !important; }
  .lassm-print .sd-tab-set > label { display: block !important; font-weight: bold; border: 0 !important;
                                     padding: 0.4em 0 0 0 !important; }
  .lassm-print .sd-tab-content { display: block !important; box-shadow: none !important; padding-top: 0.2em !important; }
</style>
"""
#: A table of more columns than this prints in smaller type (``lassm-wide``).
WIDE_TABLE_COLUMNS = 8
#: The frame of an interactive chart, which paper shows as a second copy of the static chart.
_FRAME = re.compile(r"<iframe\b[^>]*\bclass=\"lassm-interactive\"[^>]*>\s*</iframe>", re.I)
#: What paper shows in its place.
FRAME_NOTE = ('<p class="lassm-print-note">On paper this figure is the chart above: the web edition shows it '
              'here again with tooltips, zoom and pan, which print cannot.</p>')
_TABLE = re.compile(r"<table\b([^>]*)>(.*?)</table>", re.I | re.S)
_DETAILS = re.compile(r"<details\b(?![^>]*\bopen\b)", re.I)


def page_order(toc: str | Path, book: str | Path) -> list[str]:
    """Document names in reading order (``book/intro``, ``notebooks/errata``, ...): the root, then each
    ``file:`` and ``glob:`` of ``toc`` as listed, globs expanded over ``book``'s ``.ipynb`` and
    ``.md`` files."""
    import yaml  # jupyter-book's dependency: present wherever a book is built

    book = Path(book)
    spec = yaml.safe_load(Path(toc).read_text(encoding="utf-8"))
    out = [spec["root"]]

    def walk(node) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            if "file" in node:
                out.append(str(node["file"]))
            if "glob" in node:
                found = {str(p.relative_to(book).with_suffix("")) for s in (".ipynb", ".md")
                         for p in book.glob(node["glob"] + s) if not p.name.startswith(".")}
                out.extend(sorted(found))
            for key in ("parts", "chapters", "sections"):
                walk(node.get(key))

    walk(spec)
    return list(dict.fromkeys(out))


def article(html: str) -> str:
    """The ``bd-article`` element of a built page, nested articles included ('' if none)."""
    start = _ARTICLE.search(html)
    if not start:
        return ""
    depth = 0
    for tag in _TAG.finditer(html, start.start()):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return html[start.start():tag.end()]
    return html[start.start():]


def anchor(doc: str) -> str:
    """The id of a page's section in the print view."""
    return "page-" + re.sub(r"[^A-Za-z0-9]+", "-", doc).strip("-")


def book_title(book: str | Path) -> str:
    """The book's title as ``_config.yml`` gives it (the print view's and the PDF's title)."""
    import yaml

    config = Path(book) / "_config.yml"
    spec = yaml.safe_load(config.read_text(encoding="utf-8")) if config.is_file() else {}
    return str((spec or {}).get("title") or "lassm")


def without_folded_code(fragment: str) -> str:
    """A page's article without its folded code cells' inputs: on paper a fold is a stub saying
    "Show code cell source" that nobody can open; the outputs stay."""
    return _FOLDED_INPUT.sub("", fragment)


def for_paper(fragment: str) -> str:
    """A page's article as paper can show it: every fold open (nobody can click one), an
    interactive frame replaced by a note saying what the print shows, and a table of more than
    :data:`WIDE_TABLE_COLUMNS` columns marked to print in smaller type."""
    fragment = _FRAME.sub(FRAME_NOTE, _DETAILS.sub("<details open", fragment))

    def mark(m: re.Match) -> str:
        attrs, body = m.groups()
        first = re.search(r"<tr\b.*?</tr>", body, re.S)
        columns = len(re.findall(r"<t[hd]\b", first.group(0))) if first else 0
        if columns <= WIDE_TABLE_COLUMNS:
            return m.group(0)
        if re.search(r"\bclass=\"", attrs):
            attrs = re.sub(r"\bclass=\"", 'class="lassm-wide ', attrs, count=1)
        else:
            attrs += ' class="lassm-wide"'
        return f"<table{attrs}>{body}</table>"

    return _TABLE.sub(mark, fragment)


def rewrite(fragment: str, doc: str, docs: set[str]) -> str:
    """Relative URLs of page ``doc`` made relative to the html root; links between pages made internal."""
    base = posixpath.dirname(doc)

    def fix(m: re.Match) -> str:
        attr, quote, url = m.groups()
        if not url or url.lower().startswith(_ABSOLUTE):
            return m.group(0)
        path, _, frag = url.partition("#")
        target = posixpath.normpath(posixpath.join(base, path))
        if attr.lower() == "href" and target.endswith(".html") and target[:-5] in docs:
            return f"{attr}={quote}#{frag or anchor(target[:-5])}{quote}"
        return f"{attr}={quote}{target}{('#' + frag) if frag else ''}{quote}"

    return _URL.sub(fix, fragment)


def build(html_root: str | Path, toc: str | Path, book: str | Path) -> Path:
    """Writes ``print.html`` in ``html_root`` from the built pages and returns it;
    ``FileNotFoundError`` when a page of the table of contents was not built."""
    root = Path(html_root)
    docs = page_order(toc, book)
    missing = [d for d in docs if not (root / f"{d}.html").is_file()]
    if missing:
        raise FileNotFoundError(f"{root}: pages of the table of contents not built: {missing}")
    first = (root / f"{docs[0]}.html").read_text(encoding="utf-8")
    head = _HEAD.search(first)
    head_html = rewrite(head.group(1), docs[0], set(docs)) if head else ""
    title = html.escape(book_title(book))
    head_html = re.sub(r"<title>.*?</title>", f"<title>{title}</title>", head_html, flags=re.S)
    parts = []
    for doc in docs:
        body = for_paper(without_folded_code(article((root / f"{doc}.html").read_text(encoding="utf-8"))))
        parts.append(f'<section class="lassm-print-page" id="{anchor(doc)}">\n{rewrite(body, doc, set(docs))}\n</section>')
    text = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>" + head_html + PRINT_CSS + "</head>\n<body>\n<main class=\"lassm-print\">\n"
            + "\n".join(parts) + "\n</main>\n</body>\n</html>\n")
    out = root / "print.html"
    with atomic_open(out, "wb") as f:
        f.write(text.encode("utf-8"))
    return out


class _Headings(HTMLParser):
    """Collects the text of every h1-h6 of a page, without its permalink ("#")."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._level = 0
        self._text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._level, self._text = int(tag[1]), []
        elif self._level and (self._skip or "headerlink" in (dict(attrs).get("class") or "")):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if self._level and tag == f"h{self._level}":
            self.found.append((self._level, " ".join("".join(self._text).split())))
            self._level = 0
        elif self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._level and not self._skip:
            self._text.append(data)


def headings(page: str) -> list[tuple[int, str]]:
    """``(level, text)`` of every heading of an HTML page, in document order."""
    parser = _Headings()
    parser.feed(page)
    return parser.found


def _letters(text: str) -> str:
    return "".join(text.split())


def _within(short: str, long: str) -> bool:
    """Whether ``short``'s characters appear in ``long`` in order (Chromium's outline titles hold
    the heading's, some twice, with the spaces at line ends lost)."""
    rest = iter(long)
    return all(ch in rest for ch in short)


def retitle_outline(pdf: str | Path, titles: list[tuple[int, str]]) -> int:
    """Sets each bookmark of ``pdf`` to its heading's text, in place; returns how many were set.

    Chromium doubles a heading that starts a printed page and drops spaces at wrapped line ends;
    bookmarks follow heading order, so each takes the next heading whose text it holds
    (:func:`_within`), else stays."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    writer = PdfWriter(clone_from=PdfReader(str(pdf)))
    root = writer.root_object.get("/Outlines")
    items: list[DictionaryObject] = []

    def walk(node) -> None:
        node = node.get_object()
        while node is not None:
            items.append(node)
            if "/First" in node:
                walk(node["/First"])
            node = node["/Next"].get_object() if "/Next" in node else None

    if root is not None and "/First" in root.get_object():
        walk(root.get_object()["/First"])
    done, at = 0, 0
    for item in items:
        title = str(item.get("/Title", ""))
        for i in range(at, len(titles)):
            text = titles[i][1]
            if _within(_letters(text), _letters(title)):
                item[NameObject("/Title")] = TextStringObject(text)
                done, at = done + 1, i + 1
                break
    with atomic_open(pdf, "wb") as f:
        writer.write(f)
    return done


def chromium() -> str | None:
    """A headless-capable Chromium on PATH, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def to_pdf(page: str | Path, pdf: str | Path, browser: str, *, budget_ms: int = 20000) -> Path:
    """Print ``page`` to ``pdf`` with headless Chromium (MathJax given ``budget_ms`` to typeset), with
    the headings as the PDF's bookmarks (its document outline), titled as the headings read
    (:func:`retitle_outline`)."""
    pdf = Path(pdf)
    pdf.parent.mkdir(parents=True, exist_ok=True)
    tmp = pdf.with_name(pdf.name + ".part")
    profile = pdf.parent / ".chromium-print-profile"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--no-pdf-header-footer", "--generate-pdf-document-outline", f"--virtual-time-budget={budget_ms}",
           f"--print-to-pdf={tmp}",
           Path(page).resolve().as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    shutil.rmtree(profile, ignore_errors=True)
    try:
        retitle_outline(tmp, headings(Path(page).read_text(encoding="utf-8")))
    except ImportError as exc:
        stderr.line(f"pdf: bookmarks left as Chromium wrote them ({exc}; the book extra installs pypdf)")
    tmp.replace(pdf)
    return pdf


def main(argv: list[str] | None = None) -> int:
    """``python -m lassm.book.printview``: the print view of the built book, then its PDF."""
    p = argparse.ArgumentParser(prog="python -m lassm.book.printview", description=main.__doc__)
    p.add_argument("--html", default=str(paths.REPO / "_build" / "html"), help="the built book")
    p.add_argument("--book", default=str(paths.REPO), help="the book's root, with _toc.yml")
    p.add_argument("--pdf", default=str(paths.REPO / "_build" / "lassm-book.pdf"),
                   help="where the PDF goes ('' for none)")
    args = p.parse_args(argv)
    try:
        page = build(args.html, Path(args.book) / "_toc.yml", args.book)
    except FileNotFoundError as exc:
        print(f"printview: {exc}")
        return 2
    print(f"print view -> {page}")
    browser = chromium()
    if args.pdf and browser:
        print(f"pdf -> {to_pdf(page, args.pdf, browser)}")
    elif args.pdf:
        print("pdf: no chromium on PATH (make deps installs it); the print view alone was written")
    return 0


__all__ = ["FRAME_NOTE", "PRINT_CSS", "WIDE_TABLE_COLUMNS", "anchor", "article", "book_title", "build", "chromium",
           "for_paper", "headings", "main", "page_order", "retitle_outline", "rewrite", "to_pdf", "without_folded_code"]

if __name__ == "__main__":
    raise SystemExit(main())

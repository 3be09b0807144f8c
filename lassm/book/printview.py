# SPDX-License-Identifier: BSD-3-Clause
"""The whole built book as one page (``print.html``) and, where Chromium is installed, a PDF.

A study is handed around as one file. Rather than build the book a second time with another
Sphinx builder (which would execute every notebook again), this joins the article of every
built page, in the table of contents' order, into one HTML file beside them, with every relative
link and image rewritten to the new place and every link between pages turned into a link
inside the file. Headless Chromium then prints it to PDF.

``python -m lassm.book.printview [--html _build/html] [--pdf _build/lassm-book.pdf]``
"""
from __future__ import annotations

import argparse
import html
import posixpath
import re
import shutil
import subprocess
from pathlib import Path

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
#: Print rules: a page per chapter, folded code stays folded, no navigation chrome.
PRINT_CSS = """
<style>
  .lassm-print-page { break-before: page; }
  .lassm-print-page:first-of-type { break-before: auto; }
  .headerlink, .toggle-details__summary, .prev-next-area { display: none !important; }
  body { max-width: 60rem; margin: 0 auto; padding: 1rem; }
</style>
"""


def page_order(toc: str | Path, book: str | Path) -> list[str]:
    """Document names in reading order: the root, then each ``file:`` and ``glob:`` as listed.

    Parameters
    ----------
    toc : path of ``_toc.yml``.
    book : the book's root folder (globs are expanded over its ``.ipynb`` and ``.md`` files).

    Returns
    -------
    list of str
        ``book/intro``, ``notebooks/errata``, ``machines/nvidia-h200``, ...
    """
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
    """Write ``print.html`` in ``html_root`` from the built pages.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    FileNotFoundError
        When a page of the table of contents was not built.
    """
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
        body = without_folded_code(article((root / f"{doc}.html").read_text(encoding="utf-8")))
        parts.append(f'<section class="lassm-print-page" id="{anchor(doc)}">\n{rewrite(body, doc, set(docs))}\n</section>')
    text = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>" + head_html + PRINT_CSS + "</head>\n<body>\n<main class=\"lassm-print\">\n"
            + "\n".join(parts) + "\n</main>\n</body>\n</html>\n")
    out = root / "print.html"
    with atomic_open(out, "wb") as f:
        f.write(text.encode("utf-8"))
    return out


def chromium() -> str | None:
    """A headless-capable Chromium on PATH, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def to_pdf(page: str | Path, pdf: str | Path, browser: str, *, budget_ms: int = 20000) -> Path:
    """Print ``page`` to ``pdf`` with headless Chromium (MathJax given ``budget_ms`` to typeset), with
    the headings as the PDF's bookmarks (its document outline)."""
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


__all__ = ["PRINT_CSS", "anchor", "article", "book_title", "build", "without_folded_code", "chromium", "main", "page_order", "rewrite", "to_pdf"]

if __name__ == "__main__":
    raise SystemExit(main())

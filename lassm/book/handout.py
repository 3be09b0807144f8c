# SPDX-License-Identifier: BSD-3-Clause
"""One print page per lab (``lab-<N>.html`` beside the built book) and, with Chromium, its PDF: the
lab's header and exercises from the built exercises page, without the solution dropdowns.

``python -m lassm.book.handout [--html _build/html] [--pdf-dir _build]``"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from .. import stderr
from .. import paths
from ..atomic import atomic_open
from . import printview
from .course import LABS

#: The built exercises page, relative to the html root.
EXERCISES = "book/exercises"
#: A sphinx-design dropdown: what a solution shows.
_DROPDOWN = re.compile(r"<details\b[^>]*\bsd-dropdown\b[^>]*>.*?</details>", re.I | re.S)
#: The first of the page's top sections: each lab, then the closing one.
_TOP = re.compile(r"<section\b[^>]*\bid=\"(?:lab-\d+|what-this-shows)\b[^\"]*\"[^>]*>", re.I)


def lab_section(page: str, number: int) -> str:
    """The ``<section>`` of lab ``number`` in a built exercises page ('' where there is none): from
    its opening tag to the next lab's, or to the page's closing section (the labs are siblings)."""
    start = re.search(rf"<section\b[^>]*\bid=\"lab-{number}\b[^\"]*\"[^>]*>", page, re.I)
    if not start:
        return ""
    after = _TOP.search(page, start.end())
    return page[start.start():after.start() if after else len(page)]


def without_solutions(fragment: str) -> str:
    """A fragment without its solution dropdowns."""
    return _DROPDOWN.sub("", fragment)


def write(html_root: str | Path, number: int) -> Path:
    """Writes ``lab-<number>.html`` in ``html_root`` from the built exercises page;
    ``FileNotFoundError`` when that page was not built or has no section for the lab."""
    root = Path(html_root)
    source = root / f"{EXERCISES}.html"
    if not source.is_file():
        raise FileNotFoundError(f"{source}: the exercises page is not built (make book)")
    page = source.read_text(encoding="utf-8")
    section = lab_section(page, number)
    if not section:
        raise FileNotFoundError(f"{source}: no section for lab {number}")
    head = re.search(r"<head\b[^>]*>(.*?)</head>", page, re.I | re.S)
    head_html = printview.rewrite(head.group(1), EXERCISES, set()) if head else ""
    head_html = re.sub(r"<title>.*?</title>", f"<title>Lab {number}</title>", head_html, flags=re.S)
    body = printview.rewrite(without_solutions(section), EXERCISES, set())
    text = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>" + head_html + printview.PRINT_CSS + "</head>\n<body>\n"
            f"<main class=\"lassm-print\">\n{body}\n</main>\n</body>\n</html>\n")
    out = root / f"lab-{number}.html"
    with atomic_open(out, "wb") as f:
        f.write(text.encode("utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m lassm.book.handout``: each lab's print page, then its PDF where Chromium is."""
    p = argparse.ArgumentParser(prog="python -m lassm.book.handout", description=main.__doc__)
    p.add_argument("--html", default=str(paths.REPO / "_build" / "html"), help="the built book")
    p.add_argument("--pdf-dir", default=str(paths.REPO / "_build"), help="where the PDFs go ('' for none)")
    args = p.parse_args(argv)
    browser = printview.chromium() if args.pdf_dir else None
    for lab in LABS:
        try:
            page = write(args.html, lab.number)
        except FileNotFoundError as exc:
            stderr.line(f"handout: {exc}")
            return 2
        stderr.line(f"lab {lab.number} -> {page}")
        if browser:
            pdf = printview.to_pdf(page, Path(args.pdf_dir) / f"lassm-lab-{lab.number}.pdf", browser)
            stderr.line(f"pdf -> {pdf}")
    return 0


__all__ = ["EXERCISES", "lab_section", "main", "without_solutions", "write"]

if __name__ == "__main__":
    raise SystemExit(main())

# SPDX-License-Identifier: BSD-3-Clause
"""The study speaks of the study: no issue numbers, numbered changes, lent machines, sessions, run
names or log paths, and no source paper called "the seed", in the book's pages, the notebooks, the
README, the package's docstrings and strings, the tests', the kernels' comments and the tools.

A reader met "issue 29's goal", "change 15" in a heading, "the lent H100" and paths into
``logs/`` in the book, words that only its makers could follow. The run logs under
``data/results/*/logs/`` are records of what ran and keep their own words.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: What the book must not say, with why a reader cannot follow it.
FORBIDDEN: dict[str, re.Pattern] = {
    "an issue number": re.compile(r"\b[Ii]ssues? #?\d+"),
    "a numbered change": re.compile(r"\b[Cc]hanges? \d+\b"),
    "a lent machine": re.compile(r"\blent\b"),
    "a log path": re.compile(r"\blogs/20\d\d-"),
    "a run's call name": re.compile(r"\bcall-[a-h]\b(?![\w-])"),
    "the tracker's issue": re.compile(r"\b[Tt]he issue's\b|[Tt]he[ _]issue[ _]example"),
    "a paper called the seed": re.compile(r"\b[Ss]eed 00\d\b|\b[Tt]he seed's (?:port|finding|kernel|structure|ratio|cause|size)"
                                          r"|\b[Tt]he seed (?:ported|found|compares|paper|study)\b"),
}
#: Only in what a reader reads as prose (the profiler's own "session" stays in the package).
PROSE_ONLY: dict[str, re.Pattern] = {"a session": re.compile(r"\b[Ss]essions?\b")}


def _notebook_text(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)


def _sources() -> list[tuple[Path, bool]]:
    """(file, read as prose) for every file the rule covers."""
    prose = sorted((ROOT / "book").glob("*.md")) + sorted((ROOT / "book").glob("*.ipynb")) \
        + sorted((ROOT / "notebooks").glob("*.ipynb")) + [ROOT / "README.md"]
    code = sorted((ROOT / "lassm").rglob("*.py")) + sorted((ROOT / "tools").glob("*")) \
        + sorted(p for p in (ROOT / "tests").rglob("*.py") if p.name != "test_book_words.py") \
        + sorted(p for p in (ROOT / "kernels").rglob("*") if p.is_file() and p.suffix in {".cu", ".cuh", ".cl", ".h", ".cpp"}) \
        + [ROOT / "_toc.yml", ROOT / "_config.yml", ROOT / "CITATION.cff", ROOT / "Makefile"]
    return [(p, True) for p in prose] + [(p, False) for p in code if p.is_file()]


def _text(path: Path) -> str:
    return _notebook_text(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8", errors="replace")


def hits(text: str, prose: bool) -> list[str]:
    """Each forbidden phrase in ``text``: what it is and the phrase itself."""
    rules = {**FORBIDDEN, **(PROSE_ONLY if prose else {})}
    return [f"{what}: {m.group(0)!r}" for what, pattern in rules.items() for m in pattern.finditer(text)]


def test_the_rules_catch_what_the_book_said():
    """The phrases a reader met, each caught (a rule that catches nothing tests nothing)."""
    said = ["issue 29's goal", "## Change 15: the sorted table", "the lent NVIDIA H100",
            "logs/2026-11-27-readers-first-gpu-run/call-f.log", "as the seed ported them", "seed 004",
            "in this session", "run at the seed's sizes", "on the issue's 20k set",
            "test_the_issue_example_as_a_user_runs_it"]
    for phrase in said:
        assert hits(phrase, prose=True), phrase
    assert not hits("the X-drop seed's own score; a random seed of 7; changes the kernel; the warp issue rate",
                    prose=True)


@pytest.mark.parametrize("path,prose", _sources(), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else "")
def test_no_makers_talk(path, prose):
    found = hits(_text(path), prose)
    assert not found, f"{path.relative_to(ROOT)}: " + "; ".join(found[:5])

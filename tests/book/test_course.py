# SPDX-License-Identifier: BSD-3-Clause
"""The course: the plan, the exercises page, each lab's header and the solutions agree with
:data:`lassm.book.course.LABS`; every exercise has a folded, self-checking solution; reading
times come from the pages; each lab's handout holds its exercises and no solution.

The solutions themselves execute in tests/book/test_notebooks.py, on whatever CPU box runs the suite:
that is where each lab's "runs on a CPU-only laptop" is held.
"""
from __future__ import annotations

import json
import re

import pytest

from lassm.book import course, handout

from .test_book import ROOT

PLAN = ROOT / "book" / "course-plan.md"
EXERCISES = ROOT / "book" / "exercises.md"
SOLUTIONS = ROOT / "notebooks" / "solutions.ipynb"
GLUE = "../notebooks/solutions.ipynb::"


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", text))


def _plan_rows() -> dict[int, list[str]]:
    rows = {}
    for line in PLAN.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            rows[int(cells[0])] = cells
    return rows


def _lab_sections() -> dict[int, str]:
    text = EXERCISES.read_text(encoding="utf-8")
    found = re.split(r"^## Lab (\d+): ", text, flags=re.M)
    return {int(n): body.split("\n## ", 1)[0] for n, body in zip(found[1::2], found[2::2])}


def _field(section: str, name: str) -> str:
    m = re.search(rf"^- \*\*{re.escape(name)}\*\*: (.*)$", section, re.M)
    assert m, f"a lab header has no '{name}' line"
    return m.group(1)


def _doc_targets(text: str) -> list[str]:
    return re.findall(r"\{doc\}`([^`]+)`", text)


def _page_doc(page: str) -> str:
    """A lab page as the exercises and plan pages (both in book/) link it."""
    stem = page.rsplit(".", 1)[0]
    return stem.split("/", 1)[1] if stem.startswith("book/") else "../" + stem


def test_every_exercise_is_in_one_lab_and_each_part_has_two():
    numbers = [n for lab in course.LABS for n in lab.exercises]
    assert len(numbers) == len(set(numbers)), "an exercise is in two labs"
    assert sorted(numbers) == list(range(1, len(numbers) + 1)), "the exercises are not numbered 1..N"
    for part, exercises in course.PARTS.items():
        assert len(exercises) >= 2 and set(exercises) <= set(numbers), f"{part}: fewer than two exercises"


def test_plan_lists_each_lab_as_the_labs_hold_it():
    rows = _plan_rows()
    assert sorted(rows) == [lab.number for lab in course.LABS], "the plan's table lists other labs"
    for lab in course.LABS:
        _n, theme, read, exercises, runs_on, reading, running, gpu = rows[lab.number]
        assert theme == lab.theme
        assert _doc_targets(read) == [_page_doc(p) for p in lab.pages], f"lab {lab.number}: other pages to read"
        assert _numbers(exercises) == lab.exercises, f"lab {lab.number}: other exercises in the plan"
        assert runs_on == course.LAPTOP
        assert f"{GLUE}course_read_{lab.number}:" in reading and f"{GLUE}course_run_{lab.number}:" in running, \
            f"lab {lab.number}: the plan's times are not the computed ones"
        assert gpu == lab.gpu


def test_exercises_page_headers_agree_with_the_plan():
    sections = _lab_sections()
    assert sorted(sections) == [lab.number for lab in course.LABS], "the exercises page has other labs"
    for lab in course.LABS:
        section = sections[lab.number]
        assert section.startswith(lab.theme), f"lab {lab.number}: another theme on the exercises page"
        assert _numbers(_field(section, "Exercises")) == lab.exercises
        headed = tuple(int(n) for n in re.findall(r"^### (\d+)\. ", section, re.M))
        assert headed == lab.exercises, f"lab {lab.number}: the header lists {lab.exercises}, the page sets {headed}"
        assert _field(section, "Runs on") == course.LAPTOP
        assert _doc_targets(_field(section, "Read first")) == [_page_doc(p) for p in lab.pages]
        assert f"{GLUE}course_read_{lab.number}:" in section and f"{GLUE}course_run_{lab.number}:" in section
        assert lab.gpu in section, f"lab {lab.number}: another GPU extension on the exercises page"
        assert section.count(":::{dropdown} What a solution shows") == len(lab.exercises)


def _solution_cells() -> dict[int, dict]:
    cells = json.loads(SOLUTIONS.read_text(encoding="utf-8"))["cells"]
    out = {}
    for heading, cell in zip(cells, cells[1:]):
        m = re.match(r"### Exercise (\d+): ", "".join(heading["source"])) if heading["cell_type"] == "markdown" else None
        if m:
            out[int(m.group(1))] = cell
    return out


def test_every_exercise_has_a_folded_solution_that_checks_itself():
    cells = _solution_cells()
    numbers = sorted(n for lab in course.LABS for n in lab.exercises)
    assert sorted(cells) == numbers, "exercises without a solution cell, or solutions of no exercise"
    for n, cell in cells.items():
        src = "".join(cell["source"])
        assert cell["cell_type"] == "code" and "hide-input" in cell["metadata"].get("tags", []), f"{n}: not folded"
        assert src.startswith(f"watch.start({n})\n"), f"exercise {n}: its run time is not clocked"
        assert "assert " in src, f"exercise {n}: the solution checks nothing"


def test_solution_titles_are_not_the_exercise_titles_answers():
    """A heading that states the result (a row's k, a bound) gives the exercise away."""
    titles = re.findall(r"^### \d+\. (.*)$", EXERCISES.read_text(encoding="utf-8"), re.M)
    for title in titles:
        assert not re.search(r"\bk = \d+ row\b|memory-bound|compute-bound|inconsistent", title), title


def test_the_glued_times_are_glued():
    src = SOLUTIONS.read_text(encoding="utf-8")
    for key in ("course_read_{lab.number}", "course_run_{lab.number}", "course_wpm"):
        assert key in src, f"the solutions notebook glues no {key}"


def test_reading_time_counts_words_and_tables(tmp_path):
    md = tmp_path / "page.md"
    md.write_text("# Title\n\n" + "word " * 398 + "\n\n```python\nnot counted at all\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n")
    words, exhibits = course.page_counts(md)
    assert exhibits == 1 and 398 <= words <= 406
    assert course.reading_minutes(["page.md"], tmp_path) == 4  # ~2 minutes of words, a table, rounded up
    nb = tmp_path / "chapter.ipynb"
    nb.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "one two three"},
        {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": "table.style"},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": "hidden"},
        {"cell_type": "code", "metadata": {}, "source": "glue('x', 1, display=False)"}]}))
    assert course.page_counts(nb) == (3, 1)
    with pytest.raises(FileNotFoundError):
        course.page_counts(tmp_path / "absent.md")


def test_stopwatch_names_an_exercise_that_never_ran():
    watch = course.Stopwatch()
    watch.start(1)
    watch.start(2)
    watch.stop()
    assert set(watch.seconds) == {1, 2} and all(s >= 0 for s in watch.seconds.values())
    with pytest.raises(KeyError, match=r"\[3, 4\]"):
        watch.lab_seconds(course.LABS[0])


BUILT = """<html><head><title>Exercises</title><link href="../_static/a.css" rel="stylesheet"></head><body>
<article class="bd-article"><section id="exercises"><h1>Exercises</h1>
<section id="lab-1-the-kernel"><h2>Lab 1</h2><p>header</p>
<section id="follow"><h3>1. Follow</h3><p>goal one</p>
<details class="sd-sphinx-override sd-dropdown sd-card"><summary>What a solution shows</summary><p>ANSWER</p></details>
</section></section>
<section id="lab-2-the-roofline"><h2>Lab 2</h2><section id="x"><h3>5. Compute</h3><p>goal five</p></section></section>
<section id="what-this-shows"><h2>What this shows</h2><p>closing words</p></section>
</section></article></body></html>"""


def test_handout_holds_one_lab_without_its_solutions(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "exercises.html").write_text(BUILT)
    page = handout.write(tmp_path, 1).read_text()
    assert "goal one" in page and "ANSWER" not in page and "sd-dropdown" not in page
    assert "goal five" not in page, "the handout of lab 1 holds lab 2"
    last = handout.write(tmp_path, 2).read_text()
    assert "goal five" in last and "closing words" not in last and "goal one" not in last
    assert 'href="_static/a.css"' in page and "<title>Lab 1</title>" in page
    with pytest.raises(FileNotFoundError, match="no section for lab 9"):
        handout.write(tmp_path, 9)
    assert handout.main(["--html", str(tmp_path / "absent"), "--pdf-dir", ""]) == 2


def test_no_solution_asks_for_a_gpu():
    """Each lab runs on a CPU-only laptop: no solution names a backend that needs a GPU (they read
    the GPUs' records instead); tests/book/test_notebooks.py executes them on the CPU box."""
    gpu_only = ("cuda", "hip", "opencl-ptx")
    for n, cell in _solution_cells().items():
        src = "".join(cell["source"])
        named = set(re.findall(r"backend=\"([\w-]+)\"", src)) | set(re.findall(r"get\(\"([\w-]+)\"\)", src))
        assert not named & set(gpu_only), f"exercise {n} runs {named & set(gpu_only)}"

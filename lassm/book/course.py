# SPDX-License-Identifier: BSD-3-Clause
"""The course's labs, held once: what each reads, which exercises it sets, where it runs, and how
long. The plan, exercises page and lab headers are tested against :data:`LABS`; reading times come
from the pages (:func:`reading_minutes`), run times from the solutions' :class:`Stopwatch`."""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

from .. import paths

#: Words a student reads in a minute of technical prose (the usual 200-250, taken low: the pages
#: are dense) and the minutes a table or a figure asks for on top of its words.
WORDS_PER_MINUTE = 200
MINUTES_PER_EXHIBIT = 1.0
#: Where every lab runs: on a CPU-only laptop, from the committed records and the CPU runtimes.
LAPTOP = "a CPU-only laptop"


@dataclass(frozen=True)
class Lab:
    """One lab: its number, theme, pages to read first (paths from the book's root), exercises,
    and what a GPU adds where there is one."""

    number: int
    theme: str
    pages: tuple[str, ...]
    exercises: tuple[int, ...]
    gpu: str


LABS: tuple[Lab, ...] = (
    Lab(1, "The kernel and its protocols",
        ("book/local-assembly.md", "book/kernel-protocols.ipynb", "notebooks/datasets.ipynb"),
        (1, 2, 3, 4), "the same comparison with `--backend cuda` or `hip`"),
    Lab(2, "The roofline and the counters",
        ("book/method.md", "notebooks/roofline_primer.ipynb", "notebooks/counters.ipynb", "notebooks/roofline.ipynb"),
        (5, 6, 7, 8, 9, 10), "new counters with `lassm counters collect` (Nsight Compute)"),
    Lab(3, "Portability and the suite",
        ("notebooks/across_machines.ipynb", "notebooks/portability.ipynb", "notebooks/suite.ipynb"),
        (11, 12, 13, 14), "the suite's records of one's own GPU with `lassm run --kernel suite`"),
    Lab(4, "The optimized kernel, X-drop and scaling",
        ("book/fast-kernel.md", "notebooks/fast_kernel.ipynb", "notebooks/xdrop.ipynb", "notebooks/scaling.ipynb"),
        (15, 16, 17, 18, 19, 20), "the ablation builds timed with `lassm bench`, scaling over several GPUs"),
)

#: The study's parts and the exercises that practise each (at least two apiece).
PARTS: dict[str, tuple[int, ...]] = {
    "the kernel and its protocols": (1, 2, 10),
    "the roofline and counters": (5, 6, 7, 8, 9),
    "portability": (11, 12),
    "the optimized kernel": (15, 16),
    "X-drop": (17, 18),
    "the suite": (13, 14),
    "scaling": (19, 20),
    "the paper's tables": (3, 4),
}

_FENCE = re.compile(r"^(```|~~~|:::).*?^\1\s*$", re.M | re.S)
_ROLE = re.compile(r"\{[a-z:-]+\}`([^`]*)`")
_TABLE_RULE = re.compile(r"^\|\s*:?-{3,}", re.M)
_WORD = re.compile(r"[A-Za-z0-9][\w'’.,-]*")


def _prose(text: str) -> str:
    """Markdown without its fenced blocks (code, directives), roles reduced to their text."""
    return _ROLE.sub(r"\1", _FENCE.sub(" ", text))


_HIDDEN = {"remove-cell", "remove-output", "remove-input", "parameters"}


def _shows(cell: dict) -> bool:
    """Whether a notebook cell puts a table or a figure on the page: a code cell not removed, whose
    last line is no ``glue`` (glue alone shows nothing) and no import."""
    if cell["cell_type"] != "code" or _HIDDEN & set(cell.get("metadata", {}).get("tags", [])):
        return False
    lines = [line for line in "".join(cell["source"]).splitlines() if line.strip()]
    return bool(lines) and not lines[-1].lstrip().startswith(("glue(", "import ", "from ", "for ", "#"))


def page_counts(path: str | Path) -> tuple[int, int]:
    """``(words, exhibits)`` of one page: its prose words (a notebook's markdown cells) and tables and
    figures (markdown tables, or code cells with shown output). ``FileNotFoundError``
    without the page."""
    path = Path(path)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        shown = sum(1 for c in cells if _shows(c))
    else:
        prose = path.read_text(encoding="utf-8")
        shown = 0
    words = len(_WORD.findall(_prose(prose)))
    return words, shown + len(_TABLE_RULE.findall(prose))


def reading_minutes(pages: tuple[str, ...] | list[str], root: str | Path | None = None) -> int:
    """Minutes to read ``pages`` (paths from ``root``, the book's root by default), rounded up:
    words over :data:`WORDS_PER_MINUTE`, plus :data:`MINUTES_PER_EXHIBIT` per table or figure."""
    base = Path(root) if root is not None else paths.REPO
    words = exhibits = 0
    for page in pages:
        w, e = page_counts(base / page)
        words, exhibits = words + w, exhibits + e
    return math.ceil(words / WORDS_PER_MINUTE + exhibits * MINUTES_PER_EXHIBIT)


class Stopwatch:
    """Seconds spent in each exercise's solution: :meth:`start` opens an exercise's lap and closes
    the one before, :meth:`stop` closes the last. Markdown between cells costs nothing."""

    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}
        self._open: tuple[int, float] | None = None

    def start(self, exercise: int) -> None:
        """Open ``exercise``'s lap (closing the previous one)."""
        self.stop()
        self._open = (exercise, time.perf_counter())

    def stop(self) -> None:
        """Close the open lap, if any."""
        if self._open is not None:
            n, t0 = self._open
            self.seconds[n] = self.seconds.get(n, 0.0) + time.perf_counter() - t0
            self._open = None

    def lab_seconds(self, lab: Lab) -> float:
        """The lab's solutions' seconds; KeyError names an exercise that never ran."""
        missing = [n for n in lab.exercises if n not in self.seconds]
        if missing:
            raise KeyError(f"lab {lab.number}: no timed solution of exercises {missing}")
        return sum(self.seconds[n] for n in lab.exercises)


__all__ = ["LABS", "LAPTOP", "Lab", "MINUTES_PER_EXHIBIT", "PARTS", "Stopwatch", "WORDS_PER_MINUTE", "page_counts",
           "reading_minutes"]

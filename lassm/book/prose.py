# SPDX-License-Identifier: BSD-3-Clause
"""Numbers and notes as the chapters' sentences give them (one formatting for every chapter's facts)."""
from __future__ import annotations

import re

import pandas as pd


def span(values: pd.Series, fmt: str = ".2f", empty: str = "not defined") -> str:
    """``"lo to hi"`` of ``values`` in format ``fmt``, one number when both print alike, ``empty``
    when no value is there (NaN are left out)."""
    vals = values.dropna()
    if vals.empty:
        return empty
    lo, hi = f"{vals.min():{fmt}}", f"{vals.max():{fmt}}"
    return lo if lo == hi else f"{lo} to {hi}"


def faster_or_slower(ratio: pd.Series, fmt: str = ".1f") -> str:
    """How many times faster ``ratio`` (theirs over ours, > 1: ours faster) says ours is, in the
    word that is true: "2.0× to 3.1× faster", "20× to 40× slower", or "0.50× to 2.0× the speed of"
    where it is both. Why: a ratio below 1 printed as "faster" reads as the opposite of the data."""
    vals = ratio.dropna()
    if vals.empty:
        return "not measured"
    if (vals >= 1).all():
        return span(vals, fmt).replace(" to ", "× to ") + "× faster"
    if (vals < 1).all():
        return span(1 / vals, fmt).replace(" to ", "× to ") + "× slower"
    return span(vals, ".2f").replace(" to ", "× to ") + "× the speed"


def count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: "1 step", "3 steps"."""
    return f"{n:d} {word}" + ("" if n == 1 else "s")


#: A runtime's absence as the command line words it for the person who can install it: its name,
#: the import error in parentheses, then what to install.
_ABSENT = re.compile(r"(?P<what>[\w.+-]+) is not installed(?: \((?:[^()]|\([^()]*\))*\))?"
                     r"(?:; (?:install it with|for AMD GPUs install)[^;()]*(?:\([^()]*\))?)?")


def reader_words(line: str) -> str:
    """A campaign's ``lacks`` line as a book's reader needs it: which runtime was absent on the machine, not
    how to install it (the install page says that once). The record keeps the command's words."""
    return _ABSENT.sub(lambda m: f"{m['what']} was absent on this machine", line)


def note(text: str):
    """A Markdown note a chapter's cell shows where its table or chart has nothing to show."""
    from IPython.display import Markdown

    return Markdown(text)

# SPDX-License-Identifier: BSD-3-Clause
"""The real k = 77 sample reproduces Table II's k = 77 row, with the definitions we found."""
from __future__ import annotations

import math

import pytest

from lassm.workloads.local_assembly import formats
from lassm import paths
from lassm.workloads.local_assembly.stats import PAPER_TABLE2
from lassm.runs.table2 import dataset_stats


@pytest.fixture(scope="module")
def row() -> dict:
    return dataset_stats(formats.read_dat(paths.sample("k77")), 77)


def test_counts_match_table2(row: dict) -> None:
    paper = PAPER_TABLE2[77]
    assert row["contigs"] == paper["contigs"] == 2544
    assert row["reads"] == paper["reads"] == 7838
    assert int(row["avg_read_length"]) == paper["avg_read_length"] == 175  # printed truncated


def test_hash_insertions(row: dict) -> None:
    # The paper's figure is reads x (ceil(avg read length) - k), exactly.
    assert row["hash_insertions_table2"] == PAPER_TABLE2[77]["hash_insertions"] == 775962
    # The kernel's true count at the start k.
    assert row["hash_insertions"] == 774814


@pytest.mark.parametrize("k", sorted(PAPER_TABLE2))
def test_paper_insertion_formula_holds_at_every_k(k: int) -> None:
    """Table II's insertions equal reads x (ceil(avg) - k) at all four k (avg > printed value)."""
    p = PAPER_TABLE2[k]
    per_read = p["hash_insertions"] / p["reads"]
    assert per_read == int(per_read)
    assert per_read + k == p["avg_read_length"] + 1 == math.ceil(p["avg_read_length"] + 0.5)


def test_extension_figures(row: dict) -> None:
    assert round(row["avg_extension_length"], 1) == PAPER_TABLE2[77]["avg_extension_length"]
    assert abs(row["total_extensions"] - PAPER_TABLE2[77]["total_extensions"]) <= 1
    # Table II's average is over output contigs; the walks themselves append far less.
    assert row["extended_bases"] == 10494
    assert row["walk_steps"] == 67461


@pytest.mark.parametrize("k", sorted(PAPER_TABLE2))
def test_paper_average_is_total_over_contigs(k: int) -> None:
    """avg extn length = total extns / contigs in three rows; k = 33 prints 88.2 for 88.14."""
    p = PAPER_TABLE2[k]
    consistent = round(p["total_extensions"] / p["contigs"], 1) == p["avg_extension_length"]
    assert consistent == (k != 33)

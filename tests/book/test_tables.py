# SPDX-License-Identifier: BSD-3-Clause
"""A long table shows its head on the page and is offered whole as CSV; a short one is shown whole."""
from __future__ import annotations

import pandas as pd
import pytest

from lassm.book import long_tables


def test_a_long_table_shows_its_head_and_writes_itself_whole(tmp_path):
    frame = pd.DataFrame({"dataset": [f"d{i}" for i in range(40)], "ms": [i / 3 for i in range(40)]})
    shown = long_tables.long_table(frame.style, "t-long", folder=tmp_path)
    assert isinstance(shown, long_tables.LongTable) and shown.total == 40
    back = pd.read_csv(tmp_path / "tables" / "t-long.csv")
    pd.testing.assert_frame_equal(back, frame)
    page = shown._repr_html_()
    assert page.count("<tr") == long_tables.HEAD_ROWS + 1 and "d9" in page and "d10" not in page
    assert 'href="../_static/tables/t-long.csv"' in page and "of 40 rows" in page


def test_a_short_table_and_a_note_pass_through(tmp_path):
    frame = pd.DataFrame({"x": range(long_tables.MAX_ROWS)})
    assert long_tables.long_table(frame, "t-short", folder=tmp_path) is frame
    assert long_tables.long_table("no records here", "t-note", folder=tmp_path) == "no records here"
    assert not (tmp_path / "tables").exists()


def test_a_name_that_is_no_file_name_is_refused(tmp_path):
    with pytest.raises(ValueError, match="letters, digits"):
        long_tables.long_table(pd.DataFrame({"x": range(30)}), "../escape", folder=tmp_path)


def test_counts_print_as_integers_and_measures_to_four_digits():
    """Counts in a column with a gap are floats in pandas and printed "13.0" or "3.091e+09"."""
    from lassm.book.long_tables import number, styled

    assert [number(v) for v in (13.0, 2752836288.0, 0.1234567, 5088.25, float("nan"), None, "x")] == \
        ["13", "2,752,836,288", "0.1235", "5088", "", "", "x"]
    frame = pd.DataFrame({"dataset": ["a", "b"], "launches": [13.0, None], "kernel_ms": [1.23456, 20.5]})
    shown = styled(frame).to_html()
    assert ">13<" in shown and "13.0" not in shown and ">1.235<" in shown and ">20.5<" in shown

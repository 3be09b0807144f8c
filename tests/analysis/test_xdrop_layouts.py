# SPDX-License-Identifier: BSD-3-Clause
"""Which X-drop kernel ran: the records' ``layout`` column, written by the code that launched the
kernel, and the reader's rule for rows written before the column (lassm.analysis.xdrop.layouts)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pandas as pd
import pytest

from lassm.analysis.xdrop import layouts, checked_records
from lassm.runs import xdrop_records as rec
from lassm.workloads.xdrop.alignments import XdropFigures

from ..book.test_book import ROOT

RESULTS = ROOT / "data" / "results"


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def _committed_rows() -> pd.DataFrame:
    frames = []
    for path in sorted(RESULTS.glob("*/xdrop/*.csv")):
        t = pd.read_csv(path, dtype=str, keep_default_na=False)
        if "git_sha" in t:
            frames.append(t.assign(file=str(path.relative_to(ROOT))))
    return pd.concat(frames, ignore_index=True)


def test_every_record_column_list_names_the_layout_after_its_older_columns():
    """``layout`` was added after every older column (a table written before it reads with it
    empty); only the host, added later still, may follow it."""
    for columns in (rec.TIMES_COLUMNS, rec.COUNTER_COLUMNS, rec.AGAINST_LOGAN_COLUMNS):
        assert "layout" in columns and set(columns[columns.index("layout") + 1:]) <= {"host"}


def test_the_backend_says_what_it_launched(monkeypatch):
    assert rec.layout_of("cuda", XdropFigures(lanes=16)) == "lanes-16"
    assert rec.layout_of("cuda", XdropFigures(lanes=0)) == rec.BLOCK
    assert rec.layout_of("opencl", XdropFigures(group=128)) == rec.BLOCK
    assert rec.layout_of("seqan", XdropFigures()) == rec.layout_of("cpu", XdropFigures()) == rec.SCALAR
    assert rec.layout_of("cuda", XdropFigures(layout="tiles", lanes=8)) == "tiles"  # a backend's own word wins
    from lassm.backends.xdrop import xdrop_host as plan

    for x in (10, 100, 1000, 5000):
        assert rec.planned_layout("cuda", x) == rec.layout_name(plan.lanes_for(x))
        assert rec.planned_layout("opencl", x) == rec.BLOCK
    # the warps plan: its lanes kernel, its wide-band block (a shared stride), LOGAN's block (none)
    assert rec.layout_of("cuda", XdropFigures(lanes=0, shared_stride=1024, plan="warps")) == rec.WIDE_BLOCK
    for x, (lanes, _group, stride) in ((x, plan.warps_plan(x)) for x in (10, 100, 1000, 5000)):
        want = rec.layout_name(lanes) if lanes else rec.WIDE_BLOCK if stride else rec.BLOCK
        assert rec.planned_layout("cuda", x, "warps") == want
    assert [rec.planned_layout("cuda", x, "warps") for x in (100, 1000, 5000)] == ["lanes-16", rec.WIDE_BLOCK,
                                                                                  rec.WIDE_BLOCK]
    monkeypatch.setattr(plan, "WARPS_PLAN", (*plan.WARPS_PLAN[:-1], (2**31 - 1, 0, 128, 0)))  # a row of LOGAN's block
    assert rec.planned_layout("cuda", 5000, "warps") == rec.BLOCK


def test_a_recorded_layout_is_kept_and_an_empty_one_follows_the_rule(tmp_path):
    head = ",".join(rec.TIMES_COLUMNS)
    row = "m,GPU,,xdrop,s,2,10,{x},\"1,-1,-1\",cuda,,0.1,0.1,1,100,1.0,True,{sha},c,2,{layout}"
    lines = [head, row.format(x=10, sha="f" * 40, layout="lanes-32"), row.format(x=20, sha="f" * 40, layout=""),
             row.format(x=30, sha=sorted(layouts.BEFORE_LANES)[0], layout="")]
    (tmp_path / "times.csv").write_text("\n".join(lines) + "\n")
    got = checked_records.read(tmp_path / "times.csv", "times")
    assert list(got["layout"]) == ["lanes-32", "lanes-8", "block"]
    assert list(got["seconds"]) == [0.1] * 3  # the measurements as written


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the repository's history")
def test_the_rule_agrees_with_the_history_of_every_committed_row():
    """Rows without ``layout``: a commit of :data:`BEFORE_LANES` precedes the lanes kernel; every
    other commit follows it and planned X as :data:`PLAN_BEFORE_COLUMN`."""
    rows = _committed_rows()
    old = rows[rows["layout"].fillna("").eq("")] if "layout" in rows else rows
    programs = old["program"].fillna("") if "program" in old else pd.Series("", index=old.index)
    planned = ~old["file"].str.endswith("lanes.csv") & old["backend"].fillna("cuda").isin(["cuda", ""]) \
        & ~programs.isin(layouts.LOGAN_PROGRAMS) & ~programs.str.startswith(layouts.FORCED_PREFIX)
    old = old[planned]  # the rows whose layout the rule takes from the commit and X
    checked = 0
    for sha in sorted(set(old["git_sha"])):
        if _git("cat-file", "-e", f"{sha}^{{commit}}").returncode:
            pytest.skip(f"commit {sha} is not in this clone's history")
        before = _git("merge-base", "--is-ancestor", layouts.LANES_COMMIT, sha).returncode != 0
        assert before == layouts._before_lanes(sha), sha
        if not before:
            text = _git("show", f"{sha}:lassm/backends/xdrop/plan.py").stdout
            plan = re.search(r"^LANES_BY_X = (.*)$", text, re.M).group(1)
            assert eval(plan) == layouts.PLAN_BEFORE_COLUMN, sha  # noqa: S307  a literal tuple of the repository's own
        checked += 1
    assert checked >= 5


def test_the_rule_agrees_with_the_times_of_both_layouts():
    """Where the ablation timed both layouts (``lanes.csv``), each CUDA row of ``times.csv`` lies
    nearer the layout the rule gives it than the other one: the block is eight times slower at small X."""
    seen = 0
    for machine in checked_records.machines():
        lanes = checked_records.load(machine, "lanes")
        t = checked_records.load(machine, "times")
        if lanes.empty or t.empty:
            continue
        cuda = t[t["backend"] == "cuda"]
        by = lanes.set_index(["dataset", "xdrop", "layout"])["kernel_seconds"]
        for r in cuda.itertuples():
            others = [lay for (d, x, lay) in by.index if d == r.dataset and x == r.xdrop and lay != r.layout]
            if (r.dataset, r.xdrop, r.layout) not in by.index or not others:
                continue
            mine = abs(r.seconds / by[(r.dataset, r.xdrop, r.layout)] - 1)
            assert all(mine < abs(r.seconds / by[(r.dataset, r.xdrop, o)] - 1) for o in others
                       if abs(by[(r.dataset, r.xdrop, o)] / by[(r.dataset, r.xdrop, r.layout)] - 1) > 0.5), r
            seen += 1
    assert seen, "no committed CUDA row lies beside the ablation's times"


def test_no_ratio_or_carry_across_two_layouts(tmp_path, monkeypatch):
    """The fixture's CUDA row at X = 100 made a lanes row: OpenCL (block) has no twin there, and
    LOGAN, timed beside the block, is not carried onto the lanes kernel's clock."""
    import shutil

    from lassm.book import suite_chapter, xdrop_chapter

    from ..book.test_xdrop_book import FIXTURES, MACHINE

    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert xdrop_chapter.facts(MACHINE)["xd_opencl_points"] == "1"
    path = tmp_path / MACHINE / "xdrop" / "times.csv"
    lines = path.read_text().splitlines()
    lines = [ln.replace(",block", ",lanes-16") if ",100,\"1,-1,-1\",cuda," in ln else ln for ln in lines]
    path.write_text("\n".join(lines) + "\n")
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_opencl_points"] == "0" and f["xd_opencl_share"] == "not measured"
    assert f["xd_layouts"] == "LOGAN's block layout at X = 10 and the lanes kernel at X = 100"
    rows = xdrop_chapter.implementations().set_index(["problem", "implementation"])["seconds"]
    assert rows[("fixture-pairs, X=100", "LOGAN")] == 0.05  # Nsight Compute's clock, not carried
    assert not any("X-drop" == k for k in suite_chapter.distribution(MACHINE)["kernel"])


def test_every_record_file_names_its_variant():
    """Local assembly's records name their protocol, the suite's tables their variant, and every
    X-drop table its layout (the column, or the reader's rule): no record leaves open which kernel ran."""
    import json

    for p in RESULTS.glob("*/*/summary.json"):
        assert json.loads(p.read_text()).get("protocol"), p
    for p in [*RESULTS.glob("*/suite/times.csv"), *RESULTS.glob("*/suite/counters.csv")]:
        t = pd.read_csv(p, dtype=str, keep_default_na=False)
        assert "variant" in t and t["variant"].ne("").all(), p
    for p in RESULTS.glob("*/suite/originals.csv"):
        assert pd.read_csv(p, dtype=str, keep_default_na=False)["ours_variant"].ne("").all(), p
    for machine in checked_records.machines():
        for name in checked_records.FILES:
            assert checked_records.load(machine, name)["layout"].astype(str).str.len().gt(0).all(), (machine, name)

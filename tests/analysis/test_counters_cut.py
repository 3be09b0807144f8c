# SPDX-License-Identifier: BSD-3-Clause
"""A raw ncu CSV cut exactly at a row end, where no sidecar recorded its launches.

Such a copy reads as a whole one (each launch one row, the IDs left still consecutive), and
the committed counters were collected before their sidecar held a launch count and SHA-256:
``metrics derive`` took 3 launches of 4 for the point. A machine folder's file is now checked
against its point's run record, which counts the launches of one run.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lassm import paths
from lassm.analysis.counters import read_meta
from lassm.analysis.derive import counter_backends, machine_metrics, refuse_fewer_than_recorded
from lassm.cli import main

RESULTS = paths.REPO / "data" / "results"
#: Every committed raw counter file.
COMMITTED = sorted(p for p in RESULTS.glob("*/counters/*.csv") if not p.name.startswith("."))


def test_every_committed_counter_file_is_as_its_record_counts() -> None:
    assert COMMITTED
    for path in COMMITTED:
        refuse_fewer_than_recorded(path)
    for machine in sorted({p.parent.parent.name for p in COMMITTED}):
        for backend in counter_backends(machine):
            assert len(machine_metrics(machine, backend)) > 0


@pytest.mark.parametrize("rows", [1, 2])
def test_a_committed_file_cut_at_a_row_end_is_refused(rows: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    box = tmp_path / "results" / "box"
    shutil.copytree(RESULTS / "nvidia-h200", box)
    victim = box / "counters" / "ncu__sample-k77__k77__cuda__casptr.csv"
    assert "launches" not in read_meta(victim) and "raw_sha256" not in read_meta(victim)  # no sidecar count
    lines = victim.read_bytes().splitlines(keepends=True)
    victim.write_bytes(b"".join(lines[:-rows]))  # `head -n -1`: whole rows, the last line break kept
    code = main(["metrics", "derive", "--machine", "box", "--out", str(tmp_path / "m.csv")])
    err = capsys.readouterr().err
    record = box / "sample-k77__k77__cuda__casptr" / "summary.json"
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert (f"{victim}: {4 - rows} launches, where its point's record {record} counts 4 in a run: cut short" in err), err
    assert not (tmp_path / "m.csv").exists()

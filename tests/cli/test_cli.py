# SPDX-License-Identifier: BSD-3-Clause
"""The command line end to end on the embedded data."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lassm.workloads.local_assembly import formats
from lassm import paths
from lassm.cli import main
from lassm.runs.records import SUMMARY_KEYS


def test_extend_writes_metahipmer_output(tmp_path: Path) -> None:
    out, ends = tmp_path / "out.dat", tmp_path / "ends.tsv"
    assert main(["extend", str(paths.sample("k77")), "--k", "77", "--out", str(out), "--ends", str(ends)]) == 0
    assert formats.read_extended(out) == formats.read_extended(paths.sample_reference("k77"))
    lines = ends.read_text().splitlines()
    assert len(lines) == 1 + 2 * 3296
    assert "walk_len" in lines[0] and "final_k" in lines[0] and "term" in lines[0]


def test_stats_json(capsys: pytest.CaptureFixture) -> None:
    assert main(["data", "stats", str(paths.sample("k77")), "--k", "77", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    for key in ("contigs", "reads", "avg_read_length", "hash_insertions", "avg_extension_length", "total_extensions"):
        assert key in row
    assert row["contigs"] == 2544 and row["reads"] == 7838


def test_convert_then_extend_parquet(tmp_path: Path) -> None:
    pq = tmp_path / "s.parquet"
    assert main(["data", "convert", str(paths.sample("k77")), str(pq), "--k", "77"]) == 0
    out = tmp_path / "o.dat"
    assert main(["extend", str(pq), "--out", str(out)]) == 0  # k comes from the file
    assert formats.read_extended(out) == formats.read_extended(paths.sample_reference("k77"))
    assert main(["data", "convert", str(pq), str(tmp_path / "c.fasta")]) == 0
    assert main(["data", "convert", str(pq), str(tmp_path / "c.xyz")]) == 2


def test_bench_reports_a_ratio(capsys: pytest.CaptureFixture) -> None:
    assert main(["bench", "--repeat", "1", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["single_threads"] == 1 and rep["speedup"] > 0
    assert rep["single_contig_ends_per_s"] > 0 and rep["all_insertions_per_s"] > 0


def test_run_records_with_provenance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert main(["run", "--machine", "testbox", "--backends", "cpu", "--datasets", "sample-k77", "--quiet"]) == 0
    summary = json.loads((tmp_path / "testbox" / "sample-k77__k77__cpu__none" / "summary.json").read_text())
    for key in SUMMARY_KEYS:
        assert key in summary, key
    assert summary["matches_reference"] is True
    assert summary["contig_ends"] == 2 * 2544 and summary["hash_insertions"] == 774814
    assert (tmp_path / "testbox" / "sample-k77__k77__cpu__none" / "ends.parquet").exists()
    stamp = summary["created"]
    # Resumable: a second run skips the recorded point.
    assert main(["run", "--machine", "testbox", "--backends", "cpu", "--datasets", "sample-k77", "--quiet"]) == 0
    again = json.loads((tmp_path / "testbox" / "sample-k77__k77__cpu__none" / "summary.json").read_text())
    assert again["created"] == stamp
    assert not [p for p in (tmp_path / "testbox").iterdir() if p.name.startswith(".")]


def test_run_refuses_a_malformed_dataset_before_measuring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture) -> None:
    """A dataset file given by path is read by the pre-run check: a bad field is one line naming
    the file, line and field, exit 2, and nothing is measured, not even the good datasets (a point
    that fails while measuring is reported and the sweep goes on: tests/runs/test_sweep.py)."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    bad = tmp_path / "bad.dat"
    bad.write_text("1 ACGT x 0 0\n")
    code = main(["run", "--machine", "t", "--backends", "cpu", "--datasets", f"{bad},sample-k21", "--ks", "21", "--quiet"])
    assert code == 2
    assert f"{bad}:1:" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


def test_unknown_backend_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["extend", str(paths.sample("k21")), "--k", "21", "--backend", "nope", "--out", str(tmp_path / "o")])
    assert code == 2 and "unknown backend" in capsys.readouterr().err

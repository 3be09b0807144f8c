# SPDX-License-Identifier: BSD-3-Clause
"""lassm.runs.results.against_original: the side-by-side table, from a hand-made CSV (the runs that
write it: tests/campaign/test_originals.py); ``lassm measure against-original|against-logan``, which add rows,
refuse a folder of another device."""
from __future__ import annotations

from pathlib import Path

import pytest

from lassm import cli
from lassm.campaign.originals import build, ht_loc, logan
from lassm.errors import InputError
from lassm.runs import results, tables, xdrop_records
from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS

def test_ratios_per_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "against-original.csv").write_text(
        "dataset,k,program,whole_seconds,kernel_seconds,outputs_equal\n"
        "d,21,original ht_loc,2.0,0.10,True\nd,21,lassm extend fast,1.0,0.01,True\n"
        "e,77,original ht_loc,1.0,0.20,True\ne,77,lassm extend fast,4.0,0.05,False\n")
    t = results.against_original("m").set_index("dataset")
    assert t.loc["d", "whole_ratio"] == pytest.approx(0.5) and t.loc["d", "kernel_ratio"] == pytest.approx(0.1)
    assert t.loc["e", "whole_ratio"] == pytest.approx(4.0) and t.loc["e", "kernel_ratio"] == pytest.approx(0.25)
    assert bool(t.loc["d", "outputs_equal"]) and not bool(t.loc["e", "outputs_equal"])
    assert results.against_original("absent") is None
    assert results.against_original_device("m") == "" == results.against_original_device("absent")
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "against-original.csv").write_text(
        "device,dataset,k,program,whole_seconds,kernel_seconds,outputs_equal\n"
        "NVIDIA H200,d,21,original ht_loc,2.0,0.10,True\nNVIDIA H200,d,21,lassm extend fast,1.0,0.01,True\n")
    assert results.against_original_device("h") == "NVIDIA H200"


def test_the_walk_kernel_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "against-original.csv").write_text(
        "dataset,k,program,whole_seconds,kernel_seconds,walk_kernel_seconds,outputs_equal\n"
        "d,21,original ht_loc,2.0,0.10,0.10,True\nd,21,lassm extend fast,1.0,0.02,0.005,True\n")
    t = results.against_original("m").set_index("dataset")
    assert t.loc["d", "kernel_ratio"] == pytest.approx(0.2) and t.loc["d", "walk_kernel_ratio"] == pytest.approx(0.05)


@pytest.mark.parametrize("name", ["against-original", "against-logan"])
def test_a_folder_of_another_device_is_refused(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A node handed another GPU than the folder's is refused before it builds or measures: its rows
    would carry that GPU's times under the folder's name. One ``lassm: error:`` line, exit 2."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    stage = ht_loc if name == "against-original" else logan
    columns = AGAINST_ORIGINAL_COLUMNS if name == "against-original" else xdrop_records.AGAINST_LOGAN_COLUMNS
    table = tmp_path / "nvidia-h200" / ("against-original.csv" if name == "against-original" else "xdrop/against-logan.csv")
    tables.upsert(table, columns, ("dataset", "program"), [{"device": "NVIDIA H200", "dataset": "d", "program": "p"}])
    before = table.read_bytes()
    monkeypatch.setattr(stage, "gpu_device", lambda: ("NVIDIA H100 80GB HBM3", "580"))
    for maker in ("build_ht_loc", "build_logan", "locate"):
        monkeypatch.setattr(build, maker, lambda *a, **k: pytest.fail("built before the device was checked"))
    args = ["measure", name, "--machine", "nvidia-h200", "--source", str(tmp_path)]
    assert cli.main(args + (["--datasets", "sample-k77"] if name == "against-original" else [])) == 2
    err = capsys.readouterr().err
    assert "measured on NVIDIA H200, not on this NVIDIA H100 80GB HBM3" in err and len(err.strip().splitlines()) == 1
    assert err.startswith("lassm: error: ")
    assert table.read_bytes() == before


def test_rows_of_the_same_device_pass(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    tables.upsert(table, AGAINST_ORIGINAL_COLUMNS, ("dataset", "program"), [{"device": "NVIDIA H200", "dataset": "d"}])
    tables.same_device(table, AGAINST_ORIGINAL_COLUMNS, "NVIDIA H200")
    tables.same_device(tmp_path / "absent.csv", AGAINST_ORIGINAL_COLUMNS, "NVIDIA H200")
    with pytest.raises(InputError, match="device"):
        tables.same_device(table, AGAINST_ORIGINAL_COLUMNS, "NVIDIA H100 80GB HBM3")

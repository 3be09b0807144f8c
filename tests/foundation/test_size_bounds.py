# SPDX-License-Identifier: BSD-3-Clause
"""Sizes that cannot fit the machine are refused at once, naming the largest that would:
the generator's scale, a replicated dataset, an X-drop set's pairs."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from lassm.cli import main
from lassm.errors import LassmError
from lassm import fits
from lassm.workloads.local_assembly.generate import PEAK_BYTES_PER_CONTIG
from lassm.workloads.local_assembly.synthetic.profiles import profile_for

GB = 10 ** 9


@pytest.fixture(autouse=True)
def one_gigabyte(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LASSM_MEMORY_BYTES", str(GB))
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))


def _refused(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    t0 = time.perf_counter()
    code = main(argv)
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and err[0].startswith("lassm: error: "), (code, err)
    assert time.perf_counter() - t0 < 5, "refused at once, not after running out of memory"
    return err[0]


def test_a_scale_that_cannot_fit_names_the_largest_that_would(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "g.dat"
    line = _refused(["data", "generate", "--k", "21", "--scale", "1e30", "--out", str(out)], capsys)
    largest = GB / (profile_for(21).contigs * PEAK_BYTES_PER_CONTIG)
    assert "--scale" in line and f"at most {largest:.3g} fits" in line and "1 GB" in line
    assert not out.exists()


@pytest.mark.parametrize("name", ["xdrop-sim-999999999999", "xdrop-short-100000000", "gen-k21-s100",
                                  "sample-k77x100000000", "gen-k33x100000"])
def test_a_dataset_that_cannot_fit_is_refused_when_planned(name: str, capsys: pytest.CaptureFixture) -> None:
    kernel = ["--kernel", "xdrop"] if name.startswith("xdrop-") else []
    line = _refused(["run", *kernel, "--datasets", name, "--dry-run"], capsys)
    assert name in line and "at most" in line


def test_a_size_that_fits_is_planned(capsys: pytest.CaptureFixture) -> None:
    assert main(["run", "--kernel", "xdrop", "--datasets", "xdrop-sim-1000", "--dry-run"]) == 0
    assert main(["run", "--datasets", "sample-k77x20", "--dry-run"]) == 0


def test_the_memory_and_its_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LASSM_MEMORY_BYTES")
    assert fits.memory_bytes() > 10 ** 8
    monkeypatch.setenv("LASSM_MEMORY_BYTES", "lots")
    with pytest.raises(LassmError, match="LASSM_MEMORY_BYTES"):
        fits.memory_bytes()

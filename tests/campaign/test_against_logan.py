# SPDX-License-Identifier: BSD-3-Clause
"""``lassm measure against-logan`` without a GPU: :func:`lassm.campaign.originals.logan.against`
(whose pieces tests/campaign/test_originals.py checks) with stand-in programs and our cpu backend."""
from __future__ import annotations

import csv
import dataclasses
import os
import stat
import sys
from pathlib import Path

import pytest

from lassm import cli
from lassm.runs.xdrop_records import AGAINST_LOGAN_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ["measure", "against-logan"]

#: LOGAN's scores as the CPU oracle gives them (our cpu backend's run is the other side).
SCORES = f"""#!{sys.executable}
import sys
from lassm.backends.xdrop import get
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.pairs import Pairs
rows = [(h.encode(), int(ph), v.encode(), int(pv), int(sys.argv[2]))
        for v, pv, h, ph, _s in (ln.rstrip("\\n").split("\\t") for ln in open(sys.argv[1]))]
res = get("cpu").align(Pairs.from_lists(rows), Scoring(1, -1, -1, xdrop=int(sys.argv[3])), threads=1)
print("\\n".join(f"score\\t{{i}}\\t{{s}}" for i, s in enumerate(res.score)))
"""


def _exe(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize("from_file", (False, True), ids=("named-set", "pairs-file"))
def test_a_dry_run_writes_the_table_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture, from_file: bool) -> None:
    """The whole command without a GPU: a stand-in demo (it checks its input and prints LOGAN's
    lines), stand-in scores, our cpu backend, no ncu; a second call finds every row recorded. A
    pairs file's rows carry the set's own name."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_XDROP_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-x")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    calls = tmp_path / "calls.txt"
    built = tmp_path / "built"
    built.mkdir()
    _exe(built / "demo", f'#!/bin/sh\necho "$2 $3 $4 $(wc -l < "$1")" >> {calls}\n'
                         'printf "GPU only time:\\t\\t0.5\\nTotal Execution time:\\t2\\n"\n')
    _exe(built / "logan_scores", SCORES)
    dataset, name = "xdrop-short-6", "xdrop-short-6"
    if from_file:
        from lassm.workloads.xdrop import pair_sets
        from lassm.workloads.xdrop.pair_files import write_pairs

        dataset, name = str(tmp_path / "six.parquet"), "six-of-them"
        write_pairs(dataclasses.replace(pair_sets.load("xdrop-short-6"), name=name), dataset)
    argv = [*COMMAND, "--program", str(built), "--machine", "box", "--dataset", dataset, "--xdrops", "5,40",
            "--backend", "cpu", "--no-ncu"]
    assert cli.main(argv) == 0
    assert calls.read_text().splitlines() == ["17 5 1 6"] * 2 + ["17 40 1 6"]  # one untimed run before the first X
    with open(tmp_path / "results" / "box" / "xdrop" / "against-logan.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(AGAINST_LOGAN_COLUMNS)
    assert [(r["xdrop"], r["program"]) for r in rows] == [(x, p) for x in ("5", "40")
                                                          for p in ("LOGAN demo", "lassm xdrop align cpu")]
    assert [r["logan_gpu_seconds"] for r in rows] == ["0.5", ""] * 2
    assert all(r["kernel_seconds"] == "" and float(r["whole_seconds"]) > 0 and r["n_pairs"] == "6"
               and r["scores_equal"] == "True" for r in rows)
    assert rows[0]["command"] == f"demo {name}.txt 17 5 1" and rows[0]["git_sha"] == "sha-x"
    assert {r["dataset"] for r in rows} == {name}
    capsys.readouterr()
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "X to run: none" in err and out.startswith("-> ") and len(calls.read_text().splitlines()) == 3


def test_layouts_name_one_row_each(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``--layouts logan,warps``: ours runs once per CUDA plan (``--layout``), each its own row label
    (the default plan keeps the old one); a wrong name, a repeat or another backend is refused."""
    from lassm.campaign.originals import logan

    monkeypatch.delenv("LASSM_XDROP_LAYOUT", raising=False)
    assert logan.ours_programs("cuda", ("logan", "warps")) == {
        "lassm xdrop align cuda": "logan", "lassm xdrop align cuda (warps layout)": "warps"}
    assert logan.ours_programs("cuda") == {"lassm xdrop align cuda": None}
    monkeypatch.setenv("LASSM_XDROP_LAYOUT", "warps")  # no plan named: the environment's, in the label
    assert logan.ours_programs("cuda") == {"lassm xdrop align cuda (warps layout)": None}
    assert logan.ours_label("cpu") == "lassm xdrop align cpu" and logan.layout_env() == "LASSM_XDROP_LAYOUT=warps"
    for bad, why in ((["--layouts", "logan,fast"], "want distinct names of logan, warps"),
                     (["--layouts", "warps,warps"], "want distinct names of logan, warps"),
                     (["--layouts", "warps", "--backend", "cpu"], "--layouts names plans of the cuda backend only")):
        capsys.readouterr()
        assert cli.main([*COMMAND, "--machine", "box", *bad]) == 2
        err = capsys.readouterr().err
        assert why in err and err.startswith("lassm: error: ") and len(err.strip().splitlines()) == 1, err


def test_under_nsight_compute_each_program_gets_its_kernel_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture) -> None:
    """With a profiler, LOGAN's kernels are timed one process per X and ours, of every plan, in one
    profiled process at the end: each row gets its own kernel columns (a stand-in profiler gives
    LOGAN 0.25 s and ours 0.125 s a launch)."""
    from lassm.campaign import steps
    from lassm.campaign.originals import logan

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_XDROP_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    built = tmp_path / "built"
    built.mkdir()
    _exe(built / "demo", '#!/bin/sh\nprintf "GPU only time:\\t\\t0.5\\nTotal Execution time:\\t2\\n"\n')
    _exe(built / "logan_scores", SCORES)
    profiled: list[str] = []

    def theirs(cmd, ncu, out, **kw):
        profiled.append(kw["kernel"])
        return [("logan", 0.25, 0), ("logan", 0.25, 1)]

    monkeypatch.setattr(steps, "find_ncu", lambda: "ncu")
    monkeypatch.setattr(logan, "kernel_times", theirs)
    monkeypatch.setattr(logan, "lassm_kernel_times", lambda cmds, ncu, out, **kw: [[("ours", 0.125, 0)]] * len(cmds))
    argv = [*COMMAND, "--program", str(built), "--machine", "box", "--dataset", "xdrop-short-6", "--xdrops", "5,40",
            "--backend", "cpu"]
    assert cli.main(argv) == 0, capsys.readouterr()
    with open(tmp_path / "results" / "box" / "xdrop" / "against-logan.csv", newline="") as fh:
        rows = {(r["xdrop"], r["program"]): r for r in csv.DictReader(fh)}
    assert profiled == [logan.LOGAN_KERNEL] * 2
    for x in ("5", "40"):
        assert (rows[x, "LOGAN demo"]["kernel_seconds"], rows[x, "LOGAN demo"]["kernel_launches"]) == ("0.5", "2")
        ours = rows[x, "lassm xdrop align cpu"]
        assert (ours["kernel_seconds"], ours["kernel_launches"]) == ("0.125", "1")

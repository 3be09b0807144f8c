# SPDX-License-Identifier: BSD-3-Clause
"""The main job (``lassm run``) on both of its paths: direct, and one Papermill notebook per point.

Both run the CPU backend on the one-contig sample ``sample-k21`` into a temporary results root
(``LASSM_RESULTS``), so they are fast and touch nothing under ``data/``. Checked: the record
each path writes, skip-on-resume and ``force``, a failing point reported while the rest goes
on, no temporary file left, and one parameter vocabulary for the notebook, ``run_one`` and the
CLI. The notebook tests skip without papermill or ipykernel (the ``book`` extra).
"""
from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path

import pytest

from lassm import cli
from lassm.runs import point, sweep

MACHINE = "test-machine"
POINT = "sample-k21__k21__cpu__none"


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


needs_papermill = pytest.mark.skipif(not (_has("papermill") and _has("ipykernel")),
                                     reason="needs papermill and ipykernel (pip install 'lassm[book]')")


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh results root; the notebook's kernel inherits it through the environment."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_MACHINE", MACHINE)
    monkeypatch.setenv("LASSM_GIT_SHA", "test")  # no git call per record
    return tmp_path


def _sweep(datasets: list[str], force: bool = False, **via) -> list[dict]:
    return sweep.main_job(points=sweep.Choice(backends=["cpu"], datasets=datasets), progress=False,
                          options=sweep.SweepOptions(force=force), via=sweep.Via(**via))


def _leftovers(root: Path) -> list[str]:
    """Temporary files or folders (dot names) anywhere under the results root."""
    return [str(p.relative_to(root)) for p in root.rglob(".*")]


def test_direct_path_records_then_skips_then_forces(results: Path) -> None:
    first = _sweep(["sample-k21"])
    assert [r["status"] for r in first] == ["ok"]
    folder = results / MACHINE / POINT
    assert {p.name for p in folder.iterdir()} == {"summary.json", "ends.parquet"}
    created = json.loads((folder / "summary.json").read_text())["created"]
    assert [r["status"] for r in _sweep(["sample-k21"])] == ["skipped (recorded)"]
    assert json.loads((folder / "summary.json").read_text())["created"] == created
    assert [r["status"] for r in _sweep(["sample-k21"], force=True)] == ["ok"]
    assert not _leftovers(results)


@pytest.mark.parametrize("notebooks", [False, pytest.param(True, marks=needs_papermill)], ids=["direct", "notebooks"])
def test_failing_point_is_reported_and_the_rest_goes_on(results: Path, notebooks: bool) -> None:
    rows = _sweep(["no-such-dataset.dat", "sample-k21"], notebooks=notebooks)
    assert rows[0]["status"].startswith("failed: ")
    assert rows[1]["status"] == "ok"
    assert (results / MACHINE / POINT / "summary.json").is_file()
    assert not _leftovers(results)


@needs_papermill
def test_notebook_path_keeps_the_executed_notebook(results: Path) -> None:
    rows = _sweep(["sample-k21"], notebooks=True)
    assert [r["status"] for r in rows] == ["ok"], rows
    folder = results / MACHINE / POINT
    assert {p.name for p in folder.iterdir()} == {"summary.json", "ends.parquet", sweep.NOTEBOOK_NAME}
    nb = json.loads((folder / sweep.NOTEBOOK_NAME).read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert len(injected) == 1 and f'machine = "{MACHINE}"' in "".join(injected[0]["source"])
    assert all(not any(o.get("output_type") == "error" for o in c.get("outputs", [])) for c in nb["cells"])
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["matches_cpu"] is True and summary["matches_reference"] is True
    assert summary["command"] == point.point_command("sample-k21", 21, "cpu", "none", MACHINE)

    # The same point through the direct path writes a record with the same keys.
    direct_folder, _ = point.run_one("sample-k21", None, "cpu", "none", "direct-machine")
    assert set(json.loads((direct_folder / "summary.json").read_text())) == set(summary)
    assert {p.name for p in direct_folder.iterdir()} == {"summary.json", "ends.parquet"}

    # Resumed: recorded points are skipped without starting a kernel; --force runs it again.
    mtime = (folder / sweep.NOTEBOOK_NAME).stat().st_mtime_ns
    assert [r["status"] for r in _sweep(["sample-k21"], notebooks=True)] == ["skipped (recorded)"]
    assert (folder / sweep.NOTEBOOK_NAME).stat().st_mtime_ns == mtime
    assert [r["status"] for r in _sweep(["sample-k21"], notebooks=True, force=True)] == ["ok"]
    assert (folder / sweep.NOTEBOOK_NAME).is_file()
    assert not _leftovers(results)


@needs_papermill
def test_a_failing_notebook_leaves_no_notebook_behind(results: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    import nbformat

    nb = nbformat.read(sweep.RUN_NOTEBOOK, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "point.run_one(" in c.source)
    nb.cells.insert(at, nbformat.v4.new_code_cell('if dataset == "sample-k77":\n    raise RuntimeError("boom")'))
    template = tmp_path_factory.mktemp("template") / "run.ipynb"
    nbformat.write(nb, template)
    rows = _sweep(["sample-k77", "sample-k21"], notebooks=True, template=template)
    assert rows[0]["status"].startswith("failed: RuntimeError: boom"), rows[0]
    assert rows[1]["status"] == "ok"
    assert not (results / MACHINE / "sample-k77__k77__cpu__none").exists()
    assert (results / MACHINE / POINT / sweep.NOTEBOOK_NAME).is_file()
    assert not _leftovers(results)


@needs_papermill
def test_cli_run_notebooks_flag(results: Path) -> None:
    argv = ["run", "--backends", "cpu", "--datasets", "sample-k21", "--quiet", "--notebooks"]
    assert cli.main(argv) == 0
    assert (results / MACHINE / POINT / sweep.NOTEBOOK_NAME).is_file()


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _dests(name: str) -> set[str]:
    return {a.dest for a in _subparser(name)._actions if a.dest != "help"}


#: Options of ``lassm run`` that steer the sweep rather than name a point.
RUN_SWITCHES = {"force", "quiet", "notebooks", "cluster", "quick", "repeats", "warmup", "no_profile", "no_ceilings",
                "dry_run", "kernel", "xdrops",  # the X-drop campaign's (it runs no notebook)
                "originals", "no_originals",  # the original programs' part
                "all_counters"}  # the suite's counters step


@needs_papermill
def test_one_parameter_vocabulary() -> None:
    """The notebook's parameters, ``run_one``'s point arguments and the CLI speak the same names.

    ``lassm run`` takes a comma list per axis, named in the plural (``--datasets``, ``--ks``,
    ``--backends``, ``--protocols``) beside ``--machine``; one point takes one value of each,
    named in the singular; ``lassm extend`` uses those singular names itself.
    """
    import papermill

    notebook = set(papermill.inspect_notebook(str(sweep.RUN_NOTEBOOK)))
    signature = inspect.signature(sweep.run_one).parameters.values()
    function = {p.name for p in signature if p.kind is p.POSITIONAL_OR_KEYWORD}
    run_axes = {d if d == "machine" else d.removesuffix("s") for d in _dests("run") - RUN_SWITCHES}
    assert notebook == function == run_axes == {"dataset", "k", "backend", "protocol", "machine"}
    assert {"k", "backend", "protocol"} <= _dests("extend")

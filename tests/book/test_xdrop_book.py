# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop chapter (notebooks/xdrop.ipynb, lassm.book.xdrop_chapter): its sentences from the synthetic
fixture records (tests/fixtures/xdrop, made-up numbers), its glue names, and its build where a
machine has no X-drop records at all."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from lassm.analysis.xdrop import checked_records
from lassm.book import xdrop_chapter, xdrop_common

from .test_book import ROOT, _toc_paths

FIXTURES = Path(__file__).parent.parent / "fixtures" / "xdrop" / "results"
MACHINE = "synthetic-gpu"
NOTEBOOK = ROOT / "notebooks" / "xdrop.ipynb"


@pytest.fixture
def fixture_results(monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(FIXTURES))
    return FIXTURES


@pytest.fixture
def empty_results(tmp_path, monkeypatch):
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "bare-gpu").mkdir()
    return tmp_path


def _glue_names() -> set[str]:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return set(re.findall(r"\{glue:text\}`(\w+)", text))


def test_chapter_is_in_the_book():
    assert NOTEBOOK in _toc_paths()


def test_every_glued_name_is_a_fact(fixture_results):
    names = _glue_names()
    assert names, "the chapter glues nothing"
    missing = names - set(xdrop_chapter.facts(MACHINE))
    assert not missing, f"glued but not computed: {sorted(missing)}"


def test_facts_from_the_fixture_by_hand(fixture_results):
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_speedup_seqan"] == "100.0 to 200.0"  # 1.0 / 0.01 and 8.0 / 0.04
    assert f["xd_speedup_cpu"] == "50.0"
    assert f["xd_gcups"] == "200.0" and f["xd_claim_gcups_holds"] == "reaches"  # 200 >= 181.6
    assert f["xd_opencl_share"] == "0.80" and f["xd_opencl_points"] == "1"  # X = 100: 0.04 s / 0.05 s
    assert f["xd_grows"] == "grows"
    assert f["xd_compute_bound"] == "2 of 2" and f["xd_arch_eff"] == "20.0% to 50.0%"
    assert f["xd_bound_verdict"] == "holds" and f["xd_near_verdict"] == "does not hold"
    assert f["xd_against_goal"] == "1 of 2" and f["xd_against_ratio"] == "0.33 to 1.20"
    assert f["xd_balance"] == "5.00"
    assert f["xd_potential"] == "4.0 to 5.0" and f["xd_beyond"] == "0 of 2"  # 1/(1*0.2), 1/(0.5*0.5)
    assert f["xd_side"] == "on the compute side of the ridge"
    # the synthetic device is in no datasheet row: C, and so Eq. 1, is not known
    assert f["xd_eq_cores"] == xdrop_common.NOT_MEASURED and f["xd_eq_low"] == xdrop_common.NOT_MEASURED


def test_equation_one_span_from_the_records(fixture_results, monkeypatch):
    # C = 6400 lanes; B = 2 x 100 pairs / 1 launch = 200 blocks; T = 128; P = 10000
    monkeypatch.setattr(xdrop_chapter, "int32_cores", lambda device, mp: 6400.0)
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_eq_blocks"] == "200" and f["xd_eq_cores"] == "6,400"
    assert f["xd_eq_low"] == "312"  # 10000 * 200 / 6400
    assert f["xd_eq_high"] == "10,000"  # min(200 * 128, 6400) = C


def test_published_facts_are_the_papers():
    f = xdrop_chapter.facts("no-such-machine")
    assert f["xd_pub_claim_1gpu"] == "6.6" and f["xd_pub_best_1gpu_x"] == "500"
    assert f["xd_pub_readme_cells"] == "3" and f["xd_pub_peak"] == "220.8"
    # our reading of Eq. 1 on LOGAN's run: B = 100,000 >= C = 80 x 64, so the ceiling is P itself
    assert f["xd_eq_v100"] == "220.8" and f["xd_eq_v100_cores"] == "5,120"


def test_a_gpu_without_seqan_rows_leaves_the_claims_unmeasured(tmp_path, monkeypatch):
    src = FIXTURES / MACHINE / "xdrop" / "times.csv"
    folder = tmp_path / "gpu-only" / "xdrop"
    folder.mkdir(parents=True)
    lines = [ln for ln in src.read_text().splitlines() if ",seqan," not in ln]
    (folder / "times.csv").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    f = xdrop_chapter.facts("gpu-only")
    assert f["xd_speedup_seqan"] == xdrop_common.NOT_MEASURED and f["xd_claim_1gpu_holds"] == xdrop_common.NOT_MEASURED
    assert f["xd_grows"] == xdrop_common.NOT_MEASURED and f["xd_speedup_cpu"] == "50.0"


def test_a_machine_without_counters_takes_no_part_in_the_pp(tmp_path, monkeypatch):
    """A CPU-only machine's times join the records, not the PP over platforms: it has no
    architectural efficiency, so the count of platforms quoted beside the PP leaves it out."""
    import shutil

    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    folder = tmp_path / "cpu-only" / "xdrop"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / MACHINE / "xdrop" / "times.csv", folder / "times.csv")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    f = xdrop_chapter.facts(MACHINE)
    assert f["xd_machines"] == f"cpu-only, {MACHINE}" and f["xd_pp_platforms"] == "1"


def test_facts_without_records_say_so(empty_results):
    f = xdrop_chapter.facts("bare-gpu")
    for key in ("xd_gcups", "xd_speedup_seqan", "xd_arch_eff", "xd_against_ratio", "xd_peak", "xd_bound_verdict",
                "xd_opencl_share"):
        assert f[key] == xdrop_common.NOT_MEASURED, key
    assert f["xd_points"] == "0" and f["xd_machines"] == "none"
    assert set(_glue_names()) <= set(f)
    assert "no X-drop times" in xdrop_chapter.gcups_table("bare-gpu").iloc[0, 0]
    assert xdrop_chapter.against("bare-gpu").empty
    roofs, points = xdrop_chapter.roofline_data("bare-gpu")
    assert list(roofs["roof"]) == ["V100 (LOGAN's xdrop.m)"] and set(points["kernel"]) == {"X-drop"}


def test_one_roofline_for_both_kernels(fixture_results):
    roofs, points = xdrop_chapter.roofline_data(MACHINE)
    assert set(points["roof"]) <= set(roofs["roof"])
    assert set(points["kernel"]) == {"local assembly", "X-drop"}
    assert set(points.loc[points["kernel"] == "local assembly", "program"]) == {"lassm fast", "lassm casptr"}
    assert {"lassm cuda (block)", "LOGAN", "LOGAN on V100 (published)"} <= set(points["program"])


def test_speedup_points_keep_only_points_within_the_model(fixture_results):
    pts = xdrop_chapter.speedup_points(MACHINE)
    # LOGAN's point (alg eff 2.5) is beyond the model; the fixture's metrics.csv has no x, y columns
    assert sorted(pts["label"]) == ["X-drop lassm cuda (block), X=10", "X-drop lassm cuda (block), X=100"]
    assert pts["speedup"].tolist() == [pytest.approx(5.0), pytest.approx(4.0)]


def test_speedup_plot_without_points_is_a_note(empty_results):
    assert xdrop_chapter.show_speedup("bare-gpu").startswith(xdrop_common.NOT_MEASURED)


def test_portability_over_one_machine_is_its_efficiency(fixture_results):
    pp = xdrop_chapter.portability().set_index(["problem", "application"])
    assert pp.loc[("fixture-pairs, X=100", "lassm cuda (block)"), "arch pp"] == pytest.approx(0.5)
    assert pp.loc[("fixture-pairs, X=100", "LOGAN"), "arch pp"] == pytest.approx(0.4)
    assert xdrop_chapter.facts(MACHINE)["xd_pp"] == "20.0% to 50.0%"  # one machine: every point is on all of them


def _second_folder(tmp_path: Path, device: str, x100_seconds: str = "0.04") -> None:
    """The fixture folder and a copy, ``second-gpu``, whose counters name ``device``, lack the
    X = 10 point of ``lassm cuda`` and time its X = 100 point in ``x100_seconds``."""
    import shutil

    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    other = tmp_path / "second-gpu"
    shutil.copytree(FIXTURES / MACHINE, other)
    src = (other / "xdrop" / "counters.csv").read_text().splitlines()
    lines = [ln.replace("SYNTHETIC GPU (test fixture)", device) for ln in src if ",10,lassm cuda," not in ln]
    lines = [ln.replace(",100,lassm cuda,32,0.04,", f",100,lassm cuda,32,{x100_seconds},") for ln in lines]
    (other / "xdrop" / "counters.csv").write_text("\n".join(lines) + "\n")


def test_portability_is_not_measured_where_a_device_has_no_point(tmp_path, monkeypatch):
    _second_folder(tmp_path, "OTHER GPU")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    pp = xdrop_chapter.portability().set_index(["problem", "application"])
    # not profiled on the other device: no PP, not a 0
    assert np.isnan(pp.loc[("fixture-pairs, X=10", "lassm cuda (block)"), "arch pp"])
    assert pp.loc[("fixture-pairs, X=100", "lassm cuda (block)"), "arch pp"] == pytest.approx(0.5)  # 2 / (1/0.5 + 1/0.5)


def test_two_folders_of_one_device_are_one_platform(tmp_path, monkeypatch):
    """The copy names the same device (case aside): one platform, each point from the folder
    with the shorter kernel; the X = 10 point the copy lacks is the first folder's."""
    _second_folder(tmp_path, "synthetic gpu", x100_seconds="0.02")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    one = xdrop_chapter.portability([MACHINE]).set_index(["problem", "application"])
    pp = xdrop_chapter.portability().set_index(["problem", "application"])
    alone = one.loc[("fixture-pairs, X=10", "lassm cuda (block)"), "arch pp"]
    assert alone > 0 and pp.loc[("fixture-pairs, X=10", "lassm cuda (block)"), "arch pp"] == pytest.approx(alone)
    assert pp.loc[("fixture-pairs, X=100", "lassm cuda (block)"), "arch pp"] == pytest.approx(1.0)  # half the time: twice 0.5
    assert pp.loc[("fixture-pairs, X=100", "LOGAN"), "arch pp"] == pytest.approx(0.4)


def test_across_table_holds_every_row_once(fixture_results):
    t = xdrop_chapter.across_table()
    assert len(t) == 7 and t["xdrop"].tolist() == [10, 10, 10, 100, 100, 100, 100]  # X = 100 has OpenCL too
    assert t.loc[t["backend"] == "cuda", "speedup_vs_cpu"].tolist() == [pytest.approx(50.0)] * 2


def test_claims_table(fixture_results):
    c = xdrop_chapter.claims(MACHINE)
    assert len(c) == 5
    assert list(c.iloc[:, -1]) == ["reaches", "grows", "reaches", "holds", "does not hold"]


@pytest.mark.parametrize("name", sorted(checked_records.FILES))
def test_data_contract_documents_every_column_read(name):
    from .test_book import _contract_columns

    documented = _contract_columns(f"`xdrop/{checked_records.FILES[name][0]}`")
    missing = [c for c in checked_records.FILES[name][1] if c not in documented]
    assert not missing, f"book/data-contract.md lacks {missing} of xdrop/{checked_records.FILES[name][0]}"


def test_int32_cores_from_the_datasheet():
    assert xdrop_chapter.int32_cores("NVIDIA H100 80GB HBM3", 132) == 132 * 64
    assert xdrop_chapter.int32_cores("NVIDIA H100 80GB HBM3", None) is None


def test_finding_per_machine_with_xdrop_times(fixture_results):
    from lassm.book import findings_beyond

    found = findings_beyond.xdrop_kernel()
    assert [f.key for f in found] == [f"xdrop_{MACHINE}"] and found[0].measured
    assert "where SeqAn ran beside it" in found[0].sentence and "it is 100.0 to 200.0 times as fast" in found[0].sentence and found[0].link == "notebooks/xdrop"


def test_finding_without_xdrop_times(empty_results):
    from lassm.book import findings_beyond

    found = findings_beyond.xdrop_kernel()
    assert len(found) == 1 and not found[0].measured and found[0].link == "notebooks/xdrop"
    assert re.search(r"\d", found[0].sentence)  # the book's intro test wants a number in every finding


@pytest.mark.parametrize("results", ["fixture", "empty"])
def test_chapter_executes(results, tmp_path, monkeypatch):
    papermill = pytest.importorskip("papermill", reason="needs papermill: pip install 'lassm[book]'")
    pytest.importorskip("ipykernel")
    if results == "fixture":
        monkeypatch.setenv("LASSM_RESULTS", str(FIXTURES))
        params = {"machine": MACHINE}
    else:
        monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "none"))
        params = {}
    out = tmp_path / "xdrop.ipynb"
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters=params, kernel_name="python3",
                               cwd=str(NOTEBOOK.parent), progress_bar=False, log_output=False)
    cells = json.loads(out.read_text())["cells"]
    errors = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors


def test_efficiency_against_the_best_measured_names_logan_where_it_is_the_fastest(fixture_results):
    """At X = 100 LOGAN's kernel takes 0.05 s beside our 0.06 s (Nsight Compute): carried through
    our CUDA kernel's 0.04 s in times.csv, LOGAN takes 0.04 / 1.2 s there and is the reference;
    our CUDA kernel's efficiency is LOGAN's time over ours, 1 / 1.2, and OpenCL's 0.04 / 1.2 / 0.05.
    At X = 10 ours is the fastest, LOGAN at a third of its speed."""
    t = xdrop_chapter.efficiency_table().set_index("problem")
    x100, x10 = t.loc["fixture-pairs, X=100"], t.loc["fixture-pairs, X=10"]
    assert x100["reference"] == "LOGAN" and x100["LOGAN"] == 1.0
    assert x100["lassm cuda (block)"] == pytest.approx(1 / 1.2)
    assert x100["lassm opencl (block)"] == pytest.approx(0.04 / 1.2 / 0.05)
    assert x10["reference"] == "lassm cuda (block)" and x10["LOGAN"] == pytest.approx(1 / 3)
    assert x10["SeqAn"] == pytest.approx(0.01 / 1.0) and x10["lassm numba (oracle)"] == pytest.approx(0.01 / 0.5)
    effs = t.drop(columns=["platform", "reference"]).stack().dropna()
    assert ((effs > 0) & (effs <= 1.0)).all()
    said = xdrop_chapter.facts(MACHINE)["xd_reference"]
    assert said.startswith("On the SYNTHETIC GPU, a program other than ours is the fastest measured for 1 of the "
                           "2 points (fixture-pairs, X=100: LOGAN), and our fastest build reaches 0.83 of its speed")
    assert "ours is the fastest measured for the other 1 point (fixture-pairs, X=10: lassm cuda (block))" in said


def test_logan_without_our_kernel_in_times_stands_on_nsight_computes_clock(tmp_path, monkeypatch):
    """No times.csv: the side-by-side pair alone, each on Nsight Compute's clock."""
    import shutil

    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    (tmp_path / MACHINE / "xdrop" / "times.csv").unlink()
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    rows = xdrop_chapter.implementations().set_index(["problem", "implementation"])["seconds"]
    assert rows[("fixture-pairs, X=100", "LOGAN")] == 0.05 and rows[("fixture-pairs, X=100", "lassm cuda (block)")] == 0.06
    pp = xdrop_chapter.app_portability().set_index("problem")
    assert pp.loc["fixture-pairs, X=100", "lassm cuda"] == pytest.approx(0.05 / 0.06)
    assert pp.loc["fixture-pairs, X=100", "LOGAN"] == 1.0 and pp.loc["fixture-pairs, X=100", "devices"] == "1"


def test_app_pp_is_zero_where_a_device_lacks_the_implementation(tmp_path, monkeypatch):
    """A second device with our CUDA kernel only: LOGAN's PP over both is 0, ours the harmonic mean."""
    import shutil

    shutil.copytree(FIXTURES / MACHINE, tmp_path / MACHINE)
    other = tmp_path / "second-gpu" / "xdrop"
    other.mkdir(parents=True)
    lines = (FIXTURES / MACHINE / "xdrop" / "times.csv").read_text().splitlines()
    keep = [lines[0]] + [ln.replace("SYNTHETIC GPU (test fixture)", "OTHER GPU") for ln in lines[1:] if ",cuda," in ln]
    (other / "times.csv").write_text("\n".join(keep) + "\n")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    pp = xdrop_chapter.app_portability().set_index("problem")
    assert pp.loc["fixture-pairs, X=100", "LOGAN"] == 0.0 and pp.loc["fixture-pairs, X=100", "devices"] == "2"
    assert pp.loc["fixture-pairs, X=100", "lassm cuda"] == pytest.approx(2 / (1.2 + 1.0))

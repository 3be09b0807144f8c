# SPDX-License-Identifier: BSD-3-Clause
"""A new machine folder reaches the book by itself: its chapter is generated and listed by the
table of contents, the chapter executes, and the cross-machine tables include the machine.

The folder is synthetic and lives in a temporary results root (``LASSM_RESULTS``): two run
records (the committed H100 benchmark records of ``sample-k77``, relabelled as another device),
the measured H200 Nsight Compute fixture of the same point as its counters, the committed H100
ceilings, ``metrics.csv`` derived from them, and a ``campaign.json`` in the campaign's format. A
second folder holds one CPU oracle record only, as a laptop would.
"""
from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from .test_book import ROOT

papermill = pytest.importorskip("papermill")
pytest.importorskip("ipykernel")
pytest.importorskip("sphinx_external_toc")

FIX = ROOT / "tests" / "fixtures" / "counters"
H100 = ROOT / "data" / "results" / "nvidia-h100-80gb-hbm3"
CPU = ROOT / "data" / "results" / "cpu-intel-r-xeon-r-processor"
GPU_MACHINE = "synthetic-gpu"
DEVICE = "Synthetic GPU for tests"
LAPTOP = "synthetic-laptop"
LACK = "rocprofv3 absent: no counters of the AMD runs (synthetic line)"


def _copy_record(src: Path, folder: Path, **changes) -> None:
    rec = json.loads((src / "summary.json").read_text()) | changes
    rec["machine"] = folder.name
    (folder / src.name).mkdir(parents=True)
    (folder / src.name / "summary.json").write_text(json.dumps(rec, indent=2))


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The temporary results root, set as ``LASSM_RESULTS`` for the module (and its kernels)."""
    from lassm.analysis import derive as analysis

    results = tmp_path_factory.mktemp("results")
    gpu = results / GPU_MACHINE
    for protocol in ("casptr", "fast"):
        src = H100 / f"bench__sample-k77__k77__cuda__{protocol}"
        runs = json.loads((src / "summary.json").read_text())["kernel_seconds_runs"]
        _copy_record(src, gpu, device=DEVICE, repeats=len(runs), warmup=1)
    (gpu / "counters").mkdir()
    raw = "ncu__sample-k77__k77__cuda__casptr.csv"
    shutil.copy(FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv", gpu / "counters" / raw)
    for side in (".meta.json", ".version.txt"):
        shutil.copy(FIX / f"ncu_raw_h200_lassm_k77_casptr_measured.csv{side}", gpu / "counters" / f"{raw}{side}")
    shutil.copy(H100 / "ceilings.json", gpu / "ceilings.json")
    (gpu / "campaign.json").write_text(json.dumps({
        "plan": {"datasets": ["sample-k77"], "backends": ["cuda"], "protocols": ["casptr", "fast"],
                 "repeats": 5, "warmup": 1},
        "rows": [], "steps": {"bench": 1.0, "counters": 2.0}, "lacks": [LACK], "git_sha": "0" * 40,
        "versions": {}, "device": DEVICE}))
    _copy_record(CPU / "sample-k77__k77__cpu__none", results / LAPTOP)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LASSM_RESULTS", str(results))
        analysis.write_metrics(GPU_MACHINE)
        yield results


@pytest.fixture(scope="module")
def book(root, tmp_path_factory) -> Path:
    """A book root with the repository's _toc.yml and the chapters written for ``root``."""
    from lassm.book import machines

    out = tmp_path_factory.mktemp("book")
    shutil.copy(ROOT / "_toc.yml", out / "_toc.yml")
    (out / machines.CHAPTERS).mkdir()
    (out / machines.CHAPTERS / "gone-machine.ipynb").write_text("{}")  # a folder since removed
    machines.write_chapters(out)
    return out


def test_only_folders_with_records_get_a_chapter(root):
    from lassm.book import machines

    (root / "empty-folder").mkdir(exist_ok=True)
    assert machines.chapter_machines() == [GPU_MACHINE, LAPTOP]


def test_generated_toc_includes_the_chapter(book):
    from lassm.book import machines

    docs = machines.toc_chapters(book / "_toc.yml", book)
    assert f"machines/{GPU_MACHINE}" in docs and f"machines/{LAPTOP}" in docs
    assert "machines/gone-machine" not in docs, "the chapter of a removed folder was kept"
    assert "notebooks/across_machines" in docs


def _executed(book: Path, name: str, tmp_path: Path) -> str:
    out = tmp_path / f"{name}.ipynb"
    papermill.execute_notebook(str(book / "machines" / f"{name}.ipynb"), str(out), kernel_name="python3",
                               cwd=str(book / "machines"), progress_bar=False, log_output=False)
    return out.read_text(encoding="utf-8")


def test_gpu_chapter_executes_and_shows_what_it_has(book, tmp_path):
    text = _executed(book, GPU_MACHINE, tmp_path)
    assert f"# {DEVICE}" in text, "the chapter's title is its device's name, not its folder's"
    assert f"Measured machine: {GPU_MACHINE}" not in text
    assert DEVICE in text and LACK in text
    assert "No profiler ran" not in text and "No roofline" not in text and "No counters" not in text
    assert "roofline of this machine" in text


def test_cpu_only_chapter_executes_and_says_what_it_lacks(book, tmp_path):
    text = _executed(book, LAPTOP, tmp_path)
    assert "No GPU ran" in text and "No roofline" in text and "No counters" in text
    assert "No campaign.json" in text


def test_cross_machine_tables_include_it(root):
    from lassm.book import across

    plat = across.platforms().set_index("folders")  # a platform is a device; each has one folder here
    assert plat.loc[GPU_MACHINE, "platform"] == DEVICE
    assert plat.loc[GPU_MACHINE, "in_H"] and plat.loc[GPU_MACHINE, "counters"]
    assert not plat.loc[LAPTOP, "in_H"], "a folder with the CPU oracle only is no platform of the kernel"
    pts = across.points()
    mine = pts[pts["platform"] == DEVICE].set_index("variant")
    assert set(mine["folder"]) == {GPU_MACHINE}
    assert set(mine.index) == {"casptr", "fast"}
    assert mine["arch eff"].notna().tolist() == [True, False]  # counters of casptr only
    assert mine.loc["fast", "app eff"] == pytest.approx(1.0)
    times = across.side_by_side(pts, across.published_points(), "kernel_ms")
    assert DEVICE in times.columns and "A100-40GB (published)" in times.columns
    pp = across.portability(pts, [DEVICE]).set_index(["variant", "dataset"])
    casptr = pp.loc[("casptr", "sample-k77")]
    assert casptr["ran on"] == DEVICE
    assert casptr["PP (arch eff, H with counters)"] == pytest.approx(mine.loc["casptr", "arch eff"])
    assert casptr["PP (app eff, H)"] == pytest.approx(mine.loc["casptr", "app eff"])
    # a platform of H that did not measure the variant: not measured, not 0
    missing = across.portability(pts, [DEVICE, "never-ran"]).set_index(["variant", "dataset"])
    assert math.isnan(missing.loc[("casptr", "sample-k77"), "PP (app eff, H)"])
    assert missing.loc[("casptr", "sample-k77"), "PP (app eff, where measured)"] == pytest.approx(mine.loc["casptr", "app eff"])


def test_cross_machine_chapter_executes_on_the_synthetic_root(root, tmp_path):
    out = tmp_path / "across_machines.ipynb"
    papermill.execute_notebook(str(ROOT / "notebooks" / "across_machines.ipynb"), str(out), kernel_name="python3",
                               cwd=str(ROOT / "notebooks"), progress_bar=False, log_output=False)
    text = out.read_text(encoding="utf-8")
    assert GPU_MACHINE in text and LAPTOP in text


def test_make_html_and_make_book_write_the_chapters_before_the_build():
    """Both build targets generate machines/*.ipynb first, or the toc's glob would find nothing."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipes = {}
    for block in text.split("\n\n"):
        for target in ("html", "book", "chapters"):
            if block.lstrip().startswith(f"{target}:") or f"\n{target}:" in block:
                recipes[target] = block.split(f"{target}:", 1)[1]
    assert "lassm.book.machines" in recipes["chapters"]
    for target in ("html", "book"):
        recipe = recipes[target]
        uses = "lassm.book.machines" in recipe or recipe.split("\n")[0].split().count("chapters")
        assert uses, f"make {target} does not write the machine chapters"
        if "lassm.book.machines" in recipe:
            assert recipe.index("lassm.book.machines") < recipe.index("jupyter-book"), f"make {target}: chapters after the build"


def test_the_xdrop_fact_reads_the_records(tmp_path, monkeypatch) -> None:
    """What a machine's X-drop records hold, in the machine chapter's words; 'none' without them."""
    import shutil

    from lassm.book import machine_chapter, xdrop_common

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert machine_chapter._xdrop_fact("absent").startswith("none: no X-drop campaign")
    fixtures = Path(__file__).parent.parent / "fixtures" / "xdrop" / "results" / "synthetic-gpu"
    shutil.copytree(fixtures, tmp_path / "m")
    t = xdrop_common.times("m")
    fact = machine_chapter._xdrop_fact("m")
    assert fact.startswith(f"{len(t)} timed points ({', '.join(sorted(t['backend'].unique()))}) over X = ")
    assert fact.endswith("every result equal to the oracle's")
    import csv

    times = tmp_path / "m" / "xdrop" / "times.csv"
    rows = list(csv.DictReader(times.open()))
    rows[0]["matches_oracle"] = "False"
    with times.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert machine_chapter._xdrop_fact("m").endswith("results that differ from the oracle's: 1")


def test_the_originals_section_reads_both_tables(tmp_path, monkeypatch) -> None:
    """``ht_loc`` per dataset and LOGAN per X, with ours over theirs and the output checks; without
    either table, the reason the campaign's lacks give."""
    from lassm.book import machine_chapter
    from lassm.runs import tables, xdrop_records as rec
    from lassm.runs.account import append_entry
    from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_FILE, AGAINST_ORIGINAL_KEY

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    (tmp_path / "m").mkdir()
    append_entry(tmp_path / "m" / "campaign.json", {"rows": [], "lacks": ["originals: not run: no nvcc here (test)"]})
    assert machine_chapter._originals_fact("m") == "none: not run: no nvcc here (test)"
    base = {"machine": "m", "device": "D", "git_sha": "s"}
    tables.upsert(tmp_path / "m" / AGAINST_ORIGINAL_FILE, AGAINST_ORIGINAL_COLUMNS, AGAINST_ORIGINAL_KEY, [
        {**base, "dataset": "gen-k21", "k": 21, "program": "original ht_loc", "whole_seconds": 0.5,
         "kernel_seconds": 0.02, "walk_kernel_seconds": 0.02, "outputs_equal": True},
        {**base, "dataset": "gen-k21", "k": 21, "program": "lassm extend fast", "whole_seconds": 1.0,
         "kernel_seconds": 0.002, "walk_kernel_seconds": 0.001, "outputs_equal": True}])
    rows = [{**base, "dataset": "xdrop-sim-20k", "n_pairs": 20000, "xdrop": x, "program": p, "kernel_seconds": k,
             "whole_seconds": w, "scores_equal": eq}
            for x, eq in ((10, True), (100, False))
            for p, k, w in (("LOGAN demo", 0.4, 2.0), ("lassm xdrop align cuda", 0.2, 3.0))]
    rec.upsert(rec.folder("m") / rec.AGAINST_LOGAN_FILE, rec.AGAINST_LOGAN_COLUMNS, rec.AGAINST_LOGAN_KEY, rows)
    table = machine_chapter.originals_table("m")
    assert list(table["original"]) == ["ht_loc", "LOGAN demo", "LOGAN demo"]
    assert list(table["whole: ours / original"]) == [2.0, 1.5, 1.5]
    assert list(table["kernel: ours / original"]) == [0.1, 0.5, 0.5]
    assert list(table["outputs equal"]) == [True, True, False]
    fact = machine_chapter._originals_fact("m")
    assert fact.startswith("MetaHipMer's ht_loc on 1 dataset (outputs equal on every one; lassm extend's whole "
                           "command 2.00× the original's, its kernels 0.10×)")
    assert "LOGAN's demo on xdrop-sim-20k at X = 10, 100 (scores DIFFER at some X; our kernel 0.50× LOGAN's" in fact


def test_a_folder_whose_portable_backends_ran_on_the_cpu_is_no_gpu() -> None:
    """OpenCL and SYCL on the CPU's drivers are CPU records, whether recorded so or read from the
    device name; a CUDA record or a recorded ``gpu`` is a GPU's."""
    import pandas as pd

    from lassm.book import machines as mach

    recs = pd.DataFrame({"backend": ["cpu", "opencl", "sycl", "opencl", "cuda", "hip"],
                         "device": ["AMD EPYC", "AMD EPYC (Intel(R) OpenCL)", "AMD EPYC (opencl:cpu:0)",
                                    "gfx90a (AMD APP)", "NVIDIA H200", "x"],
                         "device_kind": ["", "", "", "", "", "cpu"]})
    assert list(mach.device_kinds(recs)) == ["cpu", "cpu", "cpu", "gpu", "gpu", "cpu"]


# --- what a machine chapter says in its reader's words ----------------------------------------

def test_an_absent_runtime_is_named_not_installed_by_the_chapter():
    from lassm.book import machines as mach

    line = ("gpu: no CUDA or HIP backend can run here (cuda: CuPy is not installed (No module named 'cupy'); install "
            "it with: pip install 'lassm[cuda12]' (cupy-cuda12x); hip: CuPy is not installed (No module named "
            "'cupy'); for AMD GPUs install CuPy for ROCm (cupy-rocm-7-0))")
    assert mach.reader_words(line) == ("gpu: no CUDA or HIP backend can run here (cuda: CuPy was absent on this "
                                       "machine; hip: CuPy was absent on this machine)")
    assert mach.reader_words("sycl: cannot run here: dpctl is not installed (No module named 'dpctl'); install it "
                             "with: pip install 'lassm[intel]'") == "sycl: cannot run here: dpctl was absent on this machine"
    for machine in mach.chapter_machines():
        for line in mach.lacks(machine):
            assert "not installed" not in line and "install it with" not in line, (machine, line)


def test_slower_is_said_where_slower():
    import pandas as pd

    from lassm.book import machine_chapter as mc
    from lassm.book import machines as mach
    from lassm.book.prose import faster_or_slower

    assert faster_or_slower(pd.Series([2.0, 3.14])) == "2.0× to 3.1× faster"
    assert faster_or_slower(pd.Series([0.05, 0.025])) == "20.0× to 40.0× slower"
    assert faster_or_slower(pd.Series([0.5, 2.0])) == "0.50× to 2.00× the speed"
    for machine in mach.chapter_machines():
        said = mc.facts(machine)["mc_published"]
        ratio, _ = mc.published_ratio(machine)
        assert "0.0×" not in said and ("slower" in said) == bool(len(ratio) and (ratio < 1).all()), (machine, said)


def test_no_captioned_figure_without_data(book):
    """A folder without counters (the laptop's) gets no roofline caption over a note: each captioned
    figure of a written chapter is one its folder has data for."""
    from lassm.book import machines

    seen = {}
    for name in (GPU_MACHINE, LAPTOP):
        nb = json.loads((book / machines.CHAPTERS / f"{name}.ipynb").read_text())
        names = [c["metadata"]["mystnb"]["figure"]["name"].removesuffix(f"-{name}") for c in nb["cells"]
                 if c.get("metadata", {}).get("mystnb", {}).get("figure")]
        names = [n for n in names if not n.startswith("tbl-")]  # tables: tests/book/test_book_tables.py
        labels = re.findall(r"^:name: (tbl-[\w-]+)$", "\n".join("".join(c["source"]) for c in nb["cells"]), flags=re.M)
        assert labels and all(label.endswith(f"-{name}") for label in labels), "a table's label names its chapter"
        has = machines.figure_data(name)
        assert names == [n for n in has if has[n] and n in names] and all(has[n] for n in names), (name, names)
        seen[name] = set(names)
    assert "fig-machine-roofline" not in seen[LAPTOP] and seen[GPU_MACHINE] > seen[LAPTOP]

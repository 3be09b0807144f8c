# SPDX-License-Identifier: BSD-3-Clause
"""HeCBench's cm-cuda beside our connectivity map, without a GPU: the synthetic cudaMap data set
(:mod:`lassm.campaign.originals.cmap_data`) read back as the program reads it, the program's own
arithmetic, and the comparison of its copies and printed results with ours, which can fail.

The data set is read back three ways: by the module's reader (io.cpp's rules in Python), by a
plain tab-separated parse (pyarrow), and, where g++ and the pinned HeCBench sources are here
(``--originals`` folder, ``LASSM_ORIGINALS`` or the cache), by io.cpp itself compiled beside a
small driver of ours. The comparison runs on copies made here by a single-precision model of the
program's kernel, with NumPy standing in for our CUDA kernels.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from lassm.backends.suite import cmap
from lassm.campaign.originals import cmap_data as cd
from lassm.campaign.originals import hecbench, hecbench_outputs as ho, sources


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[cd.DataSet, Path]:
    """The default data set (Jin and Vetter's size) and the folder it was written to."""
    data = cd.make()
    return data, cd.write(data, tmp_path_factory.mktemp("cmap") / cd.DATASET)


# --- the data set -----------------------------------------------------------------------------------

def test_the_data_set_is_laid_out_as_main_cpp_reads_it(written) -> None:
    data, folder = written
    assert sorted(p.name for p in folder.iterdir()) == ["Results", "queries", "reffiles-tab"]
    assert [p.name for p in (folder / "queries").iterdir()] == ["query.sig"]
    assert not list((folder / "Results").iterdir())
    files = sorted(p.name for p in (folder / "reffiles-tab").iterdir())
    assert files == list(data.files) and len(files) == cd.DRUGS == len(set(data.drugs))
    assert cd.DRUGS * cd.RANDOM_SIGNATURES == cmap.SIZES["gpu"][0] and cd.QUERY_GENES == cmap.SIZES["gpu"][1]
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")], "no temporary is left beside it"


def test_the_data_set_reads_back_as_written(written) -> None:
    data, folder = written
    back = cd.read(folder)
    assert back.probes == data.probes and back.files == data.files
    assert np.array_equal(back.query_genes, data.query_genes)
    assert np.array_equal(back.query_regulation, data.query_regulation)
    assert np.array_equal(back.profiles, data.profiles)
    assert len(set(data.probes)) == cmap.GENES and len(set(data.query_genes.tolist())) == cd.QUERY_GENES
    assert set(data.query_regulation.tolist()) == {-1, 1}
    for row in data.profiles:  # signed ranks: each of 1 .. 22,283 once
        assert np.array_equal(np.sort(np.abs(row)), np.arange(1, cmap.GENES + 1))


def test_a_plain_tab_parse_agrees_with_ios_rules(written) -> None:
    """Each profile: a header line, then exactly 22,283 lines of name, tab, integer, and nothing else."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    data, folder = written
    for k, name in enumerate(data.files):
        raw = (folder / "reffiles-tab" / name).read_bytes()
        assert raw.endswith(b"\n") and b"\r" not in raw and raw.count(b"\n") == cmap.GENES + 1
        table = pacsv.read_csv(folder / "reffiles-tab" / name,
                               read_options=pacsv.ReadOptions(skip_rows=1, column_names=["probe", "value"]),
                               parse_options=pacsv.ParseOptions(delimiter="\t"),
                               convert_options=pacsv.ConvertOptions(column_types={"probe": pa.string(),
                                                                                  "value": pa.int32()}))
        assert table.column("probe").to_pylist() == list(data.probes)
        assert np.array_equal(table.column("value").to_numpy(), data.profiles[k])
    lines = (folder / "queries" / "query.sig").read_text().splitlines()
    body = [ln.split("\t") for ln in lines if not ln.startswith(("#", "AffyProbeSetID", "uniqueID"))]
    assert [(n, int(r)) for n, r in body] == [(data.probes[g], int(r)) for g, r in zip(data.query_genes,
                                                                                       data.query_regulation)]


def test_a_data_set_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = cd.make(seed=1, drugs=2, query_genes=5)
    folder = cd.write(data, tmp_path / "set")
    again = cd.make(seed=2, drugs=3, query_genes=7)

    def broken(*args, **kwargs):
        raise OSError("disk full (test)")

    monkeypatch.setattr(cd, "_profile_text", broken)
    with pytest.raises(OSError, match="disk full"):
        cd.write(again, folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"], "no temporary left"
    assert cd.read(folder).files == data.files, "the earlier set is untouched"
    monkeypatch.undo()
    assert cd.read(cd.write(again, folder)).files == again.files, "a set already there is replaced"


def test_the_reader_refuses_what_the_program_would_not_read(tmp_path: Path) -> None:
    data = cd.make(seed=3, drugs=2, query_genes=4)
    folder = cd.write(data, tmp_path / "set")
    sig = folder / "queries" / "query.sig"
    sig.write_text(sig.read_text() + "nosuchprobe_at\t1\n")
    with pytest.raises(ValueError, match="absent from the profiles"):
        cd.read(folder)
    folder = cd.write(data, tmp_path / "set")
    short = folder / "reffiles-tab" / data.files[1]
    short.write_text("\n".join(short.read_text().split("\n")[:100]) + "\n")
    with pytest.raises(ValueError, match="22283 tab-separated"):
        cd.read(folder)


def test_drugs_are_named_as_io_cpp_parses_file_names() -> None:
    assert cd.drug_of("synth00_10uM_MCF7_1000.tab") == "synth00"
    assert cd.drug_of("estradiol_1e-08M_MCF7_1.tab") == "estradiol" and cd.drug_of("plain.tab") == "plain.tab"
    assert cd.read_query.__doc__ and cd._atoi("\t-123x") == -123 and cd._atoi("\tx") == 0 and cd._atoi(" +7") == 7


# --- io.cpp itself, where it is here ----------------------------------------------------------------------

#: Our driver of io.cpp's functions: prints what the program would read from the folder it is given.
DRIVER = r"""
#include "utils.h"
int main(int argc, char **argv) {
  const std::string base(argv[1]);
  if (changeToSubDirectory(base, subDirQueries) != 0) return 2;
  std::vector<std::string> queries;
  getFilesInDirectory(".", queries, ".sig");
  std::cout << "queries " << queries.size() << "\n";
  std::vector<std::string> names;
  std::vector<int> regulation;
  parseQueryFile(queries.at(0), names, regulation);
  for (size_t i = 0; i < names.size(); ++i) std::cout << "Q " << names[i] << " " << regulation[i] << "\n";
  if (changeToSubDirectory(base, subDirFiles) != 0) return 3;
  std::vector<std::string> files;
  getFilesInDirectory(".", files, ".tab");
  std::vector<std::string> probes;
  populateRefGeneNameList(files.front(), probes);
  for (const std::string &p : probes) std::cout << "P " << p << "\n";
  static int values[U133AArrayLength];
  for (const std::string &f : files) {
    populateRefRegulationValues(f, values, false);
    std::cout << "F " << f << " " << parseDrugInfoFromFilename(f, 1);
    for (int j = 0; j < U133AArrayLength; ++j) std::cout << " " << values[j];
    std::cout << "\n";
  }
  return 0;
}
"""


def _cm_cuda_tree() -> Path | None:
    """The pinned cm-cuda folder from the user's folder of sources or the cache, its io.cpp and
    utils.h checked; None when neither holds it (nothing is downloaded)."""
    want = {rel: h for rel, h in sources.HECBENCH.files.items() if rel.startswith("src/cm-cuda/")}
    roots = []
    if os.environ.get(sources.FOLDER_ENV):
        base = Path(os.environ[sources.FOLDER_ENV]).expanduser()
        roots += [base / sources.HECBENCH.name, base / sources.HECBENCH.repo.replace("/", "+"), base]
    roots.append(sources.cache_root() / f"{sources.HECBENCH.name}-{sources.HECBENCH.commit[:12]}")
    for root in roots:
        if all((root / rel).is_file() and hashlib.sha256((root / rel).read_bytes()).hexdigest() == h
               for rel, h in want.items()):
            return root / "src" / "cm-cuda"
    return None


def test_ios_own_parser_reads_the_data_set(written, tmp_path: Path) -> None:
    tree = _cm_cuda_tree()
    if shutil.which("g++") is None:
        pytest.skip("no g++ here to compile HeCBench's io.cpp")
    if tree is None:
        pytest.skip(f"HeCBench {sources.HECBENCH.commit[:12]}'s src/cm-cuda is neither in ${sources.FOLDER_ENV} "
                    f"nor in the cache ({sources.cache_root()}); `lassm run --originals DIR` or an earlier run "
                    f"puts it there")
    data, folder = written
    (tmp_path / "driver.cpp").write_text(DRIVER)
    exe = tmp_path / "driver"
    subprocess.run(["g++", "-std=c++17", "-O1", f"-I{tree}", str(tmp_path / "driver.cpp"), str(tree / "io.cpp"),
                    "-o", str(exe)], check=True, capture_output=True, timeout=300)
    out = subprocess.run([str(exe), str(folder)], check=True, capture_output=True, text=True, timeout=120).stdout
    lines = out.split("\n")
    assert lines[0] == "queries 1"
    query = [ln.split(" ") for ln in lines if ln.startswith("Q ")]
    assert [(n, int(r)) for _q, n, r in query] == [(data.probes[g], int(r)) for g, r in
                                                   zip(data.query_genes, data.query_regulation)]
    assert [ln[2:] for ln in lines if ln.startswith("P ")] == list(data.probes)
    profiles = [ln.split(" ") for ln in lines if ln.startswith("F ")]
    assert [(f, d) for _f, f, d, *_v in profiles] == list(zip(data.files, data.drugs))
    assert np.array_equal(np.array([v for *_h, v in [(p[:3], p[3:]) for p in profiles]], dtype=np.int64),
                          data.profiles)


# --- the program's arithmetic ---------------------------------------------------------------------------

def test_the_programs_normalisation_and_p_value() -> None:
    assert cd.ucmax(100) == 100 * 22283 - 5050 + 100 and cd.ucmax(1, 10) == 10
    n = 100_000
    assert cd.p_value(0, n) == pytest.approx(1 / n) and cd.p_value(n, n) == pytest.approx(1 / n)
    assert cd.p_value(250, n) == pytest.approx(0.005) and cd.p_value(n - 250, n) == pytest.approx(0.005)
    assert cd.p_value(n // 2, n) == 0.0, "equal tails: the program leaves its p-value at 0"


def test_the_threshold_is_the_programs_single_precision_comparison() -> None:
    rng = np.random.default_rng(0)
    n = 100
    u = np.float32(cd.ucmax(n))
    for dot in [0, 1, -1, 2228300, -2228300, *rng.integers(-2_228_300, 2_228_300, 300).tolist()]:
        limit = np.float32(dot / cd.ucmax(n))
        t = cd.threshold(dot, n)
        assert np.float32(t) / u > limit and not np.float32(t - 1) / u > limit, dot
        assert t in (dot, dot + 1)


# --- the comparison ---------------------------------------------------------------------------------------

SIGNATURES, GARBAGE = 1000, 10**6  # the program's signatures per p-value here; what it reads past its profile


def _their_counts(data: cd.DataSet, k: int, draws: np.ndarray) -> np.ndarray:
    """The program's kernel in single precision (a model written from kernels.h): each signature's
    float sum of the profile's values (one profile: factor 1), divided by UCmax, counted where above
    the query's score, per block of 128; a read past the profile finds :data:`GARBAGE`."""
    n, total = draws.shape
    genes = len(data.probes)
    padded = np.append(data.profiles[k], np.int32(GARBAGE)).astype(np.float32)
    temp = np.zeros(total, dtype=np.float32)
    for t in range(n):
        x = np.float32(1.0) - draws[t]
        down = x >= np.float32(0.5)
        x = np.where(down, x - np.float32(0.5), x).astype(np.float32)
        idx = np.floor((x * np.float32(genes)) * np.float32(2.0)).astype(np.int64)
        temp = (temp + padded[idx] * np.where(down, np.float32(-1.0), np.float32(1.0))).astype(np.float32)
    scores = temp / np.float32(cd.ucmax(n, genes))
    above = scores > np.float32(float(data.dots()[k]) / cd.ucmax(n, genes))
    blocks = -(-total // 128)
    out = np.zeros(blocks * 128, dtype=np.int32)
    out[:total] = above
    return out.reshape(blocks, 128).sum(axis=1).astype(np.int32)


def _bytes(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def _results(folder: Path, data: cd.DataSet, counts: list[int]) -> None:
    """The program's results file for these counts, as main.cpp, io.cpp and process.cu write it."""
    n = len(data.query_genes)
    rows = []
    for drug, dot, c in zip(data.drugs, data.dots(), counts):
        p = cd.p_value(c, SIGNATURES)
        rows.append(f"{drug}\t1\t{dot / cd.ucmax(n):.6g}\t{p:.6g}\t{p * 1309:.6g}\t{int(p * 1309 < 1)}")
    head = [f"Number of random generations: {SIGNATURES}", "Expected number of false positives: 1",
            "Compound choice: 1",
            "This is the output file for signature: \t query.sig", "", "The signature input was: query.sig",
            "The results against the reference profiles are listed below",
            "Compound\tsetSize\taverageSetScore\tP-value result\t ENFP\tSignificant"]
    cd.results_file(folder).write_text("\n".join(head + rows) + "\n")


@pytest.fixture
def world(tmp_path: Path):
    """A small data set and the copies and results file the program would leave on it: 3 drugs, a
    12-gene query, 1,000 signatures each; one draw of drug 1 (signature 5) below 2^-25."""
    data = cd.make(seed=11, drugs=3, query_genes=12, connections=(-0.2, 0.0, 0.3))
    folder = cd.write(data, tmp_path / cd.DATASET)
    rng = np.random.default_rng(5)
    n = len(data.query_genes)
    h2d, d2h, counts = [_bytes(data.query_vector())], [], []
    for k in range(3):
        draws = rng.random((n, SIGNATURES), dtype=np.float32)
        if k == 1:
            draws[3, 5] = np.float32(1e-9)
        blocks = _their_counts(data, k, draws)
        dot = np.zeros(175, dtype=np.int32)
        dot[0], dot[7] = int(data.dots()[k]) - 1000, 1000
        h2d += [_bytes(data.profiles[k]), _bytes(draws)]
        d2h += [_bytes(dot), _bytes(blocks)]
        counts.append(int(blocks.sum()))
    _results(folder, data, counts)
    return data, folder, h2d, d2h


def _scored(inp: cmap.Inputs, uniforms: np.ndarray) -> cmap.Output:
    sums = cmap.score_sums(inp, uniforms)
    return cmap.Output(uniforms, sums, int(np.count_nonzero(sums >= inp.threshold)))


def _drawn(inp: cmap.Inputs) -> cmap.Output:
    return cmap.reference(inp).output


def _compare(world, scored=_scored, drawn=_drawn) -> ho.Compared:
    _data, folder, h2d, d2h = world
    return ho.cmap_compared(h2d, d2h, folder, scored=scored, drawn=drawn, signatures=20_000)


def test_its_counts_equal_ours_on_its_own_numbers(world) -> None:
    got = _compare(world)
    assert got.equal, got.what
    assert "3 p-values of 1,000 random signatures of 12 genes" in got.what
    assert "(1 signatures read past its profile" in got.what
    assert got.difference <= 1, "only the signature that read past its profile may differ"


def test_a_block_count_off_by_one_is_caught(world) -> None:
    data, folder, h2d, d2h = world
    wrong = d2h[3].view(np.int32).copy()  # drug 1's counts; block 4 holds no read past the profile
    wrong[4] += 1
    got = _compare((data, folder, h2d, [*d2h[:3], _bytes(wrong), *d2h[4:]]))
    assert not got.equal and "synth01: 1 blocks' counts differ" in got.what


def test_a_printed_p_value_that_is_not_its_counts_is_caught(world) -> None:
    data, folder, _h2d, _d2h = world
    path = cd.results_file(folder)
    lines = path.read_text().split("\n")
    row = next(i for i, ln in enumerate(lines) if ln.startswith("synth02\t"))
    cells = lines[row].split("\t")
    cells[3] = f"{float(cells[3]) * 1.01:.6g}"
    lines[row] = "\t".join(cells)
    path.write_text("\n".join(lines))
    got = _compare(world)
    assert not got.equal and "synth02: its printed row" in got.what


def test_our_own_draws_beyond_the_bound_are_caught(world) -> None:
    def biased(inp: cmap.Inputs) -> cmap.Output:
        out = _drawn(inp)
        return cmap.Output(out.uniforms, out.sums, min(inp.signatures, out.count + inp.signatures // 5))

    got = _compare(world, drawn=biased)
    assert not got.equal and "of its bound" in got.what


def test_ours_scoring_otherwise_is_caught(world) -> None:
    def off(inp: cmap.Inputs, uniforms: np.ndarray) -> cmap.Output:
        out = _scored(inp, uniforms)
        sums = out.sums.copy()
        sums[:200] += 10**6
        return cmap.Output(uniforms, sums, int(np.count_nonzero(sums >= inp.threshold)))

    got = _compare(world, scored=off)
    assert not got.equal and got.difference > 1 and "blocks' counts differ" in got.what


def test_copies_of_other_inputs_are_refused(world) -> None:
    data, folder, h2d, d2h = world
    other = data.query_vector().copy()
    other[np.flatnonzero(other)[0]] *= -1
    with pytest.raises(ValueError, match="the query it copied is not the data set's"):
        _compare((data, folder, [_bytes(other), *h2d[1:]], d2h))
    with pytest.raises(ValueError, match="copies in"):
        _compare((data, folder, h2d[:-2], d2h[:-2]))


def test_the_results_table_is_read_as_printed(world) -> None:
    data, folder, _h2d, _d2h = world
    rows = cd.read_results(folder)
    assert [r.compound for r in rows] == list(data.drugs) and {r.set_size for r in rows} == {1}
    cd.results_file(folder).unlink()
    with pytest.raises(ValueError, match=r"wrote no sscMap_Result_\[query.sig\].tab"):
        cd.read_results(folder)


# --- in the HeCBench part ---------------------------------------------------------------------------------

def test_cm_cuda_is_one_of_the_programs_built_from_pinned_files() -> None:
    prog = hecbench.PROGRAMS["cmap"]
    assert prog.folder == "cm-cuda" and prog.data and prog.pick == "whole" and hecbench.OURS["cmap"] == "fused"
    for p in hecbench.PROGRAMS.values():
        for src in (p.source, *p.also):
            assert f"src/{p.folder}/{src}" in sources.HECBENCH.files, src
    assert {"src/cm-cuda/utils.h", "src/cm-cuda/kernels.h"} <= set(sources.HECBENCH.files)
    assert prog.seconds("The base directory is : /x\nCompleted : 0%\nTime in taken in seconds :2.5e-01\n") == 0.25
    with pytest.raises(ValueError, match="printed no kernel time"):
        prog.seconds("Could not find a sub-directory with the name queries/\n")


@pytest.mark.gpu
def test_our_cuda_kernels_score_given_numbers_as_the_reference_does() -> None:
    inp = cmap.inputs("cpu", seed=2)
    uniforms = np.random.default_rng(1).random(inp.draws, dtype=np.float32)
    uniforms[:3] = (0.0, 1e-9, 0.5)
    got = cmap.scored("cuda", inp, uniforms)
    assert np.array_equal(got.sums, cmap.score_sums(inp, uniforms))
    assert got.count == int(np.count_nonzero(got.sums >= inp.threshold))

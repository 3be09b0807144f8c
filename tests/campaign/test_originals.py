# SPDX-License-Identifier: BSD-3-Clause
"""The original programs' part of ``lassm run`` without a GPU: sources, builds, both side-by-side runs.

The pinned sources are never committed, so the source tests pin a small tree of their own and fetch
it for real, over HTTP from a local server. The builds and the runs use stand-in programs on PATH:
a stand-in nvcc that records its arguments and "links" stand-in executables, a stand-in ``ht_loc``
that is ``lassm extend`` on the CPU, and a stand-in ``logan_scores`` that aligns with the CPU
oracle: the comparisons themselves run for real and can fail (a wrong stand-in is caught).
"""
from __future__ import annotations

import csv
import functools
import hashlib
import http.server
import io
import os
import socket
import stat
import sys
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest

from lassm import paths
from lassm.campaign import originals, whole
from lassm.campaign.part import Ask
from lassm.campaign.originals import build, ht_loc, logan, sources
from lassm.runs import xdrop_records as rec
from lassm.workloads.xdrop.pairs import Pairs

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _source(files: dict[str, str]) -> sources.Source:
    return sources.Source(name="toy", repo="someone/toy", commit=COMMIT,
                          files={k: hashlib.sha256(v.encode()).hexdigest() for k, v in files.items()})


FILES = {"src/a.cu": "// a\n", "src/b.cuh": "// b\n"}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(sources.FOLDER_ENV, raising=False)
    return tmp_path / "cache" / "originals"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A local HTTP server answering GitHub's tarball paths from ``tmp_path/www``; yields that folder."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(sources.URL_ENV, f"http://127.0.0.1:{httpd.server_address[1]}")
    yield www
    httpd.shutdown()


def _tarball(www: Path, files: dict[str, str], extra: tarfile.TarInfo | None = None) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"toy-{COMMIT}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if extra is not None:
            tar.addfile(extra)
    out = www / "someone" / "toy" / "tar.gz" / COMMIT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buf.getvalue())


# --- sources ------------------------------------------------------------------------------------

def test_the_pinned_sources_name_every_file_the_builds_read() -> None:
    assert set(sources.HT_LOC.files) == {f"src/{n}.cpp" for n in build.HT_LOC_SOURCES} | {"src/kernel.hpp",
                                                                                         "src/helper.hpp"}
    assert set(sources.LOGAN.files) == ({f"src/{n}.cu" for n in build.LOGAN_SOURCES}
                                        | {f"src/{n}.cuh" for n in ("logan", "logan_functions", "score", "seed")})
    for s in sources.SOURCES.values():
        assert len(s.commit) == 40 and all(len(h) == 64 for h in s.files.values())


def test_a_named_folder_is_used_when_it_holds_the_pinned_files(tmp_path: Path, cache: Path) -> None:
    src = _source(FILES)
    tree = _tree(tmp_path / "mine" / "toy", FILES)
    assert sources.locate(src, tmp_path / "mine") == tree
    assert sources.locate(src, tree) == tree  # the repository's own folder named directly


def test_a_folder_with_other_code_is_refused_naming_the_file(tmp_path: Path, cache: Path) -> None:
    src = _source(FILES)
    _tree(tmp_path / "mine" / "toy", {**FILES, "src/a.cu": "// edited\n"})
    with pytest.raises(sources.SourceUnavailable, match=r"src/a.cu differs"):
        sources.locate(src, tmp_path / "mine")


def test_downloaded_over_http_checked_and_cached(server: Path, cache: Path) -> None:
    src = _source(FILES)
    _tarball(server, FILES)
    tree = sources.locate(src)
    assert tree == cache / f"toy-{COMMIT[:12]}" and (tree / "src" / "a.cu").read_text() == "// a\n"
    (server / "someone").rename(server / "gone")  # the second call needs no network
    assert sources.locate(src) == tree


def test_a_download_of_other_code_leaves_nothing(server: Path, cache: Path) -> None:
    src = _source(FILES)
    _tarball(server, {**FILES, "src/b.cuh": "// tampered\n"})
    with pytest.raises(sources.SourceUnavailable, match="src/b.cuh differs"):
        sources.locate(src)
    assert not any(cache.glob("toy-*")) and not any(p.name.startswith(".toy") for p in cache.iterdir())


def test_a_tarball_with_a_link_out_of_it_is_refused(server: Path, cache: Path) -> None:
    link = tarfile.TarInfo(f"toy-{COMMIT}/src/evil")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    _tarball(server, FILES, extra=link)
    with pytest.raises(sources.SourceUnavailable):
        sources.locate(_source(FILES))
    assert not any(cache.glob("toy-*"))


def test_offline_says_how_to_carry_the_sources(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(sources.URL_ENV, f"http://127.0.0.1:{port}")
    with pytest.raises(sources.SourceUnavailable, match=r"--originals DIR or LASSM_ORIGINALS"):
        sources.locate(_source(FILES))


# --- builds -------------------------------------------------------------------------------------

STAND_IN_HT_LOC = f"""#!{sys.executable}
import subprocess, sys
sys.exit(subprocess.run([sys.executable, "-m", "lassm.cli", "extend", sys.argv[1], "--k", sys.argv[2],
                         "--backend", "cpu", "--out", sys.argv[3]]).returncode)
"""
STAND_IN_DEMO = "#!/bin/sh\nprintf 'GPU only time:\\t\\t0.25\\nTotal Execution time:\\t1.5\\n'\n"
#: LOGAN's scores from the CPU oracle, off by one on pair 0 when ``WRONG`` is set.
STAND_IN_SCORES = f"""#!{sys.executable}
import os, sys
from lassm.backends.xdrop import get
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.pairs import Pairs
rows = []
for line in open(sys.argv[1]):
    v, pv, h, ph, strand = line.rstrip("\\n").split("\\t")
    rows.append((h.encode(), int(ph), v.encode(), int(pv), int(sys.argv[2])))
res = get("cpu").align(Pairs.from_lists(rows), Scoring(1, -1, -1, xdrop=int(sys.argv[3])), threads=1)
print("GPU only time:\\t\\t0.1")
for i, s in enumerate(res.score):
    print(f"score\\t{{i}}\\t{{s + (1 if i == 0 and os.environ.get('WRONG') else 0)}}")
"""


#: HeCBench's nw-cuda and minkowski-cuda as they print (their arguments echoed, to be checked).
STAND_IN_NW = '#!/bin/sh\necho "args $*"\nprintf "block width = 1024\\nTotal kernel execution time: 0.025 (s)\\nPASS\\n"\n'
STAND_IN_MINKOWSKI = ('#!/bin/sh\nfor p in 1 2 3 4; do echo "Minkowski distance with p = $p"; '
                      'echo "Average kernel execution time: 0.0005 (s)"; done\n')
#: HeCBench's cm-cuda as it prints, refusing a folder without the data set's layout (ten profiles, one query).
STAND_IN_CMAP = """#!/bin/sh
[ -f "$1/queries/query.sig" ] && [ -d "$1/Results" ] || { echo "Could not find a sub-directory"; exit 255; }
[ "$(ls "$1/reffiles-tab" | grep -c '[.]tab$')" = 10 ] || { echo "not ten profiles"; exit 1; }
echo "The base directory is : $1"; echo "Query filename : query.sig"; echo "Completed : 0%"
echo "Time in taken in seconds :0.75"
echo "Program is finished, output files will be found in the results folder"
"""


def _exe(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def nvcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in nvcc on PATH: logs its arguments; its links write the stand-in programs; returns the log."""
    stand = tmp_path / "stand-ins"
    stand.mkdir()
    for name, text in (("ht_loc", STAND_IN_HT_LOC), ("demo", STAND_IN_DEMO), ("logan_scores", STAND_IN_SCORES),
                       ("nw", STAND_IN_NW), ("minkowski", STAND_IN_MINKOWSKI), ("cmap", STAND_IN_CMAP)):
        _exe(stand / name, text)
    log = tmp_path / "nvcc.log"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _exe(bindir / "nvcc", f"""#!/bin/sh
if [ "$1" = --version ]; then echo "Cuda compilation tools, release 13.0, V13.0.88"; echo "Build stand-in"; exit 0; fi
echo "$@" >> {log}
[ -n "$NVCC_FAILS" ] && case "$*" in *"$NVCC_FAILS"*) echo "error: refused" >&2; exit 1;; esac
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then
    case "$(basename "$2")" in ht_loc|demo|logan_scores|nw|minkowski|cmap) cp {stand}/"$(basename "$2")" "$2";; *) touch "$2";; esac
  fi
  shift
done
""")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return log


def _trees(tmp_path: Path) -> Path:
    """A folder of sources laid out as the user names one; the pins patched to these stand-in files."""
    folder = tmp_path / "originals"
    for s in sources.SOURCES.values():
        _tree(folder / s.name, {rel: f"// {s.name} {rel}\n" for rel in s.files})
    return folder


@pytest.fixture
def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = _trees(tmp_path)
    for key, s in sources.SOURCES.items():
        mine = sources.Source(s.name, s.repo, s.commit,
                              {rel: hashlib.sha256(f"// {s.name} {rel}\n".encode()).hexdigest() for rel in s.files})
        monkeypatch.setitem(sources.SOURCES, key, mine)
        attr = {"ht_loc": "HT_LOC", "logan": "LOGAN", "hecbench": "HECBENCH"}[key]
        monkeypatch.setattr(sources, attr, mine)
        if hasattr(build, attr):
            monkeypatch.setattr(build, attr, mine)
        if key == "hecbench":
            from lassm.campaign.originals import hecbench

            monkeypatch.setattr(hecbench, "HECBENCH", mine)
    return folder


def test_ht_loc_is_built_as_its_makefile_says_once(pinned: Path, nvcc: Path, cache: Path) -> None:
    tree = sources.locate(sources.SOURCES["ht_loc"], pinned)
    built = build.build_ht_loc(tree, "sm_90")
    lines = nvcc.read_text().splitlines()
    compiles = sorted(ln for ln in lines if " -c " in ln)
    head = "--std=c++11 -O3 -x cu -I. -include cstdint --gpu-architecture=sm_90 -c "
    assert [ln.split(" -o ")[0] for ln in compiles] == [head + f"{n}.cpp" for n in sorted(build.HT_LOC_SOURCES)]
    assert len(lines) == 4 and lines[-1].startswith("--std=c++11 -O3 --gpu-architecture=sm_90 ")
    assert built["ht_loc"].is_file() and built.nvcc.startswith("Cuda compilation tools, release 13.0")
    assert not list(built["ht_loc"].parent.glob("*.o")), "objects are not kept in the cache"
    again = build.build_ht_loc(tree, "sm_90")
    assert again["ht_loc"] == built["ht_loc"] and len(nvcc.read_text().splitlines()) == 4, "the cached build is used"
    build.build_ht_loc(tree, "sm_80")
    assert len(nvcc.read_text().splitlines()) == 8, "another architecture is another build"


def test_logan_and_the_scores_driver_are_built_with_logans_flags(pinned: Path, nvcc: Path, cache: Path) -> None:
    built = build.build_logan(sources.locate(sources.SOURCES["logan"], pinned), "sm_90")
    flags = "-O3 -maxrregcount=32 -std=c++14 -Isrc -Xcompiler -fopenmp -arch=sm_90"
    lines = nvcc.read_text().splitlines()
    assert sorted(ln for ln in lines if ln.startswith("-c ")) == sorted(
        f"-c {flags} -dc src/{n}.cu -o src/{n}.o" for n in (*build.LOGAN_SOURCES, "logan_scores"))
    library = " ".join(f"src/{n}.o" for n in build.LOGAN_LIBRARY)
    links = sorted(ln.split(" -o ")[0] for ln in lines if not ln.startswith("-c "))
    assert links == [f"{flags} src/demo.o {library}", f"{flags} src/logan_scores.o {library}"]
    assert built["demo"].is_file() and built["logan_scores"].is_file()
    assert not (pinned / "LOGAN" / "src" / "demo.o").exists(), "the user's tree is never written"


def test_a_failed_build_is_named_and_leaves_nothing(pinned: Path, nvcc: Path, cache: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NVCC_FAILS", "kernel.cpp")
    with pytest.raises(build.BuildFailed, match=r"compiling kernel.cpp: nvcc exited 1: error: refused"):
        build.build_ht_loc(sources.locate(sources.SOURCES["ht_loc"], pinned), "sm_90")
    assert not list((cache / "build").iterdir())


# --- the side-by-side runs, whole, through run_originals ----------------------------------------------

def _plan(folder: Path) -> originals.OriginalsPlan:
    return originals.OriginalsPlan(ht_loc_datasets=("sample-k21",), logan_dataset="xdrop-short-6", xdrops=(5, 40),
                                   ht_loc_repeats=1, profile=False, folder=str(folder))


def test_both_programs_run_beside_ours_and_agree(pinned: Path, nvcc: Path, cache: Path, results: Path) -> None:
    said: list[str] = []
    out = originals.run_originals(_plan(pinned), machine="box", backend="cpu", arch="sm_90", say=said.append)
    assert out.lacks == [] and not out.failed, (out.lacks, out.failed)
    with open(results / "box" / "against-original.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["dataset"], r["program"]) for r in rows] == [("sample-k21", ht_loc.ORIGINAL),
                                                            ("sample-k21", "lassm extend cpu")]
    assert all(r["outputs_equal"] == "True" and float(r["whole_seconds"]) > 0 and r["git_sha"] == "sha-one"
               and r["original_source"] == sources.SOURCES["ht_loc"].label and r["nvcc"].startswith("Cuda")
               for r in rows)
    assert rows[1]["command"] == "lassm extend sample-k21.dat --k 21 --backend cpu --out lassm.txt"
    got = rec.read_rows(rec.folder("box") / rec.AGAINST_LOGAN_FILE, rec.AGAINST_LOGAN_COLUMNS)
    assert [(r["xdrop"], r["program"]) for r in got] == [(x, p) for x in ("5", "40")
                                                         for p in (logan.LOGAN_PROGRAM, "lassm xdrop align cpu")]
    assert all(r["scores_equal"] == "True" for r in got)
    assert [r["logan_gpu_seconds"] for r in got] == ["0.25", ""] * 2
    from lassm.runs.account import read_entries

    account = read_entries(results / "box" / originals.ACCOUNT_FILE)[-1]
    assert account["lacks"] == [] and {r["status"] for r in account["rows"]} == {"ok"}
    assert account["sources"]["logan"] == sources.SOURCES["logan"].label
    again = originals.run_originals(_plan(pinned), machine="box", backend="cpu", arch="sm_90")
    assert {r["status"] for r in again.rows} == {"skipped (recorded)"} and len(again.rows) == 6
    entries = read_entries(results / "box" / originals.ACCOUNT_FILE)
    assert len(entries) == 2 and entries[0] == account, "a re-run adds its entry and changes no earlier one"


def test_hecbench_programs_run_at_the_seeds_sizes_beside_the_suite(pinned: Path, nvcc: Path, cache: Path,
                                                                   results: Path) -> None:
    from lassm.campaign.originals import hecbench

    plan = originals.OriginalsPlan(ht_loc_datasets=(), logan_dataset=None, xdrops=(), profile=False, folder=str(pinned),
                                   suite_kernels=("cmap", "nw", "minkowski"))
    out = originals.run_originals(plan, machine="box", backend="cpu", arch="sm_90")
    assert out.lacks == [], out.lacks
    rows = {r["kernel"]: r for r in rec.read_rows(hecbench.table("box"), hecbench.COLUMNS)}
    assert set(rows) == {"cmap", "nw", "minkowski"}
    assert float(rows["cmap"]["seconds"]) == 0.75 and rows["cmap"]["verified"] == "not checked"
    assert rows["cmap"]["args"] == "cudamap-synthetic" and rows["cmap"]["ours_variant"] == "fused"
    assert rows["cmap"]["command"] == "cm-cuda cudamap-synthetic"
    assert rows["cmap"]["outputs_compared"].startswith("not compared: ")
    cm = [ln for ln in nvcc.read_text().splitlines() if "main.cpp" in ln or "io.cpp" in ln or "process.cu" in ln
          or "process.o" in ln]
    head = "-std=c++17 -Xcompiler -Wall -O3 -arch=sm_90"
    links = [ln for ln in cm if " -c " not in ln]
    assert sorted(set(cm) - set(links)) == [f"{head} -c process.cu -o process.o", f"-x cu {head} -c io.cpp -o io.o",
                                            f"-x cu {head} -c main.cpp -o main.o"]
    assert len(links) == 1 and links[0].startswith(f"{head} main.o io.o process.o -cudart shared -o ")
    assert links[0].endswith("/cmap"), "built as its Makefile does, linked against the shared runtime"
    assert float(rows["nw"]["seconds"]) == 0.025 and rows["nw"]["verified"] == "PASS"
    assert rows["nw"]["args"] == "16384 10 10" and rows["nw"]["ours_variant"] == hecbench.OURS["nw"]
    assert rows["nw"]["outputs_compared"].startswith("not compared: ") and rows["nw"]["outputs_equal"] == ""
    assert float(rows["minkowski"]["seconds"]) == pytest.approx(0.002) and rows["minkowski"]["verified"] == "not checked"
    flags = [ln for ln in nvcc.read_text().splitlines() if "minkowski" in ln or "main.cu" in ln or "nw.cu" in ln]
    assert any("-use_fast_math" in ln and "-c main.cu" in ln for ln in flags)
    assert all(ln.startswith("-std=c++17 -Xcompiler -Wall -O3 -arch=sm_90") for ln in flags)
    again = originals.run_originals(plan, machine="box", backend="cpu", arch="sm_90")
    assert {r["status"] for r in again.rows} == {"skipped (recorded)"}


def test_a_printed_time_is_read_in_its_unit() -> None:
    from lassm.campaign.originals.hecbench import PROGRAMS

    text = "Average kernel execution time: 90.5 (us)\nPASS\nAverage kernel execution time: 80 (us)\nPASS\n" \
           "Average kernel execution time: 70 (us)\nPASS\n"
    assert PROGRAMS["all_pairs"].seconds(text) == pytest.approx(80e-6)
    with pytest.raises(ValueError, match="printed no kernel time"):
        PROGRAMS["nw"].seconds("Segmentation fault\n")


def test_a_wrong_score_is_caught(pinned: Path, nvcc: Path, cache: Path, results: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WRONG", "1")
    plan = originals.OriginalsPlan(ht_loc_datasets=(), logan_dataset="xdrop-short-6", xdrops=(5,), profile=False,
                                   folder=str(pinned))
    out = originals.run_originals(plan, machine="box", backend="cpu", arch="sm_90")
    assert {r["status"] for r in out.rows} == {"MISMATCH"} and len(out.failed) == 2
    got = rec.read_rows(rec.folder("box") / rec.AGAINST_LOGAN_FILE, rec.AGAINST_LOGAN_COLUMNS)
    assert {r["scores_equal"] for r in got} == {"False"}


def test_without_sources_one_line_and_the_other_program_still_runs(pinned: Path, nvcc: Path, cache: Path,
                                                                    results: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.rmtree(pinned / "LOGAN")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        monkeypatch.setenv(sources.URL_ENV, f"http://127.0.0.1:{s.getsockname()[1]}")
    out = originals.run_originals(_plan(pinned), machine="box", backend="cpu", arch="sm_90")
    assert len(out.lacks) == 1 and "albertozeni/LOGAN not run" in out.lacks[0] and "cannot be downloaded" in out.lacks[0]
    assert {r["status"] for r in out.rows} == {"ok"} and (results / "box" / "against-original.csv").is_file()


def test_without_a_gpu_the_part_is_one_line(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lassm import backends

    def absent(name):
        raise backends.BackendUnavailable(f"backend {name!r} cannot run here: no GPU in this test")

    monkeypatch.setattr(backends, "get", absent)
    out = originals.run_originals(_plan(Path(".")), machine="box")
    assert out.lacks and out.lacks[0].startswith("originals: not run: they need an NVIDIA GPU") and not out.rows
    from lassm.runs.account import read_entries

    assert read_entries(results / "box" / originals.ACCOUNT_FILE)[-1]["lacks"] == out.lacks


# --- parsing ------------------------------------------------------------------------------------

def test_logan_input_is_v_then_h_on_one_strand(tmp_path: Path) -> None:
    pairs = Pairs.from_lists([(b"ACGTAC", 1, b"TTACGTA", 2, 3), (b"GGGCCC", 0, b"GGGCC", 0, 3)])
    path = tmp_path / "in.txt"
    assert logan.write_logan_input(pairs, path) == 3
    assert path.read_text() == "TTACGTA\t2\tACGTAC\t1\tn\nGGGCC\t0\tGGGCCC\t0\tn\n"


def test_seeds_of_several_lengths_are_refused() -> None:
    pairs = Pairs.from_lists([(b"ACGTAC", 1, b"ACGTAC", 1, 3), (b"ACGTAC", 0, b"ACGTAC", 0, 4)])
    with pytest.raises(ValueError, match="seeds of 2 lengths"):
        logan.seed_length(pairs)


def test_logans_times_are_summed_over_its_batches() -> None:
    out = "GPU only time:\t\t0.25\nGPU only time:\t\t0.0625\nTotal Execution time:\t3.5\n"
    assert logan.parse_logan_output(out) == (0.3125, 3.5)
    with pytest.raises(ValueError, match="printed 0 'GPU only time'"):
        logan.parse_logan_output("Segmentation fault\n")


def test_scores_are_read_in_input_order_and_checked_whole() -> None:
    text = "GPU only time:\t\t0.1\nscore\t1\t-3\nscore\t0\t12\n"
    assert logan.parse_scores(text, 2).tolist() == [12, -3]
    with pytest.raises(ValueError, match="printed 2 scores"):
        logan.parse_scores(text, 3)
    with pytest.raises(ValueError, match="1 distinct pairs"):
        logan.parse_scores("score\t0\t1\nscore\t0\t2\n", 2)


def test_the_walk_kernel_is_timed_apart() -> None:
    launches = [("gather_segments", 1e-6, 1.0), ("iterative_walks_kernel", 2e-3, 5.0), ("revcomp_segments", 5e-7, 1.0)]
    total, n, walk = ht_loc.walk_apart(launches)
    assert n == 3 and total == pytest.approx(2.0015e-3) and walk == pytest.approx(2e-3)


def test_an_older_table_reads_with_the_new_columns_empty(tmp_path: Path) -> None:
    from lassm.runs import tables
    from lassm.runs.results import AGAINST_ORIGINAL_COLUMNS

    old = tmp_path / "t.csv"
    old.write_text(",".join(AGAINST_ORIGINAL_COLUMNS[:-2]) + "\n" + ",".join(["x"] * 14) + "\n")
    rows = tables.read_rows(old, AGAINST_ORIGINAL_COLUMNS)
    assert rows[0]["original_source"] == "" and rows[0]["machine"] == "x"
    other = tmp_path / "u.csv"
    other.write_text("machine,dataset\nx,y\n")
    from lassm.errors import InputError

    with pytest.raises(InputError, match="header"):
        tables.read_rows(other, AGAINST_ORIGINAL_COLUMNS)


# --- the whole main job's plan ------------------------------------------------------------------

def test_the_whole_plan_routes_names_to_their_part(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(originals, "blocked", lambda backend="cuda": [])  # as on a GPU node with nvcc
    plan = whole.make_whole_plan(Ask(backends=["cpu"], datasets=["sample-k21", "xdrop-short-5"], xdrops=[10]))
    assert plan.of("local-assembly").datasets == ("sample-k21",) and plan.of("local-assembly").backends == ("cpu",)
    assert plan.of("xdrop").datasets == ("xdrop-short-5",) and plan.of("xdrop").backends == ("cpu",)
    assert plan.of("originals").ht_loc_datasets == ("sample-k21",) and plan.of("originals").logan_dataset == "xdrop-short-5"
    only = whole.make_whole_plan(Ask(backends=["cpu"], datasets=["sample-k21"]))
    assert only.of("xdrop") is None and "no X-drop set" in only.left_out["xdrop"]
    full = whole.make_whole_plan(Ask(backends=["cpu"]))
    assert full.of("originals").ht_loc_datasets == ht_loc.DATASETS
    assert whole.make_whole_plan(Ask(backends=["cpu"], originals=False)).left_out["originals"] == "--no-originals"
    monkeypatch.setattr(originals, "blocked", lambda backend="cuda": ["originals: not run: no nvcc in this test"])
    off = whole.make_whole_plan(Ask(backends=["cpu"], datasets=["sample-k21"]))
    assert off.of("originals") is None and off.lacks == ["originals: not run: no nvcc in this test"]
    assert off.left_out["originals"] == "cannot run here: no nvcc in this test"


def test_a_part_left_out_says_so_once(results: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.cli import main

    assert main(["run", "--dry-run", "--backends", "cpu", "--datasets", "sample-k21", "--no-originals"]) == 0
    line, = (ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("== the original programs"))
    assert line == "== the original programs: left out: --no-originals"


def test_dry_run_names_every_part(results: Path, capsys: pytest.CaptureFixture) -> None:
    from lassm.cli import main

    assert main(["run", "--dry-run", "--backends", "cpu", "--datasets", "sample-k21,xdrop-short-5",
                 "--xdrops", "10"]) == 0
    out = capsys.readouterr().out
    assert "== local assembly\ndatasets  sample-k21" in out and "== X-drop\nkernel    xdrop" in out
    assert "== the original programs" in out
    assert ("cannot run here" in out) != ("LOGAN demo (albertozeni/LOGAN@" in out and "ht_loc (" in out)
    assert not results.exists()


# --- HeCBench's outputs: glibc's rand drawn again, the copies captured ----------------------------

def test_glibc_rand_is_drawn_again_exactly() -> None:
    import ctypes
    import ctypes.util

    from lassm.campaign.originals.hecbench_outputs import glibc_rand

    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "gnu_get_libc_version"):
        pytest.skip("no glibc here to compare with")
    for seed in (0, 2, 7, 100, 123):
        libc.srand(seed)
        want = [libc.rand() for _ in range(2000)]
        assert glibc_rand(seed, 2000).tolist() == want, f"srand({seed})"


def _linked(tmp_path: Path, body: str, lib: Path) -> Path:
    """``tmp_path/prog``: ``body`` (after stddef.h and stdio.h) built against the libcudart.so in ``lib``."""
    import subprocess

    (tmp_path / "prog.c").write_text("#include <stddef.h>\n#include <stdio.h>\n" + body)
    subprocess.run(["cc", str(tmp_path / "prog.c"), "-o", str(tmp_path / "prog"), f"-L{lib}", "-lcudart",
                    f"-Wl,-rpath,{lib}"], check=True)
    return tmp_path / "prog"


def test_the_capture_library_keeps_each_copy_in_call_order(tmp_path: Path) -> None:
    """A program linked against the shared CUDA runtime, with the capture library preloaded, leaves
    its host-to-device copy in a file (without a GPU the copy itself fails, after the file is written)."""
    import shutil
    import subprocess

    from lassm.campaign.originals import hecbench_outputs as ho

    homes = [Path(os.environ[v]) for v in build.NVCC_HOMES if os.environ.get(v)] + sorted(Path("/usr/local").glob("cuda*"))
    lib = next((h / "lib64" for h in homes if any((h / "lib64").glob("libcudart.so*"))), None)
    if lib is None or shutil.which("cc") is None:
        pytest.skip("no shared CUDA runtime (CUDA_HOME/lib64, /usr/local/cuda*/lib64) or C compiler here")
    shim = tmp_path / "libcapture.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(ho.SHIM), "-o", str(shim), "-ldl"], check=True)
    _linked(tmp_path, "int cudaMemcpy(void *, const void *, size_t, int);\n"
            "int main(void) { static const char data[] = \"ACGT-copied\"; char back[4];\n"
            "  int first = cudaMemcpy((void *)0x1000, data, sizeof data, 1);\n"
            "  int second = cudaMemcpy(back, (void *)0x1000, sizeof back, 3);\n"
            "  printf(\"%d %d\\n\", first, second); return 0; }\n", lib)
    out = tmp_path / "copies"
    out.mkdir()
    ho.capture(tmp_path / "prog", (), shim, out)
    h2d, d2h = ho.copies(out)
    assert [bytes(c) for c in h2d] == [b"ACGT-copied\0"] and d2h == []
    assert sorted(p.name for p in out.iterdir()) == ["0000-h2d.bin"], "a device-to-device copy is not kept"


def test_the_launch_gate_starts_the_profiler_before_the_launch_it_is_told(tmp_path: Path) -> None:
    """The gate, preloaded into a program linked against a runtime that logs its calls, starts the
    profiler once, just before launch number LASSM_PROFILE_AFTER (counting both entry points),
    and passes every launch through
    with its arguments (the grid by value); without the variable it never starts it."""
    import shutil
    import subprocess

    from lassm.campaign.originals import hecbench

    if shutil.which("cc") is None:
        pytest.skip("no C compiler here")
    (tmp_path / "rt.c").write_text(
        "#include <stdio.h>\n#include <stddef.h>\n"
        "typedef struct { unsigned x, y, z; } d3;\n"
        "static int show(const void *f, d3 g, d3 b, size_t s)\n"
        "{ printf(\"launch %ld %u %u %zu\\n\", (long)f, g.x, b.z, s); return 0; }\n"
        "int cudaLaunchKernel(const void *f, d3 g, d3 b, void **a, size_t s, void *st) { return show(f, g, b, s); }\n"
        "int __cudaLaunchKernel(const void *f, d3 g, d3 b, void **a, size_t s, void *st)\n"
        "{ printf(\"chevron \"); return show(f, g, b, s); }\n"
        "int cudaProfilerStart(void) { printf(\"start\\n\"); return 0; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", str(tmp_path / "rt.c"), "-o", str(tmp_path / "libcudart.so")], check=True)
    _linked(tmp_path, "typedef struct { unsigned x, y, z; } d3;\n"
            "int cudaLaunchKernel(const void *, d3, d3, void **, size_t, void *);\n"
            "int __cudaLaunchKernel(const void *, d3, d3, void **, size_t, void *);\n"
            "int main(void) { setvbuf(stdout, NULL, _IONBF, 0); for (long i = 0; i < 5; i++) {\n"
            "  d3 g = {7 + i, 1, 1}, b = {32, 1, 3};\n"
            "  (i % 2 ? __cudaLaunchKernel : cudaLaunchKernel)((const void *)i, g, b, NULL, 16 * i, NULL); }\n"
            "  return 0; }\n", tmp_path)
    gate = tmp_path / hecbench.GATE_LIBRARY
    subprocess.run(["cc", "-shared", "-fPIC", str(hecbench.GATE), "-o", str(gate), "-ldl"], check=True)
    # odd launches come by nvcc 13's entry point (the stand-in runtime marks them), each counted once
    launches = [f"{'chevron ' if i % 2 else ''}launch {i} {7 + i} 3 {16 * i}" for i in range(5)]
    prog = hecbench.PROGRAMS["nw"]
    for after, want in ((3, [*launches[:3], "start", *launches[3:]]), (0, ["start", *launches]), (9, launches)):
        env = {**os.environ, **hecbench.gate_env(prog, gate), "LASSM_PROFILE_AFTER": str(after)}
        out = subprocess.run([str(tmp_path / "prog")], env=env, capture_output=True, text=True, check=True).stdout
        assert out.splitlines() == want, after
    plain = subprocess.run([str(tmp_path / "prog")], env={**os.environ, "LD_PRELOAD": str(gate)},
                           capture_output=True, text=True, check=True).stdout
    assert plain.splitlines() == launches


def test_a_gated_profiled_run_leaves_the_skip_to_the_gate() -> None:
    """nw-cuda's plan skips its 204,700 warm-up launches: gated, ncu starts at the program's
    cudaProfilerStart and is told no skip; the recorded command says how it ran."""
    from lassm.campaign.originals import hecbench

    prog = hecbench.PROGRAMS["nw"]
    gated = hecbench.ncu_command(prog, "ncu", None, Path("/b/nw"), gated=True)
    assert "--profile-from-start off" in " ".join(gated) and "--launch-skip" not in gated
    assert "--launch-count 2047" in " ".join(gated)
    assert hecbench.gate_env(prog, Path("/b/liblaunch_gate.so")) == {"LD_PRELOAD": "/b/liblaunch_gate.so",
                                                                    "LASSM_PROFILE_AFTER": "204700"}
    plain = hecbench.ncu_command(prog, "ncu", None, Path("/b/nw"))
    assert "--launch-skip 204700" in " ".join(plain) and "--profile-from-start" not in plain
    minkowski = hecbench.PROGRAMS["minkowski"]  # skips nothing: no gate
    assert "--profile-from-start" not in hecbench.ncu_command(minkowski, gated=True)


def test_side_by_side_runs_take_turns(tmp_path: Path) -> None:
    """timing.interleaved: one untimed run of each, then rounds in alternating order (A B, B A, ...),
    each run's seconds and output kept in order; without warm-up, no untimed run."""
    from lassm.campaign.originals.timing import interleaved

    log = tmp_path / "order.txt"
    cmds = {name: [sys.executable, "-c", f"open({str(log)!r}, 'a').write('{name}'); print('{name}')"]
            for name in ("A", "B")}
    got = interleaved(cmds, 3)
    assert log.read_text() == "AB" + "AB" + "BA" + "AB"
    assert [out.strip() for _s, out in got["A"]] == ["A"] * 3 and all(s > 0 for s, _o in got["B"])
    log.unlink()
    interleaved(cmds, 2, warm=False)
    assert log.read_text() == "ABBA"


def test_an_ncu_plan_makes_one_iteration_of_its_launches() -> None:
    """Nsight Compute's launches become one iteration: each group's median, then the groups summed
    (one iteration's launches) or the fastest taken (alternative kernels); a short profile is refused."""
    from lassm.campaign.originals import hecbench

    alternatives = hecbench.NcuPlan(("5",), groups=3, per_group=3, combine="min")
    names = ["k1"] * 3 + ["k2"] * 3 + ["k3"] * 3
    assert alternatives.seconds([5, 1, 4, 3, 9, 2, 6, 7, 8], names) == (3, "k2")
    launches = hecbench.NcuPlan(("1",), groups=4, per_group=1)
    assert launches.seconds([1.0, 2.0, 3.0, 4.0], ["a", "b", "a", "b"]) == (10.0, "a;b")
    with pytest.raises(ValueError, match="3 launches, 4 expected"):
        launches.seconds([1.0, 2.0, 3.0], ["a"] * 3)
    assert hecbench.PROGRAMS["nw"].ncu.skip == 100 * 2047  # nw-cuda's own warm-up, not profiled


def test_cm_cuda_under_ncu_reads_its_data_set_and_sums_its_thirty_launches() -> None:
    """cm-cuda's profiled run is given the data set's folder, and its one iteration is all ten drugs'
    three launches summed (Jin and Vetter's 10^6 signatures, as ours score them in one run)."""
    from lassm.campaign.originals import hecbench

    prog = hecbench.PROGRAMS["cmap"]
    cmd = hecbench.ncu_command(prog, "ncu", None, Path("/b/cmap"), ("/t/cudamap-synthetic",))
    assert cmd[-3:] == ["--", "/b/cmap", "/t/cudamap-synthetic"] and cmd[cmd.index("--launch-count") + 1] == "30"
    names = ["computeDotProductHelper", "computeRandomConnectionScores", "countAboveThresholdHelper"] * 10
    seconds, kernels = prog.ncu.seconds([1.0, 10.0, 2.0] * 9 + [1.0, 10.0, 3.0], names)
    assert seconds == 131.0 and kernels == ";".join(sorted(set(names)))


def test_the_ncu_columns_read_thousands_separators(tmp_path: Path) -> None:
    """Nsight Compute writes ``"68,000"`` (ns) in its raw CSV: read as 68 us, never refused or misread;
    all-pairs keeps the fastest of its three kernels' medians."""
    from lassm.campaign.originals import hecbench

    lines = ['==PROF== Connected to process 1 (all_pairs)', '"ID","Kernel Name","gpu__time_duration.sum"',
             '"","","ns"']
    times = {"k1": ["68,000", "66,976", "67,040", "67,136", "67,104"], "k2": ["65,792"] * 5,
             "k3": ["64,224", "64,256", "64,320", "64,416", "1,064,416"]}
    n = 0
    for name, values in times.items():
        for v in values:
            lines.append(f'"{n}","{name}(const char *, int *)","{v}"')
            n += 1
    raw = tmp_path / "raw.csv"
    raw.write_text("\n".join(lines) + "\n")
    cols = hecbench.ncu_columns(raw, hecbench.PROGRAMS["all_pairs"])
    assert cols["ncu_seconds"] == pytest.approx(64.32e-6) and cols["ncu_kernels"].startswith("k3(")
    assert "--launch-count 15" in cols["ncu_command"] and cols["ncu_command"].endswith("all-pairs-distance-cuda 5")


def test_a_program_checked_behind_frees_the_gpu_once_it_prints_its_time(tmp_path: Path) -> None:
    """epistasis-cuda's minutes of CPU check run while the next programs are measured: the start
    returns at its time line, the output waits for the rest, and a failure still raises."""
    from lassm.campaign.originals import hecbench
    from lassm.errors import LassmError

    slow = tmp_path / "slow-check"
    go = tmp_path / "go"  # the check ends once the test says so, not after a time that a busy box may exceed
    slow.write_text("#!/bin/sh\necho setting up\necho 'Average kernel execution time: 0.005 (s)'\n"
                    f"while [ ! -e '{go}' ]; do sleep 0.01; done\necho PASS\n")
    slow.chmod(0o755)
    run = hecbench._Started(slow, (), tmp_path / "none.so", tmp_path, 30.0)
    assert run.proc.poll() is None  # back before the check ends: it cannot end before the go
    go.touch()
    text = run.output()
    assert run.proc.returncode == 0 and text.splitlines() == ["setting up", "Average kernel execution time: 0.005 (s)",
                                                              "PASS"]
    assert hecbench.PROGRAMS["epistasis"].seconds(text) == 0.005
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho 'Average kernel execution time: 0.005 (s)'\necho broken >&2\nexit 3\n")
    bad.chmod(0o755)
    with pytest.raises(LassmError, match="exited 3: .*broken"):
        hecbench._Started(bad, (), tmp_path / "none.so", tmp_path, 30.0).output()
    hung = tmp_path / "hung"
    hung.write_text("#!/bin/sh\necho 'Average kernel execution time: 0.005 (s)'\nsleep 30\n")
    hung.chmod(0o755)
    with pytest.raises(LassmError, match="ran past 1 s"):
        hecbench._Started(hung, (), tmp_path / "none.so", tmp_path, 1.0).output()


def test_a_program_is_ended_once_its_result_is_copied_back(tmp_path: Path) -> None:
    """epistasis-cuda's CPU check (more than five minutes) is not waited for: the program is ended
    once its scores' copy back is written whole, and what it printed until then is its output."""
    import time

    from lassm.campaign.originals import hecbench

    slow = tmp_path / "slow-check"
    slow.write_text("#!/bin/sh\necho 'Average kernel execution time: 0.005 (s)'\nsleep 1\n"
                    "head -c 4096 /dev/zero > \"$LASSM_CAPTURE/0003-d2h.bin\"\nsleep 60\necho PASS\n")
    slow.chmod(0o755)
    t0 = time.monotonic()
    run = hecbench._Started(slow, (), tmp_path / "none.so", tmp_path, 30.0, end_after=4096)
    text = run.output()
    assert time.monotonic() - t0 < 10 and text.strip() == "Average kernel execution time: 0.005 (s)"
    assert (tmp_path / "0003-d2h.bin").stat().st_size == 4096
    assert hecbench.ENDED_AFTER_COPY["epistasis"](hecbench.PROGRAMS["epistasis"].args) == 4096 * 4096 * 4


def test_the_programs_a_plan_runs_are_built_behind_an_earlier_part(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """build_behind builds, in a thread, each program the plan runs (HeCBench's for its kernels, ht_loc
    for its datasets, LOGAN for its set), none it does not; a failing source leaves the rest built."""
    from lassm.campaign import originals as orig
    from lassm.campaign.originals import hecbench

    built: list[tuple] = []
    monkeypatch.setattr(build, "gpu_arch", lambda: "sm_90")
    monkeypatch.setattr(build, "require_nvcc", lambda nvcc=None: "nvcc")

    def locate(source, folder=None, fetch=True):
        if source.name == "LOGAN" and folder == "broken":
            raise orig.SourceUnavailable("not here")
        return tmp_path / source.name

    monkeypatch.setattr(orig.sources, "locate", locate)
    monkeypatch.setattr(build, "build_ht_loc", lambda tree, arch: built.append(("ht_loc", arch)))
    monkeypatch.setattr(build, "build_logan", lambda tree, arch: built.append(("logan", arch)))
    monkeypatch.setattr(hecbench, "build_all", lambda tree, arch, nvcc, kernels: built.append(("hecbench", tuple(kernels))))
    plan = orig.OriginalsPlan(ht_loc_datasets=("sample-k77",), logan_dataset=None, xdrops=(), suite_kernels=("nw",))
    orig.build_behind(plan).join(30)
    assert sorted(built) == [("hecbench", ("nw",)), ("ht_loc", "sm_90")]
    built.clear()
    plan = orig.OriginalsPlan(ht_loc_datasets=("sample-k77",), logan_dataset="xdrop-sim-20k", xdrops=(10,),
                              folder="broken")
    orig.build_behind(plan).join(30)
    assert built == [("ht_loc", "sm_90")]


def test_several_lassm_commands_are_timed_in_one_profiled_process(tmp_path: Path) -> None:
    """timing.lassm_kernel_times: one ncu session for every command (the commands runner as its
    target, the boundary let through the kernel filter), its CSV cut into each command's launches;
    a command the runner names as failed gets none."""
    import csv
    import json

    from lassm.analysis.counters import ncu_batch, ncu
    from lassm.campaign.originals import timing

    fixture = paths.REPO / "tests" / "fixtures" / "counters" / "ncu_raw_h200_lassm_k77_casptr_measured.csv"
    lines, at, header = ncu.lines_and_header(fixture)
    cut = dict(zip(header, next(csv.reader([lines[-1]]))), **{"Kernel Name": ncu_batch.BOUNDARY})
    boundary = ",".join(f'"{cut[c]}"' for c in header)
    session = tmp_path / "session.csv"
    session.write_text("\n".join([*lines, boundary, boundary, *lines[at + 2:], boundary]) + "\n")
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\n"
                    f'echo "$@" >> "{tmp_path}/calls"\n'
                    'for a in "$@"; do last="$a"; done\n'
                    f'if [ -n "$FAIL_SECOND" ]; then echo \'{{"1": "lassm extend exited 2"}}\' > "$last"; fi\n'
                    f'while [ $# -gt 0 ]; do if [ "$1" = "--log-file" ]; then cp "{session}" "$2"; fi; shift; done\n')
    fake.chmod(0o755)
    cmds = [[sys.executable, "-m", "lassm", "extend", f"d{i}.dat", "--k", "77"] for i in range(3)]
    got = timing.lassm_kernel_times(cmds, str(fake), tmp_path / "ncu.csv", clock_control="none",
                                    kernel="iterative_walks_kernel")
    one = timing._launches(fixture.read_text())
    assert len(one) >= 1 and got == [one, [], one], "the second command launched nothing before its boundary"
    call = (tmp_path / "calls").read_text().splitlines()
    assert len(call) == 1 and "lassm.cli.profiled" in call[0] and ncu_batch.BOUNDARY in call[0]
    assert json.dumps([c[3:] for c in cmds]) in call[0].replace("\\", "")
    os.environ["FAIL_SECOND"] = "1"
    try:
        got = timing.lassm_kernel_times(cmds, str(fake), tmp_path / "ncu.csv")
    finally:
        del os.environ["FAIL_SECOND"]
    assert got[1] == [] and got[0] == got[2] == one

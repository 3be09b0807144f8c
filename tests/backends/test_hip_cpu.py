# SPDX-License-Identifier: BSD-3-Clause
"""The hip-cpu backend: our HIP kernels executed by ROCm's HIP-CPU runtime, against the CPU oracle.

What runs, at wavefront 64 (HIP-CPU's, and CDNA's) and 32 (RDNA's, as half of HIP-CPU's 64-lane
wavefront): the faithful protocols that wait only at barriers (casptr, doneflag, barrier), fast
with its block teams (several wavefronts a block at 64), its lane walks (fast-lanes8) and its
sorted build (fast-sorted, which fast itself launches at k = 21), and
LOGAN's X-drop kernel. Each is checked bit for bit against the numba oracle on a slice of
MetaHipMer's sample and of the real-genome mock5 sets; ``lassm extend`` with fast gives
MetaHipMer's own output for the whole sample. What cannot run is refused with its reason, and the
two reasons that are HIP-CPU's scheduling are shown true: the launch does not finish, and the
driver's time limit stops it.

Needs g++, Debian's ``libtbb-dev`` and the pinned HIP-CPU (``make hip-cpu``, or ``LASSM_HIP_CPU``
naming a copy); without them those tests skip, naming what is missing. The drivers are built once
into ``LASSM_CACHE`` (about 4 s each on a 2-core machine), then reused.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, cli, extend, paths
from lassm.backends import hip_cpu, hip_cpu_build, launch, nvrtc, pinned
from lassm.backends.cuda import TEAM_MIN_BASES
from lassm.backends.sides import Side
from lassm.backends.xdrop import xdrop_cpu as xcpu
from lassm.backends.xdrop import xdrop_hip_cpu as xhip
from lassm.book import ran_where as rw
from lassm.errors import LassmError
from lassm.workloads.local_assembly import formats
from lassm.workloads.xdrop.scoring import Scoring

from .. import helpers

OK, WHY = hip_cpu_build.available()
needs_hip_cpu = pytest.mark.skipif(not OK, reason=f"needs the hip-cpu backend: {WHY}")
ROOT = Path(__file__).resolve().parents[2]
#: The builds run here, each at the wavefronts it allows: (protocol, warp size).
RUNS = [(p, ws) for ws in hip_cpu.WARP_SIZES for p in ("casptr", "doneflag", "barrier", "fast", "fast-lanes8", "fast-sorted")
        if hip_cpu.refused(p, ws) is None]


def _heavy(ds, n: int = 2) -> np.ndarray:
    """The first ``n`` contigs with a side heavy enough for a block team (fast's team path)."""
    side_bytes = [s.offsets[s.contig_offsets[1:]] - s.offsets[s.contig_offsets[:-1]] for s in (ds.left, ds.right)]
    return np.flatnonzero(np.maximum(*side_bytes) >= TEAM_MIN_BASES)[:n]


def _slice(ds, step: int):
    """Every ``step``-th contig with reads, and two heavy ones."""
    has = np.flatnonzero((ds.left.counts > 0) | (ds.right.counts > 0))
    return ds.subset(np.union1d(has[::step], _heavy(ds)))


@functools.lru_cache(maxsize=None)
def _data(name: str):
    """(dataset, start k): a slice of the k = 77 sample, or of a mock5 set."""
    if name == "sample-k77":
        return _slice(formats.read_dat(paths.sample("k77")), 15), 77
    k = int(name.rsplit("k", 1)[1])
    return _slice(formats.read_parquet(ROOT / "data" / "real" / f"real-mock5-k{k}.parquet"), 25 if k == 21 else 8), k


@functools.lru_cache(maxsize=None)
def _oracle(name: str):
    ds, k = _data(name)
    return extend(ds, Params(k=k), backend="cpu")


# --------------------------------------------------------------------------- anywhere

def test_hip_cpu_is_pinned_file_by_file() -> None:
    """A full commit, and a SHA-256 for the shim's runtime header and HIP-CPU's fibers and launches."""
    src = hip_cpu_build.HIP_CPU
    assert len(src.commit) == 40 and src.repo == "ROCm/HIP-CPU" and list(src.files)[0] == "include/hip/hip_runtime.h"
    for rel in ("src/include/hip/detail/tile.hpp", "src/include/hip/detail/intrinsics.hpp",
                "include/hip/hip_constants.h", "external/libco/amd64.inl"):
        assert len(src.files[rel]) == 64, rel
    assert src.folder_env == "LASSM_HIP_CPU" and src.cached().parent == paths.cache_dir() / "hip-cpu"


def test_a_folder_that_is_not_the_pinned_tree_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "HIP-CPU"
    for rel in hip_cpu_build.HIP_CPU.files:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("// not HIP-CPU\n")
    monkeypatch.setenv("LASSM_HIP_CPU", str(tmp_path))
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(hip_cpu_build, "tbb_missing", lambda: "")  # the tree is what is checked, TBB or not
    with pytest.raises(pinned.SourceUnavailable, match=r"include/hip/hip_runtime.h differs"):
        hip_cpu_build.source()
    ok, why = hip_cpu_build.available()
    assert not ok and "is not ROCm/HIP-CPU@e112c9350574" in why


def test_without_a_copy_or_a_cache_it_says_how_to_get_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LASSM_HIP_CPU", raising=False)
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path / "cache"))
    with pytest.raises(pinned.SourceUnavailable, match=r"make hip-cpu.*set LASSM_HIP_CPU"):
        hip_cpu_build.source()
    monkeypatch.setenv("CXX", "no-such-compiler")
    assert hip_cpu_build.available() == (False, "no C++ compiler (no-such-compiler) on PATH")


def test_make_hip_cpu_says_why_it_could_not_and_succeeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    """``make hip-cpu`` (``python -m lassm.backends.hip_cpu_build``) offline: one line naming the
    download that failed and the folder to use instead, and exit 0 so that ``make test`` goes on."""
    import socket

    with socket.socket() as s:  # a local port nobody listens on: the download is refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(pinned.URL_ENV, f"http://127.0.0.1:{port}")
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LASSM_HIP_CPU", raising=False)
    assert hip_cpu_build.main() == 0
    out = capsys.readouterr().out
    assert out.startswith("hip-cpu: not set up: HIP-CPU: ") and "cannot be downloaded here" in out
    assert "LASSM_HIP_CPU=DIR" in out and not (tmp_path / "cache" / "hip-cpu" / "HIP-CPU-e112c9350574").exists()


@pytest.mark.parametrize("protocol, warp_size, reason", [
    ("matchany", 64, "__match_any_sync"),
    ("doneflag", 32, "__all, which HIP-CPU counts over its 64-lane wavefront"),
    ("casptr", 16, "neither it nor its half"),
    ("nonesuch", 64, "unknown protocol"),
])
def test_what_cannot_run_is_refused_with_its_reason(protocol: str, warp_size: int, reason: str) -> None:
    assert reason in hip_cpu.refused(protocol, warp_size)
    ds = helpers.random_dataset(1, n=3)
    with pytest.raises(ValueError, match="hip-cpu: "):  # before any build: no HIP-CPU needed
        hip_cpu.extend_side(Side(ds.seqs, ds.offsets, ds.depths, ds.right, ds.with_reads_mask(), Params(k=21)),
                            protocol=protocol, warp_size=warp_size)


def test_every_build_of_hip_runs_at_64_and_all_but_doneflag_at_32() -> None:
    assert [p for p in hip_cpu.PROTOCOLS if hip_cpu.refused(p, 64)] == []
    assert [p for p in hip_cpu.PROTOCOLS if hip_cpu.refused(p, 32)] == ["doneflag"]


def test_a_block_is_one_team() -> None:
    """Block teams of several wavefronts at 64; of one where a team's code is one wavefront's, or
    at 32, where HIP-CPU's narrow shuffles miss the upper half of its wavefront."""
    assert hip_cpu.team_warps("fast", 64, 4) == 4
    assert hip_cpu.team_warps("fast-spec", 64, 4) == hip_cpu.team_warps("fast", 32, 4) == 1


# --------------------------------------------------------------------------- on HIP-CPU

@needs_hip_cpu
@pytest.mark.parametrize("protocol, warp_size", RUNS, ids=[f"{p}-w{w}" for p, w in RUNS])
@pytest.mark.parametrize("name", ["sample-k77", "mock5-k21", "mock5-k77"])
def test_matches_the_oracle(name: str, protocol: str, warp_size: int, ran_where) -> None:
    ds, k = _data(name)
    got = extend(ds, Params(k=k), backend="hip-cpu", protocol=protocol, warp_size=warp_size)
    assert got.compare(_oracle(name)) == [] and got.lines() == _oracle(name).lines()
    info = got.right.extra
    assert info.device == f"HIP-CPU (wavefront {warp_size})" and info.warp_size == warp_size
    ran_where(rw.build_of("local-assembly", "hip-cpu", protocol), rw.platform_of("hip-cpu", info.device))
    launches = info.launches
    assert got.right.kernel_seconds > 0 and all(lc["threads"] % warp_size == 0 for lc in launches)
    assert info.build == nvrtc.launch_build(protocol, k)  # fast at k = 21: its sorted build
    if protocol in ("fast", "fast-lanes8", "fast-sorted"):  # the team path ran: the heavy ends, a block each
        teams = [lc for lc in launches if lc["block_teams"]]
        assert teams and teams[0]["threads"] == hip_cpu.team_warps(info.build, warp_size, 4) * warp_size
    if protocol == "fast-lanes8":  # the lane path: eight ends to a one-warp block
        rest = [lc for lc in launches if not lc["block_teams"]][0]
        assert rest["blocks"] == launch.ceil_div(rest["contigs"], 8) and rest["threads"] == warp_size


@needs_hip_cpu
@pytest.mark.parametrize("warp_size", hip_cpu.WARP_SIZES)
def test_the_sorted_table_of_two_word_records_matches_the_oracle(warp_size: int) -> None:
    """fast at k = 33 sorts records of two words (k-mers past 30 bases), and its walks take them."""
    ds, k = _data("mock5-k33")
    got = extend(ds, Params(k=k), backend="hip-cpu", protocol="fast", warp_size=warp_size)
    assert got.right.extra.build == "fast-sorted"
    assert got.compare(_oracle("mock5-k33")) == [] and got.lines() == _oracle("mock5-k33").lines()


@needs_hip_cpu
def test_extend_with_fast_gives_metahipmers_output(tmp_path: Path) -> None:
    """The whole sample from the command line equals MetaHipMer's own output, byte for byte."""
    out = tmp_path / "extended.txt"
    assert cli.main(["extend", str(paths.sample("k77")), "--k", "77", "--backend", "hip-cpu", "--protocol", "fast",
                     "--out", str(out)]) == 0
    assert out.read_bytes() == paths.sample_reference("k77").read_bytes()


@needs_hip_cpu
def test_a_second_build_is_the_cached_one() -> None:
    first = hip_cpu.driver("casptr", 64)
    stamp = first.stat().st_mtime_ns
    assert hip_cpu.driver("casptr", 64) == first and first.stat().st_mtime_ns == stamp
    assert hip_cpu.driver("casptr", 32) != first  # the warp width is part of the key


#: The time limit of a launch that never ends: the test waits it out whole, so it is short. The same
#: contig, launched as the backend plans it, finishes in a fraction of a second (driver start
#: included), so a launch still running after this is one that does not end.
NEVER_SECONDS = 2.0


@needs_hip_cpu
@pytest.mark.parametrize("protocol, warp_size, block_warps", [("doneflag", 32, 1), ("fast", 32, 2)],
                         ids=["doneflag-w32-vote", "fast-w32-two-warp-team"])
def test_what_hip_cpu_cannot_schedule_never_finishes(protocol: str, warp_size: int, block_warps: int) -> None:
    """The refusals are true: doneflag's vote at 32 never agrees, and in a block team of two 32-lane
    warps the upper warp's shuffles give its lanes their own values back, so fast's prefix sums
    never end. The driver runs in a child process and is stopped at its time limit: the suite
    never hangs. (The same contig finishes at once where the backend plans the launch.)"""
    sample = formats.read_dat(paths.sample("k77"))
    one = sample.subset(_heavy(sample, 1))
    side = max((one.left, one.right), key=lambda s: int(s.lengths.sum()))
    fast = protocol in hip_cpu.VARIANTS
    slots = (launch.fast_table_slots if fast else launch.table_slots)(side.counts.astype(np.int64),
                                                                     int(side.lengths.max()))
    with pytest.raises(hip_cpu_build.LaunchTimeout, match=f"did not finish in {NEVER_SECONDS:g} s"):
        hip_cpu.launch_ends(hip_cpu.Driver(hip_cpu.driver(protocol, warp_size), protocol, warp_size, NEVER_SECONDS),
                            Side(one.seqs, one.offsets, one.depths, side, one.with_reads_mask(), Params(k=77)),
                            np.array([0]), slots, block_warps, fast)


@needs_hip_cpu
def test_xdrop_matches_the_oracle(ran_where) -> None:
    """LOGAN's pairs (scaled) with LOGAN's block of 128 threads: two of HIP-CPU's wavefronts."""
    from .test_xdrop_gpu import logan_like, oracle

    pairs, scoring = logan_like(), Scoring(xdrop=20)
    got = xhip.align(pairs, scoring)
    assert not oracle(pairs, scoring).differences(got)
    assert got.extra.device == "HIP-CPU (wavefront 64)" and got.extra.kernel_seconds > 0
    ran_where("xdrop-cuda", rw.platform_of("hip-cpu", got.extra.device))


@needs_hip_cpu
def test_xdrop_edge_cases_odd_blocks_and_slices_match_the_oracle() -> None:
    """Short pairs and every corner (empty reads and seeds, seeds at the ends), in blocks of 7
    threads (a part of a wavefront), whole and sliced into several launches."""
    from .test_xdrop_gpu import edge_cases, oracle, random_pairs

    for pairs, scoring in ((random_pairs(), Scoring(2, -3, -2, xdrop=10)), (edge_cases(), Scoring(xdrop=3))):
        whole, split = xhip.align(pairs, scoring, group=7), xhip.align(pairs, scoring, group=7, max_bytes=1_000)
        assert not oracle(pairs, scoring).differences(whole) and not whole.differences(split)
        assert split.extra.launches > whole.extra.launches == 1


@needs_hip_cpu
@pytest.mark.parametrize("warp,group", ((64, 64), (32, 32), (32, 64)))
def test_xdrop_warps_layout_matches_the_oracle(warp: int, group: int) -> None:
    """The wide-band block of the ``warps`` plan, its tasks longest first: one 64-lane wavefront,
    one 32-lane warp, and two 32-lane warps whose values meet in shared memory; its anti-diagonals
    in shared memory, and with a stride of 8 started again on global scratch when a band outgrows
    it. Scores, ends and cells are the oracle's."""
    from .test_xdrop_gpu import edge_cases, random_pairs

    cases = [(random_pairs(), Scoring(2, -3, -2, xdrop=10)), (edge_cases(), Scoring(xdrop=3)),
             (random_pairs(), Scoring(1, -2, -1, xdrop=5))]  # the last one wraps around, as the oracle does
    for pairs, scoring in cases:
        want = xcpu.align(pairs, scoring)
        for stride in (None, 8):
            got = xhip.align(pairs, scoring, layout="warps", group=group, block=xhip.WideBlock(warp, stride))
            assert not want.differences(got) and got.extra.cells == want.extra.cells, (scoring, stride)
            assert got.extra.plan == "warps" and got.extra.warp == warp


@needs_hip_cpu
def test_xdrop_warps_layout_on_wide_bands_matches_the_oracle() -> None:
    """LOGAN's pairs (scaled) at X = 1000, bands of hundreds of cells: in shared memory, and started
    again on global scratch from a stride of 64, in two 32-lane warps."""
    from .test_xdrop_gpu import logan_like

    pairs, scoring = logan_like(), Scoring(xdrop=1000)
    want = xcpu.align(pairs, scoring)
    for stride in (None, 64):
        got = xhip.align(pairs, scoring, layout="warps", group=64, block=xhip.WideBlock(32, stride))
        assert not want.differences(got) and got.extra.cells == want.extra.cells
    with pytest.raises(ValueError, match="at most 64"):
        xhip.driver(128, 64, 1024)


@needs_hip_cpu
def test_a_failing_driver_says_why(tmp_path: Path) -> None:
    """A driver refuses buffers that disagree, and the backend shows its message."""
    exe = hip_cpu.driver("casptr", 64)
    (tmp_path / "ctg_off.bin").write_bytes(np.zeros(3, np.int64).tobytes())
    with pytest.raises(LassmError, match="failed on HIP-CPU .*cannot open .*ctg_seqs.bin"):
        hip_cpu_build.run(exe, (tmp_path, 2, 21, 10, 33, 144, 0, 2, 64, 0, 20, 304), 60, "a broken launch")

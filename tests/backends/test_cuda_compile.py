# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA kernel compiles with NVRTC for every protocol and architecture, with no GPU.

Also covers the host side of the GPU backends that needs no device: launch geometry, binning,
slicing and gathering (:mod:`lassm.backends.launch`), and the clear refusal when CuPy is absent.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lassm import backends
from lassm.backends import nvrtc
from lassm.backends import launch
from lassm.errors import BackendUnavailable
from lassm.paths import kernel_source
from lassm.workloads.local_assembly.figures import SideFigures

#: Each NVRTC compile once, kept between runs and clones (tests/conftest.py): this module and the
#: other compile tests ask for the same builds.
pytestmark = pytest.mark.usefixtures("nvrtc_compiled_once")

needs_nvrtc = pytest.mark.skipif(
    nvrtc.find_library() is None,
    reason="NVRTC is not installed (pip install nvidia-cuda-nvrtc-cu12, part of the 'test' extra)",
)


@needs_nvrtc
@pytest.mark.parametrize("arch", nvrtc.ARCHS)
@pytest.mark.parametrize("protocol", list(nvrtc.BUILDS))
def test_kernel_compiles(arch: str, protocol: str) -> None:
    results = nvrtc.check_kernel(archs=[arch], protocols=[protocol], warp_sizes=(32,))
    assert len(results) == 1 and results[0].ptx_bytes > 0
    assert "warning" not in results[0].log.lower(), results[0].log


@needs_nvrtc
@pytest.mark.parametrize("protocol", ["casptr", "doneflag", "barrier", "fast"])
def test_kernel_compiles_for_64_lane_wavefronts(protocol: str) -> None:
    """The HIP build's 64-lane code path type-checks (NVRTC stands in for hipRTC here)."""
    results = nvrtc.check_kernel(archs=["compute_90"], protocols=[protocol], warp_sizes=(64,))
    assert len(results) == 1


@needs_nvrtc
@pytest.mark.parametrize("protocol", nvrtc.PUBLISHED)
def test_published_forms_compile(protocol: str) -> None:
    """The racy published forms build too (for the study of what the fixes cost)."""
    ptx, _ = nvrtc.compile_build(protocol, "compute_90", published=True)
    assert f".entry {nvrtc.ENTRY}" in ptx


@needs_nvrtc
@pytest.mark.parametrize("protocol", ["casptr", "barrier", "fast"])
def test_no_published_form(protocol: str) -> None:
    with pytest.raises(nvrtc.NvrtcError, match="published"):
        nvrtc.compile_build(protocol, "compute_90", extra=["-DLASSM_PUBLISHED=1"])
    with pytest.raises(ValueError, match="published"):
        nvrtc.kernel_options(protocol, 32, published=True)


@needs_nvrtc
def test_matchany_refuses_wide_warps() -> None:
    with pytest.raises(nvrtc.NvrtcError, match="match-any"):
        nvrtc.compile_build("matchany", "compute_90", 64)


@needs_nvrtc
def test_nvidia_refuses_wide_warps_by_default() -> None:
    source = kernel_source(nvrtc.kernel_file("casptr")).read_text()
    opts = [*nvrtc.kernel_options("casptr", 64), *nvrtc.include_options(), "--gpu-architecture=compute_90"]
    with pytest.raises(nvrtc.NvrtcError, match="32 lanes"):
        nvrtc.compile_ptx(source, opts)


@needs_nvrtc
@pytest.mark.parametrize("kernel", [nvrtc.FAITHFUL_KERNEL, nvrtc.FAST_KERNEL])
def test_kernel_compiles_with_its_own_defaults(kernel: str) -> None:
    """No -D option at all: every knob has a default in the source."""
    ptx, _ = nvrtc.compile_ptx(kernel_source(kernel).read_text(), [*nvrtc.include_options(), "--gpu-architecture=compute_80"])
    assert f".entry {nvrtc.ENTRY}" in ptx


@needs_nvrtc
def test_fast_leaves_the_faithful_kernel_alone() -> None:
    """The fast variant lives in its own file, behind its own protocol value: the faithful
    protocols' PTX does not contain its code, and each file refuses the other's protocol."""
    from lassm.backends import cuda

    assert nvrtc.BUILDS["fast"] == "LASSM_PROTO_FAST" and "fast" not in nvrtc.PROTOCOLS
    assert "fast" in cuda.PROTOCOLS and "fast" in nvrtc.check_kernel.__defaults__[1]
    assert nvrtc.kernel_file("fast-reset") == nvrtc.FAST_KERNEL and nvrtc.kernel_file("barrier") == nvrtc.FAITHFUL_KERNEL
    fast, _ = nvrtc.compile_build("fast", "compute_90")
    casptr, _ = nvrtc.compile_build("casptr", "compute_90")
    assert fast != casptr and "shfl.sync.bfly" in fast and "shfl.sync.bfly" not in casptr
    for kernel, macro, error in ((nvrtc.FAITHFUL_KERNEL, "LASSM_PROTO_FAST", "fast.cu"),
                                 (nvrtc.FAST_KERNEL, "LASSM_PROTO_CASPTR", "faithful.cu")):
        with pytest.raises(nvrtc.NvrtcError, match=error):
            nvrtc.compile_ptx(kernel_source(kernel).read_text(),
                              [f"-DLASSM_PROTOCOL={macro}", *nvrtc.include_options(), "--gpu-architecture=compute_90"])


def test_fast_table_slots() -> None:
    from lassm.backends import cuda

    slots = cuda.fast_table_slots(np.array([0, 1, 12, 3, 2**20], dtype=np.int64), 150)
    assert slots.tolist() == [1, 256, 2048, 512, 2**28]
    assert cuda.fast_table_slots(np.array([1, 2], dtype=np.int64), 128).tolist() == [128, 256]


def test_kernel_options() -> None:
    opts = nvrtc.kernel_options("doneflag", 64)
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_DONEFLAG" in opts and "-DWARP_SIZE=64" in opts
    assert "-DLASSM_MIN_VIABLE_DEPTH=0.2" in opts and "--std=c++17" in opts
    with pytest.raises(ValueError, match="unknown protocol"):
        nvrtc.kernel_options("spinlock", 32)


def test_slot_size_matches_kernel() -> None:
    source = kernel_source(f"{nvrtc.KERNEL_DIR}/common.cuh").read_text()
    assert f"#define LASSM_SLOT_BYTES {launch.SLOT_BYTES}" in source


# --- host side of the GPU backends -------------------------------------------------------------

def test_geometry() -> None:
    assert launch.geometry(10, 3, 32) == ((4,), (96,))
    assert launch.geometry(0, 4, 64) == ((1,), (256,))
    assert launch.geometry(10, 3, 32, n_team=4) == ((6,), (96,))  # 4 team blocks + ceil(6 / 3)
    assert launch.geometry(10, 4, 32, n_team=10) == ((10,), (128,))
    with pytest.raises(ValueError, match="n_team"):
        launch.geometry(3, 4, 32, n_team=4)
    with pytest.raises(ValueError):
        launch.geometry(5, 0, 32)


def test_bins() -> None:
    counts = np.array([0, 1, 9, 10, 25, 0, 3], dtype=np.int64)
    mask = np.array([False, True, True, True, True, True, False])
    got = {label: idx.tolist() for label, idx in launch.bins(mask, counts)}
    assert got == {"1-9": [1, 2, 5], ">=10": [3, 4]}  # 5: reads on the other side only
    assert launch.bins(np.zeros(3, bool), np.ones(3, np.int64)) == []


def test_slices_cover_in_order_and_fit() -> None:
    rng = np.random.default_rng(7)
    nbytes = rng.integers(1, 1000, size=200).astype(np.int64)
    budget = 5000
    parts = launch.slices(nbytes, budget, fixed=100)
    assert parts[0][0] == 0 and parts[-1][1] == 200
    assert all(a < b for a, b in parts) and all(parts[i][1] == parts[i + 1][0] for i in range(len(parts) - 1))
    for a, b in parts:
        assert b - a == 1 or nbytes[a:b].sum() <= budget - 100
    assert launch.slices(np.array([10**9, 5], dtype=np.int64), 100) == [(0, 1), (1, 2)]
    assert launch.slices(np.array([], dtype=np.int64), 100) == []


def test_gather() -> None:
    buf = np.frombuffer(b"AAACCGTTTT", dtype=np.uint8)
    off = np.array([0, 3, 5, 6, 10], dtype=np.int64)
    out, new_off = launch.gather(buf, off, np.array([3, 0, 2], dtype=np.int64), pad=4)
    assert out.tobytes() == b"TTTTAAAG\0\0\0\0" and new_off.tolist() == [0, 4, 7, 8]
    ids, roff = launch.read_index(np.array([0, 2, 2, 5], dtype=np.int64), np.array([2, 0, 1], dtype=np.int64))
    assert ids.tolist() == [2, 3, 4, 0, 1] and roff.tolist() == [0, 3, 5, 5]


def test_table_never_fills() -> None:
    slots = launch.table_slots(np.array([0, 1, 12], dtype=np.int64), 150)
    assert slots.tolist() == [1, 150, 1800]
    assert launch.walk_stride(613) % 16 == 0 and launch.walk_stride(613) >= 613 + 121


def test_absent_gpu_backends_refuse_clearly() -> None:
    from lassm.backends import cuda, hip

    for mod, name in ((cuda, "cuda"), (hip, "hip")):
        ok, why = mod.available()
        if ok:
            continue
        assert why and ("CuPy" in why or "device" in why or "driver" in why), why
        with pytest.raises(BackendUnavailable, match=name):
            backends.get(name)


@needs_nvrtc
def test_fast_ablation_builds_differ_from_fast() -> None:
    """Each kernel-side ablation build compiles to other code than fast; the host-side ones
    (MetaHipMer's launches, no register cap) share fast's source and knobs."""
    def ptx(name: str) -> str:
        return nvrtc.compile_build(name, "compute_90")[0]

    fast = ptx("fast")
    for name, variant in nvrtc.VARIANTS.items():
        opts = nvrtc.kernel_options(name, 32)
        assert f"-DLASSM_PROTOCOL={variant.macro}" in opts and all(d in opts for d in variant.defines)
        assert (f"--maxrregcount={variant.max_registers}" in opts) == (variant.max_registers is not None)
        if variant.defines:
            assert variant.undoes and ptx(name) != fast, name
    assert nvrtc.kernel_options("fast-bins", 32) == nvrtc.kernel_options("fast", 32)
    assert nvrtc.kernel_options("fast-warps", 32) == nvrtc.kernel_options("fast", 32)
    assert not nvrtc.VARIANTS["fast-bins"].one_launch and not nvrtc.VARIANTS["fast-globalwalk"].shared_walk
    assert not nvrtc.VARIANTS["fast-warps"].block_teams and nvrtc.VARIANTS["fast"].block_teams
    assert nvrtc.kernel_options("fast-regs", 32) == nvrtc.kernel_options("fast", 32)  # the same small-launch build


@needs_nvrtc
def test_added_builds_add_a_change() -> None:
    """fast-spec, fast-spec2 and fast-earlyvotes (nvrtc.ADDED) add a change to fast instead of
    undoing one, with fast's host choices; the source refuses a look-ahead it cannot run."""
    assert set(nvrtc.ADDED) <= set(nvrtc.VARIANTS)
    for name, variant in nvrtc.VARIANTS.items():
        assert variant.undoes.startswith("nothing: adds") == (name in nvrtc.ADDED), name
    for name in nvrtc.ADDED:
        v = nvrtc.VARIANTS[name]
        assert v == dataclasses.replace(nvrtc.VARIANTS["fast"], defines=v.defines, undoes=v.undoes,
                                        shared_walk=v.shared_walk, lane_walks=v.lane_walks,
                                        sort_bytes=v.sort_bytes, scale_sort_max_k=v.scale_sort_max_k,
                                        small_k_build=None), name
        # only the lane walks move the walk buffers to global memory, as their source needs
        assert v.shared_walk == (v.lane_walks is None), name
    for bad in (("-DLASSM_FAST_SPEC_WALK=3",), ("-DLASSM_FAST_SPEC_WALK=1", "-DLASSM_FAST_SCAN=1"),
                ("-DLASSM_FAST_SPEC_WALK=2", "-DLASSM_FAST_TEAM_LANES=16"),
                ("-DLASSM_FAST_SPEC_WALK=1", "-DLASSM_FAST_TEAM_LANES=4")):
        with pytest.raises(nvrtc.NvrtcError, match="LASSM_FAST_SPEC_WALK"):
            nvrtc.compile_build("fast", "compute_90", extra=bad)
    ptx, _ = nvrtc.compile_build("fast-spec", "compute_90", extra=("-DLASSM_FAST_TEAM_LANES=8",))  # 5 lanes of 8
    assert f".entry {nvrtc.ENTRY}" in ptx


@needs_nvrtc
def test_lane_walks_refuse_what_they_cannot_run() -> None:
    """Lane walks (fast-lanes*): a warp's lanes walk its ends, so the source refuses shared walk
    buffers, teams narrower than a warp, other knobs, and more ends than lanes; the host launches
    as many ends to a warp as the build walks."""
    for bad in (("-DLASSM_FAST_LANE_WALKS=8",),
                ("-DLASSM_FAST_LANE_WALKS=8", "-DLASSM_FAST_GLOBAL_WALK=1", "-DLASSM_FAST_TEAM_LANES=16"),
                ("-DLASSM_FAST_LANE_WALKS=8", "-DLASSM_FAST_GLOBAL_WALK=1", "-DLASSM_FAST_SPEC_WALK=1"),
                ("-DLASSM_FAST_LANE_WALKS=33", "-DLASSM_FAST_GLOBAL_WALK=1")):
        with pytest.raises(nvrtc.NvrtcError, match="lane walks|LASSM_FAST_LANE_WALKS"):
            nvrtc.compile_build("fast", "compute_90", extra=bad)
    assert nvrtc.VARIANTS["fast-lanes8"].ends_per_warp(32) == 8
    assert nvrtc.VARIANTS["fast-lanes32"].ends_per_warp(64) == 32
    with pytest.raises(ValueError, match="lane_walks"):
        nvrtc.VARIANTS["fast-lanes32"].ends_per_warp(16)


@needs_nvrtc
def test_fast_scaled_build_caps_registers() -> None:
    """The register cap at scale: fast and every ablation but fast-regs have a second build, capped, for launches of
    many ends per SM; fast-regs and the faithful protocols have none."""
    capped = f"--maxrregcount={nvrtc.SCALE_REGISTERS}"
    for name, variant in nvrtc.VARIANTS.items():
        scaled = nvrtc.kernel_options(name, 32, scaled=True)
        assert (capped in scaled) == (name != "fast-regs"), name
        assert capped not in nvrtc.kernel_options(name, 32), name
    assert nvrtc.kernel_options("casptr", 32, scaled=True) == nvrtc.kernel_options("casptr", 32)
    assert nvrtc.compile_build("fast", "compute_90", extra=(capped,))[0] != nvrtc.compile_build("fast", "compute_90")[0]


def test_many_ends_counts_ends_per_sm() -> None:
    assert not launch.many_ends(27706, 132)  # gen-k21 on the H100: about 210 ends per SM
    assert launch.many_ends(80420, 132) and launch.many_ends(554120, 132)  # the x20 sample, gen-k21x20
    assert launch.many_ends(400, 1) and not launch.many_ends(399, 1) and launch.many_ends(10, 1, per_sm=10)
    with pytest.raises(ValueError, match="multiprocessors"):
        launch.many_ends(10, 0)


def test_a_launch_of_many_ends_gives_block_teams_to_fewer_ends() -> None:
    """Block teams start at TEAM_MIN_BASES read bases, and at TEAM_MIN_BASES_SCALE in a launch of
    many ends (the capped build's); without block teams or a capped build, neither changes."""
    from lassm.backends import cuda

    low, high = cuda.TEAM_MIN_BASES, cuda.TEAM_MIN_BASES_SCALE
    assert low < high
    between = [high + 1, high, high - 1, low, low - 1]  # work order: the most bases first
    few = np.array(between + [10] * 20)
    many = np.array(between + [10] * 400)
    assert cuda.launch_teams(few, 1, True, True) == (4, False)
    assert cuda.launch_teams(many, 1, True, True) == (2, True)
    assert cuda.launch_teams(many, 1, True, False) == (4, False)  # no capped build: no scale rule
    assert cuda.launch_teams(many, 1, False, True) == (0, True)
    assert cuda.launch_teams(many, 2, True, True) == (4, False)  # 401 warp ends on 2 SMs: not many


@needs_nvrtc
@pytest.mark.parametrize("lanes", [16, 8, 4])
def test_fast_warp_teams_compile_and_size(lanes: int, monkeypatch) -> None:
    """Warp teams narrower than a warp (LASSM_FAST_TEAM_LANES, measured slower on the H100 and kept
    as a knob): each width compiles, to other code, and the host counts its teams."""
    import dataclasses

    from lassm.backends import cuda

    fast_ptx = nvrtc.compile_build("fast", "compute_90")[0]
    variant = dataclasses.replace(nvrtc.VARIANTS["fast"], team_lanes=lanes)
    assert variant.ends_per_warp(32) == 32 // lanes and variant.ends_per_warp(64) == 64 // lanes
    monkeypatch.setitem(nvrtc.VARIANTS, "fast", variant)  # the build the backends would make of it
    assert f"-DLASSM_FAST_TEAM_LANES={lanes}" in nvrtc.kernel_options("fast", 32)
    assert nvrtc.compile_build("fast", "compute_90")[0] != fast_ptx
    per_end = launch.walk_stride(613) + 2 * cuda.visited_slots(613)
    assert cuda.fast_shared_bytes(4, 613, ends_per_warp=32 // lanes) == 4 * (32 // lanes) * per_end + cuda.TEAM_SCRATCH_BYTES
    assert launch.geometry(100, 4, 32, n_team=4, ends_per_warp=32 // lanes)[0] == (4 + -(-96 // (4 * 32 // lanes)),)
    for bad in (2, 3, 64):
        with pytest.raises(ValueError, match="team_lanes"):
            dataclasses.replace(variant, team_lanes=bad).ends_per_warp(32)
    with pytest.raises(nvrtc.NvrtcError):  # the source refuses a width the host would have refused too
        nvrtc.compile_build("fast", "compute_90", extra=("-DLASSM_FAST_TEAM_LANES=12",))


def test_fast_host_helpers() -> None:
    from lassm.backends import cuda

    assert [cuda.visited_slots(m) for m in (1, 613, 1023, 1024)] == [2, 1024, 1024, 2048]
    assert cuda.fast_shared_bytes(4, 613) == 4 * (launch.walk_stride(613) + 2048) + cuda.TEAM_SCRATCH_BYTES
    assert cuda.fast_shared_bytes(4, 613, shared_walk=False) == cuda.TEAM_SCRATCH_BYTES == 32 * 8 * 8
    assert cuda.team_count(np.array([9000, 4000, 1536, 1535, 3000]), 1536) == 3  # leading heavy ends only
    assert cuda.team_count(np.array([100, 9000]), 1536) == 0 and cuda.team_count(np.array([5, 6]), 0) == 2
    with pytest.raises(ValueError, match="16 bits"):
        cuda.fast_shared_bytes(4, 70000)
    order = cuda.work_order(np.array([0, 1, 2, 3, 4]), np.array([5, 9, 5, 0, 9]))
    assert order.tolist() == [1, 4, 0, 2, 3]  # most read bases first, ties in input order
    assert cuda.one_launch("fast") and not cuda.one_launch("fast-bins") and not cuda.one_launch("casptr")


def test_stacked_sides_split_back() -> None:
    """extend_sides' stacking: the left ends follow the right ones, and a result splits back
    into the two sides exactly."""
    from lassm.workloads.local_assembly import formats
    from lassm import paths
    from lassm.backends import cuda
    from lassm.workloads.local_assembly.result import SideResult

    sample = formats.read_dat(paths.sample("k77"), k=77)

    both = cuda._stack_reads(sample.right, sample.left)
    n = sample.n_contigs
    assert both.n_reads == sample.right.n_reads + sample.left.n_reads
    for i in (0, n // 2, n - 1):
        for j, side in ((i, sample.right), (n + i, sample.left)):
            lo, hi = both.contig_offsets[j], both.contig_offsets[j + 1]
            mine = side.contig_offsets[i]
            assert hi - lo == side.contig_offsets[i + 1] - mine
            if hi > lo:
                a, b = both.offsets[lo], both.offsets[hi]
                assert both.seqs[a:b].tobytes() == side.seqs[side.offsets[mine]:side.offsets[side.contig_offsets[i + 1]]].tobytes()
    res = SideResult.empty(2 * n, 7)
    res.walk_len[:] = np.arange(2 * n) % 7
    res.walks.reshape(2 * n, 7)[:] = (np.arange(2 * n) % 251)[:, None]
    res.kernel_seconds = 1.5
    res.extra = SideFigures(launches=[{"bin": "all"}], protocol="fast")
    for stacked in (res, res.compact()):  # the rows as written, and ragged as the CUDA host brings them back
        right, left = cuda._split(stacked, n)
        assert right.walk_len.tolist() == res.walk_len[:n].tolist() and left.walk_len.tolist() == res.walk_len[n:].tolist()
        assert left.walk(0) == bytes([n % 251]) * (n % 7)
        assert [right.walk(i) for i in range(n)] == [res.walk(i) for i in range(n)]
        assert [left.walk(i) for i in range(n)] == [res.walk(n + i) for i in range(n)]
        assert right.kernel_seconds + left.kernel_seconds == 1.5
        assert right.extra.launches and left.extra.launches == [] and left.extra.protocol == "fast"


def test_fast_launches_its_sorted_build_at_every_k_metahipmer_uses() -> None:
    """The sorted table is fast's at a start k of at most SORT_MAX_K, the kernel's largest k (records
    of up to four words), and no ablation's: each undoes its optimization against the hash table."""
    assert all(nvrtc.launch_build("fast", k) == "fast-sorted" for k in (21, 33, 55, 77, 99, nvrtc.SORT_MAX_K))
    assert nvrtc.launch_build("fast", nvrtc.SORT_MAX_K + 4) == "fast"
    # a launch of many ends sorts where the start k's records are one word, else hashes
    assert nvrtc.launch_build("fast", 21, many_ends=True) == "fast-sorted"
    assert nvrtc.launch_build("fast", nvrtc.SCALE_SORT_MAX_K + 1, many_ends=True) == "fast"
    assert nvrtc.launch_build("fast-sorted", 77, many_ends=True) == "fast-sorted"
    assert all(nvrtc.launch_build(name, 21) == name for name in nvrtc.BUILDS if name != "fast")
    options = nvrtc.kernel_options("fast-sorted", 32)
    assert "-DLASSM_FAST_SORTED=1" in options and f"-DLASSM_FAST_SORT_BYTES={nvrtc.SORT_BYTES}" in options
    assert not any("SORT" in o for o in nvrtc.kernel_options("fast", 32))


@needs_nvrtc
def test_the_sorted_build_refuses_what_it_cannot_run() -> None:
    """The sorted table is built by whole warps with the shared-memory walk of one end each."""
    for bad in (("-DLASSM_FAST_GLOBAL_WALK=1",), ("-DLASSM_FAST_SPEC_WALK=1",), ("-DLASSM_FAST_TEAM_LANES=16",)):
        with pytest.raises(nvrtc.NvrtcError, match="sorted table"):
            nvrtc.compile_build("fast-sorted", "compute_90", extra=bad)


def test_the_many_ends_build_sorts_one_word_records_only() -> None:
    """The register-capped build for launches of many ends sorts up to SCALE_SORT_MAX_K (one-word
    records); the uncapped one every k; a build that names its own largest k keeps it."""
    scaled = nvrtc.kernel_options("fast-sorted", 32, scaled=True)
    assert f"-DLASSM_SORT_MAX_K={nvrtc.SCALE_SORT_MAX_K}" in scaled and nvrtc.SCALE_SORT_MAX_K <= 30
    assert not any("LASSM_SORT_MAX_K" in o for o in nvrtc.kernel_options("fast-sorted", 32))
    assert not any("LASSM_SORT_MAX_K" in o for o in nvrtc.kernel_options("fast", 32, scaled=True))
    own = dataclasses.replace(nvrtc.VARIANTS["fast-sorted"], defines=("-DLASSM_SORT_MAX_K=121",))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(nvrtc.VARIANTS, "fast-sorted", own)
        assert [o for o in nvrtc.kernel_options("fast-sorted", 32, scaled=True) if "SORT_MAX_K" in o] == \
            ["-DLASSM_SORT_MAX_K=121"]

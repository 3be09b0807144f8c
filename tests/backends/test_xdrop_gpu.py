# SPDX-License-Identifier: BSD-3-Clause
"""The X-drop GPU kernels (``kernels/xdrop/{opencl,cuda}/``) against the numba oracle, bit for bit.

Each device-bound test runs on every OpenCL device pyopencl sees (``LASSM_OPENCL_DEVICE`` set to
its name, or to ``pocl``; set it beforehand to test one only) and, marked ``gpu``, on CUDA where
CuPy sees an NVIDIA GPU; what is absent is skipped with the reason. Here that is Intel's OpenCL
CPU driver and PoCL (Debian's ``pocl-opencl-icd``); on a GPU node, CUDA and NVIDIA's OpenCL. The
scores and both ends of every pair must equal the oracle's on LOGAN-like pairs (50 pairs of
1-3 kb, a fifth unrelated), on random short pairs that reach every corner (empty reads and
seeds, seeds at the ends, one-letter alphabets) and on the oracle's edge cases, for X in
10, 50, 100, 1000 and two schemes, with LOGAN's 128-wide groups and small odd ones; also the
32-bit wrap-around the oracle keeps on purpose, launches split by a small scratch budget, and
the cell count (the GCUPS numerator) where it is known exactly. The CUDA source is also
compiled by NVRTC alone, which needs no GPU, and its body is checked to be the OpenCL one's.

On a GPU machine with CuPy (the lead's H100: its python3 holds cupy-cuda13x, numba, pyarrow),
from the repository root: ``PYTHONPATH=$PWD python3 -m pytest -q -rs tests/backends/test_xdrop_gpu.py
-p no:cacheprovider``.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lassm.book import ran_where as rw
from lassm.backends import nvrtc
from lassm.backends import opencl as ocl
from lassm.backends.xdrop import xdrop_cpu, xdrop_host
from lassm.backends.xdrop import xdrop_cuda as xcuda
from lassm.backends.xdrop import xdrop_opencl as xopencl
from lassm.paths import kernel_source
from lassm.workloads.xdrop.scoring import Scoring
from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate
from lassm.workloads.xdrop.pairs import Pairs

from .. import helpers

XS = (10, 50, 100, 1000)
SCHEMES = ((1, -1, -1), (2, -3, -2))
GROUPS = (xdrop_host.DEFAULT_GROUP, 7)
OCL_OK, OCL_WHY = xopencl.available()
#: One module's tests on one worker: the kernels built for a device, the oracle's alignments and
#: the runs the tests share (:class:`Kept`) are made once a run, not once per worker.
pytestmark = pytest.mark.xdist_group("xdrop_gpu")


def _backends() -> list:
    """``(backend, OpenCL device)`` per device to test (:func:`helpers.opencl_devices`: PoCL's
    case skipped, naming the package, where it is absent); CUDA once per layout, marked gpu."""
    params = [pytest.param(("opencl", p.values[0]), id=f"opencl-{p.id}", marks=p.marks)
              for p in helpers.opencl_devices()]
    # CUDA once per layout: LOGAN's block per direction (lanes 0), then the lanes kernel's widths
    return params + [pytest.param(("cuda", lanes), id=f"cuda-lanes{lanes}", marks=pytest.mark.gpu)
                     for lanes in (0, *xdrop_host.LANES)]


#: The alignments made once per process (the oracle's and the GPU backend's runs), by what made
#: them, each with its pairs (so that their ``id`` stays theirs).
_MADE: dict[tuple, tuple[Pairs, Any]] = {}


def _once(key: tuple, pairs: Pairs, make: Callable[[], Any]):
    """``make()``, the alignment of ``pairs`` that ``key`` names, computed once per process."""
    key = (id(pairs), *key)
    if key not in _MADE:
        _MADE[key] = (pairs, make())
    return _MADE[key][1]


@dataclasses.dataclass(frozen=True)
class Kept:
    """The GPU backend's ``align`` on one device, each distinct call run once per process: a test
    that asks for what another already ran (the same pairs, scoring and options) compares that
    alignment, read only. On PoCL a run of LOGAN-like pairs in 128-wide groups takes seconds."""

    align: Callable[..., Any]
    device: tuple[str, object]
    defaults: tuple[tuple[str, object], ...] = ()

    def __call__(self, pairs: Pairs, scoring: Scoring, **kw):
        options = tuple(sorted({**dict(self.defaults), **kw}.items()))
        return _once((self.device, scoring, options), pairs, lambda: self.align(pairs, scoring, **kw))


@pytest.fixture(params=_backends())
def backend(request, monkeypatch):
    """The GPU backend's ``align``, pointed at one device (CUDA: at one layout; OpenCL: a kernel
    that never returns ends the run, :func:`helpers.hang_guard`), its runs kept (:class:`Kept`)."""
    kind, device = request.param
    if kind == "opencl":
        monkeypatch.setenv(ocl.DEVICE_ENV, device)
        with helpers.hang_guard():  # OpenCL's group defaults to LOGAN's: a call naming it is the same run
            yield Kept(xopencl.align, (kind, device), (("group", xdrop_host.DEFAULT_GROUP),))
        return
    ok, why = xcuda.available()
    if not ok:
        pytest.skip(f"needs CuPy and a CUDA GPU: {why}")
    yield Kept(functools.partial(xcuda.align, lanes=device), (kind, device))


@functools.lru_cache(maxsize=None)
def logan_like() -> Pairs:
    """LOGAN's pairs (15% errors), scaled from 2.5-7.5 kb to 1-3 kb, a fifth unrelated."""
    return generate(PairKnobs(n_pairs=50, min_length=1000, max_length=3000, error_rate=0.15, unrelated=0.2, seed=18))


@functools.lru_cache(maxsize=None)
def random_pairs(n: int = 300, seed: int = 18) -> Pairs:
    """:func:`tests.helpers.random_pairs`, made once per size and seed."""
    return helpers.random_pairs(n, seed)


@functools.lru_cache(maxsize=None)
def edge_cases() -> Pairs:
    """The oracle tests' edge cases: seeds at either end, equal reads, a whole-read seed, empty
    reads, a mismatched seed, an empty seed, a reversed read."""
    a = b"ACGTTGCAACGTAGGCTTAC"
    rows = [(a, 0, a, 0, 4), (a, 16, a, 16, 4), (a, 0, a, 0, 20), (a, 8, a, 8, 0), (b"", 0, b"", 0, 0),
            (a, 0, b"", 0, 0), (b"ACGT", 2, b"TTTT", 1, 2), (a, 5, a[3:], 2, 6), (b"N" * 12, 4, b"N" * 9, 2, 3),
            (a, 10, a[::-1], 3, 0)]
    return Pairs.from_lists(rows, name="edges")


def oracle(pairs: Pairs, scoring: Scoring):
    """``cpu.align(pairs, scoring)``, computed once per process for each of this module's pair sets
    (made once each) and scoring: every device, group and budget of a test compares with the same
    alignment, and on LOGAN-like pairs it takes the oracle seconds."""
    return _once(("oracle", scoring), pairs, lambda: xdrop_cpu.align(pairs, scoring))


def _same(align, pairs: Pairs, scoring: Scoring, **kw) -> None:
    want, got = oracle(pairs, scoring), align(pairs, scoring, **kw)
    diffs = want.differences(got)
    assert not diffs, f"{scoring} {kw}: " + "\n".join(diffs)
    assert np.array_equal(want.score, got.score) and got.score_left.dtype == np.int32


@pytest.mark.parametrize("xdrop", XS)
@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: "m{}x{}g{}".format(*s))
@pytest.mark.parametrize("group", GROUPS)
def test_logan_like_pairs_equal_the_oracle(backend, scheme, xdrop: int, group: int, ran_where, request) -> None:
    _same(backend, logan_like(), Scoring(*scheme, xdrop=xdrop), group=group)
    name, where = request.node.callspec.params["backend"]
    ran_where(f"xdrop-{'opencl' if name == 'opencl' else 'cuda'}",
              rw.platform_of("opencl", where) if name == "opencl" else "NVIDIA GPU")


@pytest.mark.parametrize("xdrop", XS + (0, 1, 3))
@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: "m{}x{}g{}".format(*s))
def test_short_pairs_and_edge_cases_equal_the_oracle(backend, scheme, xdrop: int) -> None:
    for pairs in (random_pairs(), edge_cases()):
        for group in (1, 5, 32):
            _same(backend, pairs, Scoring(*scheme, xdrop=xdrop), group=group)


@pytest.mark.parametrize("scheme", ((1, -2, -1), (5, -4, -3)), ids=lambda s: "m{}x{}g{}".format(*s))
def test_the_32_bit_wrap_around_is_the_oracles(backend, scheme) -> None:
    """A mismatch below the gap adds to an undefined cell and wraps, in SeqAn and the oracle:
    the kernels wrap the same way (an unsigned add), so such schemes need no refusal."""
    scoring = Scoring(*scheme, xdrop=5)
    _same(backend, random_pairs(), scoring, group=7)
    _same(backend, logan_like(), Scoring(*scheme, xdrop=50))
    longest = int(np.maximum(random_pairs().lengths_h, random_pairs().lengths_v).max())
    assert backend(random_pairs(), scoring, group=7).score_right.max() > longest * scoring.match  # the wrap happened


def test_a_small_budget_splits_the_launches(backend) -> None:
    pairs, scoring = logan_like(), Scoring(xdrop=50)
    whole = backend(pairs, scoring)
    split = backend(pairs, scoring, max_bytes=50_000)
    assert whole.extra.launches == 1 and split.extra.launches > 10
    assert not whole.differences(split) and split.extra.cells == whole.extra.cells


def test_cells_count_every_computed_cell(backend) -> None:
    """With X above any drop nothing is dropped, so the band covers every cell of both matrices:
    cells = sum of (prefix lengths product) + (suffix lengths product), exactly."""
    pairs = random_pairs(80, seed=4)
    got = backend(pairs, Scoring(1, -1, -1, xdrop=1000))
    t = xdrop_host.tasks(pairs)
    assert got.extra.cells == int((t.q_len.astype(np.int64) * t.d_len).sum()) > 0
    assert got.extra.kernel_seconds > 0 and got.extra.gcups == xdrop_host.gcups(got.extra.cells, got.extra.kernel_seconds)
    fewer = backend(pairs, Scoring(1, -1, -1, xdrop=1))
    assert 0 < fewer.extra.cells < got.extra.cells


@pytest.mark.parametrize("xdrop", (3, 20, 100, 1000))
def test_cells_equal_the_oracles_count(backend, xdrop: int) -> None:
    """The campaign takes a set's cells from the oracle on sets the CPU runs whole and from the
    GPU backend on larger ones: the two counts must be one count at every X."""
    pairs, scoring = logan_like(), Scoring(xdrop=xdrop)
    assert backend(pairs, scoring, group=32).extra.cells == oracle(pairs, scoring).extra.cells > 0


def test_a_wrong_result_is_caught(backend) -> None:
    """The comparison sees one moved end (in the run at X = 50 that
    test_logan_like_pairs_equal_the_oracle made) and the kernel run with X one above the oracle's
    (one pair of these differs between X = 20 and 21): it can fail."""
    pairs = logan_like()
    got = backend(pairs, Scoring(xdrop=50))
    moved = dataclasses.replace(got, end_h=got.end_h + (np.arange(got.n_pairs) == 3))
    assert [d.split(":")[0] for d in oracle(pairs, Scoring(xdrop=50)).differences(moved)] == ["pair 3"]
    assert oracle(pairs, Scoring(xdrop=20)).differences(backend(pairs, Scoring(xdrop=21)))


def test_plan_batches_cover_every_task_once() -> None:
    t = xdrop_host.tasks(logan_like())
    for budget in (1, 4_000, 100_000, 1 << 40):
        ranges = xdrop_host.batches(t, budget)
        assert ranges[0][0] == 0 and ranges[-1][1] == t.n
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:]))
    assert len(xdrop_host.batches(t, 1)) == t.n
    with pytest.raises(ValueError, match="positive"):
        xdrop_host.batches(t, 0)


def test_cli_aligns_on_the_gpu_backend_and_matches_the_oracle(tmp_path, capsys) -> None:
    from lassm import cli

    if not OCL_OK:
        pytest.skip(f"needs pyopencl and an OpenCL device: {OCL_WHY}")
    pairs = str(tmp_path / "pairs.parquet")
    assert cli.main(["xdrop", "generate", "--n-pairs", "8", "--min-length", "200", "--max-length", "600",
                     "--out", pairs]) == 0
    assert cli.main(["xdrop", "align", pairs, "--backend", "opencl", "--xdrop", "30", "--against", "cpu",
                     "--out", str(tmp_path / "out.parquet")]) == 0
    err = capsys.readouterr().err
    assert "GCUPS" in err and "all 8 pairs equal cpu's" in err, err


def test_registry_knows_the_gpu_backends() -> None:
    from lassm.backends.xdrop import XDROP_BACKENDS
    from lassm.cli.xdrop_command import BACKEND_NAMES

    assert {"opencl", "cuda"} <= set(XDROP_BACKENDS) and set(BACKEND_NAMES) == set(XDROP_BACKENDS)


needs_nvrtc = pytest.mark.skipif(nvrtc.find_library() is None,
                                 reason="NVRTC is not installed (pip install nvidia-cuda-nvrtc-cu12)")


@needs_nvrtc
@pytest.mark.parametrize("arch", nvrtc.ARCHS)
@pytest.mark.parametrize("group", (1, 7, xdrop_host.DEFAULT_GROUP, xcuda.MAX_GROUP))
def test_cuda_kernel_compiles_alone(arch: str, group: int) -> None:
    ptx, log = xcuda.compile_ptx(arch, group)
    assert f".entry {xcuda.ENTRY}" in ptx and "warning" not in log.lower(), log


@needs_nvrtc
def test_cuda_kernel_rejects_a_broken_build() -> None:
    """The compile check can fail: a source NVRTC rejects raises with its log."""
    with pytest.raises(nvrtc.NvrtcError, match="XDROP_GROUP"):
        nvrtc.compile_ptx("#define XDROP_GROUP\n" + kernel_source(xcuda.KERNEL).read_text(),
                          ["--gpu-architecture=compute_90", *xdrop_host.include_options()])
    with pytest.raises(nvrtc.NvrtcError, match="xdrop_steps.h"):  # the shared header is needed
        nvrtc.compile_ptx(kernel_source(xcuda.KERNEL).read_text(), ["--gpu-architecture=compute_90"])
    with pytest.raises(ValueError, match="1..1024"):
        xcuda.build_options(2048)


def _entry(relpath: str) -> str:
    """A kernel file's entry point from its kernel's body on, the two languages' spellings made one."""
    text = kernel_source(relpath).read_text()
    text = text[text.index("xdrop_kernel(XDROP_TASK_ARGS) {"):]
    for cuda_word, cl_word in (("blockIdx.x", "get_group_id(0)"), ("threadIdx.x", "get_local_id(0)"),
                               ("__shared__ ", ""), ("__local ", "")):
        text = text.replace(cuda_word, cl_word)
    return text


def test_cuda_and_opencl_kernels_are_one_algorithm() -> None:
    """Where no GPU runs the CUDA kernel (CI), it is still the OpenCL one the tests above check:
    both entry points only name their group and shared memory and call the one ``xdrop_block`` of
    ``xdrop_block.h``, whose barriers are the languages' only other difference."""
    assert _entry(xopencl.KERNEL) == _entry(xcuda.KERNEL)
    assert "xdrop_block(XDROP_TASK_NAMES, red_best, red_min, red_max" in _entry(xcuda.KERNEL)
    for relpath in (xopencl.KERNEL, xcuda.KERNEL, xcuda.WARPS_KERNEL):
        assert "while" not in kernel_source(relpath).read_text()  # the algorithm is the header's alone
    block = kernel_source("xdrop/xdrop_block.h").read_text()
    body = block[block.index("XDROP_FN void xdrop_tree_reduce("):]
    assert len(re.findall(r"XDROP_SYNC_\w+\(\);", body)) == 3  # the start, after the cells, in the tree
    assert "xdrop_extend(" in body[body.index("XDROP_FN void xdrop_block("):]
    warps = kernel_source(xcuda.WARPS_KERNEL).read_text()  # the wide-band block: the same loop, its own reduction
    assert "#define XDROP_GROUP_REDUCE warps_reduce" in warps and warps.count("xdrop_extend(") == 2


def test_an_absent_gpu_is_one_error_line(monkeypatch, tmp_path, capsys) -> None:
    """Without CuPy or a GPU, ``--backend cuda`` says so in one line and exits 2, as everywhere."""
    from lassm import cli
    from lassm.backends import xdrop as registry
    from lassm.errors import BackendUnavailable

    monkeypatch.setattr(xcuda, "available", lambda: (False, "no CUDA device (a test)"))
    with pytest.raises(BackendUnavailable, match="'cuda' cannot run here: no CUDA device"):
        registry.get("cuda")
    pairs = str(tmp_path / "pairs.tsv")
    assert cli.main(["xdrop", "generate", "--n-pairs", "2", "--min-length", "50", "--max-length", "60",
                     "--out", pairs]) == 0
    capsys.readouterr()
    assert cli.main(["xdrop", "align", pairs, "--backend", "cuda", "--out", str(tmp_path / "a.tsv")]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("lassm: error: ") and "no CUDA device" in lines[0]
    assert not (tmp_path / "a.tsv").exists()


def test_warm_up_builds_the_kernel_align_uses(backend) -> None:
    """``lassm xdrop align`` warms its backend while it reads the pairs: the kernel built then is
    the one the alignment takes (built once per process, not again)."""
    if backend.align is xopencl.align:
        xopencl.warm_up()
        built = dict(xopencl._KERNELS)
        assert built
        pairs = random_pairs()  # the kernel is the group's, whatever the pairs: short ones run at once on PoCL
        assert not oracle(pairs, Scoring()).differences(xopencl.align(pairs, Scoring()))
        assert xopencl._KERNELS == built
    else:
        for xdrop in (10, 5000):  # one X of each layout: the plan's lanes kernel, LOGAN's block
            xcuda.warm_up(xdrop)
            before = xcuda._kernel.cache_info()
            pairs = logan_like()
            got = xcuda.align(pairs, Scoring(xdrop=xdrop))
            assert not oracle(pairs, Scoring(xdrop=xdrop)).differences(got)
            after = xcuda._kernel.cache_info()
            assert after.misses == before.misses and after.hits > before.hits
            assert got.extra.lanes == xdrop_host.lanes_for(xdrop)


@needs_nvrtc
@pytest.mark.parametrize("arch", nvrtc.ARCHS)
@pytest.mark.parametrize("lanes", xdrop_host.LANES)
def test_lanes_kernel_compiles_alone(arch: str, lanes: int) -> None:
    """The lanes kernel builds alone at every width, with no block barrier left in it."""
    ptx, log = xcuda.compile_ptx(arch, lanes=lanes)
    assert f".entry {xcuda.LANES_ENTRY}" in ptx and "warning" not in log.lower(), log
    assert "bar.sync" not in ptx and "barrier.sync.aligned" not in ptx and "shfl.sync" in ptx


def test_lanes_are_checked_and_planned_by_x() -> None:
    with pytest.raises(ValueError, match="lanes = 12"):
        xcuda.lanes_options(12)
    planned = [xdrop_host.lanes_for(x) for x in (0, 1, 10, 20, 50, 100, 500, 1000, 5000, 10**6)]
    assert set(planned) <= {0, *xdrop_host.LANES} and planned[0] > 0 and planned[-1] == 0
    widths = [w for w in planned if w]  # narrow bands first: the width never shrinks as X grows
    assert widths == sorted(widths) and not any(planned[planned.index(0):])  # past the first block, blocks only


@pytest.mark.parametrize("option,said", ((["--lanes", "8"], "only the cuda backend has the lanes kernel"),
                                         (["--layout", "warps"], "only the cuda backend has the two plans")))
def test_cuda_options_are_refused_off_cuda(tmp_path, capsys, option: list[str], said: str) -> None:
    """``--lanes`` and ``--layout`` name the CUDA kernel's layout and plan: asked of another backend
    either is one error, exit 2."""
    from lassm import cli

    pairs = str(tmp_path / "pairs.tsv")
    assert cli.main(["xdrop", "generate", "--n-pairs", "2", "--min-length", "50", "--max-length", "60",
                     "--out", pairs]) == 0
    capsys.readouterr()
    assert cli.main(["xdrop", "align", pairs, "--backend", "cpu", *option, "--out", str(tmp_path / "a.tsv")]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and said in lines[0]
    assert not (tmp_path / "a.tsv").exists()


@needs_nvrtc
@pytest.mark.parametrize("arch", nvrtc.ARCHS)
@pytest.mark.parametrize("group,stride", ((32, 8), (xdrop_host.DEFAULT_GROUP, 1024), (256, 2048),
                                          *((g, s) for _x, lanes, g, s in xdrop_host.WARPS_PLAN if not lanes and s)))
def test_warps_kernel_compiles_alone(arch: str, group: int, stride: int) -> None:
    """The wide-band block builds alone: warp shuffles, and barriers only where its two attempts
    (shared, then global scratch) start and where each anti-diagonal's reduction meets."""
    ptx, log = xcuda.compile_ptx(arch, group, stride=stride)
    assert f".entry {xcuda.WARPS_ENTRY}" in ptx and "warning" not in log.lower(), log
    assert "shfl.sync.bfly" in ptx and len(re.findall(r"\bbar(rier)?\.sync", ptx)) == 4
    with pytest.raises(ValueError, match="multiple of 32"):
        xcuda.warps_options(48, stride)


def test_layout_switch_and_work_order(monkeypatch) -> None:
    """``LASSM_XDROP_LAYOUT`` picks the plan (a wrong name is one error), ``warps`` runs the tasks
    by their expected cells (a false-looking seed's band the wider), and the outputs land in the
    tasks' own places."""
    from lassm.errors import LassmError

    monkeypatch.delenv(xdrop_host.LAYOUT_ENV, raising=False)
    assert xdrop_host.layout() == xdrop_host.DEFAULT_LAYOUT == "logan" and xdrop_host.layout("warps") == "warps"
    monkeypatch.setenv(xdrop_host.LAYOUT_ENV, "warps")
    assert xdrop_host.layout() == "warps"
    assert xcuda.choose(100, None, None, None) == (16, xdrop_host.DEFAULT_GROUP, 0)  # the lanes kernel's plan
    assert xcuda.choose(500, None, None, None) == (0, 64, 1024) == xcuda.choose(2000, None, None, None)  # the wide block
    assert xcuda.choose(5000, None, None, None) == (0, xdrop_host.DEFAULT_GROUP, 4000)  # the wide block, 4,000 ints
    assert xcuda.choose(5000, None, "logan", None) == (0, xdrop_host.DEFAULT_GROUP, 0) == xcuda.choose(5000, 0, None, None)
    assert xcuda.choose(10, 16, None, 8) == (0, 32, 8) and xcuda.choose(10, None, None, 8, 64) == (0, 64, 8)
    assert [xdrop_host.warps_plan(x) for x in (50, 51, 201, 2001)] == [row[1:] for row in xdrop_host.WARPS_PLAN]
    assert xdrop_host.warps_plan(10**9) == xdrop_host.WARPS_PLAN[-1][1:]
    monkeypatch.setenv(xdrop_host.LAYOUT_ENV, "fast")
    with pytest.raises(LassmError, match="LASSM_XDROP_LAYOUT='fast': want logan or warps"):
        xdrop_host.layout()
    with pytest.raises(LassmError, match="layout 'fast': use one of logan, warps"):
        xdrop_host.layout("fast")
    pairs = logan_like()  # a fifth of them unrelated: false seeds
    t = xdrop_host.tasks(pairs)
    order = xdrop_host.work_order(t, pairs.seqs_v, pairs.seqs_h)
    looks = xdrop_host.seeds_that_extend(t, pairs.seqs_v, pairs.seqs_h)[order]
    work = (t.q_len.astype(np.int64) + t.d_len)[order]
    expected = np.where(looks, work, xdrop_host.FALSE_SEED_BAND * work)
    assert sorted(order) == list(range(t.n)) and np.all(np.diff(expected) <= 0)
    assert not looks[0] and looks[-1]  # a false seed's band is the wider: the longest of them first
    ties = np.flatnonzero(np.diff(expected) == 0)
    assert np.all(order[ties] < order[ties + 1])  # stable: one order for every run
    ran = t.permuted(order)
    assert np.array_equal(ran.q_start, t.q_start[order]) and np.array_equal(ran.direction, t.direction[order])
    out = xdrop_host.Outputs.empty(t.n)
    half = t.n // 2
    for lo, hi in ((0, half), (half, t.n)):  # two launches, each writing the task it ran as its score
        got = {name: np.zeros(hi - lo, getattr(out, name).dtype) for name in xdrop_host.OUTPUT_NAMES}
        got["score"] = order[lo:hi].astype(np.int32)
        out.put(lo, hi, order, got)
    assert np.array_equal(out.score, np.arange(t.n))


@pytest.mark.parametrize("lengths", ((250, 750), (2500, 7500)))
@pytest.mark.parametrize("errors", (0.06, 0.15, 0.2))
def test_the_seed_probe_tells_true_seeds_from_false(lengths: tuple[int, int], errors: float) -> None:
    """The launch order's guess: nearly every seed of related reads looks true, nearly none of
    unrelated ones, from 6 to 20 % errors; an empty side and a side shorter than the probe are
    guessed too (no work there to order)."""
    shares = []
    for unrelated in (0.0, 1.0):
        pairs = generate(PairKnobs(n_pairs=150, min_length=lengths[0], max_length=lengths[1], error_rate=errors,
                                   unrelated=unrelated, seed=7))
        shares.append(xdrop_host.seeds_that_extend(xdrop_host.tasks(pairs), pairs.seqs_v, pairs.seqs_h).mean())
    assert shares[0] >= 0.9 and shares[1] <= 0.05, shares
    corners = edge_cases()
    assert len(xdrop_host.seeds_that_extend(xdrop_host.tasks(corners), corners.seqs_v, corners.seqs_h)) == 2 * corners.n_pairs


@pytest.mark.gpu
@pytest.mark.parametrize("xdrop", XS)
@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: "m{}x{}g{}".format(*s))
def test_warps_layout_equals_the_oracle(scheme, xdrop: int) -> None:
    """The ``warps`` plan on CUDA: its plan at X, and the wide-band block at every X with one to
    eight warps, its anti-diagonals in shared memory and, with a stride of 8, moved to global
    scratch when a band outgrows it."""
    ok, why = xcuda.available()
    if not ok:
        pytest.skip(f"needs CuPy and a CUDA GPU: {why}")
    scoring = Scoring(*scheme, xdrop=xdrop)
    for pairs in (logan_like(), random_pairs(), edge_cases()):
        _same(functools.partial(xcuda.align, layout="warps"), pairs, scoring)
        for group, stride in ((32, 8), (128, 8), (256, xdrop_host.warps_plan(xdrop)[2])):
            _same(functools.partial(xcuda.align, layout="warps", stride=stride), pairs, scoring, group=group)


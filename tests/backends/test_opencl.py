# SPDX-License-Identifier: BSD-3-Clause
"""The portable OpenCL backend (pyopencl, ``portable.cl``) against the numba oracle, bit for bit.

It runs on every OpenCL device pyopencl sees here: in CI Intel's OpenCL CPU driver (from
``lassm[intel]``) and PoCL (Debian's ``pocl-opencl-icd``, which ``make deps`` installs), two CPU
implementations; on a GPU node NVIDIA's OpenCL. Each device-bound
test runs once per device (``LASSM_OPENCL_DEVICE`` set to its name, PoCL's case to ``pocl``; set it
beforehand to test one device only). Without pyopencl or a device every such test is skipped with
the reason; without PoCL its cases are, naming the package.

Team widths: 32 (the default, a warp), and odd and small ones (1, 7) that no sub-group has.
Protocol ``fast`` (``fast.cl``) is checked the same way, and with its table-free walk steps
switched off and stretched (``LASSM_FAST_SCAN_STEPS``), so that both ways to a vote are covered.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np
import pytest

from lassm.book import ran_where as rw
from lassm import Params, extend, paths
from lassm.backends import opencl
from lassm.workloads.local_assembly import datasets, formats

from ..helpers import hang_guard, opencl_devices, random_dataset

OK, WHY = opencl.available()
#: Scale of the generated datasets (Table II's start k values, small enough for a CPU driver).
GEN_KS = (21, 33, 55, 77)
GEN_SCALE = 0.05
GEN_SEED = 0
TEAMS = (32, 7)


@pytest.fixture(params=opencl_devices())
def device(request, monkeypatch) -> Iterator[str]:
    """Points the backend at one device for the test (a kernel that never returns ends the run:
    :func:`helpers.hang_guard`)."""
    monkeypatch.setenv(opencl.DEVICE_ENV, request.param)
    with hang_guard():
        yield request.param


@functools.lru_cache(maxsize=None)
def _sample(name: str):
    return formats.read_dat(paths.sample(name))


@functools.lru_cache(maxsize=None)
def _oracle(name: str, k: int):
    return extend(_sample(name), Params(k=k), backend="cpu")


@functools.lru_cache(maxsize=None)
def _generated(k: int):
    """The generated dataset at start ``k`` (through the generator's cache, so a run makes it once
    whichever worker asks first) and its oracle result (once per module and worker)."""
    ds = datasets.generated(k, GEN_SCALE, GEN_SEED)  # generate()'s, from the cache: made once a run
    return ds, extend(ds, Params(k=k), backend="cpu")


def _check(ds, params: Params, ref, **options) -> None:
    got = extend(ds, params, backend="opencl", **options)
    assert got.compare(ref) == [], options
    assert got.lines() == ref.lines()


def test_unavailable_names_the_install_command(monkeypatch):
    """Without pyopencl the backend says how to get it (this test needs no device)."""
    monkeypatch.setattr(opencl, "cl", None)
    monkeypatch.setattr(opencl, "_IMPORT_ERROR", f"pyopencl is not installed; install it with: {opencl.INSTALL}")
    ok, why = opencl.available()
    assert not ok and "pip install 'lassm[opencl]'" in why


def test_unknown_device_is_named(monkeypatch):
    if not OK:
        pytest.skip(f"needs pyopencl and an OpenCL device ({opencl.INSTALL}): {WHY}")
    monkeypatch.setenv(opencl.DEVICE_ENV, "no such device anywhere")
    ok, why = opencl.available()
    assert not ok and opencl.DEVICE_ENV in why and "devices seen" in why
    named = opencl.loader_libraries()  # what the loader was told, so that a missing driver shows
    assert "drivers named to the loader" in why and all(lib in why for lib in named)


def test_one_device_reached_two_ways_runs_its_own_programs(monkeypatch):
    """The default device and the same device named in ``LASSM_OPENCL_DEVICE`` get a context each:
    a program built in one refuses the other's buffers (``INVALID_MEM_OBJECT``), so each context
    builds its own."""
    if not OK:
        pytest.skip(f"needs pyopencl and an OpenCL device ({opencl.INSTALL}): {WHY}")
    monkeypatch.delenv(opencl.DEVICE_ENV, raising=False)
    ref = _oracle("k21", 21)
    first = extend(_sample("k21"), Params(k=21), backend="opencl", protocol="fast", team=32)
    monkeypatch.setenv(opencl.DEVICE_ENV, opencl._label(opencl.devices()[0]))
    second = extend(_sample("k21"), Params(k=21), backend="opencl", protocol="fast", team=32)
    assert first.right.extra.device == second.right.extra.device
    assert first.compare(ref) == [] and second.compare(ref) == []


def test_build_options_are_opencl_1_2_with_a_team():
    opts = opencl.build_options("barrier", 7, True, False, 613, 33)
    assert opts[0] == "-cl-std=CL1.2" and "-DLASSM_TEAM=7" in opts
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_BARRIER" in opts and "-DLASSM_KEY64=1" in opts and "-DLASSM_FP64=0" in opts
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_FAST" in opencl.build_options("fast", 32, True, True, 613, 33)
    with pytest.raises(ValueError, match="unknown protocol"):
        opencl.build_options("fast-reset", 32, True, True, 613, 33)


def test_launch_geometry_is_one_work_group_per_end():
    assert opencl.launch_geometry(5, 32) == (160, 32)
    assert opencl.launch_geometry(3, 7) == (21, 7)


@pytest.mark.parametrize("kernel", [opencl.KERNEL, opencl.FAST_KERNEL])
def test_portable_kernel_has_no_subgroup_calls(kernel: str):
    """portable.cl, fast.cl and what they include name no sub-group function (OpenCL C 1.2 has none)."""
    from lassm.paths import kernel_source

    path = kernel_source(kernel)
    text, seen, todo = "", set(), [path.name]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        body = (path.parent / name).read_text(encoding="utf-8")
        text += body
        todo += [line.split('"')[1] for line in body.splitlines() if line.startswith('#include "')]
    assert "subgroup.h" not in seen and "team.h" in seen
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    assert "sub_group" not in code


@pytest.mark.parametrize("team", TEAMS)
@pytest.mark.parametrize("protocol", opencl.PROTOCOLS)
@pytest.mark.parametrize("sample, k", [("k77", 77), ("k21", 21)])
def test_matches_oracle_on_the_samples(device: str, sample: str, k: int, protocol: str, team: int,
                                       ran_where) -> None:
    got = extend(_sample(sample), Params(k=k), backend="opencl", protocol=protocol, team=team)
    assert got.compare(_oracle(sample, k)) == []
    ran_where(rw.build_of("local-assembly", "opencl", protocol), rw.platform_of("opencl", device))
    info = got.right.extra
    assert info.team == team and info.protocol == protocol and info.launches
    assert info.timer == "event profiling" and got.right.kernel_seconds > 0


@pytest.mark.parametrize("team", TEAMS)
@pytest.mark.parametrize("k", GEN_KS)
def test_matches_oracle_on_generated_data(device: str, k: int, team: int) -> None:
    ds, ref = _generated(k)
    _check(ds, Params(k=k), ref, team=team)


def test_integer_vote_32_bit_keys_small_team_and_slicing(device: str) -> None:
    """The build for devices without fp64 or 64-bit atomics, a small team, many slices. (PoCL 3.0's
    compiler aborts on teams of 1 and 2: "Could not find a dominating alternative variable".)"""
    ds = _sample("k77").subset(np.arange(0, 3296, 7))
    ref = extend(ds, Params(k=77), backend="cpu")
    _check(ds, Params(k=77), ref, fp64=False, key_bits=32, team=4)
    got = extend(ds, Params(k=77), backend="opencl", max_bytes=50_000, protocol="doneflag", team=5)
    assert got.compare(ref) == [] and len(got.right.extra.launches) >= 10


@pytest.mark.parametrize("seed", [1, 2])
def test_matches_oracle_on_random_data_with_a_short_walk_limit(device: str, seed: int) -> None:
    """Ns, short reads, repeats, a walk limit of 100 (another build) and every protocol."""
    ds = random_dataset(seed, n=40, k=21)
    params = Params(k=21, max_walk=100)
    ref = extend(ds, params, backend="cpu")
    for protocol in opencl.PROTOCOLS:
        _check(ds, params, ref, protocol=protocol, team=8)


def test_vote_matches_oracle(device: str) -> None:
    """set_ext alone, in both builds, on counts around the thresholds."""
    from lassm.backends.cpu import _BASE_CHARS, set_ext

    rng = np.random.default_rng(5)
    n = 3000
    depths = rng.integers(0, 400, n).astype(np.int64)
    votes = np.empty((n, 8), dtype=np.uint32)
    for i, d in enumerate(depths):
        near = np.array([0, 1, 2, 3, d // 5, d // 5 + 1, 3 * d // 10, 3 * d // 10 + 1, rng.integers(0, 2 * d + 5)])
        votes[i] = np.maximum(rng.choice(near, 8), 0)
    want = np.array([set_ext(votes[i].astype(np.int32), depths[i], _BASE_CHARS) for i in range(n)], dtype=np.uint8)
    for fp64 in (True, False):
        if fp64 and not opencl._device().fp64:
            continue
        assert np.array_equal(opencl.vote(votes, depths, fp64=fp64), want), fp64


def test_bad_options_are_refused(device: str) -> None:
    ds = _sample("k77").subset(np.arange(10))
    with pytest.raises(ValueError, match="matchany"):
        extend(ds, Params(k=77), backend="opencl", protocol="matchany", team=65)
    with pytest.raises(ValueError, match="team 0"):
        extend(ds, Params(k=77), backend="opencl", team=0)


# ---------------------------------------------------------------------------------------------
# fast (fast.cl)


def _scan_steps(monkeypatch, steps: int) -> None:
    """Builds fast with LASSM_FAST_SCAN_STEPS=steps (0: every walk step through the table)."""
    build = opencl.build_options
    extra = (f"-DLASSM_FAST_SCAN_STEPS={steps}",)
    monkeypatch.setattr(opencl, "build_options", lambda *a, **kw: build(*a, **kw) + extra)


def test_fast_is_a_protocol_of_the_opencl_backend():
    from lassm.backends import protocols

    assert "fast" in protocols("opencl") and "fast" in protocols("sycl") and "fast" in protocols("opencl-ptx")
    assert opencl.one_launch("fast") and not opencl.one_launch("casptr")


def test_fast_plan_orders_by_work_and_gives_wide_teams_to_the_heaviest(monkeypatch):
    """Every end with its mask set (reads or not), heaviest first, power-of-two tables, slices
    that fit the budget, wide teams for the leading ends of each slice only (no device needed)."""
    from lassm.backends import clplan, cuda

    reads = _sample("k77").right
    mask = np.zeros(len(reads.counts), dtype=bool)
    mask[:200] = True
    plan = clplan.fast_plan(reads, mask, None, 1 << 40)
    (idx, wide), = plan.slices
    assert sorted(idx.tolist()) == list(range(200))
    bases = (reads.offsets[reads.contig_offsets[1:]] - reads.offsets[reads.contig_offsets[:-1]])[idx]
    assert np.all(np.diff(bases) <= 0) and wide == cuda.team_count(bases)
    assert np.all(plan.slots & (plan.slots - 1) == 0) and plan.slots.min() >= 1
    assert clplan.fast_plan(reads, mask, None, 1 << 40, wide_teams=False).slices[0][1] == 0
    small = clplan.fast_plan(reads, mask, None, int(plan.nbytes[idx].max()) + 4096)
    assert len(small.slices) > 1 and sum(len(i) for i, _ in small.slices) == 200
    assert all(int(plan.nbytes[i].sum()) <= small.budget for i, _ in small.slices if len(i) > 1)


@pytest.mark.parametrize("team", TEAMS)
@pytest.mark.parametrize("k", GEN_KS)
def test_fast_matches_oracle_on_generated_data(device: str, k: int, team: int, ran_where) -> None:
    ds, ref = _generated(k)
    _check(ds, Params(k=k), ref, protocol="fast", team=team, block_team=2 * team + 1)
    ran_where("la-opencl-fast", rw.platform_of("opencl", device))


@pytest.mark.parametrize("steps", [0, 1000])
@pytest.mark.parametrize("sample, k", [("k77", 77), ("k21", 21)])
def test_fast_matches_oracle_with_table_only_and_scan_only_walks(device: str, monkeypatch, sample: str, k: int,
                                                                 steps: int) -> None:
    """LASSM_FAST_SCAN_STEPS=0: every vote from the table; 1000: every vote from scanning the reads."""
    _scan_steps(monkeypatch, steps)
    got = extend(_sample(sample), Params(k=k), backend="opencl", protocol="fast", team=16, block_team=64)
    assert f"-DLASSM_FAST_SCAN_STEPS={steps}" in got.right.extra.options
    assert got.compare(_oracle(sample, k)) == []


def test_fast_wide_teams_integer_vote_and_slicing(device: str, monkeypatch) -> None:
    """Wide teams for every end (TEAM_MIN_BASES = 0), the integer vote, many slices, and none of the
    wide teams (block_team equal to team): each launch's team width is the one asked for."""
    from lassm.backends import cuda

    ds = _sample("k77").subset(np.arange(0, 3296, 7))
    ref = extend(ds, Params(k=77), backend="cpu")
    monkeypatch.setattr(cuda, "TEAM_MIN_BASES", 0)
    got = extend(ds, Params(k=77), backend="opencl", protocol="fast", team=8, block_team=24, fp64=False)
    launches = got.right.extra.launches
    assert got.compare(ref) == [] and {rec["local"] for rec in launches} == {24}
    assert sum(rec["block_teams"] for rec in launches) == sum(rec["contigs"] for rec in launches)
    monkeypatch.undo()
    got = extend(ds, Params(k=77), backend="opencl", protocol="fast", team=5, block_team=5, max_bytes=400_000)
    launches = got.right.extra.launches
    assert got.compare(ref) == [] and len(launches) >= 5 and {rec["local"] for rec in launches} == {5}
    assert all(rec["block_teams"] == 0 for rec in launches)
    assert {rec["slice"] for rec in launches} == set(range(len(launches)))


def test_fast_refuses_what_it_cannot_build(device: str) -> None:
    ds = _sample("k77").subset(np.arange(10))
    with pytest.raises(ValueError, match="64-bit"):
        extend(ds, Params(k=77), backend="opencl", protocol="fast", key_bits=32)
    with pytest.raises(ValueError, match="team 0"):
        extend(ds, Params(k=77), backend="opencl", protocol="fast", block_team=0)
    with pytest.raises(ValueError, match="16 bits"):
        extend(ds, Params(k=77, max_walk=70_000), backend="opencl", protocol="fast")
    ref = extend(ds, Params(k=77), backend="cpu")
    assert extend(ds, Params(k=77), backend="opencl", block_team=0).compare(ref) == [], "block_team is fast's only"

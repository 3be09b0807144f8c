# SPDX-License-Identifier: BSD-3-Clause
"""The Intel (SYCL/OpenCL) backend against the numba oracle: every field, bit for bit.

It runs where dpctl and an OpenCL device with USM answer; in CI that is Intel's OpenCL CPU
driver from PyPI (``pip install 'lassm[intel]'``), which runs the same kernel with real
sub-groups. Elsewhere every test that needs the device is skipped with the reason.

Generated data (:func:`lassm.workloads.local_assembly.generate.generate`, calibrated to the paper's Table II) at
k = 21, 33, 55 and 77 runs through every protocol at both sub-group widths, at
:data:`GEN_SCALE` of Table II's size: each end's reads and contig as Table II's, fewer ends (every
read-count bin still present, a test checks; the size itself is test_generate's). Each dataset is
made once (the generator's cache) and its oracle result once per module.

``LASSM_SYCL_DATASETS`` may name a folder of ``.dat``/``.parquet`` datasets to check too (start k:
the one recorded in the file, else a ``-<k>`` / ``k<k>`` in its name, else 21).
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, extend, paths
from lassm.backends import sycl
from lassm.workloads.local_assembly import datasets, formats

from ..helpers import random_dataset

#: One worker runs them all: the programs, built in memory (dpctl keeps no cache on disk), are
#: shared by the cases of a protocol and width, and Intel's runtime already keeps both cores busy.
pytestmark = pytest.mark.xdist_group("sycl")

OK, WHY = sycl.available()
needs_device = pytest.mark.skipif(not OK, reason=f"needs dpctl and an OpenCL device: {WHY}")
SUBGROUPS = (16, 32)
#: Generated datasets: Table II's start k values at 0.3 of Table II's size (scale 1: 68,510 /
#: 14,665 / 5,920 / 3,510 contigs). Every read count 1..9 and >= 10 (larger side) occurs at every
#: k, and so do walks of several bases (k = 77 the sparsest: 7 walks of >= 5 bases).
GEN_KS = (21, 33, 55, 77)
GEN_SCALE = 0.3
GEN_SEED = 0


@functools.lru_cache(maxsize=None)
def _sample(name: str):
    return formats.read_dat(paths.sample(name))


@functools.lru_cache(maxsize=None)
def _oracle(name: str, k: int, max_walk: int = 613):
    return extend(_sample(name), Params(k=k, max_walk=max_walk), backend="cpu")


@functools.lru_cache(maxsize=None)
def _generated(k: int):
    """The generated dataset at start ``k`` (through the generator's cache, so a run makes it once
    whichever worker asks first) and its oracle result (once per module and worker)."""
    ds = datasets.generated(k, GEN_SCALE, GEN_SEED)  # generate()'s, from the cache: made once a run
    return ds, extend(ds, Params(k=k), backend="cpu")


def _check(ds, params: Params, oracle=None, **options) -> None:
    ref = oracle if oracle is not None else extend(ds, params, backend="cpu")
    got = extend(ds, params, backend="sycl", **options)
    assert got.compare(ref) == [], options
    assert got.lines() == ref.lines()


def _width_or_skip(width: int) -> None:
    sizes = sycl._device().subgroup_sizes
    if width not in sizes:
        pytest.skip(f"{sycl.device_name()} has sub-group sizes {list(sizes)}, not {width}")


def test_unavailable_names_the_install_command(monkeypatch):
    """Without dpctl the backend says how to get it (this test needs no device)."""
    monkeypatch.setattr(sycl, "dpctl", None)
    monkeypatch.setattr(sycl, "_DEVICE", None)
    monkeypatch.setattr(sycl, "_IMPORT_ERROR", f"dpctl is not installed; install it with: {sycl.INSTALL}")
    ok, why = sycl.available()
    assert not ok and "pip install 'lassm[intel]'" in why


def test_build_options_name_every_knob():
    opts = sycl.build_options("barrier", 16, True, False, 613, 33)
    assert "-cl-std=CL3.0" in opts and "-DLASSM_PROTOCOL=LASSM_PROTO_BARRIER" in opts
    assert "-DLASSM_SUBGROUP=16" in opts and "-DLASSM_KEY64=1" in opts and "-DLASSM_FP64=0" in opts
    with pytest.raises(ValueError, match="unknown protocol"):
        sycl.build_options("nope", 16, True, True, 613, 33)


def test_launch_geometry_is_one_subgroup_per_end():
    assert sycl.launch_geometry(5, 1, 16) == (80, 16)
    assert sycl.launch_geometry(5, 3, 8) == (48, 24)


@needs_device
@pytest.mark.parametrize("width", SUBGROUPS)
@pytest.mark.parametrize("protocol", sycl.PROTOCOLS)
@pytest.mark.parametrize("sample, k", [("k77", 77), ("k21", 21)])
def test_matches_oracle_on_the_samples(sample: str, k: int, protocol: str, width: int, ran_where) -> None:
    _width_or_skip(width)
    got = extend(_sample(sample), Params(k=k), backend="sycl", protocol=protocol, subgroup=width)
    assert got.compare(_oracle(sample, k)) == []
    info = got.right.extra
    assert info.subgroup == width and info.protocol == protocol and info.launches
    from lassm.book import ran_where as rw

    ran_where(rw.build_of("local-assembly", "sycl", protocol), rw.platform_of("sycl", sycl.device_name()))


@needs_device
@pytest.mark.parametrize("k", [21, 33, 55])
def test_matches_oracle_at_other_start_k(k: int) -> None:
    _check(_sample("k77"), Params(k=k), _oracle("k77", k))


@needs_device
def test_matches_oracle_with_integer_vote_and_32_bit_keys() -> None:
    """The build for devices without fp64 or 64-bit atomics gives the same bits."""
    _check(_sample("k77"), Params(k=77), _oracle("k77", 77), fp64=False, key_bits=32)


@needs_device
def test_slicing_and_several_subgroups_per_group() -> None:
    """Odd work-group shapes and tiny memory budgets (many slices) change nothing."""
    ds = _sample("k77").subset(np.arange(0, 3296, 7))
    ref = extend(ds, Params(k=77), backend="cpu")
    for options, launches in (({"block_subgroups": 3, "max_bytes": 50_000, "protocol": "matchany"}, 10),
                              ({"block_subgroups": 5, "protocol": "doneflag", "subgroup": 8}, 1)):
        got = extend(ds, Params(k=77), backend="sycl", **options)
        assert got.compare(ref) == [], options
        assert len(got.right.extra.launches) >= launches, options


@needs_device
@pytest.mark.parametrize("seed", [1, 2])
def test_matches_oracle_on_random_data_with_a_short_walk_limit(seed: int) -> None:
    """Ns, short reads, repeats, a walk limit of 100 (another build) and every protocol."""
    ds = random_dataset(seed, n=40, k=21)
    params = Params(k=21, max_walk=100)
    ref = extend(ds, params, backend="cpu")
    for protocol in sycl.PROTOCOLS:
        _check(ds, params, ref, protocol=protocol)


@needs_device
@pytest.mark.parametrize("fp64", [True, False])
def test_vote_matches_oracle(fp64: bool) -> None:
    """set_ext alone, on counts around every threshold (5 nv vs d, 10 nv vs 3 d) and large depths."""
    from lassm.backends.cpu import _BASE_CHARS, set_ext

    if fp64 and not sycl._device().fp64:
        pytest.skip("the device has no fp64")
    rng = np.random.default_rng(11)
    n = 20000
    depths = np.where(rng.random(n) < 0.9, rng.integers(0, 400, n), rng.integers(0, 10**7, n)).astype(np.int64)
    votes = np.empty((n, 8), dtype=np.uint32)
    for i, d in enumerate(depths):
        near = np.array([0, 1, 2, 3, d // 5 - 1, d // 5, d // 5 + 1, 3 * d // 10 - 1, 3 * d // 10,
                         3 * d // 10 + 1, rng.integers(0, 2 * d + 5)], dtype=np.int64)
        votes[i] = np.maximum(rng.choice(near, 8), 0)
    got = sycl.vote(votes, depths, fp64=fp64)
    want = np.array([set_ext(votes[i].astype(np.int32), depths[i], _BASE_CHARS) for i in range(n)], dtype=np.uint8)
    bad = np.flatnonzero(got != want)
    assert len(bad) == 0, f"{len(bad)} differ, first {votes[bad[:3]].tolist()} at depth {depths[bad[:3]].tolist()}"
    assert set(want.tolist()) >= {ord("X"), ord("F"), ord("A"), ord("T")}


@pytest.mark.parametrize("k", GEN_KS)
def test_generated_data_covers_every_bin_and_real_walks(k: int) -> None:
    """The generated datasets cannot pass vacuously: every read-count bin, and walks of several bases."""
    ds, ref = _generated(k)
    larger = np.maximum(ds.left.counts, ds.right.counts)
    present = set(np.minimum(larger, 10).tolist())
    assert set(range(1, 11)) <= present, f"k = {k}: read counts (larger side, 10 = >= 10) {sorted(present)}"
    walks = np.concatenate([ref.left.walk_len, ref.right.walk_len])
    assert (walks >= 5).sum() >= 5, f"k = {k}: only {(walks >= 5).sum()} walks of >= 5 bases"
    assert (walks == 0).any() and (walks >= 1).sum() >= 100


@needs_device
@pytest.mark.parametrize("width", SUBGROUPS)
@pytest.mark.parametrize("protocol", sycl.PROTOCOLS)
@pytest.mark.parametrize("k", GEN_KS)
def test_matches_oracle_on_generated_data(k: int, protocol: str, width: int) -> None:
    _width_or_skip(width)
    ds, ref = _generated(k)
    got = extend(ds, Params(k=k), backend="sycl", protocol=protocol, subgroup=width)
    assert got.compare(ref) == []
    for side in (got.left, got.right):
        assert side.extra.subgroup == width and side.extra.protocol == protocol
        if protocol != "fast":
            assert {launch["bin"] for launch in side.extra.launches} == {"1-9", ">=10"}
    if protocol == "fast":  # both sides and every bin at once, the records with the right side
        assert {launch["bin"] for launch in got.right.extra.launches} == {"all"} and not got.left.extra.launches


def _extra_datasets() -> list[Path | None]:
    """The datasets in ``LASSM_SYCL_DATASETS`` ([None] when it is unset, for a clear skip)."""
    folder = os.environ.get("LASSM_SYCL_DATASETS", "")
    if not folder:
        return [None]
    return sorted(p for p in Path(folder).iterdir() if p.suffix in (".dat", ".parquet"))


def _start_k(path: Path, recorded: int | None) -> int:
    if recorded:
        return int(recorded)
    for m in re.finditer(r"(?:-|k)(\d{2,3})(?=\D|$)", path.name):
        if 21 <= int(m.group(1)) <= 121:
            return int(m.group(1))
    return 21


@needs_device
@pytest.mark.parametrize("path", _extra_datasets(), ids=lambda p: p.name if p else "none")
def test_matches_oracle_on_extra_datasets(path: Path | None) -> None:
    if path is None:
        pytest.skip("LASSM_SYCL_DATASETS names no folder of extra datasets")
    ds = formats.read_dataset(path)
    _check(ds, Params(k=_start_k(path, ds.k)))


# ---------------------------------------------------------------------------------------------
# fast (fast_subgroup.cl)


def test_fast_is_a_protocol_of_the_sycl_backend():
    assert "fast" in sycl.PROTOCOLS and sycl.one_launch("fast") and not sycl.one_launch("casptr")
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_FAST" in sycl.build_options("fast", 16, True, True, 613, 33)


@needs_device
def test_fast_integer_vote_slicing_and_other_widths() -> None:
    """The integer vote, many slices, and sub-groups of 8: the same bits."""
    ds = _sample("k77").subset(np.arange(0, 3296, 7))
    ref = extend(ds, Params(k=77), backend="cpu")
    got = extend(ds, Params(k=77), backend="sycl", protocol="fast", fp64=False, subgroup=8, max_bytes=400_000)
    assert got.compare(ref) == [] and len(got.right.extra.launches) >= 5
    assert "-DLASSM_FP64=0" in got.right.extra.options and got.right.extra.subgroup == 8


@needs_device
def test_fast_refuses_what_it_cannot_build() -> None:
    ds = _sample("k77").subset(np.arange(10))
    with pytest.raises(ValueError, match="64-bit"):
        extend(ds, Params(k=77), backend="sycl", protocol="fast", key_bits=32)
    with pytest.raises(ValueError, match="block_subgroups"):
        extend(ds, Params(k=77), backend="sycl", protocol="fast", block_subgroups=2)

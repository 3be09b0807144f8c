# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA backend equals the numba CPU oracle bit for bit, for every collision protocol.

Runs only where CuPy sees a CUDA device. Fixtures: the real MetaHipMer sample at its own k = 77
and re-run at start k = 21/33/55, the one-contig sample at k = 21, and every ``*.dat`` or
``*.parquet`` in the folder named by ``LASSM_GPU_DATASETS`` (if set). Slicing, odd block sizes
and MetaHipMer's larger-side binning must not change a single byte. ``fast`` (the optimized variant)
is held to the same oracle on every fixture.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pytest

from lassm.workloads.local_assembly import formats
from lassm import paths
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend
from lassm.workloads.local_assembly.result import Extension

pytestmark = pytest.mark.gpu

cuda = pytest.importorskip("lassm.backends.cuda")
_OK, _WHY = cuda.available()
if not _OK:
    pytest.skip(f"no CUDA device: {_WHY}", allow_module_level=True)

#: The faithful protocols, then fast and each of its ablation builds (lassm/backends/nvrtc.py VARIANTS).
PROTOCOLS = ("casptr", "matchany", "doneflag", "barrier", *cuda.VARIANTS)


def _launch_labels(ext: Extension) -> tuple[list[str], list[str]]:
    return ([lc["bin"] for lc in ext.right.extra.launches], [lc["bin"] for lc in ext.left.extra.launches])


@functools.lru_cache(maxsize=None)
def _dataset(path: str):
    return formats.read_dataset(path)


@functools.lru_cache(maxsize=None)
def _oracle(path: str, k: int) -> Extension:
    return extend(_dataset(path), Params(k=k), backend="cpu")


def _check(path: str, k: int, **options) -> Extension:
    ext = extend(_dataset(path), Params(k=k), backend="cuda", **options)
    diffs = _oracle(path, k).compare(ext)
    assert diffs == [], f"{Path(path).name} k={k} {options}: {diffs}"
    return ext


K77 = str(paths.sample("k77"))
K21 = str(paths.sample("k21"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sample_k77(protocol: str) -> None:
    ext = _check(K77, 77, protocol=protocol)
    for side in (ext.right, ext.left):
        assert side.extra.protocol == protocol and side.extra.warp_size == 32
        assert side.extra.mem_high_water_bytes > 0
    if cuda.one_launch(protocol):  # both sides, every bin: one launch, its time on the right side
        assert _launch_labels(ext) == ([cuda.ALL_ENDS], [])
        assert ext.right.kernel_seconds > 0 and ext.left.kernel_seconds == 0
        ends = int(_dataset(K77).with_reads_mask().sum())
        assert ext.right.extra.launches[0]["contigs"] == 2 * ends
    else:
        assert _launch_labels(ext) == (["1-9", ">=10"], ["1-9", ">=10"])
        assert ext.right.kernel_seconds > 0 and ext.left.kernel_seconds > 0
    assert ext.right.walk_len.sum() > 0 and ext.left.walk_len.sum() > 0


@pytest.mark.parametrize("protocol", ["casptr", "fast"])
def test_transfers_are_timed_apart_from_the_kernel(protocol: str) -> None:
    """Every launch records its set-up and its results' copy back; the run, its inputs' copy up;
    a forced slicing (inputs not resident) records each launch's copy up instead. The copies are
    wall time on the host, so they are positive and, for the tiny sample, not the whole run."""
    from lassm.backends.launch import transfer_seconds

    for options in ({}, {"max_bytes": 200_000}):
        ext = _check(K77, 77, protocol=protocol, **options)
        launches = ext.right.extra.launches + ext.left.extra.launches
        assert launches and all(lc["setup_seconds"] > 0 and lc["download_seconds"] > 0 for lc in launches)
        moved = transfer_seconds(ext.right.extra, ext.left.extra)
        assert moved is not None and 0 < moved < ext.wall_seconds
        resident = ext.right.extra.gathered_on == "device"
        if resident:  # copied up once for the run, each launch cut out on the device
            assert ext.right.extra.resident_upload_seconds > 0 and all(lc["upload_seconds"] == 0 for lc in launches)
        else:  # each launch's bases gathered on the host and copied up
            assert all(lc["upload_seconds"] > 0 for lc in launches)
        if cuda.one_launch(protocol):  # one launch for both sides: its copies are the right half's
            assert ext.left.extra.resident_upload_seconds == 0.0


@pytest.mark.parametrize("k", [21, 33, 55])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sample_other_start_k(protocol: str, k: int) -> None:
    _check(K77, k, protocol=protocol)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_one_contig_k21(protocol: str) -> None:
    ext = _check(K21, 21, protocol=protocol)
    assert ext.right.n_k[0] > 0


def test_matches_metahipmer_reference() -> None:
    ext = extend(_dataset(K77), Params(k=77), backend="cuda")
    ref = formats.read_extended(paths.sample_reference("k77"))
    got = dict(line.split(" ", 1) for line in ext.lines())
    assert {int(c): s for c, s in got.items()} == ref


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_forced_slicing(protocol: str) -> None:
    whole = _check(K77, 77, protocol=protocol)
    sliced = _check(K77, 77, protocol=protocol, max_bytes=2_000_000)
    assert whole.compare(sliced) == []
    assert len(sliced.right.extra.launches) > len(whole.right.extra.launches)


@pytest.mark.parametrize("block_warps", [1, 3, 5, 7])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_odd_block_sizes(protocol: str, block_warps: int) -> None:
    _check(K77, 55, protocol=protocol, block_warps=block_warps)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_larger_side_binning(protocol: str) -> None:
    """MetaHipMer's bins (larger side's count) and table sizes change nothing but the launches."""
    ds = _dataset(K77)
    counts = np.maximum(ds.left.counts, ds.right.counts)
    ext = _check(K77, 77, protocol=protocol, bin_counts=counts)
    if not cuda.one_launch(protocol):
        assert [lc["contigs"] for lc in ext.right.extra.launches] == [
            lc["contigs"] for lc in ext.left.extra.launches]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_repeatable(protocol: str) -> None:
    """A race shows as results that move between runs: ten runs at the hardest k must agree."""
    first = _check(K77, 21, protocol=protocol)
    for _ in range(9):
        again = extend(_dataset(K77), Params(k=21), backend="cuda", protocol=protocol)
        assert first.compare(again) == []


def _extra_datasets() -> list[str]:
    folder = os.environ.get("LASSM_GPU_DATASETS")
    if not folder:
        return []
    return sorted(str(p) for p in Path(folder).iterdir() if p.suffix in (".dat", ".parquet"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("path", _extra_datasets() or [pytest.param(None, marks=pytest.mark.skip(
    reason="set LASSM_GPU_DATASETS to a folder of *.dat / *.parquet datasets"))])
def test_extra_datasets(path: str, protocol: str) -> None:
    ds = _dataset(path)
    ks = [ds.k] if ds.k else [21, 33, 55, 77]
    for k in ks:
        _check(path, int(k), protocol=protocol)


def test_fast_tables_are_powers_of_two() -> None:
    """fast's host tables: a power of two per end, never fewer slots than the faithful ones."""
    ds = _dataset(K77)
    ext = extend(ds, Params(k=77), backend="cuda", protocol="fast")
    assert "-DLASSM_PROTOCOL=LASSM_PROTO_FAST" in ext.right.extra.options
    counts = ds.right.counts.astype(np.int64)
    slots = cuda.fast_table_slots(counts, int(ds.right.lengths.max(initial=0)))
    assert ((slots & (slots - 1)) == 0).all()
    assert (slots >= cuda.launch.table_slots(counts, int(ds.right.lengths.max(initial=0)))).all()



def test_fast_block_teams(monkeypatch: pytest.MonkeyPatch) -> None:
    """The heaviest ends get block teams, and the walks do not depend on who walks them: every end
    in a block team, odd block sizes included, gives the oracle's output."""
    ext = _check(K77, 77, protocol="fast")
    assert ext.right.extra.launches[0]["block_teams"] > 0
    assert extend(_dataset(K77), Params(k=77), backend="cuda", protocol="fast-warps").right.extra.launches[0]["block_teams"] == 0
    monkeypatch.setattr(cuda, "TEAM_MIN_BASES", 0)
    for block_warps in (1, 3, 4):
        ext = _check(K77, 33, protocol="fast", block_warps=block_warps)
        assert ext.right.extra.launches[0]["block_teams"] == ext.right.extra.launches[0]["contigs"]

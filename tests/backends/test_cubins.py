# SPDX-License-Identifier: BSD-3-Clause
"""``lassm build-kernels`` (:mod:`lassm.backends.cubins`): the cubins of the default GPU commands,
built ahead into the cache the driver path loads from, with NVRTC alone (no GPU here)."""
from __future__ import annotations

import pytest

from lassm.backends import cubins, cudadrv, nvrtc


def _nvrtc_or_skip() -> None:
    try:
        nvrtc.load()
    except (OSError, FileNotFoundError) as exc:
        pytest.skip(f"no NVRTC here: {exc}")


def test_the_default_builds_are_what_the_commands_load() -> None:
    """fast and its many-ends build (two option sets of one source), fast's sorted build that it
    launches at a small k (the sorted table) and its many-ends build, the segment kernels, and one X-drop
    build per layout: the same (source, options) the loaders pass, so the cache keys meet."""
    from lassm.backends import cuda
    from lassm.backends.xdrop import xdrop_host

    builds = cubins.default_builds()
    labels = [b.label for b in builds]
    assert labels[:5] == ["fast", "fast, many ends", "fast-sorted", "fast-sorted, many ends", "segments"]
    assert (builds[2].source, builds[2].options) == cuda._build("fast-sorted", 32, False, False)[1:]
    assert len([b for b in builds if b.label.startswith("xdrop")]) == 1 + len(xdrop_host.LANES)
    name, code, options = cuda._build("fast", 32, False, False)
    assert (builds[0].source, builds[0].options) == (code, options)
    assert builds[0].options != builds[1].options and builds[0].source == builds[1].source


def test_a_build_lands_in_the_cache_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    _nvrtc_or_skip()
    monkeypatch.setenv("LASSM_CACHE", str(tmp_path))
    seg = [b for b in cubins.default_builds() if b.label == "segments"]
    assert not cudadrv.cached(seg[0].source, seg[0].options, "sm_90")
    first = cubins.build(["sm_90", "sm_80"], seg)
    assert [(r["arch"], r["cached"]) for r in first] == [("sm_90", False), ("sm_80", False)]
    assert cudadrv.cached(seg[0].source, seg[0].options, "sm_90")
    assert len(cudadrv.cache_entries()) == 2
    again = cubins.build(["sm_90"], seg)
    assert again[0]["cached"] is True


def test_the_command_without_a_gpu(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """With --where-a-gpu a machine without a driver is told so and the exit is 0 (make venv goes
    on); without it, one error line and exit 2."""
    from lassm.cli import main

    monkeypatch.setattr(cubins, "this_gpu_arch", lambda: (_ for _ in ()).throw(OSError("no libcuda.so.1 here")))
    assert main(["build-kernels", "--where-a-gpu"]) == 0
    out = capsys.readouterr().out
    assert "nothing built here (no libcuda.so.1 here)" in out
    assert "local-assembly oracle    compiled or loaded in" in out  # numba's cache filled for the first run
    assert main(["build-kernels"]) == 2
    assert capsys.readouterr().err.strip() == "lassm: error: cannot build the kernels: no libcuda.so.1 here"

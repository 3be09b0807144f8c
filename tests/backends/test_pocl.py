# SPDX-License-Identifier: BSD-3-Clause
"""PoCL, the second OpenCL implementation, as a user meets it: ``LASSM_OPENCL_DEVICE=pocl``.

``lassm backends`` names PoCL under that setting, and ``lassm extend --backend opencl`` writes
MetaHipMer's own output for the embedded sample with every protocol, ``fast`` included (compared
as ``tests/cli/test_cli.py`` compares). The kernels' bit-for-bit checks against the oracle on PoCL are
``tests/backends/test_opencl.py``'s and ``tests/backends/test_xdrop_gpu.py``'s ``pocl`` cases. Without PoCL
(Debian's ``pocl-opencl-icd``, which ``make deps`` installs) every test here skips, naming it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from lassm import Params, extend, paths
from lassm.backends import opencl
from lassm.book import ran_where as rw
from lassm.cli import main
from lassm.workloads.local_assembly import formats

from ..helpers import NO_POCL, hang_guard

ROOT = Path(__file__).resolve().parents[2]
_OK, _WHY = opencl.available()
POCL = _OK and any(opencl.is_pocl(d) for d in opencl.devices())
pytestmark = pytest.mark.skipif(not POCL, reason=NO_POCL if _OK else f"{NO_POCL}; and pyopencl: {_WHY}")


@pytest.fixture
def pocl(monkeypatch) -> Iterator[None]:
    """``LASSM_OPENCL_DEVICE=pocl``, the short name, for the test (a kernel that never returns
    ends the run: :func:`helpers.hang_guard`)."""
    monkeypatch.setenv(opencl.DEVICE_ENV, "pocl")
    with hang_guard():
        yield


def test_the_short_name_names_pocl_and_only_pocl(pocl) -> None:
    """``pocl`` names PoCL's devices (whose names do not say PoCL) and no other; a piece of a
    name still names what it did."""
    found = opencl.devices()
    assert [opencl.names("pocl", d) for d in found] == [opencl.is_pocl(d) for d in found]
    assert all("pocl" not in opencl._label(d).lower() for d in found)  # why a short name is needed
    assert opencl.is_pocl(opencl._device().device)
    assert all(opencl.names("", d) and opencl.names(d.name.strip().upper(), d) for d in found)


def test_backends_names_pocl() -> None:
    """``lassm backends``, a fresh process under ``LASSM_OPENCL_DEVICE=pocl``: the opencl line says
    yes and names PoCL and its version."""
    env = {**os.environ, opencl.DEVICE_ENV: "pocl", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "lassm", "backends"], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    line, = (row for row in done.stdout.splitlines() if row.split()[:1] == ["opencl"])
    assert line.split()[1] == "yes" and "Portable Computing Language" in line and " PoCL " in line, line


@pytest.mark.parametrize("protocol", opencl.PROTOCOLS)
def test_extend_on_pocl_writes_metahipmers_output(pocl, protocol: str, tmp_path: Path, ran_where) -> None:
    """A user's check: ``lassm extend`` on the sample, ``--backend opencl``, on PoCL."""
    out = tmp_path / "out.dat"
    argv = ["extend", str(paths.sample("k77")), "--k", "77", "--backend", "opencl", "--protocol", protocol,
            "--out", str(out)]
    assert main(argv) == 0
    assert formats.read_extended(out) == formats.read_extended(paths.sample_reference("k77"))
    ran_where(rw.build_of("local-assembly", "opencl", protocol), rw.platform_of("opencl", "pocl"))


def test_fast_refuses_the_teams_pocl_copies_per_work_item(pocl) -> None:
    """Work-groups of 2 PoCL builds by copying the kernel per work-item, and fast.cl built so
    counts wrong insertions: refused, naming a team that works; the other protocols run there."""
    ds = formats.read_dat(paths.sample("k77")).subset(np.arange(0, 3296, 7))
    ref = extend(ds, Params(k=77), backend="cpu")
    for options in ({"team": 2, "block_team": 8}, {"team": 8, "block_team": 2}):
        with pytest.raises(ValueError, match="copying the kernel once per work-item"):
            extend(ds, Params(k=77), backend="opencl", protocol="fast", **options)
    assert extend(ds, Params(k=77), backend="opencl", protocol="fast", team=1, block_team=3).compare(ref) == []
    assert extend(ds, Params(k=77), backend="opencl", protocol="barrier", team=2).compare(ref) == []

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run`` forks nothing, so numba's TBB pool has nothing to warn about.

A newcomer's ``make book`` printed "Unable to join threads to shut down before fork()" 229 times.
TBB's pre-fork handler prints it when the process forks while its pool cannot shut down, and
two accidents met: importing dpctl turns :mod:`subprocess`'s vfork off process-wide, so each
``git``, ``g++ --version``... became a real ``fork()``; and numba's layer became TBB whenever
dpctl had loaded libtbb first, sharing its pool with Intel's OpenCL driver. The sycl backend
now gives vfork back, and numba's layer is OpenMP by choice (:mod:`lassm.backends.threads`).

The real run below forces the TBB layer, the one that speaks at a fork, and checks that it was
in use: on the code before the fix the same run printed the warning three times.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths

WARNING = "Unable to join threads to shut down before fork()"


def _python(code: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """``code`` run by this interpreter in a fresh process (the layer and dpctl's switch are per process)."""
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(paths.REPO), os.environ.get("PYTHONPATH")]))}
    for name in ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY"):
        full.pop(name, None)
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=full)


def _needs_sycl() -> None:
    """Skips unless the sycl backend (dpctl with a device) can run: the import that turned vfork off.
    Asked of the registry, not by importing dpctl here: the backend must load it itself, after
    naming Intel's driver to the ICD loader."""
    from lassm import backends

    try:
        backends.get("sycl")
    except backends.BackendUnavailable as exc:
        pytest.skip(str(exc))


def test_the_sycl_backend_leaves_vfork_as_it_found_it() -> None:
    _needs_sycl()
    got = _python("import json, subprocess\n"
                  "before = subprocess._USE_VFORK\n"
                  "import lassm.backends.sycl as sycl\n"
                  "sycl._device()\n"
                  "print(json.dumps([before, subprocess._USE_VFORK]))")
    assert got.returncode == 0, got.stderr
    before, after = json.loads(got.stdout.splitlines()[-1])
    assert after == before, "importing the sycl backend switched subprocess's vfork off (dpctl's _init_helper)"


def test_numba_runs_on_openmp_even_after_dpctl_loaded_libtbb() -> None:
    _needs_sycl()
    got = _python("import numba\n"
                  "import lassm.backends.sycl as sycl\n"
                  "sycl._device()  # Intel's driver loads libtbb.so.12: the TBB layer could load now\n"
                  "from lassm.runs.extend import extend\n"
                  "from lassm.workloads.local_assembly import datasets\n"
                  "from lassm.workloads.local_assembly.config import Params\n"
                  "ds, k = datasets.load('sample-k21')\n"
                  "extend(ds, Params(k=k), backend='cpu')\n"
                  "print(numba.threading_layer())")
    assert got.returncode == 0, got.stderr
    assert got.stdout.split()[-1] == "omp", got.stdout


@pytest.mark.slow
def test_a_small_real_run_forks_nothing(tmp_path: Path) -> None:
    _needs_sycl()
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler: the seqan backend, whose build asks g++ its version, cannot run")
    from lassm.backends.xdrop import seqan

    ok, why = seqan.available()
    if not ok:
        pytest.skip(why)
    args = ["run", "--machine", "fork-check", "--backends", "cpu,sycl,seqan", "--datasets",
            "sample-k21,xdrop-short-20", "--xdrops", "10,20", "--no-originals", "--quiet"]
    got = _python("import numba, sys\n"
                  "from lassm.cli import main\n"
                  f"code = main({args!r})\n"
                  "sys.stderr.flush()\n"
                  "print('layer', numba.threading_layer(), 'code', code)",
                  env={"NUMBA_THREADING_LAYER": "tbb", "LASSM_RESULTS": str(tmp_path / "results"),
                       "LASSM_CACHE": str(tmp_path / "cache")})
    out = got.stdout + got.stderr
    assert got.returncode == 0, out
    assert got.stdout.split()[-3:] == ["tbb", "code", "0"], out  # the layer that warns at a fork was in use
    assert WARNING not in out, f"a fork met numba's TBB pool {out.count(WARNING)} times:\n{out[-3000:]}"
    assert (tmp_path / "results" / "fork-check" / "xdrop" / "times.csv").is_file(), "the X-drop part did not run"

# SPDX-License-Identifier: BSD-3-Clause
"""tools/extras.py, and `make extras` through it: the extras follow the GPU the machine has.

Each test runs the script (or make) in a subprocess whose PATH holds only a folder of stand-in
programs (``nvidia-smi``, ``rocminfo``, ``hipconfig``: shell scripts printing what the real ones
print) and a folder with a link to python3, and whose ``LASSM_EXTRAS_ROOT`` is an empty or
stand-in file system root, so no real GPU tool or /opt/rocm of the machine running the tests
can leak in.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .. import helpers

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "extras.py"
#: Today's lists, written out here so that a change of the script's constants is caught.
PLATFORM = ("test,book,intel,dask,opencl" if (platform.system(), platform.machine()) == ("Linux", "x86_64")
            else "test,book,dask,opencl")
NVIDIA_SMI = """\
Fri Nov 27 07:22:06 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: {cuda}     |
+-----------------------------------------+------------------------+----------------------+
"""
ROCMINFO = """\
ROCk module version 6.8.5 is loaded
==========
HSA Agents
==========
  Name:                    gfx942
  Device Type:             GPU
"""


def _stand_in(folder: Path, name: str, stdout: str, rc: int = 0) -> None:
    """An executable ``folder/name`` printing ``stdout`` with shell built-ins only (no cat on PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    body = "".join(f"printf '%s\\n' '{line}'\n" for line in stdout.splitlines())
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}exit {rc}\n")
    path.chmod(0o755)


@pytest.fixture
def env(tmp_path: Path) -> dict:
    """PATH: tmp_path/bin (the stand-ins) and a folder holding python3 alone; an empty file system root."""
    python = tmp_path / "python"
    python.mkdir()
    (python / "python3").symlink_to(Path(sys.executable).resolve())
    (tmp_path / "bin").mkdir()
    (tmp_path / "root").mkdir()
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "LC_ALL", "TMPDIR")}
    return keep | {"PATH": f"{tmp_path / 'bin'}:{python}", "LASSM_EXTRAS_ROOT": str(tmp_path / "root")}


def _extras(env: dict, *args: str) -> list[str]:
    """The script's output lines."""
    python = shutil.which("python3", path=env["PATH"])
    done = subprocess.run([python, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_no_gpu_gives_the_platform_list(env):
    assert _extras(env) == [PLATFORM]
    why = _extras(env, "--why")
    assert why[0] == PLATFORM and any("no GPU found" in line for line in why[1:])


@pytest.mark.parametrize("cuda, extra, other", [("12.4", "cuda12", "cuda13"), ("13.0", "cuda13", "cuda12"),
                                                ("14.1", "cuda13", "cuda12")])
def test_nvidia_driver_cuda_version_picks_the_cupy_extra(env, tmp_path, cuda, extra, other):
    _stand_in(tmp_path / "bin", "nvidia-smi", NVIDIA_SMI.format(cuda=cuda))
    line, *why = _extras(env, "--why")
    assert line.split(",") == PLATFORM.split(",") + [extra] and other not in line
    assert any(f"CUDA {cuda}" in w and extra in w for w in why), why


def test_old_cuda_driver_gets_no_extra_and_a_manual_install_line(env, tmp_path):
    _stand_in(tmp_path / "bin", "nvidia-smi", NVIDIA_SMI.format(cuda="11.8"))
    line, *why = _extras(env, "--why")
    assert line == PLATFORM
    assert any("CUDA 11.8" in w and "by hand" in w for w in why), why


def test_failing_nvidia_smi_is_no_gpu(env, tmp_path):
    _stand_in(tmp_path / "bin", "nvidia-smi", "NVIDIA-SMI has failed because it couldn't communicate with the driver",
              rc=9)
    assert _extras(env) == [PLATFORM]


@pytest.mark.parametrize("hip, extra", [("7.0.51831-a3e329ad8", "rocm"), ("6.4.43482-0f2d60242", None)])
def test_amd_rocm_release_picks_the_wheel_or_says_how_to_build(env, tmp_path, hip, extra):
    _stand_in(tmp_path / "bin", "rocminfo", ROCMINFO)
    _stand_in(tmp_path / "bin", "hipconfig", hip)
    line, *why = _extras(env, "--why")
    if extra:
        assert line.split(",") == PLATFORM.split(",") + ["rocm"]
        assert any(f"ROCm {hip[:3]}" in w for w in why), why
    else:
        assert line == PLATFORM and "rocm" not in line
        assert any("CUPY_INSTALL_USE_HIP=1" in w and "ROCM_HOME" in w and "ROCm 6.4" in w for w in why), why


def test_make_extras_picks_rocm_for_an_mi250x(env, tmp_path):
    """The AMD reader's first step, dry: a stand-in rocminfo printing an MI250X's agents and ROCm
    7.0's release file give `make extras` the rocm extra, its reason naming the gfx target."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("needs make")
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_MI250X)
    info = tmp_path / "root" / "opt" / "rocm" / ".info"
    info.mkdir(parents=True)
    (info / "version").write_text("7.0.2-56\n")
    done = subprocess.run([make, "-s", "-C", str(ROOT), "extras"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == PLATFORM + ",rocm"
    line, *why = _extras(env, "--why")
    assert line == PLATFORM + ",rocm"
    assert any(w.strip().startswith("AMD GPU gfx90a (rocminfo), ROCm 7.0") and w.endswith(": rocm") for w in why), why
    assert not any("no GPU found" in w for w in why)


def test_a_rocminfo_that_lists_no_gpu_is_no_amd_gpu(env, tmp_path):
    """Debian's ROCm packages without the GPU's driver: rocminfo exits 1 and hipconfig still names a
    release, which used to count as an AMD GPU; now no rocm extra and no AMD line but the reason."""
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_NO_GPU, rc=1)
    helpers.stand_in(tmp_path / "bin", "hipconfig", "7.0.51831-a3e329ad8")
    line, *why = _extras(env, "--why")
    assert line == PLATFORM
    assert [w.strip() for w in why[1:]] == [
        "rocminfo is on PATH but lists no AMD GPU (no GPU, or its kernel driver not loaded): no rocm extra",
        "no GPU found (nvidia-smi, rocminfo or /opt/rocm, an Intel render node): the platform's extras"]
    helpers.stand_in(tmp_path / "bin", "rocminfo", helpers.ROCMINFO_RX6800)  # the same release, a GPU listed
    assert _extras(env) == [PLATFORM + ",rocm"]


def test_rocm_release_file_wins_over_hipconfig(env, tmp_path):
    """/opt/rocm alone (no rocminfo on PATH) is an AMD stack; its .info/version names the release."""
    info = tmp_path / "root" / "opt" / "rocm" / ".info"
    info.mkdir(parents=True)
    (info / "version").write_text("7.0.2-56\n")
    _stand_in(tmp_path / "bin", "hipconfig", "6.4.43482-0f2d60242")
    assert _extras(env) == [PLATFORM + ",rocm"]
    (info / "version").write_text("6.3.1-48\n")
    assert _extras(env) == [PLATFORM]


def test_intel_render_node_keeps_intel_and_names_the_compute_runtime(env, tmp_path):
    drm = tmp_path / "root" / "sys" / "class" / "drm"
    for node, vendor in (("renderD128", "0x10de"), ("renderD129", "0x8086")):
        (drm / node / "device").mkdir(parents=True)
        (drm / node / "device" / "vendor").write_text(vendor + "\n")
    line, *why = _extras(env, "--why")
    assert line == PLATFORM
    intel = [w for w in why if "Intel GPU" in w]
    assert intel and "intel-opencl-icd" in intel[0], why
    (drm / "renderD129" / "device" / "vendor").write_text("0x1002\n")
    assert not any("Intel GPU" in w for w in _extras(env, "--why"))


def test_make_extras_runs_the_script(env, tmp_path):
    """`make -s extras` prints the script's line for the stand-in GPU; EXTRAS=... still overrides."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("needs make")
    _stand_in(tmp_path / "bin", "nvidia-smi", NVIDIA_SMI.format(cuda="12.4"))

    def run(*args: str) -> str:
        done = subprocess.run([make, "-s", "-C", str(ROOT), "extras", *args], env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run() == PLATFORM + ",cuda12"
    assert run("EXTRAS=test,book") == "test,book"
    (tmp_path / "bin" / "nvidia-smi").unlink()
    assert run() == PLATFORM


def test_make_venv_installs_the_chosen_extras_and_says_why(env, tmp_path):
    """The install rule (dry run) names the script's extras, in the pip line and the stamp, and prints the reason."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("needs make")
    _stand_in(tmp_path / "bin", "nvidia-smi", NVIDIA_SMI.format(cuda="13.0"))
    venv = tmp_path / "venv"
    done = subprocess.run([make, "-n", "-C", str(ROOT), "venv", f"VENV={venv}"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    extras = PLATFORM + ",cuda13"
    assert "tools/extras.py --why" in done.stdout
    assert f'--editable ".[{extras}]"' in done.stdout
    assert f"touch {venv}/.lassm-installed-{extras.replace(',', '-')}" in done.stdout
    assert not venv.exists()

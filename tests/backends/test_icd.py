# SPDX-License-Identifier: BSD-3-Clause
"""NVIDIA's OpenCL driver found without root (lassm.backends.icd), with stand-in library paths.

The search is checked on files named ``libnvidia-opencl.so.1`` in temporary folders (an ELF
header is all it reads), on a stand-in ``ldconfig`` printing what ``ldconfig -p`` prints, and end
to end: a stand-in ``libnvidia-opencl.so.1`` that is a real OpenCL driver (a link to Intel's CPU
driver of the ``intel`` extra), on ``LD_LIBRARY_PATH`` of a fresh interpreter that does not see
this environment's own copy of that driver: pyopencl finds Intel's platform only through it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lassm.backends import icd

ROOT = Path(__file__).resolve().parents[2]
NAME = "libnvidia-opencl.so.1"


def _library(folder: Path, bits: int = 64) -> Path:
    """A file named like NVIDIA's driver with the ELF header of a ``bits``-bit library."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    path.write_bytes(b"\x7fELF" + bytes([bits // 32]) + bytes(59))
    return path


def _no_cache() -> list[str]:
    return []


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("LD_LIBRARY_PATH", "OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"):
        monkeypatch.delenv(name, raising=False)


def test_found_on_ld_library_path(tmp_path, monkeypatch):
    lib = _library(tmp_path / "b")
    (tmp_path / "a").mkdir()
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{tmp_path / 'a'}::{tmp_path / 'b'}")
    assert icd.find_nvidia_opencl(search_dirs=(), cache=_no_cache) == str(lib.resolve())


def test_absent_is_none(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "a"))
    assert icd.find_nvidia_opencl(search_dirs=(str(tmp_path / "a"),), cache=_no_cache) is None


def test_order_is_ld_library_path_then_cache_then_driver_folders(tmp_path, monkeypatch):
    env_lib, cached, usual = (_library(tmp_path / n) for n in ("env", "cache", "usual"))
    assert icd.find_nvidia_opencl([str(usual.parent)], cache=lambda: [str(cached)]) == str(cached.resolve())
    assert icd.find_nvidia_opencl([str(usual.parent)], cache=_no_cache) == str(usual.resolve())
    monkeypatch.setenv("LD_LIBRARY_PATH", str(env_lib.parent))
    assert icd.find_nvidia_opencl([str(usual.parent)], cache=lambda: [str(cached)]) == str(env_lib.resolve())


def test_a_library_of_the_other_word_size_is_passed_over(tmp_path, monkeypatch):
    """NVIDIA's containers put the 32-bit driver in /usr/local/nvidia/lib, often on LD_LIBRARY_PATH."""
    other = _library(tmp_path / "lib", bits=32 if sys.maxsize > 2**32 else 64)
    own = _library(tmp_path / "lib64", bits=64 if sys.maxsize > 2**32 else 32)
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{other.parent}:{own.parent}")
    assert icd.find_nvidia_opencl(search_dirs=(), cache=_no_cache) == str(own.resolve())
    monkeypatch.delenv("LD_LIBRARY_PATH")
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / NAME).write_text("not a library\n")
    assert icd.find_nvidia_opencl([str(tmp_path / "text"), str(other.parent)], cache=_no_cache) is None


def _ldconfig(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ldconfig"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_loader_cache_is_read_from_ldconfig(tmp_path):
    lines = ["2 libs found in cache /etc/ld.so.cache",
             f"\t{NAME} (libc6) => /usr/lib/i386-linux-gnu/{NAME}",
             f"\t{NAME} (libc6,x86-64) => /usr/local/nvidia/lib64/{NAME}",
             "\tlibnvidia-opencl.so (libc6,x86-64) => /usr/local/nvidia/lib64/libnvidia-opencl.so",
             "\tlibOpenCL.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libOpenCL.so.1"]
    stand_in = _ldconfig(tmp_path, "\n".join(f"printf '%s\\n' '{line}'" for line in lines))
    found = icd.ld_cache(ldconfig=stand_in)
    assert sorted(found) == [f"/usr/lib/i386-linux-gnu/{NAME}", f"/usr/local/nvidia/lib64/{NAME}"]
    assert found[0] == (f"/usr/local/nvidia/lib64/{NAME}" if sys.maxsize > 2**32 else f"/usr/lib/i386-linux-gnu/{NAME}")


def test_a_missing_failing_or_slow_ldconfig_is_an_empty_cache(tmp_path, monkeypatch):
    assert icd.ld_cache(ldconfig=str(tmp_path / "absent")) == []
    assert icd.ld_cache(ldconfig=_ldconfig(tmp_path, f"printf '\\t{NAME} (libc6,x86-64) => /x/{NAME}\\n'; exit 1")) == []
    monkeypatch.setattr(icd, "LDCONFIG_TIMEOUT", 0.2)
    assert icd.ld_cache(ldconfig=_ldconfig(tmp_path, f"sleep 5; printf '\\t{NAME} (libc6,x86-64) => /x/{NAME}\\n'")) == []


def test_driver_libraries_add_nvidia_once(tmp_path, monkeypatch):
    """Found on LD_LIBRARY_PATH: listed once; an .icd naming an NVIDIA library already: no search."""
    lib = _library(tmp_path / "nv")
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "pocl.icd").write_text("libpocl.so.2\n")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(lib.parent))
    libs = icd.driver_libraries(vendors)
    assert libs[:2] == ["libpocl.so.2", str(lib.resolve())]
    (vendors / "nvidia.icd").write_text(f"{lib}\n")
    monkeypatch.setenv("OCL_ICD_FILENAMES", str(tmp_path / "nv" / "." / NAME))
    libs = icd.driver_libraries(vendors)
    assert [x for x in libs if NAME in x] == [str(lib)]
    (vendors / "nvidia.icd").write_text(f"{NAME}\n")  # a bare name, as NVIDIA's installer writes it
    monkeypatch.delenv("OCL_ICD_FILENAMES")
    assert [x for x in icd.driver_libraries(vendors) if NAME in x] == [NAME]


def test_a_stand_in_that_is_the_environments_driver_is_listed_once(tmp_path, monkeypatch):
    intel = icd.env_intel_driver()
    if intel is None:
        pytest.skip("needs Intel's OpenCL CPU driver in this environment's lib/ (pip install 'lassm[intel]')")
    (tmp_path / "nv").mkdir()
    (tmp_path / "nv" / NAME).symlink_to(intel)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "nv"))
    assert icd.driver_libraries(tmp_path / "no-vendors") == [str(intel.resolve())]


_PROBE = """
import json
from lassm.backends import icd, opencl
platforms = sorted({d.platform.name.strip() for d in opencl.devices()})
print(json.dumps({"intel_here": str(icd.env_intel_driver() or ""), "platforms": platforms,
                  "libraries": opencl.loader_libraries()}))
"""


def _probe(tmp_path: Path, ld_library_path: str) -> dict:
    """The platforms and loader libraries a fresh base interpreter sees, with this environment's
    packages on PYTHONPATH but its prefix (and so its lib/libintelocl.so) out of sight."""
    import pyopencl

    site_packages = Path(pyopencl.__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items()
           if k not in ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "LASSM_OPENCL_DEVICE", "PYTHONHOME")}
    env |= {"PYTHONPATH": f"{ROOT}:{site_packages}", "LD_LIBRARY_PATH": ld_library_path,
            "PYTHONUSERBASE": str(tmp_path / "userbase")}
    done = subprocess.run([str(Path(sys.executable).resolve()), "-c", _PROBE], env=env, capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_pyopencl_finds_a_platform_through_a_stand_in_nvidia_library(tmp_path):
    """The stand-in is Intel's CPU driver: the platform appears with it on LD_LIBRARY_PATH only."""
    pytest.importorskip("pyopencl")
    intel = icd.env_intel_driver()
    if intel is None:
        pytest.skip("needs Intel's OpenCL CPU driver in this environment's lib/ (pip install 'lassm[intel]')")
    if any("nvidia" in lib.lower() for lib in icd.driver_libraries() if lib != str(intel)):
        pytest.skip(f"this machine names NVIDIA's OpenCL in {icd.VENDORS}: the search does not run")
    (tmp_path / "nv").mkdir()
    (tmp_path / "nv" / NAME).symlink_to(intel)
    without = _probe(tmp_path, "")
    if without["intel_here"]:
        pytest.skip(f"a fresh interpreter still sees {without['intel_here']} (Python is not a virtual environment's)")
    if "Intel(R) OpenCL" in without["platforms"]:
        pytest.skip("Intel's OpenCL driver is registered on this machine: the stand-in cannot be told apart")
    assert str(intel.resolve()) not in without["libraries"]
    found = _probe(tmp_path, str(tmp_path / "nv"))
    assert str(intel.resolve()) in found["libraries"]
    assert "Intel(R) OpenCL" in found["platforms"], found

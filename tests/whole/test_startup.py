# SPDX-License-Identifier: BSD-3-Clause
"""Nothing is done twice per call: the command line imports no GPU or data stack to print its
help, and every compiled kernel is cached on disk, keyed so that a changed source rebuilds."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lassm import paths

#: Stacks that cost a second or more to import, or need a GPU: only the command that uses one may.
HEAVY = ("cupy", "numba", "llvmlite", "pyopencl", "dpctl", "dask", "distributed", "pandas", "pyarrow",
         "matplotlib", "altair", "papermill")


def _imported(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter holds after running ``code``."""
    probe = (f"import sys\n{code}\n"
             f"import json; print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=paths.REPO, capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [None, ["--help"], ["data", "--help"], ["extend", "--help"],
                                  ["bench", "--help"], ["metrics", "derive", "--help"], ["xdrop", "align", "--help"],
                                  ["measure", "fast-knobs", "--help"]],
                         ids=["import", "help", "data help", "extend help", "bench help", "metrics help", "xdrop help",
                              "measure help"])
def test_the_command_line_imports_no_heavy_stack(argv: list[str] | None) -> None:
    code = "import lassm.cli" if argv is None else \
        f"from lassm.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
    assert _imported(code) == []


def test_reading_a_dat_imports_no_heavy_stack() -> None:
    code = ("from lassm.workloads.local_assembly import formats\n"
            f"formats.read_dat({str(paths.sample('k21'))!r})")
    assert _imported(code) == []


def test_every_numba_function_is_cached_on_disk() -> None:
    """cache=True on every jitted function of the CPU backend (numba keys the cache on the file,
    which holds every one of them, and honours NUMBA_CACHE_DIR)."""
    pytest.importorskip("numba")
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    from lassm.backends import cpu

    jitted = {name: fn for name, fn in vars(cpu).items() if isinstance(fn, Dispatcher)}
    assert len(jitted) >= 5
    uncached = [name for name, fn in jitted.items() if isinstance(fn._cache, NullCache)]
    assert uncached == []


def test_cuda_kernel_key_changes_with_the_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    """CuPy's on-disk cache keys on the source string and the options only; the digest of every
    kernel file rides in the options, so editing a header compiles anew."""
    from lassm.backends import cuda

    seen: list[tuple] = []
    monkeypatch.setattr(cuda, "_kernel", lambda options, code: seen.append((options, code)))
    cuda.kernel("casptr", 32)
    monkeypatch.setattr(cuda, "sources_digest", lambda: "0" * 64)
    cuda.kernel("casptr", 32)
    (first, code1), (second, code2) = seen
    assert code1 == code2 and first != second
    assert f"-DLASSM_SOURCES_SHA256={'0' * 64}" in second


def test_a_cpu_run_imports_no_gpu_or_cluster_stack(tmp_path) -> None:
    """``lassm extend --backend cpu`` needs numba alone of the heavy stacks."""
    pytest.importorskip("numba")
    src = tmp_path / "in.dat"
    src.write_text(f"7 {'ACGT' * 20} 3 0 0\n")
    code = ("from lassm.cli import main\n"
            f"assert main(['extend', {str(src)!r}, '--k', '21', '--out', {str(tmp_path / 'o.txt')!r}]) == 0")
    assert [m for m in _imported(code) if m not in ("numba", "llvmlite")] == []


def test_parquet_in_and_out_imports_no_pandas(tmp_path) -> None:
    """``lassm xdrop align`` on parquet pairs, parquet out, and ``lassm extend`` on a parquet
    dataset with its ends table read and write through the columns' buffers: pyarrow's
    ``read_table``, ``pa.array`` and ``to_numpy`` would import pandas (and ``pyarrow.dataset``),
    a quarter of a second."""
    pytest.importorskip("numba")
    pytest.importorskip("pyarrow")
    from lassm.workloads.xdrop.pair_files import write_pairs
    from lassm.workloads.xdrop.synthetic_pairs import PairKnobs, generate

    pairs = tmp_path / "p.parquet"
    write_pairs(generate(PairKnobs(n_pairs=3, min_length=100, max_length=200)), pairs)
    code = ("from lassm.cli import main\n"
            f"assert main(['xdrop', 'align', {str(pairs)!r}, '--out', {str(tmp_path / 'a.parquet')!r}]) == 0\n"
            f"assert main(['extend', {str(paths.REPO / 'data' / 'real' / 'real-tiny-k21.parquet')!r}, "
            f"'--out', {str(tmp_path / 'o.txt')!r}, '--ends', {str(tmp_path / 'ends.parquet')!r}]) == 0\n"
            f"assert main(['extend', {str(paths.REPO / 'data' / 'real' / 'real-tiny-k21.parquet')!r}, "
            f"'--out', {str(tmp_path / 'o.txt')!r}, '--ends', {str(tmp_path / 'ends.tsv')!r}]) == 0")
    assert [m for m in _imported(code) if m not in ("numba", "llvmlite", "pyarrow")] == []


def test_gpu_backend_modules_import_without_their_runtime() -> None:
    """The CUDA, HIP and X-drop GPU modules start no process and load no runtime at import: CuPy,
    its library search and the context wait for the first use (``warm_up``, in a thread)."""
    code = ("import subprocess\n"
            "def refuse(*args, **kwargs):\n"
            "    raise AssertionError(f'a process started at import: {args[:1]}')\n"
            "subprocess.Popen = refuse\n"
            "import lassm.backends.cuda, lassm.backends.hip, lassm.backends.nvrtc, lassm.backends.icd\n"
            "import lassm.backends.xdrop.xdrop_cuda, lassm.backends.xdrop.xdrop_host, lassm.backends.device_segments")
    assert _imported(code) == []

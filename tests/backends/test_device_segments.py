# SPDX-License-Identifier: BSD-3-Clause
"""The GPU backends' per-base host steps done on the device (``lassm.backends.device_segments``)
against the host's (``launch.gather``, ``segments_jit.revcomp_segments``), the segment index
arithmetic they share (``segment_index``), and the overlap of a
command's backend start-up with its input read (``lassm.cli._prepare_backend``).

The NumPy parts run everywhere; the kernels need CuPy and an NVIDIA GPU (marked ``gpu``).
"""
from __future__ import annotations

import numpy as np
import pytest

from lassm import cli
from lassm.backends import device_segments, launch
from lassm.errors import BackendUnavailable
from lassm.workloads.local_assembly.dataset import _COMPLEMENT
from lassm.workloads.local_assembly.segment_index import segment_offsets
from lassm.workloads.local_assembly.segments_jit import revcomp_segments


def _segments(rng: np.random.Generator, n: int, longest: int) -> tuple[np.ndarray, np.ndarray]:
    lengths = rng.integers(0, longest + 1, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return rng.choice(np.frombuffer(b"ACGTNacgt\x00", np.uint8), int(offsets[-1])), offsets


@pytest.mark.parametrize("seed", range(4))
def test_read_index_is_each_ends_reads_in_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, 50)
    contig_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    index = rng.permutation(50)[: rng.integers(0, 51)]
    ids, off = launch.read_index(contig_offsets, index)
    want_ids = [r for i in index for r in range(contig_offsets[i], contig_offsets[i + 1])]
    want_off = np.concatenate(([0], np.cumsum([contig_offsets[i + 1] - contig_offsets[i] for i in index])))
    assert ids.dtype == np.int64 and off.dtype == np.int64
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_array_equal(off, want_off)


def test_segment_offsets_by_hand() -> None:
    starts, new_off = segment_offsets(np.array([0, 3, 3, 10]), np.array([2, 0, 1]))
    assert starts.tolist() == [3, 0, 3] and new_off.tolist() == [0, 7, 10, 10]


def test_a_failing_backend_is_named_after_the_read(tmp_path, monkeypatch, capsys) -> None:
    """The check runs beside the read; its failure still ends the command with one line, exit 2,
    before any output is written."""
    import lassm.backends.cpu as cpu

    monkeypatch.setattr(cpu, "available", lambda: (False, "not in this test"))
    data = tmp_path / "one.dat"
    data.write_text("1\tACGTACGTACGTACGTACGTACGTACGTAC\t2.0\t0\t0\n")
    assert cli.main(["extend", str(data), "--k", "21", "--backend", "cpu", "--out", str(tmp_path / "o.txt")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "backend 'cpu' cannot run here: not in this test" in err[0], err
    assert not (tmp_path / "o.txt").exists()


def test_a_bad_input_is_named_even_when_the_backend_fails_too(tmp_path, monkeypatch, capsys) -> None:
    import lassm.backends.cpu as cpu

    monkeypatch.setattr(cpu, "available", lambda: (False, "not in this test"))
    data = tmp_path / "bad.dat"
    data.write_text("1\tACGTACGTACGTACGTACGTACGTACGTAC\tnot-a-depth\t0\t0\n")
    assert cli.main(["extend", str(data), "--k", "21", "--backend", "cpu", "--out", str(tmp_path / "o.txt")]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and str(data) in err[0] and "cannot run here" not in err[0], err


def test_warm_up_gets_the_protocol_and_its_failure_is_raised(monkeypatch) -> None:
    import lassm.backends.cpu as cpu

    seen: list[str | None] = []
    monkeypatch.setattr(cpu, "warm_up", lambda protocol: seen.append(protocol), raising=False)
    cli._prepare_backend("cpu", "fast")()
    assert seen == ["fast"]

    def boom(protocol):
        raise BackendUnavailable("warm-up failed in this test")

    monkeypatch.setattr(cpu, "warm_up", boom, raising=False)
    with pytest.raises(BackendUnavailable, match="warm-up failed in this test"):
        cli._prepare_backend("cpu", None)()


def _cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.is_hip or cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("needs an NVIDIA GPU")
    except Exception as exc:  # no driver
        pytest.skip(f"needs an NVIDIA GPU: {exc}")
    return cupy


@pytest.mark.gpu
@pytest.mark.parametrize("seed, pad", [(0, 0), (1, 8), (2, 64)])
def test_device_gather_is_the_hosts(seed: int, pad: int) -> None:
    cupy = _cupy_or_skip()
    rng = np.random.default_rng(seed)
    buf, offsets = _segments(rng, 3000, 400)
    index = rng.permutation(3000)[:2500]
    got, off = device_segments.gather(cupy.asarray(buf), offsets, index, pad=pad)
    want, want_off = launch.gather(buf, offsets, index, pad=pad)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    np.testing.assert_array_equal(off, want_off)


@pytest.mark.gpu
def test_device_gather_of_nothing() -> None:
    cupy = _cupy_or_skip()
    got, off = device_segments.gather(cupy.zeros(0, dtype=cupy.uint8), np.zeros(1, np.int64), np.zeros(0, np.int64), pad=4)
    assert cupy.asnumpy(got).tolist() == [0, 0, 0, 0] and off.tolist() == [0]


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(3))
def test_device_revcomp_is_the_hosts(seed: int) -> None:
    cupy = _cupy_or_skip()
    buf, offsets = _segments(np.random.default_rng(seed), 2000, 900)
    got = device_segments.revcomp(cupy.asarray(buf), offsets)
    np.testing.assert_array_equal(cupy.asnumpy(got), revcomp_segments(buf, offsets, _COMPLEMENT))


@pytest.mark.gpu
@pytest.mark.parametrize("seed, row", [(0, 613), (1, 7), (2, 1)])
def test_packed_rows_are_each_rows_first_bytes(seed: int, row: int) -> None:
    """A launch's walks packed on the device equal the dense rows' walked bytes end to end (what
    :meth:`SideResult.compact` makes on the host), with the same offsets; none walked packs to none."""
    from lassm.workloads.local_assembly.result import SideResult

    cupy = _cupy_or_skip()
    rng = np.random.default_rng(seed)
    n = 5000
    dense = SideResult.empty(n, row)
    dense.walk_len[:] = rng.integers(0, row + 1, n) * (rng.random(n) < 0.3)
    dense.walks[:] = rng.choice(np.frombuffer(b"ACGT", np.uint8), n * row)
    got, off = device_segments.pack_rows(cupy.asarray(dense.walks), row, dense.walk_len)
    want = dense.compact()
    np.testing.assert_array_equal(off, want.offsets)
    np.testing.assert_array_equal(cupy.asnumpy(got)[: int(off[-1])], want.walks)
    none, off0 = device_segments.pack_rows(cupy.asarray(dense.walks), row, np.zeros(n, np.int32))
    assert off0.tolist() == [0] * (n + 1) and none.size == 1  # one byte allocated, none packed

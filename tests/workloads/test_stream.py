# SPDX-License-Identifier: BSD-3-Clause
"""The scaling study's large inputs, written a block at a time.

A streamed file must be the file written whole, byte for byte (at ``gen-k21x20`` itself); a
replicated range cut from the base must equal that range of the replicated set; a shard folder
must read back as the set it was cut from, range by range, and plan, from the weights it saved,
the ranges its data plans; and streaming must not hold the replicated set: its peak memory stays
flat as the replica count grows tenfold.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lassm import atomic, readback
from lassm.cli import main
from lassm.errors import LassmError
from lassm.workloads.local_assembly import datasets, formats, stream
from lassm.workloads.local_assembly.dataset import Dataset

from ..helpers import shard_folder_without_weights

pytest.importorskip("pyarrow")


def _same(a: Dataset, b: Dataset) -> None:
    """Array for array (values and dtypes), ids, name and k."""
    for name in ("cids", "seqs", "offsets", "depths"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    for side in ("left", "right"):
        for name in ("seqs", "quals", "offsets", "contig_offsets"):
            x, y = getattr(getattr(a, side), name), getattr(getattr(b, side), name)
            assert x.dtype == y.dtype and np.array_equal(x, y), (side, name)
        assert getattr(a, side).ids == getattr(b, side).ids, side
    assert (a.name, a.k) == (b.name, b.k)


def test_a_replicated_range_is_that_range_of_the_replicated_set() -> None:
    """Replicas of replicas, ranges within one replica, across several, empty, whole."""
    whole, _ = datasets.load("sample-k77x3x2")
    src, k = stream.source("sample-k77x3x2")
    n, base = whole.n_contigs, whole.n_contigs // 6
    assert src.n_contigs == n and k == 77 and stream.max_cid(src) == int(whole.cids.max())
    for a, b in ((0, n), (0, 0), (5, 17), (base - 2, base + 5), (base - 1, n - 3), (n - 1, n), (2 * base, 4 * base)):
        _same(src.slice(a, b), whole.slice(a, b))


def test_the_streamed_x20_file_is_the_whole_ones_bytes(tmp_path: Path) -> None:
    """``gen-k21x20`` (1.37 M contigs: two row groups) written a block at a time is the file that
    writing the loaded set makes; so is a ``.dat`` of a set streamed in small blocks."""
    whole, streamed = tmp_path / "whole.parquet", tmp_path / "streamed.parquet"
    formats.write_dataset(datasets.load("gen-k21x20")[0], whole)
    figures = stream.write("gen-k21x20", streamed)
    assert streamed.read_bytes() == whole.read_bytes()
    assert figures["contigs"] == 20 * datasets.load("gen-k21")[0].n_contigs and figures["bytes"] == whole.stat().st_size
    formats.write_dataset(datasets.load("sample-k77x3")[0], tmp_path / "whole.dat")
    stream.write("sample-k77x3", tmp_path / "streamed.dat", rows=500)
    assert (tmp_path / "streamed.dat").read_bytes() == (tmp_path / "whole.dat").read_bytes()


def test_unnamed_reads_are_numbered_across_blocks(tmp_path: Path) -> None:
    """A set without read ids: the parquet writer names them ``@r<j>``, counting from the file's
    first read, so a file streamed in blocks names them as the whole would."""
    ds, _ = datasets.load("sample-k77")
    bare = Dataset(ds.cids, ds.seqs, ds.offsets, ds.depths, type(ds.left)(ds.left.seqs, ds.left.quals, ds.left.offsets,
                   ds.left.contig_offsets), type(ds.right)(ds.right.seqs, ds.right.quals, ds.right.offsets,
                   ds.right.contig_offsets), name="bare", k=77)
    formats.write_parquet(bare, tmp_path / "whole.parquet")
    stream._write_parquet(bare, 0, bare.n_contigs, tmp_path / "blocks.parquet", rows=100)
    a, b = formats.read_parquet(tmp_path / "whole.parquet"), formats.read_parquet(tmp_path / "blocks.parquet")
    _same(a, b)
    assert a.right.ids[-1] == f"@r{bare.right.n_reads - 1}"


def test_shards_read_back_range_by_range(tmp_path: Path) -> None:
    """Four shard files of small row groups: the ranges are the sharded run's plan, every file
    its range, and any range reads back equal to the set's, from the row groups that hold it."""
    from lassm.runs import shard_files

    name = "gen-k21-s0.05x7"
    whole, k = datasets.load(name)
    assert main(["data", "shard", name, "--shards", "4", "--out", str(tmp_path / "s")]) == 0
    doc = stream.manifest(tmp_path / "s")
    bounds = [(p["start"], p["stop"]) for p in doc["shards"]]
    assert bounds == shard_files.as_ranges(shard_files.plan_ranges(whole, 4))
    assert (doc["name"], doc["k"], doc["contigs"]) == (name, k, whole.n_contigs)
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted([atomic.MARKER, stream.MANIFEST, stream.WEIGHTS,
                                                                         *map(stream.part_file, range(4))])
    for part in doc["shards"]:
        _same(formats.read_parquet(tmp_path / "s" / part["file"]), whole.slice(part["start"], part["stop"]))
    small = tmp_path / "small"
    stream.write_shards(name, small, 3, rows=700)
    n = whole.n_contigs
    for a, b in ((0, n), (1, 2), (650, 1500), (n // 3 - 10, n // 3 + 10), (n - 701, n)):
        _same(stream.read_range(small, a, b), whole.slice(a, b))
    with pytest.raises(LassmError, match="not within"):
        stream.read_range(small, 0, n + 1)
    edges = [p["start"] for p in stream.manifest(small)["shards"]][1:]
    pieces = stream.within_files(small, [(0, n), (1, 2), (edges[0] - 5, edges[1] + 5)])
    assert pieces == [(0, edges[0]), (edges[0], edges[1]), (edges[1], n), (1, 2),
                      (edges[0] - 5, edges[0]), (edges[0], edges[1]), (edges[1], edges[1] + 5)]
    for a, b in pieces:  # each within one file: its views, equal to the set's range
        _same(stream.read_range(small, a, b), whole.slice(a, b))
    # A worker's range in pieces at row-group edges (its next read then hides behind this piece's work).
    for ranges, want in (([(0, edges[0])], 4), (pieces[:3], 4), (pieces[3:4], 4), (pieces[4:], 5), ([(0, n)], 1)):
        cut = stream.in_row_groups(small, ranges, want)
        assert [x for x in cut if x[0] >= x[1]] == [], cut
        for lo, hi in ranges:  # each range covered once, end to end, by its own pieces
            mine = [x for x in cut if lo <= x[0] < hi]
            assert mine[0][0] == lo and mine[-1][1] == hi and all(p[1] == q[0] for p, q in zip(mine, mine[1:]))
        starts = {p["start"]: p for p in stream.manifest(small)["shards"]}
        file_of = lambda x: max(s for s in starts if s <= x)  # noqa: E731
        inner = [x[0] for x in cut if x[0] not in {lo for lo, _ in ranges}]
        assert all((x - file_of(x)) % 700 == 0 for x in inner), cut  # cuts only at row-group edges
        assert len(cut) <= want + len(ranges) - 1  # each range its share, at least one piece
    quarters = stream.in_row_groups(small, [(0, edges[0])], 4)  # one file of 10 row groups and more
    assert len(quarters) == 4 and all(abs((hi - lo) - edges[0] / 4) <= 700 for lo, hi in quarters), quarters
    assert stream.in_row_groups(small, [(1, 2)], 4) == [(1, 2)]  # no edge inside: one piece


def test_a_shard_folder_plans_from_its_weights_as_from_its_data(tmp_path: Path) -> None:
    """Folders of 1 to 5 shards: the saved weights are :func:`stream.contig_weights` exactly (the
    manifest names their file and digest), and the ranges planned from them, for any count, are
    those planned from the whole set; so are the folder's own files' ranges."""
    from lassm.runs import shard_files, shard_plan

    name = "gen-k21-s0.05x3"
    whole, k = datasets.load(name)
    expected = stream.contig_weights(stream.source(name)[0])
    assert np.array_equal(expected, shard_plan.work_estimate(whole) + np.diff(whole.offsets))
    for shards in range(1, 6):
        doc = stream.write_shards(name, tmp_path / str(shards), shards, rows=600)
        folder = stream.ShardFolder.open(tmp_path / str(shards))
        assert (folder.name, folder.k, folder.n_contigs, folder.weights_file) == (name, k, whole.n_contigs,
                                                                                  stream.WEIGHTS)
        weights = folder.weights()
        assert weights.dtype == expected.dtype and np.array_equal(weights, expected)
        assert doc["weights"]["sha256"] == readback.sha256(tmp_path / str(shards) / stream.WEIGHTS)
        assert stream.manifest(folder.path) == json.loads(json.dumps(doc))
        own = [(p["start"], p["stop"]) for p in doc["shards"]]
        assert own == shard_files.as_ranges(shard_files.plan_ranges(folder, shards))
        for count in range(1, 6):
            planned = shard_files.plan_ranges(folder, count)
            assert shard_files.as_ranges(planned) == shard_files.as_ranges(shard_files.plan_ranges(whole, count))
            balance = shard_files.range_balance(weights, planned)
            assert balance["shard_work"] == [float(expected[idx].sum()) for idx in planned]
            assert 1.0 <= balance["max_over_mean"] <= balance["bound"] + 1e-12
            assert balance["shard_contigs"] == [len(idx) for idx in planned]


def test_a_folder_written_without_weights_is_planned_from_its_data(tmp_path: Path) -> None:
    """A folder of an older lassm (no weights file, no ``weights`` in its manifest) still opens and
    reads whole; planning from it alone is refused, naming why."""
    from lassm.runs import shard_files

    folder = stream.ShardFolder.open(shard_folder_without_weights(tmp_path / "old", "sample-k77", 2))
    assert folder.weights_file is None and folder.weights() is None
    _same(folder.load(), stream.read_range(folder.path, 0, folder.n_contigs))
    assert folder.load().n_contigs == datasets.load("sample-k77")[0].n_contigs
    with pytest.raises(LassmError, match="no planning weights"):
        shard_files.plan_ranges(folder, 2)


def test_a_folder_without_its_manifest_is_unfinished(tmp_path: Path) -> None:
    assert not stream.is_shard_folder(tmp_path)
    with pytest.raises(LassmError, match="not a finished shard folder"):
        stream.manifest(tmp_path)
    with pytest.raises(LassmError, match="--shards 99999"):
        stream.write_shards("sample-k77", tmp_path, 99999)


PEAK = r"""
import json, resource, sys
import pyarrow.parquet
from lassm.workloads.local_assembly import datasets, stream
name, dest = sys.argv[1], sys.argv[2]
base = datasets.load(name.rsplit("x", 1)[0])[0]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
stream.write(name, dest, rows=4096)
print(json.dumps([before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024]))
"""


def test_streaming_holds_a_block_not_the_replicated_set(tmp_path: Path) -> None:
    """200 replicas streamed: the process's peak grows by a small share of the replicated set's
    arrays (what writing it whole holds, and more), measured in a fresh process."""
    name = "gen-k21-s0.05x200"
    base = datasets.load("gen-k21-s0.05")[0]
    replicated = 200 * sum(a.nbytes for a in (base.seqs, base.offsets, base.cids, base.depths, *(
        getattr(getattr(base, s), f) for s in ("left", "right") for f in ("seqs", "quals", "offsets", "contig_offsets"))))
    out = subprocess.run([sys.executable, "-c", PEAK, name, str(tmp_path / "x.parquet")], capture_output=True,
                         text=True, check=True)
    before, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert after - before < 0.2 * replicated, (before, after, replicated)
    assert formats.read_parquet(tmp_path / "x.parquet").n_contigs == 200 * base.n_contigs


def test_the_scaling_names_are_planned_and_a_count_too_large_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """x20, x40 and x80 fit this machine as replicas (not as generator scales); with 1 GB the
    refusal names the largest replica count that fits, a whole number."""
    for name in ("gen-k21x20", "gen-k21x40", "gen-k21x80"):
        assert datasets.check_name(name) == name
    monkeypatch.setenv("LASSM_MEMORY_BYTES", str(10**9))
    with pytest.raises(LassmError, match=r"gen-k21x80'.*at most 17 fits$"):
        datasets.check_name("gen-k21x80")
    assert datasets.check_name("gen-k21x17") == "gen-k21x17"
    monkeypatch.setenv("LASSM_MEMORY_BYTES", str(2 * 10**9))
    assert stream.check_name("gen-k21x80000") == "gen-k21x80000"  # never whole in memory: no replica bound
    with pytest.raises(LassmError, match="k = 20"):
        stream.check_name("gen-k20x4")
    monkeypatch.setenv("LASSM_MEMORY_BYTES", str(10**9))  # a block of 2^20 contigs does not fit; of 2^18 it does
    with pytest.raises(LassmError, match=r"blocks of 1,048,576 contigs: .* at most 1,000,000 fits"):
        stream.check_name("gen-k21x80")
    assert stream.check_name("gen-k21x80", stream.SHARD_ROW_GROUP) == "gen-k21x80"


def _flip(path: Path, byte: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[byte] ^= 1 << bit
    path.write_bytes(bytes(data))


def test_a_part_changed_by_one_bit_is_refused_before_it_is_read(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    """Single-bit flips spread over a part, header to footer: each is refused by its SHA-256 before
    the part is read (some flips still parse, and gave other contigs with exit 0), naming the part;
    the same flip in the planning weights is refused too; ``lassm extend`` says it in one line."""
    folder = tmp_path / "s"
    stream.write_shards("sample-k77", folder, 3)
    doc = stream.manifest(folder)
    part = folder / doc["shards"][1]["file"]
    size, mid = part.stat().st_size, (doc["shards"][1]["start"], doc["shards"][1]["stop"])
    for byte in sorted({4, size // 7, size // 3, size // 2, 2 * size // 3, size - 40, size - 9}):
        _flip(part, byte, byte % 8)
        with pytest.raises(LassmError, match=f"{part.name}: its SHA-256 is not the one shards.json records"):
            stream.read_range(folder, *mid)
        _flip(part, byte, byte % 8)
    _same(stream.read_range(folder, *mid), datasets.load("sample-k77")[0].slice(*mid))
    _flip(part, size // 2, 3)
    assert main(["extend", str(folder), "--k", "77", "--out", str(tmp_path / "o.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and part.name in err[0] and "SHA-256" in err[0], err
    assert not (tmp_path / "o.txt").exists()
    _flip(part, size // 2, 3)
    _flip(folder / stream.WEIGHTS, 200, 0)
    with pytest.raises(LassmError, match=f"{stream.WEIGHTS}: its SHA-256"):
        stream.ShardFolder.open(folder).weights()


def test_a_part_is_hashed_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker reads its range piece by piece: each part is hashed on its first read only, and
    again once it is written anew."""
    folder = tmp_path / "s"
    stream.write_shards("sample-k77", folder, 2, rows=300)
    hashed: list[str] = []
    real = readback.sha256
    monkeypatch.setattr(readback, "sha256", lambda p: hashed.append(Path(p).name) or real(p))
    n = stream.manifest(folder)["contigs"]
    for a, b in stream.in_row_groups(folder, stream.within_files(folder, [(0, n)]), 6):
        stream.read_range(folder, a, b)
    assert sorted(hashed) == [stream.part_file(0), stream.part_file(1)]
    part = folder / stream.part_file(0)
    part.write_bytes(part.read_bytes())  # the same bytes, written again: another file on disk
    stream.read_range(folder, 0, 5)
    assert hashed[-1] == stream.part_file(0) and len(hashed) == 3

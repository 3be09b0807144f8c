# SPDX-License-Identifier: BSD-3-Clause
"""The floor of ``fast`` (lassm.analysis.floor) and its measurement (``lassm measure floor``), on
small hand-made inputs whose expected values are worked out by hand here."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lassm import cli
from lassm.analysis import floor
from lassm.errors import LassmError
from lassm.workloads.local_assembly.dataset import Dataset, Reads

ROOT = Path(__file__).resolve().parents[2]


def _tiny() -> Dataset:
    """Three contigs (5, 4 and 3 bases). Right reads: contig 0 has ACGTA and CG (7 bases).
    Left reads: contig 1 has ACG (3 bases). Contig 2 has no reads on either side."""
    q = lambda s: b"I" * len(s)  # noqa: E731
    right = Reads.from_lists([[("r1", b"ACGTA", q(b"ACGTA")), ("r2", b"CG", q(b"CG"))], [], []])
    left = Reads.from_lists([[], [("r3", b"ACG", q(b"ACG"))], []])
    seqs = np.frombuffer(b"AAAAACCCCGGG", dtype=np.uint8).copy()
    return Dataset(cids=np.array([10, 11, 12], dtype=np.int64), seqs=seqs,
                   offsets=np.array([0, 5, 9, 12], dtype=np.int64), depths=np.array([2.0, 3.0, 4.0]),
                   left=left, right=right, name="tiny", k=3)


def test_input_bytes_counts_what_the_host_uploads():
    # Contigs 0 and 1 have reads: E = 2, so 4 stacked ends; contig 2 is not launched.
    # contig bases: both sides of contigs 0 and 1 = 2 * (5 + 4) = 18
    # read bases 7 + 3 = 10, qualities 10; reads N = 3
    # offsets: contig, read-count and table offsets (4 + 1 each) + read offsets (3 + 1) = 19 int64 = 152
    # depths: 4 float64 = 32
    got = floor.input_bytes(_tiny())
    assert got == {"contig_bases": 18, "read_bases": 10, "read_quals": 10, "offsets": 152, "depths": 32,
                   "total": 18 + 10 + 10 + 152 + 32}


def test_heaviest_end_is_the_side_with_most_read_bases():
    ends = floor.heaviest_ends(_tiny(), top=2)
    assert list(ends["contig"]) == [10, 11]
    assert list(ends["side"]) == ["right", "left"]
    assert list(ends["read_bases"]) == [7, 3]
    assert list(ends["reads"]) == [2, 1]
    with pytest.raises(ValueError):
        floor.heaviest_ends(_tiny(), top=0)


def test_heaviest_end_ties_go_to_the_first_copy_then_the_right_end():
    twice = _tiny().replicate(2)  # contig 0 again at index 3, with the same 7 right bases
    first = floor.heaviest_ends(twice, top=2)
    assert list(first["index"]) == [0, 3]
    q = b"II"
    even = Dataset(cids=np.array([5], dtype=np.int64), seqs=np.frombuffer(b"ACGT", dtype=np.uint8).copy(),
                   offsets=np.array([0, 4], dtype=np.int64), depths=np.array([1.0]),
                   left=Reads.from_lists([[("a", b"AC", q)]]), right=Reads.from_lists([[("b", b"GT", q)]]))
    assert list(floor.heaviest_ends(even, top=2)["side"]) == ["right", "left"]


def test_one_end_keeps_that_side_only():
    ds = _tiny()
    one = floor.one_end(ds, 1, "left")
    assert one.n_contigs == 1 and one.contig(0) == b"CCCC" and int(one.cids[0]) == 11
    assert one.left.seqs.tobytes() == b"ACG" and one.left.n_reads == 1
    assert one.right.n_reads == 0 and len(one.right.seqs) == 0 and list(one.right.counts) == [0]
    right = floor.one_end(ds, 0, "right")
    assert right.right.seqs.tobytes() == b"ACGTACG" and right.left.n_reads == 0
    with pytest.raises(ValueError):
        floor.one_end(ds, 0, "middle")


def _row(**over) -> dict:
    row = {"dataset": "tiny", "k": 21, "contig": 10, "side": "right", "reads": 2, "read_bases": 7,
           "kernel_seconds": 2.5e-4, "repeats": 5, "matches_oracle": True, "device": "GPU", "driver": "1.0",
           "git_sha": "abc", "command": "lassm measure floor"}
    row.update(over)
    return row


def test_critical_path_file_round_trips(tmp_path):
    path = floor.write_critical_path([_row(), _row(dataset="other", side="left")], tmp_path / "m" / floor.CRITICAL_FILE)
    assert path.read_text().splitlines()[0] == ",".join(floor.CRITICAL_COLUMNS)
    back = floor.read_critical_path(path)
    assert list(back["dataset"]) == ["tiny", "other"]
    assert back["kernel_seconds"].tolist() == [2.5e-4, 2.5e-4]
    assert not list(path.parent.glob(".*.tmp"))  # the temporary was renamed over the target
    with pytest.raises(ValueError, match="lacks"):
        floor.write_critical_path([{"dataset": "tiny"}], tmp_path / "bad.csv")


@pytest.mark.parametrize("over,line,field", [({"kernel_seconds": -1.0}, 3, "kernel_seconds"),
                                             ({"k": "x"}, 3, "k"), ({"side": "up"}, 3, "side")])
def test_a_bad_critical_path_file_names_line_and_field(tmp_path, over, line, field):
    path = floor.write_critical_path([_row(), _row(**over)], tmp_path / floor.CRITICAL_FILE)
    with pytest.raises(LassmError, match=rf"line {line}: field {field}"):
        floor.read_critical_path(path)
    pd.DataFrame([_row()]).drop(columns="repeats").to_csv(path, index=False)
    with pytest.raises(LassmError, match="line 1: no column repeats"):
        floor.read_critical_path(path)


def _points() -> pd.DataFrame:
    # bandwidth 1000 GB/s and peak 1000 G ops/s: seconds = bytes / 1e12 and ops / 1e12.
    return pd.DataFrame({
        "dataset": ["int", "bytes", "crit"],
        "input_bytes": [1e9, 3e9, 1e9],       # 1 ms, 3 ms, 1 ms
        "int_ops": [5e9, 1e9, 2e9],           # 5 ms, 1 ms, 2 ms
        "critical_seconds": [4e-3, math.nan, 6e-3],
        "bandwidth_gbs": [1000.0] * 3, "peak_gintops": [1000.0] * 3,
        "fast_seconds": [1e-2, 6e-3, 9e-3],
    })


def test_bounds_take_the_largest_and_name_it():
    pts = _points()
    before = pts.copy()
    out = floor.bounds(pts).set_index("dataset")
    pd.testing.assert_frame_equal(pts, before)  # the input is not changed
    assert out["bytes_s"].tolist() == pytest.approx([1e-3, 3e-3, 1e-3])
    assert out["int_s"].tolist() == pytest.approx([5e-3, 1e-3, 2e-3])
    assert out["floor_s"].tolist() == pytest.approx([5e-3, 3e-3, 6e-3])
    assert out["binding"].tolist() == ["integer work", "bytes", "critical path"]
    assert out["fast_over_floor"].tolist() == pytest.approx([2.0, 2.0, 1.5])


def test_bounds_refuse_bad_columns():
    with pytest.raises(ValueError, match="int_ops"):
        floor.bounds(_points().drop(columns="int_ops"))
    with pytest.raises(TypeError):
        floor.bounds(_points().assign(fast_seconds=["a", "b", "c"]))
    with pytest.raises(ValueError, match="positive"):
        floor.bounds(_points().assign(bandwidth_gbs=[0.0, 1.0, 1.0]))


def _machine(root: Path, critical: bool) -> None:
    folder = root / "m"
    folder.mkdir(parents=True)
    rows = [{"dataset": "tiny", "k": 3, "backend": "cuda", "protocol": "fast", "status": "ok", "kernel_seconds": 1e-6},
            {"dataset": "tiny", "k": 3, "backend": "cuda", "protocol": "casptr", "status": "ok", "kernel_seconds": 1.0}]
    (folder / "campaign.json").write_text(json.dumps({"rows": rows}))
    (folder / "ceilings.json").write_text(json.dumps({"int32": {"int32_gops": 1.0}, "hbm": {"hbm_gbs": 1.0}}))
    pd.DataFrame({"dataset": ["tiny", "tiny"], "k": [3, 3], "protocol": ["fast", "casptr"], "backend": ["cuda"] * 2,
                  "int_ops": [300.0, 9e9]}).to_csv(folder / "metrics.csv", index=False)
    if critical:
        floor.write_critical_path([_row(k=3, kernel_seconds=4e-7), _row(k=3, kernel_seconds=5e-7, side="left")],
                                  folder / floor.CRITICAL_FILE)


@pytest.mark.parametrize("critical", [False, True])
def test_machine_floor_reads_the_machine_folder(tmp_path, monkeypatch, critical):
    from lassm.workloads.local_assembly import datasets

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setattr(datasets, "load", lambda name, k=None: (_tiny(), 3))
    _machine(tmp_path, critical)
    row = floor.machine_floor("m").iloc[0]
    # 222 input bytes at 1 GB/s; 300 ops at 1 G ops/s; fast took 1e-6 s
    assert row["bytes_s"] == pytest.approx(222e-9)
    assert row["int_s"] == pytest.approx(300e-9)
    assert row["fast_seconds"] == pytest.approx(1e-6)
    if critical:  # the slower of the two measured ends
        assert row["critical_s"] == pytest.approx(5e-7) and row["critical_side"] == "left"
        assert row["binding"] == "critical path" and row["fast_over_floor"] == pytest.approx(2.0)
        assert row["note"] == ""
    else:
        assert math.isnan(row["critical_s"]) and "absent" in row["note"]
        assert row["binding"] == "integer work" and row["fast_over_floor"] == pytest.approx(1e-6 / 300e-9)


def test_tool_times_the_heaviest_end_and_writes_the_file(tmp_path, monkeypatch):
    """The tool's plumbing with the GPU faked: the end it picks, the median, the row it writes."""
    from lassm.backends import cuda
    from lassm.runs import extend as extend_mod
    from lassm.workloads.local_assembly import datasets

    times = iter([9.0, 3e-3, 1e-3, 2e-3])  # warm-up, then three timed runs: median 2e-3
    launched = []

    class Fake:
        def __init__(self, seconds: float) -> None:
            self.kernel_seconds = seconds

        def compare(self, other) -> list[str]:
            return []

    def fake_extend(ds, params, backend="cpu", **options):
        launched.append((backend, ds.n_contigs, ds.right.n_reads, ds.left.n_reads))
        return Fake(0.0 if backend == "cpu" else next(times))

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_GIT_SHA", "feed")
    monkeypatch.setattr(datasets, "load", lambda name, k=None: (_tiny(), 21))
    monkeypatch.setattr(extend_mod, "extend", fake_extend)
    monkeypatch.setattr(cuda, "device_info", lambda: {"device": "Fake GPU", "driver": "9.9"})
    assert cli.main(["measure", "floor", "--datasets", "sample-k21", "--machine", "m", "--repeats", "3"]) == 0
    assert launched[0] == ("cpu", 1, 2, 0) and all(l[1:] == (1, 2, 0) for l in launched)
    back = floor.read_critical_path(tmp_path / "m" / floor.CRITICAL_FILE)
    row = back.iloc[0]
    assert (row["dataset"], row["k"], row["contig"], row["side"], row["read_bases"]) == ("sample-k21", 21, 10, "right", 7)
    assert row["kernel_seconds"] == pytest.approx(2e-3) and row["repeats"] == 3
    assert (row["device"], str(row["driver"]), row["git_sha"]) == ("Fake GPU", "9.9", "feed")
    assert "--repeats 3" in row["command"]
    assert cli.main(["measure", "floor", "--datasets", "sample-k21", "--machine", "m", "--repeats", "0"]) == 2


def test_data_contract_lists_the_critical_path_columns():
    text = (ROOT / "book" / "data-contract.md").read_text(encoding="utf-8")
    section = text.split("`floor-critical-path.csv`", 1)[1].split("\n## ", 1)[0]
    listed = [line.split("|")[1].strip().strip("`") for line in section.splitlines()
              if line.startswith("| `")]
    assert tuple(listed) == floor.CRITICAL_COLUMNS


def test_an_end_alone_walks_as_it_does_among_all():
    """The critical path times the heaviest end alone: alone, it must do the same work (CPU oracle)."""
    from lassm.runs.extend import extend
    from lassm.workloads.local_assembly import datasets
    from lassm.workloads.local_assembly.config import Params

    ds, k = datasets.load("sample-k21")
    full = extend(ds, Params(k=k), backend="cpu")
    end = floor.heaviest_ends(ds).iloc[0]
    alone = extend(floor.one_end(ds, int(end["index"]), end["side"]), Params(k=k), backend="cpu")
    among, by_itself = getattr(full, end["side"]), getattr(alone, end["side"])
    i = int(end["index"])
    assert by_itself.walk(0) == among.walk(i) and by_itself.steps[0] == among.steps[i] > 0
    assert by_itself.n_k[0] == among.n_k[i]
    other = alone.left if end["side"] == "right" else alone.right
    assert other.walk_len[0] == 0 and other.steps[0] == 0

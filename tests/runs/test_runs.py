# SPDX-License-Identifier: BSD-3-Clause
"""Run records: atomic folders, the ends-table policy, and the path for nodes without pyarrow."""
from __future__ import annotations

import builtins
import dataclasses
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from lassm import Params, extend, paths
from lassm.workloads.local_assembly import formats
from lassm.runs import records as runs


@pytest.fixture(scope="module")
def ext():
    return extend(formats.read_dat(paths.sample("k77")), Params(k=77), backend="cpu")


def _no_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError("no pyarrow on this node")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)


def test_node_without_pyarrow_then_normalized(ext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = ext.right.extra
    ext.right.extra = dataclasses.replace(bare, launches=[{"bin": "1-9", "slice": 0, "contigs": 3, "seconds": 0.5}])
    try:
        summary = runs.summarize(ext, "sample-k77", True, "test", machine="node")
        with monkeypatch.context() as m:
            _no_pyarrow(m)
            folder = runs.write_record(summary, ext, root=tmp_path)
        assert (folder / "ends.tsv").exists() and (folder / "launches.json").exists()
        assert not (folder / "ends.parquet").exists()
        assert runs.normalize_records(tmp_path) == [folder]
    finally:
        ext.right.extra = bare
    assert not (folder / "ends.tsv").exists() and not (folder / "launches.json").exists()
    table = pq.read_table(folder / "ends.parquet").to_pydict()
    cols = ext.ends_columns()
    for key in ("cid", "walk_len", "final_k", "steps", "insertions"):
        assert np.array_equal(np.asarray(table[key]), cols[key]), key
    assert table["term"] == cols["term"].tolist()
    assert pq.read_table(folder / "launches.parquet").to_pydict()["contigs"] == [3]


def test_gpu_record_matching_the_oracle_points_to_it(ext, tmp_path: Path) -> None:
    summary = runs.summarize(ext, "sample-k77", True, "test", machine="node")
    summary["backend"] = "cuda"  # as a GPU run checked bit-identical would be
    folder = runs.write_record(summary, ext, root=tmp_path)
    written = json.loads((folder / "summary.json").read_text())
    assert "ends_table" in written and not (folder / "ends.parquet").exists()
    summary["matches_cpu"] = False  # a differing run keeps its own table
    folder = runs.write_record(summary, ext, root=tmp_path)
    assert (folder / "ends.parquet").exists()
    assert [p.name for p in tmp_path.iterdir()] == [folder.name], "no temporary or old folder remains"


@pytest.mark.parametrize("machine, gpus", [("nvidia-h200-x4", [1, 2, 3, 4]), ("nvidia-h200-x2", [1, 2])])
def test_scaling_records(machine: str, gpus: list[int]) -> None:
    from lassm.runs import results

    table = results.scaling_table(machine)
    assert table["gpus"].tolist() == gpus
    assert table["matches_1gpu"].all() and table["matches_cpu"].all()
    assert np.allclose(table["speedup_wall"], table["wall_seconds"].iloc[0] / table["wall_seconds"])
    assert (table["speedup_kernel"].diff().dropna() > 0).all(), "more GPUs shorten the kernels' critical path"


def test_scaling_facts_name_the_largest_part_and_the_single_process(tmp_path) -> None:
    """The chapter's two scaling facts: the widest run's largest phase, and the comparison with the
    plain command where the records hold it (the 4-GPU node's do, the 2-GPU node's do not)."""
    from lassm.runs import results

    table = results.scaling_table("nvidia-h200-x4")
    facts = results.scaling_facts(table)
    top = table.iloc[-1]
    parts = {results.SCALING_PHASES[c]: top[c] for c in results.SCALING_PHASES}
    assert facts["largest"] == max(parts, key=parts.get)
    assert f"{top['speedup_vs_single_process']:.2f} times as fast" in facts["single_sentence"]
    changed = table.copy()
    changed.loc[changed.index[-1], "merge_seconds"] = 99.0  # a merge that dwarfs the rest is named
    assert results.scaling_facts(changed)["largest"] == "the merge"
    assert f"{top['files_speedup_vs_1gpu']:.2f} times as fast as one GPU" in facts["files_sentence"]
    assert f"{top['files_speedup_vs_single_process']:.2f} times as fast as the plain" in facts["files_sentence"]
    older = results.scaling_facts(results.scaling_table("nvidia-h200-x2"))
    assert older["single_sentence"] == "These records hold no single-process time of the same input."
    assert older["files_sentence"] == "These records hold no run whose workers write the output."


def test_scaling_records_carry_the_workers_memory_peaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records that hold the workers' peaks show them in the table; older ones do not."""
    import json
    import shutil

    from lassm import paths
    from lassm.runs import results

    assert "peak_rss_bytes" not in results.scaling_table("nvidia-h200-x4")
    for folder in sorted((paths.results_dir("nvidia-h200-x4")).glob("scaling__gen-k21x20__*")):
        dest = tmp_path / "m" / folder.name
        shutil.copytree(folder, dest)
        summary = json.loads((dest / "summary.json").read_text())
        summary.update(peak_rss_bytes=10**9 * summary["gpus"], device_high_water_bytes=2 * 10**9)
        (dest / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    table = results.scaling_table("m")
    assert table["peak_rss_bytes"].tolist() == [10**9 * g for g in table["gpus"]]
    assert (table["device_high_water_bytes"] == 2 * 10**9).all()


def test_scaling_other_datasets_are_told_apart() -> None:
    """The x20 sample's records sit beside gen-k21x20's on the 4-GPU node: the chapter's table keeps
    one dataset, and the sentence on the others quotes the sample's own files speedup."""
    from lassm.runs import results

    assert results.scaling_datasets("nvidia-h200-x4") == ["gen-k21x20", "sample-k77x20"]
    main = results.scaling_table("nvidia-h200-x4")
    sample = results.scaling_table("nvidia-h200-x4", "sample-k77x20")
    assert list(main["gpus"]) == list(sample["gpus"]) == [1, 2, 3, 4]
    assert main["wall_seconds"].iloc[0] != sample["wall_seconds"].iloc[0]
    text = results.scaling_others_sentence("nvidia-h200-x4")
    assert text.startswith("On sample-k77x20: ")
    assert f"{sample['files_speedup_vs_1gpu'].iloc[-1]:.2f} times as fast as one GPU" in text
    assert results.scaling_others_sentence("nvidia-h200-x2") == \
        "Of gen-k21x80 only the run on 1 GPU was recorded on this node."  # its 2-GPU step did not finish


def test_shard_contention_reads_the_tools_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bare shards' bound (lassm measure shard-contention's JSON): the whole over the slowest shard
    at once, and a sentence quoting it; a machine without the file says so."""
    import json

    from lassm.runs import results

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    assert results.shard_contention("m") is None
    assert results.contention_sentence("m") == "No run of the shards of gen-k21x20 without Dask was measured on this node."
    (tmp_path / "m").mkdir()
    doc = {"gpus": 2, "protocol": "casptr", "whole": {"extend": 1.0, "write": 0.2},
           "alone": [{"extend": 0.4, "write": 0.1}, {"extend": 0.3, "write": 0.1}],
           "together": [{"extend": 0.45, "write": 0.15}, {"extend": 0.5, "write": 0.1}]}
    (tmp_path / "m" / "shard-contention__gen-k21x20.json").write_text(json.dumps(doc))
    c = results.shard_contention("m")
    assert c["whole_seconds"] == pytest.approx(1.2) and c["together_seconds"] == pytest.approx(0.6)
    assert c["alone_seconds"] == pytest.approx(0.5) and c["bare_speedup"] == pytest.approx(2.0)
    text = results.contention_sentence("m")
    assert "at most 0.60 s when all run at once (0.50 s alone)" in text and "2.00 times as fast" in text


def _scaling_copies(tmp_path, monkeypatch, renames: dict[str, dict[int, float]]) -> None:
    """The 4-GPU node's gen-k21x20 records copied under machine ``m`` as other datasets: for each
    ``renames[dataset]``, the GPU counts kept, each with the workers-write path's seconds given."""
    import json
    import shutil

    from lassm import paths

    src = sorted(paths.results_dir("nvidia-h200-x4").glob("scaling__gen-k21x20__*"))
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    for dataset, seconds in renames.items():
        for folder in src:
            summary = json.loads((folder / "summary.json").read_text())
            if summary["gpus"] not in seconds:
                continue
            dest = tmp_path / "m" / folder.name.replace("gen-k21x20", dataset)
            shutil.copytree(folder, dest)
            n = len(summary["files_shard_wall_seconds"])
            summary.update(dataset=dataset, files_seconds=seconds[summary["gpus"]],
                           files_shard_kernel_seconds=[0.01 * (i + 1) for i in range(n)])
            if summary["gpus"] == 4:  # transfers recorded on one GPU count only, as in older records
                summary["files_shard_transfer_seconds"] = [0.001 * (i + 1) for i in range(n)]
            (dest / "summary.json").write_text(json.dumps(summary))


def test_shard_breakdown_and_weak_scaling_read_the_workers_write_path(tmp_path, monkeypatch) -> None:
    """Each shard's read, extension, kernels and write come from its record's lists, a row per shard
    and GPU count; weak scaling divides the first step's seconds by each step's; the sentence quotes
    both, and says so where a node has no such runs."""
    from lassm.runs import scale_out

    _scaling_copies(tmp_path, monkeypatch, {"gen-k21x20": {1: 2.0}, "gen-k21x40": {2: 2.5},
                                            "gen-k21x80": {1: 8.0, 2: 4.4, 4: 2.5}})
    shards = scale_out.shard_breakdown("m")
    assert shards.groupby("gpus").size().to_dict() == {1: 1, 2: 2, 4: 4}
    four = shards[shards["gpus"] == 4]
    assert four["kernel_seconds"].tolist() == [0.01, 0.02, 0.03, 0.04]
    assert four["transfer_seconds"].tolist() == [0.001, 0.002, 0.003, 0.004]
    assert shards[shards["gpus"] < 4]["transfer_seconds"].isna().all()  # not recorded: unknown, not 0
    known = shards["transfer_seconds"].fillna(0.0)
    assert (abs(shards["other_seconds"] - (shards["extend_seconds"] - shards["kernel_seconds"] - known)) < 1e-12).all()
    assert (four["whole_seconds"] == 2.5).all() and four["contigs"].sum() == 1370200
    weak = scale_out.weak_scaling("m")
    assert weak["dataset"].tolist() == ["gen-k21x20", "gen-k21x40", "gen-k21x80"]
    assert weak["efficiency"].round(3).tolist() == [1.0, 0.8, 0.8]
    text = scale_out.scale_out_sentence("m")
    assert "takes 8.00 s on one GPU and 2.50 s on 4" in text and "3.20 times as fast" in text
    assert "keeps 0.80 of one GPU's time" in text
    _scaling_copies(tmp_path / "other", monkeypatch, {"gen-k21x40": {2: 2.5}, "gen-k21x80": {4: 2.5}})
    assert scale_out.scale_out_sentence("m").startswith("No strong-scaling run of gen-k21x80")  # no 1-GPU run
    assert scale_out.weak_scaling("m").empty  # no first step to compare with
    assert scale_out.shard_breakdown("m", "gen-k21x20").empty

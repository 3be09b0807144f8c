# SPDX-License-Identifier: BSD-3-Clause
"""Dataset names: the committed real-genome datasets load by name, and a wrong name says why."""
from __future__ import annotations

import pytest

from lassm.workloads.local_assembly import datasets, formats
from lassm import paths
from lassm.errors import LassmError


def test_real_dataset_by_name() -> None:
    ds, k = datasets.load("real-tiny-k33")
    direct = formats.read_dataset(str(paths.data_dir() / "real" / "real-tiny-k33.parquet"), k=33)
    assert (ds.name, k, ds.k) == ("real-tiny-k33", 33, 33)
    assert ds.n_contigs == direct.n_contigs and (ds.seqs == direct.seqs).all()
    assert datasets.load("real-tiny-k33", k=21)[1] == 21
    rep, _ = datasets.load("real-tiny-k33x3")
    assert rep.n_contigs == 3 * ds.n_contigs


def test_unknown_real_dataset() -> None:
    with pytest.raises(LassmError, match="no .*real-nothing-k21.parquet"):
        datasets.load("real-nothing-k21")


def test_a_name_gives_its_start_k_without_loading() -> None:
    from lassm.workloads.local_assembly import datasets as named

    assert [named.named_k(n) for n in ("sample-k77", "sample-k21x3", "gen-k33", "gen-k55-s0.1x20", "real-mock5-k77",
                                       "sample-k99", "some/file.dat")] == [77, 21, 33, 55, 77, None, None]
    for name in ("sample-k77", "sample-k21x3"):  # the k that load() gives
        assert named.named_k(name) == named.load(name)[1]


def _same(a, b) -> bool:
    """Every array, read id, name and k of two datasets equal."""
    import numpy as np

    sides = all(np.array_equal(getattr(getattr(a, s), f), getattr(getattr(b, s), f)) and
                getattr(a, s).ids == getattr(b, s).ids
                for s in ("left", "right") for f in ("seqs", "quals", "offsets", "contig_offsets"))
    return sides and (a.name, a.k) == (b.name, b.k) and all(
        np.array_equal(getattr(a, f), getattr(b, f)) and getattr(a, f).dtype == getattr(b, f).dtype
        for f in ("cids", "seqs", "offsets", "depths"))


def test_a_generated_dataset_is_made_once_then_read_from_the_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign and two chapters each made the Table II sets again; now once per machine."""
    from lassm.workloads.local_assembly import generate

    monkeypatch.setenv("LASSM_CACHE", str(tmp_path))
    made = []
    real_generate = generate.generate
    monkeypatch.setattr(generate, "generate", lambda **kw: made.append(kw) or real_generate(**kw))
    first, k = datasets.load("gen-k55-s0.02-seed3")
    path = datasets.generated_path(55, 0.02, 3)
    assert k == 55 and path.is_file() and path.parent == tmp_path / "gen-datasets" and len(made) == 1
    again, _ = datasets.load("gen-k55-s0.02-seed3")
    assert len(made) == 1, "the second load made the dataset again"
    assert _same(again, first) and _same(again, real_generate(k=55, scale=0.02, seed=3))
    assert datasets.generated(55, 0.02, 4).name == "gen-k55-s0.02-seed4" and len(made) == 2  # another seed
    path.write_bytes(b"not parquet")  # a damaged file is made again and replaced
    assert _same(datasets.generated(55, 0.02, 3), first) and len(made) == 3
    assert _same(datasets.generated(55, 0.02, 3), first) and len(made) == 3


def test_the_cache_key_follows_the_generators_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    key = datasets.generated_key(21, 1.0, 0)
    assert key == datasets.generated_key(21, 1.0, 0) != datasets.generated_key(21, 1.0, 1)
    assert key != datasets.generated_key(33, 1.0, 0) != datasets.generated_key(33, 0.5, 0)
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real_read(self) + (b"#" if self.name == "unitigs.py" else b""))
    assert datasets.generated_key(21, 1.0, 0) != key, "an edited generator module must not serve the old file"

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

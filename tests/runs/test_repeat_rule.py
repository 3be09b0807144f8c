# SPDX-License-Identifier: BSD-3-Clause
"""The repeat rule: three timed runs where they agree, up to the plan's repeats where they do not."""
from __future__ import annotations

import types

import numpy as np

from lassm.backends.suite.common import Run
from lassm.campaign import suite_part as suite_part
from lassm.runs import repeat_rule


def test_three_runs_that_agree_are_enough():
    assert not repeat_rule.enough([1.0, 1.01], 5)
    assert repeat_rule.enough([1.0, 1.01, 1.02], 5)
    assert not repeat_rule.enough([1.0, 1.2, 1.0], 5)  # 20 % apart: go on
    assert not repeat_rule.enough([1.0, 1.2, 1.0, 1.1], 5)
    assert repeat_rule.enough([1.0, 1.2, 1.0, 1.1, 1.3], 5)  # the plan's most


def test_fewer_repeats_than_the_minimum_are_taken_as_asked():
    assert repeat_rule.enough([3.0], 1)
    assert not repeat_rule.enough([3.0], 2) and repeat_rule.enough([3.0, 9.0], 2)
    assert repeat_rule.describe(2) == "2 timed runs" and repeat_rule.describe(1) == "1 timed run"
    assert repeat_rule.describe(5).startswith("3 to 5 timed runs")


def test_a_zero_median_never_stops_early():
    assert repeat_rule.spread([0.0, 0.0, 0.0]) == float("inf")
    assert not repeat_rule.enough([0.0, 0.0, 0.0], 5)


def _kernel(times: list[float], large: bool):
    """A kernel module whose runs take ``times`` in turn; it records which runs fetched their output."""
    calls: list[bool] = []

    def run(backend, inp, variant, fetch=True):
        calls.append(fetch)
        seconds = times[min(len(calls) - 1, len(times) - 1)]
        return Run("k", backend, variant, np.arange(3) if fetch else None, seconds, seconds, 1)

    def run_plain(backend, inp, variant):
        return run(backend, inp, variant)

    mod = types.SimpleNamespace(run=run if large else run_plain, LARGE_OUTPUT=large,
                                check=lambda out, ref: (out is not None and bool((out == ref).all()), 0.0))
    return mod, calls


def test_the_suite_checks_its_first_timed_run_and_copies_back_no_other():
    plan = suite_part.SuitePlan(kernels=("k",), backends=("cuda",), size="tiny", repeats=5, warmup=1)
    mod, calls = _kernel([9.0, 1.0, 1.01, 1.0], large=True)  # the warm-up, then three that agree
    row = suite_part._measure(mod, "cuda", None, "v", np.arange(3), plan)
    assert row["repeats"] == 3 and row["matches_reference"] and row["seconds"] == 1.0
    assert calls == [False, True, False, False]  # the warm-up and the later runs leave it on the device
    mod, calls = _kernel([9.0, 1.0, 2.0, 1.0, 3.0, 1.0], large=True)
    assert suite_part._measure(mod, "cuda", None, "v", np.arange(3), plan)["repeats"] == 5
    mod, _calls = _kernel([9.0, 1.0, 1.0, 1.0], large=False)
    assert suite_part._measure(mod, "cuda", None, "v", np.arange(3), plan)["repeats"] == 3

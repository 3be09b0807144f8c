# SPDX-License-Identifier: BSD-3-Clause
"""The campaign: ``lassm run`` measures this machine completely, resumably, in one command.

Three small modules, data flowing one way:

* :mod:`.plan` decides what to measure (datasets, the backends that can run here, protocols,
  repeats) before anything runs;
* :mod:`.steps` are the steps after the timed sweep: hardware counters with the machine's
  profiler, the ceilings microbenchmarks, ``metrics derive``;
* :mod:`.run` runs the plan's sweep (:func:`lassm.runs.sweep.main_job`), then the steps, and writes
  ``data/results/<machine>/campaign.json``: the plan, a row per point, the seconds of each step
  and ``lacks``, one line for each thing this machine could not measure.

The X-drop kernel's campaign (``lassm run --kernel xdrop``) has its own three: :mod:`.xdrop_plan`
(sets, X values, the backends here), :mod:`.xdrop_run` (every backend of an X timed and checked
in one run, into ``<machine>/xdrop/times.csv``) and :mod:`.xdrop_counters` (Nsight Compute).
"""
from __future__ import annotations

from .plan import FULL_DATASETS, QUICK_DATASETS, REPEATS, WARMUP, Plan, make_plan
from .run import CAMPAIGN_FILE, Outcome, describe, report, run_campaign

__all__ = ["CAMPAIGN_FILE", "FULL_DATASETS", "QUICK_DATASETS", "REPEATS", "WARMUP", "Outcome", "Plan", "describe",
           "make_plan", "report", "run_campaign"]

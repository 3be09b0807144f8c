# SPDX-License-Identifier: BSD-3-Clause
"""The campaign: ``lassm run`` measures this machine completely, resumably, in one command.

Local assembly: :mod:`.assembly_plan` decides what to measure before anything runs; :mod:`.assembly_run` runs its
sweep (:func:`lassm.runs.sweep.main_job`), then the :mod:`.steps` (counters, ceilings,
``metrics derive``), and writes ``data/results/<machine>/campaign.json`` (plan, a row per point,
step seconds, ``lacks``). X-drop (``--kernel xdrop``): :mod:`.xdrop_plan`, :mod:`.xdrop_run`,
:mod:`.xdrop_counters`."""
from __future__ import annotations

from .assembly_plan import FULL_DATASETS, QUICK_DATASETS, REPEATS, WARMUP, Plan, make_plan
from .assembly_run import CAMPAIGN_FILE, Outcome, describe, report, run_campaign

__all__ = ["CAMPAIGN_FILE", "FULL_DATASETS", "QUICK_DATASETS", "REPEATS", "WARMUP", "Outcome", "Plan", "describe",
           "make_plan", "report", "run_campaign"]

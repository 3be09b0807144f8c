# SPDX-License-Identifier: BSD-3-Clause
"""Runs of a kernel on a backend, and their records.

:mod:`.extend` runs one dataset on one backend; :mod:`.point` runs and records one sweep point;
:mod:`.records` writes and reads a record folder; :mod:`.sweep` is ``lassm run``; :mod:`.bench`
the benchmarks; :mod:`.distributed` runs on Dask workers (:mod:`.slurm` as Slurm jobs);
:mod:`.results` loads records as tables; :mod:`.account` keeps ``campaign.json``.
"""

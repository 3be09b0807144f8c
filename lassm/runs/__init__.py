# SPDX-License-Identifier: BSD-3-Clause
"""Runs of a kernel on a backend, and their records.

:mod:`.extend` runs one dataset on one backend; :mod:`.point` runs and records one sweep point;
:mod:`.records` writes and reads a point's record folder; :mod:`.sweep` is ``lassm run``;
:mod:`.bench` the benchmarks; :mod:`.distributed` the same points on Dask workers, which
:mod:`.slurm` starts as Slurm jobs (:mod:`.slurm_worker`: one worker per GPU of a job);
:mod:`.results` loads the records as tables; :mod:`.table2` measures a dataset's Table II row;
:mod:`.account` keeps every campaign run's entry in ``campaign.json``.
"""

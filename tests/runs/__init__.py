# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/runs/: runs, records, Dask and Slurm."""

# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/analysis/: counters, ceilings, metrics, the paper's re-analysis."""

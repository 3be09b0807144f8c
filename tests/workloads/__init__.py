# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/workloads/: the kernels' data models."""

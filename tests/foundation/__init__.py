# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the single modules at the top of lassm/ (lassm/*.py)."""

# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/campaign/: lassm run's parts and the measurements beside them."""

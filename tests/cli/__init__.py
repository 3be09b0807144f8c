# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/cli/ and lassm/__main__.py: the command line."""

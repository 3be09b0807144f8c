# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the whole repository: its rules, and commands end to end across the stages."""

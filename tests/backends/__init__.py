# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/backends/ and the kernel sources: the backends against the CPU oracle."""

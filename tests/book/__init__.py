# SPDX-License-Identifier: BSD-3-Clause
"""Tests of lassm/book/ and the book's sources: what the chapters call and show."""

# SPDX-License-Identifier: BSD-3-Clause
"""What the book's notebooks call to show results: :mod:`.plots` (charts from tables)."""

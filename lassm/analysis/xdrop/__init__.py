# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's X-drop alignment through the local-assembly lens: :mod:`.checked_records` (the CSVs),
:mod:`.measures` (GCUPS, speed-ups, roofline positions with local assembly's metric functions),
:mod:`.published` (LOGAN's own numbers, labelled as theirs)."""

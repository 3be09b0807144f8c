# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's X-drop long-read alignment kernel, its data model: :mod:`.scoring` (``Scoring``),
:mod:`.pairs` (seeded read pairs), :mod:`.alignments` (extended seeds), :mod:`.synthetic_pairs` (synthetic
pairs), :mod:`.real_pairs` (pbsim pairs of a real genome, via :mod:`.pbsim` and :mod:`.seeds`),
:mod:`.pair_files` (parquet and SeqAn's TSV) and :mod:`.pair_sets` (named sets, cached).
"""

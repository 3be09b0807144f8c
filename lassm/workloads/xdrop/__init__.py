# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's X-drop long-read alignment kernel, its data model: :mod:`.config` (``Scoring``),
:mod:`.pairs` (seeded read pairs), :mod:`.result` (extended seeds), :mod:`.generate` (synthetic
pairs), :mod:`.real` (pbsim pairs of a real genome, via :mod:`.pbsim` and :mod:`.seeds`),
:mod:`.formats` (parquet and SeqAn's TSV) and :mod:`.datasets` (named sets, cached).
"""

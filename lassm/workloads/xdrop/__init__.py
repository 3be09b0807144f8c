# SPDX-License-Identifier: BSD-3-Clause
"""LOGAN's X-drop long-read alignment kernel, its data model: :mod:`.config` (``Scoring``, the
match, mismatch and gap scores and X), :mod:`.pairs` (read pairs with a seed each),
:mod:`.result` (the extended seeds), :mod:`.generate` (synthetic pairs like LOGAN's), :mod:`.real` (pairs of pbsim long reads
from a real genome, run by :mod:`.pbsim`, seeded by :mod:`.seeds`) and
:mod:`.formats` (parquet and the tab-separated form SeqAn's driver reads), and :mod:`.datasets`
(pair sets by name, cached on disk)."""

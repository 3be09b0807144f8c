# SPDX-License-Identifier: BSD-3-Clause
"""MetaHipMer's local-assembly kernel, its data model: :mod:`.config` (``Params`` and the
constants), :mod:`.dataset` and :mod:`.result` (inputs and outputs), :mod:`.formats` (``.dat``,
parquet, FASTA/FASTQ), :mod:`.datasets` (named datasets), :mod:`.generate` and :mod:`.real`
(synthetic and real-genome inputs), :mod:`.stats` (Table II figures and exact work counts)."""

# SPDX-License-Identifier: BSD-3-Clause
"""From records and counters to the study's numbers: :mod:`.counters` (profiler output),
:mod:`.machine` (ceilings), :mod:`.ptx` (static instruction mixes), :mod:`.metrics` and
:mod:`.portability`, :mod:`.roofline` (plot tables), :mod:`.derive` (``metrics.csv``),
:mod:`.paper` (the paper's tables recomputed)."""

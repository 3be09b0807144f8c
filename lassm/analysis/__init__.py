# SPDX-License-Identifier: BSD-3-Clause
"""From records and counters to the study's numbers.

:mod:`.counters` (collect and parse profiler output: ncu, rocprof, unitrace), :mod:`.machine`
(the machines' ceilings, datasheet and measured), :mod:`.ptx` (static instruction mixes of
PTX, to compare what two compilers made of one kernel), :mod:`.metrics` (intensity, efficiencies,
performance portability), :mod:`.roofline` (roofs and points as tables), :mod:`.derive` (one
machine's counters and ceilings -> ``metrics.csv``), :mod:`.paper` (the paper's tables
recomputed from its published data).
"""

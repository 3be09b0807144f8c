# SPDX-License-Identifier: BSD-3-Clause
"""The second kernel's analysis: LOGAN's X-drop alignment through the local-assembly lens.

``records`` reads ``data/results/<machine>/xdrop/*.csv`` (times, counters, LOGAN's demo beside
ours); ``measures`` turns them into GCUPS, speed-ups, roofline positions and LOGAN's adapted
ceiling with the same metric functions local assembly uses (:mod:`lassm.analysis.metrics`,
:mod:`lassm.analysis.derive`); ``published`` holds LOGAN's own published numbers, labelled as
theirs.
"""

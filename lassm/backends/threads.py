# SPDX-License-Identifier: BSD-3-Clause
"""numba's threading layer, chosen on purpose: OpenMP first, not whichever library loaded libtbb first.

numba takes the first layer that loads, TBB before OpenMP. Its TBB layer needs ``libtbb.so.12``,
which this environment holds (the ``tbb`` wheel that Intel's OpenCL CPU driver brings) but not on
the dynamic loader's path: it loads only after dpctl or the driver has loaded libtbb. So the
numba kernels (the CPU oracle, X-drop's CPU backend, the suite's Minkowski reference) ran on
OpenMP in a process that had not touched the sycl backend yet and on TBB in one that had --
``lassm run`` asks every backend whether it can run before its first point -- and on TBB they
shared one scheduler with Intel's driver, whose arenas keep that pool from shutting down before a
``fork()``: TBB's "Unable to join threads to shut down before fork()" at each one.

OpenMP first gives every process the same layer and a pool of its own. Measured on the 2-core
reader's box, the oracle's kernel times on ``sample-k77``, ``gen-k21`` and ``real-mock5-k55``
and X-drop's at X = 100 and 1000 agreed within 2 % between the two layers, so nothing recorded
depends on the choice. ``NUMBA_THREADING_LAYER`` or ``NUMBA_THREADING_LAYER_PRIORITY`` set in
the environment is the user's choice and is left alone; where OpenMP cannot load, numba falls
back to TBB, then to its workqueue.
"""
from __future__ import annotations

import os

#: The layers in the order numba is to try them.
PRIORITY: tuple[str, ...] = ("omp", "tbb", "workqueue")
#: The environment variables by which a user chooses the layer instead.
USER_CHOICE: tuple[str, ...] = ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY")


def choose_layer() -> None:
    """Sets numba's layer priority to :data:`PRIORITY` unless the environment chose; call before
    the first parallel kernel runs (numba starts its pool once, at that call)."""
    if any(os.environ.get(name) for name in USER_CHOICE):
        return
    import numba

    numba.config.THREADING_LAYER_PRIORITY = list(PRIORITY)


__all__ = ["PRIORITY", "USER_CHOICE", "choose_layer"]

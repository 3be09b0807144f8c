# SPDX-License-Identifier: BSD-3-Clause
"""numba's threading layer, chosen on purpose: OpenMP first, not whichever library loaded libtbb first.

numba takes TBB when ``libtbb.so.12`` is loaded, which here happens only after dpctl or Intel's
driver loads it; the layer would then depend on what ran before, and TBB's shared pool refuses to
join before a ``fork()``. OpenMP first gives every process the same layer and its own pool.
``NUMBA_THREADING_LAYER`` or ``NUMBA_THREADING_LAYER_PRIORITY`` set by the user is left alone;
where OpenMP cannot load, numba falls back to TBB, then its workqueue.
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

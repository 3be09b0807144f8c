# SPDX-License-Identifier: BSD-3-Clause
"""A backend made ready in a thread while the command reads its input.

A backend's start-up (its runtime imported, the device's context made, the kernel loaded from
the on-disk cache: its ``warm_up``) and the reading of the input run side by side, so that they
overlap instead of adding (the runtime's calls and the reading's file and NumPy work release the
GIL). ``lassm extend`` and ``lassm xdrop align`` both use it.
"""
from __future__ import annotations

import sys
import threading
from types import ModuleType
from typing import Any, Callable

from .. import timeline


def in_background(get: Callable[[], ModuleType], *warm_args: Any,
                  name: str = "backend") -> Callable[[], ModuleType | None]:
    """Starts ``get()`` (a registry's lookup, which fails naming what to install) and the module's
    ``warm_up(*warm_args)``, where it has one, in a daemon thread.

    Parameters
    ----------
    get : callable
        Returns the backend module.
    warm_args : any
        Passed to the module's ``warm_up``.
    name : str
        The backend's name, for the thread's.

    Returns
    -------
    callable
        Waits for the thread and returns the module; re-raises the thread's failure, unless it is
        called while an exception is being handled (reading failed first: that error is the
        one to report), in which case it returns None.
    """
    got: list[ModuleType] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            module = get()
            warm_up = getattr(module, "warm_up", None)
            if warm_up is not None:
                warm_up(*warm_args)
            timeline.mark("warm")
            got.append(module)
        except BaseException as exc:  # handed to the waiting thread
            failed.append(exc)

    thread = threading.Thread(target=work, name=f"lassm-{name}-warm-up", daemon=True)
    thread.start()

    def ready() -> ModuleType | None:
        thread.join()
        if failed and sys.exc_info()[1] is None:
            raise failed[0]
        return got[0] if got else None

    return ready

# SPDX-License-Identifier: BSD-3-Clause
"""A backend made ready in a thread while the command reads its input: its ``warm_up`` (runtime
import, device context, cached kernel) and the reading release the GIL, so they overlap instead
of adding. Used by ``lassm extend`` and ``lassm xdrop align``."""
from __future__ import annotations

import sys
import threading
from types import ModuleType
from typing import Any, Callable

from .. import timeline


def in_background(get: Callable[[], ModuleType], *warm_args: Any,
                  name: str = "backend") -> Callable[[], ModuleType | None]:
    """Starts ``get()`` (the registry lookup, failing with what to install) and the module's
    ``warm_up(*warm_args)``, if any, in a daemon thread named after ``name``.

    Returns a call that waits and returns the module, re-raising the thread's failure, except while
    another exception is being handled (reading failed first, the error to report): then it returns
    None."""
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

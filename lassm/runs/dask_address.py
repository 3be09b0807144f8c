# SPDX-License-Identifier: BSD-3-Clause
"""``--cluster`` naming a running Dask scheduler (``SCHEME://HOST:PORT`` or a scheduler file),
asked whether it answers before any work is measured or written.

Dask would wait, then raise a traceback, or hang on a port that never speaks, so the scheduler's
``identity`` is asked under one deadline (:func:`connect_timeout`: ``LASSM_CLUSTER_TIMEOUT``,
else a changed Dask ``comm.timeouts.connect``, else :data:`CONNECT_TIMEOUT_S`). Any fault is one
:class:`LassmError` naming the value given.
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import settings
from ..errors import LassmError

#: Seconds to wait for a running scheduler to answer: short, so that a wrong address fails fast.
CONNECT_TIMEOUT_S = 10.0

#: Environment variable that sets the wait in seconds (the tests make it short).
TIMEOUT_ENV = "LASSM_CLUSTER_TIMEOUT"

#: What to install for ``--cluster``.
NEEDS_DASK = "--cluster needs Dask: pip install 'lassm[dask]' (and dask-cuda for GPUs)"

#: What a scheduler file must be, for errors.
SCHEDULER_FILE = "not a Dask scheduler file (JSON with an address)"

_DASK_KEY = "distributed.comm.timeouts.connect"


def names_a_scheduler(spec: str) -> bool:
    """Whether a ``--cluster`` value names a running scheduler (rather than workers lassm starts)."""
    return "://" in spec or spec.endswith(".json")


def read_scheduler_file(path: str | Path) -> str:
    """The address in a scheduler file (what ``dask scheduler --scheduler-file`` writes)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise LassmError(f"{path}: {exc.strerror}") from None
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, or nested past Python's stack
        raise LassmError(f"{path}: {SCHEDULER_FILE}: {exc}") from None
    address = data.get("address") if isinstance(data, dict) else None
    if not isinstance(address, str) or not address.strip():
        raise LassmError(f"{path}: {SCHEDULER_FILE}: no \"address\" string in it")
    return address.strip()


def address_of(spec: str) -> str:
    """The scheduler's address: the value itself, or what its scheduler file says (read now)."""
    return spec if "://" in spec else read_scheduler_file(spec)


def connect_timeout() -> float:
    """Seconds to wait for the scheduler (see the module's docstring for where it comes from)."""
    seconds = settings.value(TIMEOUT_ENV)
    if seconds is not None:
        return seconds
    import dask
    from dask.utils import parse_timedelta

    given = dask.config.get(_DASK_KEY, None)
    default = dask.config.get(_DASK_KEY, None, config=dask.config.merge(*dask.config.defaults))
    if given is not None and given != default:
        return float(parse_timedelta(given, default="seconds"))
    return CONNECT_TIMEOUT_S


def _where(spec: str, address: str) -> str:
    return spec if spec == address else f"{spec} (at {address})"


def failure(spec: str, address: str, timeout: float, exc: BaseException) -> LassmError:
    """One line for a scheduler that could not be reached: the value given, and why."""
    import asyncio

    where = _where(spec, address)
    if isinstance(exc, ValueError):  # Dask's parse of the address
        return LassmError(f"--cluster {where}: not a Dask address: {exc}")
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or "Timed out" in str(exc):
        cause = _innermost(exc)
        why = f" (last: {cause})" if cause else ""
        return LassmError(f"--cluster {where}: no Dask scheduler answered within {timeout:g} s{why}; "
                          f"{TIMEOUT_ENV} sets the wait")
    return LassmError(f"--cluster {where}: no Dask scheduler there: {type(exc).__name__}: {_innermost(exc) or exc}")


def _innermost(exc: BaseException) -> str:
    """The first cause's own words (``Connection refused``), else ''."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return (getattr(exc, "strerror", None) or str(exc)).strip()[:200]


async def _identity(address: str, timeout: float) -> dict:
    from distributed.core import rpc
    from distributed.security import Security

    args = Security().get_connection_args("client")  # TLS as the Dask config says, as a Client would
    async with rpc(address, timeout=timeout, connection_args=args) as scheduler:
        return await scheduler.identity()


def _ask(address: str, timeout: float) -> dict:
    """The scheduler's identity, or the error; the deadline also covers a peer that never speaks."""
    import asyncio
    import concurrent.futures

    async def asking() -> dict:
        return await asyncio.wait_for(_identity(address, timeout), timeout + 1.0)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # its own event loop, even under a running one
        return pool.submit(asyncio.run, asking()).result()


def check(spec: str) -> None:
    """Refuses a ``--cluster`` value whose scheduler does not answer, as a Dask scheduler, in time.

    Values that start their own workers (``local``, ``slurm``...) pass unasked.
    """
    if not names_a_scheduler(spec):
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise LassmError(NEEDS_DASK) from None
    address, timeout = address_of(spec), connect_timeout()
    try:
        info = _ask(address, timeout)
    except Exception as exc:  # anything the far end did (Dask may fail deep in parsing a stranger's bytes)
        raise failure(spec, address, timeout, exc) from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        raise LassmError(f"--cluster {_where(spec, address)}: a Dask {kind or 'peer'} answered, not a scheduler")


__all__ = ["CONNECT_TIMEOUT_S", "NEEDS_DASK", "SCHEDULER_FILE", "TIMEOUT_ENV", "address_of", "check", "connect_timeout",
           "failure", "names_a_scheduler", "read_scheduler_file"]

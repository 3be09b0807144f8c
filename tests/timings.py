# SPDX-License-Identifier: BSD-3-Clause
"""Where the test suite's time goes: a pytest plugin that records it, and a summary of the record.

Record (a pytest plugin, loaded with ``-p`` from the repository root)::

    python -m pytest -q -p tests.timings --timings-out DIR/timings.jsonl

writes one JSON line per test phase (``{"kind": "phase", "nodeid", "when", "duration", "outcome",
"worker"}``), one per test with the CPU seconds it took (``"kind": "cpu"``: the worker's own and
its waited-for children's, user and system) and one per fixture set-up (``{"kind": "fixture", "name", "scope", "nodeid",
"duration", "worker"}``: the fixture's own function, its dependencies excluded, as pytest sets them
up first). Under pytest-xdist each worker appends its own lines to the same file.

Summarise::

    python -m tests.timings DIR/timings.jsonl [--top 15]

prints the seconds per file (set-up, call and tear-down of its tests together), per fixture and
the slowest tests, plus the passed and skipped counts and the sum over all phases.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time


# --- the plugin ----------------------------------------------------------------------------------

def pytest_addoption(parser):
    parser.addoption("--timings-out", default=None,
                     help="append one JSON line per test phase and fixture set-up to this file")


def _out(config):
    return config.getoption("--timings-out", None) if config is not None else None


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _write(config, record: dict) -> None:
    path = _out(config)
    if not path:
        return
    record["worker"] = _worker()
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


_CONFIG = None


def pytest_configure(config):
    global _CONFIG
    _CONFIG = config


try:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(fixturedef, request):
        start = time.perf_counter()
        yield
        _write(_CONFIG, {"kind": "fixture", "name": fixturedef.argname, "scope": fixturedef.scope,
                         "nodeid": request.node.nodeid, "duration": time.perf_counter() - start})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        start = _cpu()
        yield
        _write(_CONFIG, {"kind": "cpu", "nodeid": item.nodeid, "duration": _cpu() - start})
except ImportError:  # the summary alone needs no pytest
    pass


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for (user and system)."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def pytest_runtest_logreport(report):
    # Under xdist the controller sees every worker's reports too: only the process that ran it writes.
    if _worker() == "main" and getattr(report, "node", None) is not None:
        return
    _write(_CONFIG, {"kind": "phase", "nodeid": report.nodeid, "when": report.when,
                     "duration": report.duration, "outcome": report.outcome})


# --- the summary ---------------------------------------------------------------------------------

def summarise(path: str, top: int = 15) -> str:
    files: dict[str, float] = collections.Counter()
    tests: dict[str, float] = collections.Counter()
    fixtures: dict[str, float] = collections.Counter()
    fixture_count: dict[str, int] = collections.Counter()
    outcomes: dict[str, int] = collections.Counter()
    cpu_files: dict[str, float] = collections.Counter()
    total = 0.0
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] == "cpu":
                cpu_files[r["nodeid"].split("::")[0]] += r["duration"]
                continue
            if r["kind"] == "fixture":
                key = f"{r['name']} ({r['scope']})"
                fixtures[key] += r["duration"]
                fixture_count[key] += 1
                continue
            total += r["duration"]
            files[r["nodeid"].split("::")[0]] += r["duration"]
            tests[r["nodeid"]] += r["duration"]
            if r["when"] == "call" or (r["when"] == "setup" and r["outcome"] != "passed"):
                outcomes[r["outcome"]] += 1
    lines = [f"{path}: {total:.0f} s over all phases; "
             + ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items())), "",
             f"top {top} files (s):"]
    lines += [f"  {s:8.1f}  {name}" for name, s in files.most_common(top)]
    if cpu_files:
        lines += ["", f"top {top} files by CPU (s of this process and the children it waited for; "
                      f"{sum(cpu_files.values()):.0f} s in all):"]
        lines += [f"  {s:8.1f}  {name}" for name, s in cpu_files.most_common(top)]
    lines += ["", f"top {top} fixtures (s of set-up, times set up):"]
    lines += [f"  {s:8.1f}  {fixture_count[name]:5d}  {name}" for name, s in fixtures.most_common(top)]
    lines += ["", f"top {top} tests (s, set-up + call + tear-down):"]
    lines += [f"  {s:8.1f}  {name}" for name, s in tests.most_common(top)]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timings", help="the JSON-lines file the plugin wrote")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    print(summarise(args.timings, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())

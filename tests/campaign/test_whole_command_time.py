# SPDX-License-Identifier: BSD-3-Clause
"""``lassm measure command-time`` reads ``-X importtime`` and times a command; the timings themselves
are a measurement to log, never checked here."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from lassm import cli
from lassm.campaign.originals import timing as tool

TRACE = """import time: self [us] | cumulative | imported package
import time:       100 |        100 |     _io
import time:      2000 |       5000 |   numpy.core
import time:      3000 |      40000 | numpy
import time:       500 |        500 | lassm.version
some output of the command
import time:      7000 |      90000 | cupy
"""


def test_import_times_sum_the_top_level_imports() -> None:
    total, top = tool.import_times(TRACE)
    assert total == pytest.approx(0.1305)
    assert top == [(0.09, "cupy"), (0.04, "numpy"), (0.0005, "lassm.version")]


def test_a_command_is_timed_in_fresh_processes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "t.json"
    assert cli.main(["measure", "command-time", "--repeat", "2", "--warmup", "0", "--json", str(out), "--command",
                     shlex.join([sys.executable, "-c", "import json"])]) == 0
    figures = json.loads(out.read_text())
    assert len(figures["wall_seconds"]) == 2 and figures["median_seconds"] > 0
    assert figures["import_seconds"] > 0 and "json" in [t["module"] for t in figures["top_imports"]]
    assert "python -c pass" in capsys.readouterr().out


def test_a_failing_command_is_no_measurement(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["measure", "command-time", "--repeat", "1", "--warmup", "0", "--command",
                     shlex.join([sys.executable, "-c", "raise SystemExit(3)"])]) == 2
    assert "exited 3" in capsys.readouterr().err

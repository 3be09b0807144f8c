# SPDX-License-Identifier: BSD-3-Clause
"""``lassm run`` and its dry run check the same, and a run that cannot write ends in one line.

Each test is a case that once went wrong: a run onto a full results disk measured its first
point before it failed, with a traceback, and left its folder behind; a dry run passed an
account the run then refused (or tripped over it in a traceback), an unreachable ``--cluster``
and a dataset file no reader takes. The full disk is a real one: a small tmpfs where this user
may mount one, else a file size limit (``ulimit -f``) on a process of its own.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from lassm.cli import main
from lassm.runs import host

REPO = Path(__file__).resolve().parents[2]
#: The smallest run: one CPU point of the sample, quiet (its progress would be more lines on stderr).
QUICK = ["run", "--quick", "--kernel", "local-assembly", "--backends", "cpu", "--quiet"]


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


@contextlib.contextmanager
def _small_disk(tmp_path: Path, room_kib: int) -> Iterator[Path | None]:
    """A folder on a 256 KiB tmpfs filled up to ``room_kib`` KiB free, where this user may mount
    one; else None."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True) \
        if os.geteuid() == 0 and shutil.which("mount") else None
    if made is None or made.returncode != 0:
        yield None
        return
    try:
        with open(mount / "filler", "wb") as fh:
            fh.write(b"\0" * ((256 - room_kib) * 1024))
        if room_kib == 0:  # whatever the file system keeps back: taken too
            with contextlib.suppress(OSError), open(mount / "filler", "ab") as fh:
                while True:
                    fh.write(b"\0" * 4096)
                    fh.flush()
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _lassm(argv: list[str], env: dict[str, str], file_limit: int | None = None) -> subprocess.CompletedProcess:
    """``lassm argv`` in a process of its own, its files limited to ``file_limit`` bytes where given."""
    def cap() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-m", "lassm", *argv], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env}, preexec_fn=cap, timeout=300)


@pytest.mark.parametrize("room_kib", [0, 12], ids=["full before the run", "full during the run"])
def test_a_run_onto_a_full_results_disk_is_one_line_and_leaves_nothing(room_kib: int, tmp_path: Path) -> None:
    """Full before: refused before any point is measured (a folder could still be made there, so
    the run measured, then failed); full during: the record's write ends the run, naming the
    record (it was a traceback per point, and pyarrow's error names no file). Either way the
    disk holds what it held: no machine folder, no results root."""
    with _small_disk(tmp_path, room_kib) as disk:
        if disk is None:  # no tmpfs here: a file size limit refuses the record's writes alike
            if room_kib == 0:
                pytest.skip("no tmpfs can be mounted here; the size limit covers the write during the run")
            res = _lassm([*QUICK], {"LASSM_RESULTS": str(tmp_path / "results")}, file_limit=2048)
            line = _one_line(res.stderr)
            assert res.returncode == 2 and "File too large" in line and str(tmp_path / "results") in line, line
            assert not (tmp_path / "results").exists()
            return
        before = sorted(p.name for p in disk.iterdir())
        res = _lassm([*QUICK], {"LASSM_RESULTS": str(disk / "results")})
        line = _one_line(res.stderr)
        assert res.returncode == 2 and "No space left on device" in line and str(disk) in line, line
        if room_kib == 0:
            assert "nothing was measured" in line, line
        else:
            assert f"{disk / 'results'}/" in line and "sample-k77__k77__cpu__none" in line, line
        assert sorted(p.name for p in disk.iterdir()) == before == ["filler"]


# ------------------------------------------------------------------------------ a damaged account

#: Accounts that parse as JSON but hold no account: each was a traceback in the dry run's estimate,
#: or was appended to by the run as if whole.
DAMAGED = {
    "a string entry": ({"entries": ["abc"]}, "entry 1 of 1: a JSON str, not an account"),
    "rows a string": ({"entries": [{"rows": "x"}]}, "entry 1 of 1: rows: a JSON str, not a list"),
    "a row a string": ({"entries": [{"rows": ["x"]}]}, "entry 1 of 1: row 1: a JSON str, not a row"),
    "seconds no number": ({"entries": [{"rows": [], "seconds": "abc"}]}, "seconds: 'abc' is no number of seconds"),
    "negative seconds": ({"entries": [{}, {"rows": [], "seconds": -5}]}, "entry 2 of 2: seconds: -5"),
    "a plan a number": ({"entries": [{"plan": 5, "rows": [{"status": "ok"}]}]}, "plan: a JSON int, not an object"),
    "one account, rows a number": ({"rows": 7}, "entry 1 of 1: rows: a JSON int"),
    "a step no time": ({"entries": [{"steps": {"sweep": None}}]}, "steps: sweep: None is no number of seconds"),
}


@pytest.mark.parametrize("damage", list(DAMAGED))
@pytest.mark.parametrize("dry", [True, False], ids=["dry run", "run"])
def test_a_damaged_account_is_one_line_naming_its_entry(damage: str, dry: bool, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    folder = tmp_path / "results" / "box"
    host.claim(folder / "campaign.json")  # this host's folder: the run would append to its account
    body, said = DAMAGED[damage]
    (folder / "campaign.json").write_text(json.dumps(body))
    code = main([*QUICK, "--machine", "box", *(["--dry-run"] if dry else [])])
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and f"{folder / 'campaign.json'}: " in line and said in line, line
    assert json.loads((folder / "campaign.json").read_text()) == body  # nothing appended
    assert sorted(p.name for p in folder.iterdir()) == ["campaign.json", "host.json"]


@pytest.mark.parametrize("text, said", [("[" * 100_000, "not JSON: maximum recursion depth"),
                                        ('{"entries": [{"rows": [', "not JSON: "),
                                        ("\udcff", "not JSON: ")],
                         ids=["nested past the stack", "cut in half", "not UTF-8"])
def test_an_account_that_is_no_json_is_one_line(text: str, said: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    folder = tmp_path / "results" / "box"
    host.claim(folder / "campaign.json")
    (folder / "campaign.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    for dry in ([], ["--dry-run"]):
        assert main([*QUICK, "--machine", "box", *dry]) == 2
        line = _one_line(capsys.readouterr().err)
        assert f"{folder / 'campaign.json'}: {said}" in line, line


def test_a_whole_account_still_reads() -> None:
    """Every committed account reads (the check refuses none the study wrote)."""
    from lassm.runs.account import ACCOUNTS, read_entries

    found = [p for name in ACCOUNTS for p in (REPO / "data" / "results").glob(f"*/{name}")]
    assert found and all(isinstance(read_entries(p), list) for p in found)


# ------------------------------------------------------------------------------ the dry run checks what the run checks

def _unreadable(tmp_path: Path) -> list[str]:
    bad = tmp_path / "bad.dat"
    bad.write_text("garbage\n")
    return ["--datasets", str(bad)]


def _unreachable(tmp_path: Path) -> list[str]:
    return ["--cluster", "tcp://127.0.0.1:1"]


@pytest.mark.parametrize("case, said", [(_unreadable, "bad.dat:1: record header: "),
                                        (_unreachable, "--cluster tcp://127.0.0.1:1: no Dask scheduler answered")],
                         ids=["an unreadable dataset", "an unreachable cluster"])
def test_a_dry_run_refuses_what_the_run_refuses(case, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    """The same line from both, before any point: a dry run that passed these planned a run that
    then failed (a failed point per dataset, or a refusal at the start)."""
    if case is _unreachable:
        pytest.importorskip("distributed")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LASSM_CLUSTER_TIMEOUT", "1")
    argv = [*QUICK, *case(tmp_path)]
    lines = []
    for dry in ([], ["--dry-run"]):
        assert main([*argv, *dry]) == 2
        lines.append(re.sub(r" \(last: [^)]*\)", "", _one_line(capsys.readouterr().err)))  # the wait's last try
    assert lines[0] == lines[1] and said in lines[0], lines
    assert not (tmp_path / "results").exists()


#: A pair whose seed matches in both reads, the X-drop reader's smallest whole line.
PAIR = "ACGTACGTAC\t0\tACGTACGTAC\t0\t4\n"


@pytest.mark.parametrize("text, said", [(PAIR + "ACGTACGTAC\tx\tACGTACGTAC\t0\t4\n", "pairs.tsv:2: posH: 'x' is not"),
                                        (PAIR + "ACGTACGTAC\t0\tACGTACGTAC\n", "pairs.tsv:2: pair: expected 5"),
                                        (PAIR.encode("utf-16").decode("latin-1"), "pairs.tsv: file: ")],
                         ids=["a field no number", "a line cut short", "UTF-16"])
@pytest.mark.parametrize("kernel", [[], ["--kernel", "xdrop"]], ids=["the whole run", "the X-drop part"])
def test_a_pairs_file_the_xdrop_reader_refuses_is_one_line_before_the_run(
        text: str, said: str, kernel: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture) -> None:
    """A pairs file given to ``lassm run --datasets`` is read by the X-drop reader before anything
    is measured, in the run and its dry run alike: the whole run read it as a local-assembly
    dataset, blaming a contig's fields it never had."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_bytes(text.encode("latin-1"))
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    lines = []
    for dry in ([], ["--dry-run"]):
        assert main(["run", "--quick", "--quiet", *kernel, "--datasets", str(pairs), *dry]) == 2
        lines.append(_one_line(capsys.readouterr().err))
    assert lines[0] == lines[1] and f"{pairs}" in lines[0] and said in lines[0], lines
    assert not (tmp_path / "results").exists()


def test_a_whole_pairs_file_goes_to_the_xdrop_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    """The whole run's dry run plans a pairs file given by its path into the X-drop part (it was
    refused by the local-assembly reader), its pairs counted by the X-drop reader."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIR)
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    assert main(["run", "--quick", "--quiet", "--datasets", str(pairs), "--dry-run"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "local assembly: left out: no local-assembly dataset" in out
    xdrop = out[out.index("== X-drop"):out.index("== Jin and Vetter")]
    assert re.search(rf"^{re.escape(str(pairs))}\s+1 pairs:", xdrop, flags=re.M), xdrop
    assert not (tmp_path / "results").exists()


# ------------------------------------------------------------------------------ a GPU bench onto a full disk

def test_a_gpu_bench_onto_a_full_results_disk_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture) -> None:
    """A bench whose first record finds the disk full left a new machine folder holding only its
    host's fingerprint, which the book then took for a machine of the study. The disk is a real
    one; only the GPU is played by the CPU backend (its points, its device's name)."""
    from lassm import cli
    from lassm.runs import bench, records

    with _small_disk(tmp_path, 12) as disk:
        if disk is None:
            pytest.skip("no tmpfs can be mounted here")
        cpu_extend = bench.extend
        monkeypatch.setattr(bench, "extend", lambda ds, params, backend="cpu", protocol=None, **kw:
                            cpu_extend(ds, params, backend="cpu"))
        monkeypatch.setattr(records, "machine_for_backend", lambda backend: "a-gpu")
        monkeypatch.setattr(cli, "_require_backend", lambda name: None)
        monkeypatch.setattr("lassm.backends.protocols", lambda backend: ("fast",))
        monkeypatch.setenv("LASSM_RESULTS", str(disk / "results"))
        code = main(["bench", "--backend", "cuda", "--datasets", "sample-k77", "--protocols", "fast",
                     "--repeat", "1"])
        line = _one_line(capsys.readouterr().err)
        assert code == 2 and "No space left on device" in line and f"{disk / 'results' / 'a-gpu'}/" in line, line
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]

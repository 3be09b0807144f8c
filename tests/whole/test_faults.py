# SPDX-License-Identifier: BSD-3-Clause
"""Faults injected into every command that writes: nothing the user keeps is lost, and each fault
is one ``lassm: error:`` line (or a quiet exit) with nothing partial left behind.

The commands come from the command line's own table (:func:`tests.cli.test_cli_errors.leaves`, with
their base lines :data:`tests.cli.test_cli_errors.BASE`): an output option aimed at each input of
its command, each writer on a full file system (a small tmpfs where root may mount one, else a
file size limit), standard output closed, broken and full, SIGINT and SIGTERM at several
moments of a write. Each test checks one line, the exit code, that no output or temporary was
left and that every input is unchanged (SHA-256). Then the cases the faults were first met in.
Commands run in this process where they can (a signal is sent by the process to itself at a
chosen moment), in a few small subprocesses where the process itself is the point.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import gzip
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from lassm import atomic, cli, paths
from lassm.cli import guard
from lassm.workloads.local_assembly import stream

from .test_bad_input import GOOD
from ..cli.test_cli_errors import BASE, leaves, where  # noqa: F401  (where: the base lines' fixture)

COUNTERS = paths.REPO / "tests" / "fixtures" / "counters" / "ncu_raw_h100_measured.csv"
#: A committed machine folder whose counters and ceilings ``metrics derive`` reads.
MACHINE = paths.REPO / "data" / "results" / "nvidia-h200"
GENOME = Path("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz")


# ------------------------------------------------------------------------------ helpers

def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder``, hidden ones too, by relative path: its SHA-256 (a folder: ``/``)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = "/" if path.is_dir() and not path.is_symlink() else (
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "link")
    return out


def one_line(err: str) -> str:
    """The one ``lassm: error:`` line of ``err``; fails on a traceback or on more lines."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


def refused(argv: list[str], capsys: pytest.CaptureFixture, code: int = 2) -> str:
    """Runs ``lassm argv`` here; its one line (exit ``code``)."""
    got = cli.main(argv)
    line = one_line(capsys.readouterr().err)
    assert got == code, (got, line)
    return line


@functools.lru_cache(maxsize=1)
def leaf_parsers() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command's parser, built once per process: read here, never parsed with (the cases are
    collected from it hundreds of times, and each build of lassm's parser takes 10 ms)."""
    return dict(leaves(cli.build_parser()))


def roles(path: tuple[str, ...], role: str) -> list[argparse.Action]:
    """The arguments of command ``path`` whose type has ``role`` (:mod:`lassm.cli.args`)."""
    return [a for a in leaf_parsers()[path]._actions if getattr(a.type, "role", None) == role]


def argv_of(path: tuple[str, ...], where: dict[str, str], **given: str) -> list[str]:
    """``path``'s base line with arguments replaced (keyed by :func:`lassm.cli.guard.option_name`,
    placeholders filled); one of a group of exclusive options replaces the others."""
    parser = leaf_parsers()[path]
    base = dict(BASE[path])
    for key in given:
        action = next(a for a in parser._actions if guard.option_name(a) == key)
        for group in parser._mutually_exclusive_groups:
            if action in group._group_actions:
                for other in group._group_actions:
                    base.pop(guard.option_name(other), None)
    base.update(given)
    fill = lambda text: text.format(**where)  # noqa: E731
    positionals = [fill(base[a.dest]) for a in parser._actions if not a.option_strings and a.dest in base]
    options = [w for k, v in base.items() if k.startswith("-") for w in (k, fill(v))]
    return list(path) + positionals + options


def writers() -> list[tuple[str, ...]]:
    """Every command with an output option."""
    return [path for path in leaf_parsers() if roles(path, "output")]


def _suffix_for(action: argparse.Action, folder: Path) -> str:
    """A suffix the output type of ``action`` takes (types choose formats by suffix)."""
    for suffix in (".txt", ".dat", ".parquet", ".tsv", ".csv"):
        try:
            action.type(str(folder / f"probe{suffix}"))
            return suffix
        except argparse.ArgumentTypeError:
            continue
    raise AssertionError(f"{action.dest}: no suffix taken")


# ------------------------------------------------------------------------------ outputs aimed at inputs

def _aimed_cases() -> list:
    cases = []
    for path in writers():
        for out in roles(path, "output"):
            for inp in roles(path, "input"):
                for how in ("same path", "symbolic link"):
                    cases.append(pytest.param(path, guard.option_name(out), guard.option_name(inp), how,
                                              id=f"{' '.join(path)} {guard.option_name(out)}={guard.option_name(inp)} "
                                                 f"({how})"))
    return cases


@pytest.mark.parametrize("path, out, inp, how", _aimed_cases())
def test_an_output_aimed_at_an_input_is_refused(path: tuple[str, ...], out: str, inp: str, how: str,
                                                where: dict[str, str], tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    """Every output of every command, aimed at each of its inputs (by its path or through a link;
    a folder output at the folder holding it): refused before any work, the input unchanged."""
    parser = leaf_parsers()[path]
    out_action = next(a for a in parser._actions if guard.option_name(a) == out)
    folder = tmp_path / "inputs"
    folder.mkdir()
    suffix = ".dat" if getattr(out_action.type, "folder", False) else _suffix_for(out_action, folder)
    data = folder / f"input{suffix}"
    data.write_bytes(paths.sample("k21").read_bytes())
    target = folder if getattr(out_action.type, "folder", False) else data
    if how == "symbolic link":
        link = tmp_path / f"alias{suffix}"
        link.symlink_to(target)
        target = link
    before = tree(tmp_path)
    line = refused(argv_of(path, where, **{inp: str(data), out: str(target)}), capsys)
    assert line.startswith(f"lassm: error: {out} {target}: ") and str(data) in line, line
    assert "input" in line, line
    assert tree(tmp_path) == before and not list(Path(where["tmp"]).iterdir())


def _results_cases() -> list:
    return [pytest.param(path, guard.option_name(out), name, id=f"{' '.join(path)} {guard.option_name(out)}={name}")
            for path in writers() if roles(path, "results") for out in roles(path, "output")
            for name in ("ceilings.json", "campaign.json", "counters/ncu__a__k21__cuda__casptr.csv")]


@pytest.mark.parametrize("path, out, name", _results_cases())
def test_an_output_aimed_into_a_results_folder_it_reads_is_refused(path: tuple[str, ...], out: str, name: str,
                                                                   where: dict[str, str],
                                                                   capsys: pytest.CaptureFixture) -> None:
    """A results folder the command reads is no place for its ``--out``: its ceilings, its
    append-only campaign account, a raw counters file stay as they are."""
    box = paths.machine_dir(where["machine"])
    (box / name).parent.mkdir(parents=True, exist_ok=True)
    (box / name).write_text("kept\n")
    before = tree(box)
    line = refused(argv_of(path, where, **{out: str(box / name)}), capsys)
    assert f"{out} {box / name}: is {name} of the results folder" in line, line
    assert tree(box) == before


@pytest.mark.parametrize("name", ["counters/mine.csv", "mine.csv"])
def test_a_new_file_in_a_results_folder_it_reads_is_refused(name: str, where: dict[str, str],
                                                             capsys: pytest.CaptureFixture) -> None:
    """A file that is not there yet is refused too: a new CSV among the raw counters was written,
    and every later ``metrics derive`` of the machine read it as a profile and failed."""
    box = _machine_with_counters(where)
    before = tree(box)
    line = refused(["metrics", "derive", "--machine", where["machine"], "--out", str(box / name)], capsys)
    assert f"--out {box / name}: is {name} of the results folder" in line, line
    assert tree(box) == before


def test_its_own_file_in_the_results_folder_may_be_named(where: dict[str, str], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    """``metrics derive --out <machine>/metrics.csv`` writes what it writes there by default."""
    box = _machine_with_counters(where)
    assert cli.main(["metrics", "derive", "--machine", where["machine"], "--out", str(box / "metrics.csv")]) == 0
    assert (box / "metrics.csv").read_text().startswith("device,dataset")


# ------------------------------------------------------------------------------ a full file system

def _fill(folder: Path) -> None:
    """Writes a file in ``folder`` until its file system has no byte left."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        size = 1 << 16
        while size:
            try:
                os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                size //= 2
    finally:
        os.close(fd)


@contextlib.contextmanager
def small_file_system(tmp_path: Path) -> Iterator[Path | None]:
    """A folder on a full 256 kB tmpfs where root may mount one; else None (the caller then
    limits the file size instead)."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True) if os.geteuid() == 0 and shutil.which("mount") else None
    if made is None or made.returncode != 0:
        yield None
        return
    try:
        _fill(mount)
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _machine_with_counters(where: dict[str, str]) -> Path:
    """The scratch machine folder, given a committed machine's ceilings and raw counters."""
    box = paths.machine_dir(where["machine"])
    shutil.copy(MACHINE / "ceilings.json", box / "ceilings.json")
    shutil.copytree(MACHINE / "counters", box / "counters", dirs_exist_ok=True)
    return box


#: Writers that cannot write here without a tool this suite does not need: said, not hidden.
NEEDS = {("counters", "collect"): "Nsight Compute (ncu), which runs the command it profiles"}


def _full_disk_line(path: tuple[str, ...], where: dict[str, str], tmp_path: Path,
                    small: Path | None) -> tuple[list[str], list[str]]:
    """``path``'s base line, its outputs in ``small`` (or a scratch folder), its inputs ones it
    reads; and the outputs."""
    given: dict[str, str] = {}
    place = small if small is not None else Path(where["tmp"])
    for action in roles(path, "output"):
        name = Path(BASE[path].get(guard.option_name(action), f"out{_suffix_for(action, place)}")).name
        given[guard.option_name(action)] = str(place / name)
    outputs = list(given.values())
    if path == ("counters", "parse"):
        given["raw"] = str(COUNTERS)
    if path == ("metrics", "derive"):
        _machine_with_counters(where)
    if path == ("xdrop", "real"):
        if not GENOME.exists() or shutil.which("pbsim") is None:
            pytest.skip("xdrop real needs pbsim and the lambda genome (make deps)")
        given["--genome"] = str(GENOME)
    if path == ("xdrop", "align"):
        pairs = tmp_path / "pairs.tsv"
        assert cli.main(["xdrop", "generate", "--n-pairs", "3", "--min-length", "100", "--max-length", "200",
                         "--out", str(pairs)]) == 0
        given["input"] = str(pairs)
    if path == ("data", "real") and shutil.which("megahit") is None:
        pytest.skip("data real needs ART and MEGAHIT (make deps)")
    extra = {("data", "generate"): ["--scale", "0.02", "--quiet"]}.get(path, [])
    return argv_of(path, where, **given) + extra, outputs


@pytest.mark.parametrize("path", writers(), ids=[" ".join(p) for p in writers()])
def test_a_full_disk_is_one_line_and_leaves_nothing(path: tuple[str, ...], where: dict[str, str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    """Each writer, its outputs on a file system with no room (a full tmpfs), or under a file
    size limit where no tmpfs can be mounted: one line naming the output as given, exit 2, no
    temporary or part left, inputs unchanged."""
    if path in NEEDS:
        pytest.skip(f"{' '.join(path)} needs {NEEDS[path]}")
    with small_file_system(tmp_path) as small:
        argv, outputs = _full_disk_line(path, where, tmp_path, small)
        capsys.readouterr()  # what making its inputs said
        before = tree(tmp_path)
        if small is not None:
            line = refused(argv, capsys)
            assert "No space left on device" in line, line
            assert sorted(p.name for p in small.iterdir()) == ["filler"]
        else:  # a file size limit, in a process of its own (its writes past the limit fail with EFBIG)
            line = one_line(_limited(argv).stderr)
            assert "File too large" in line, line
        # the output is named (under a size limit a tool's own scratch file may meet it first: said unnamed)
        assert any(out in line for out in outputs) or (small is None and "a write failed" in line), line
        assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("small/")} == \
               {k: v for k, v in before.items() if not k.startswith("small/")}


#: The environment of a ``lassm`` process of its own: this checkout's ``lassm``.
ENV = {**os.environ, "PYTHONPATH": str(paths.REPO)}


def _lassm(argv: list[str], **options) -> subprocess.CompletedProcess:
    """``lassm argv`` in a process of its own; its stderr as text (its stdout too, unless given)."""
    options.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "lassm", *argv], stderr=subprocess.PIPE, text=True, timeout=300,
                          env=ENV, **options)


def _limited(argv: list[str], limit: int = 64) -> subprocess.CompletedProcess:
    """``lassm argv`` in a process whose files may not grow past ``limit`` bytes."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return _lassm(argv, preexec_fn=cap)


def test_a_file_size_limit_is_one_line(where: dict[str, str], tmp_path: Path) -> None:
    """``ulimit -f``: SIGXFSZ would kill the process with its temporary; the write fails instead."""
    out = Path(where["tmp"]) / "o.txt"
    res = _limited(["extend", where["data"], "--k", "21", "--out", str(out)])
    assert res.returncode == 2 and "File too large" in one_line(res.stderr)
    assert not list(Path(where["tmp"]).iterdir())


def test_the_ends_on_a_full_disk_take_the_output_with_them(where: dict[str, str], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    """``extend --out a.out --ends FULL/e.tsv``: neither appears."""
    with small_file_system(tmp_path) as small:
        if small is None:
            pytest.skip("no tmpfs can be mounted here (the size-limit case covers the write)")
        out, ends = Path(where["tmp"]) / "a.out", small / "e.tsv"
        line = refused(["extend", where["data"], "--k", "21", "--out", str(out), "--ends", str(ends)], capsys)
        assert f"{ends}: No space left on device" in line
        assert not list(Path(where["tmp"]).iterdir()) and sorted(p.name for p in small.iterdir()) == ["filler"]


# ------------------------------------------------------------------------------ standard output

#: Commands that print their result on standard output.
PRINTERS = [["paper", "tables", "--json"], ["paper", "tables"], ["backends"],
            ["data", "stats", "{data}", "--k", "21", "--json"], ["data", "stats", "{data}", "--k", "21"],
            ["counters", "parse", "--tool", "ncu", str(COUNTERS)]]


@pytest.mark.parametrize("argv", PRINTERS, ids=[" ".join(a) for a in PRINTERS])
@pytest.mark.parametrize("stdout", ["broken pipe", "full device"])
def test_standard_output_broken_or_full(argv: list[str], stdout: str, where: dict[str, str],
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """A reader gone (``| head``): a quiet exit 0, as Unix tools end on a closed pipe; a full
    device (``> /dev/full``): one line naming it. Line-buffered, as a terminal's output is, so
    the first line printed meets the fault."""
    argv = [a.format(**where) for a in argv]
    if stdout == "broken pipe":
        read, write = os.pipe()
        os.close(read)
        stream = open(write, "w", buffering=1)
    else:
        stream = open("/dev/full", "w", buffering=1)
    monkeypatch.setattr(sys, "stdout", stream)
    try:
        code = cli.main(argv)
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):  # what the command could not write is still in its buffer
            stream.close()
    err = capsys.readouterr().err
    if stdout == "full device":
        assert code == 2 and one_line(err) == "lassm: error: standard output: No space left on device"
    else:
        assert code == 0 and err.strip() == "", err


def test_the_process_with_a_closed_a_broken_and_a_full_standard_output(where: dict[str, str]) -> None:
    """The whole process, as a shell runs it: a finished ``extend`` with standard
    output closed; ``--out /dev/stdout`` into a pipe its reader closed; ``> /dev/full``."""
    out = Path(where["tmp"]) / "o.txt"
    closed = _lassm(["extend", where["data"], "--k", "21", "--out", str(out)], stdout=subprocess.DEVNULL,
                    preexec_fn=lambda: os.close(1))
    assert closed.returncode == 0 and "Traceback" not in closed.stderr and out.read_text().startswith("562299 ")
    proc = subprocess.Popen([sys.executable, "-m", "lassm", "extend", where["data"], "--k", "21",
                             "--out", "/dev/stdout"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    proc.stdout.close()  # the reader is gone before the first byte
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0 and err.strip() == "", err
    with open("/dev/full", "w") as full:
        res = _lassm(["paper", "tables", "--json"], stdout=full)
    assert res.returncode == 2 and one_line(res.stderr) == "lassm: error: standard output: No space left on device"


# ------------------------------------------------------------------------------ signals

def _self_signal(monkeypatch: pytest.MonkeyPatch, where: str, sig: int, after: int = 1) -> None:
    """``where`` (``module.function``) sends ``sig`` to this process on its ``after``-th call,
    once the call is done: the signal lands at that moment of the command."""
    import importlib

    module, name = where.rsplit(".", 1)
    target = importlib.import_module(module)
    original = getattr(target, name)
    calls = [0]

    def signalled(*args, **kwargs):
        result = original(*args, **kwargs)
        calls[0] += 1
        if calls[0] == after:
            os.kill(os.getpid(), sig)
        return result

    monkeypatch.setattr(target, name, signalled)


#: Moments of a write: (the function after whose call the signal comes, its call, the command).
MOMENTS = {
    "reading the input": ("lassm.workloads.local_assembly.formats.read_dataset", 1,
                          ["extend", "{data}", "--k", "21", "--out", "{tmp}/o.txt"]),
    "the output written, not yet renamed": ("lassm.atomic.publish", 0,
                                            ["extend", "{data}", "--k", "21", "--out", "{tmp}/o.txt"]),
    "between --out and --ends": ("lassm.workloads.local_assembly.formats.write_extended", 1,
                                 ["extend", "{data}", "--k", "21", "--out", "{tmp}/o.txt", "--ends", "{tmp}/e.tsv"]),
    "one shard of two written": ("lassm.workloads.local_assembly.stream._write_parquet", 1,
                                 ["data", "shard", "sample-k21x2", "--shards", "2", "--out", "{tmp}/shards"]),
    "a block of a streamed file": ("lassm.workloads.local_assembly.stream.blocks", 1,
                                   ["data", "write", "sample-k21x3", "--out", "{tmp}/w.dat"]),
}


@pytest.mark.parametrize("moment", list(MOMENTS))
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_at_any_moment_leaves_nothing(moment: str, sig: int, where: dict[str, str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """Ctrl-C or a ``kill``: "interrupted" (exit 130) or "terminated" (exit 143), one line, no
    traceback, no temporary, no output."""
    function, after, argv = MOMENTS[moment]
    if after == 0:  # publish: the signal comes before the rename, the temporary whole
        import lassm.atomic as at

        original = at.publish

        def before_rename(*args, **kwargs):
            os.kill(os.getpid(), sig)
            return original(*args, **kwargs)

        monkeypatch.setattr(at, "publish", before_rename)
    else:
        _self_signal(monkeypatch, function, sig, after)
    before = tree(tmp_path)
    line = refused([a.format(**where) for a in argv], capsys, code=128 + sig)
    assert line == f"lassm: error: {'interrupted' if sig == signal.SIGINT else 'terminated'}"
    assert tree(tmp_path) == before
    assert signal.getsignal(signal.SIGTERM) is not None  # the handlers put back (this process goes on)


def test_ctrl_c_is_interrupted_whatever_handler_a_library_set(where: dict[str, str], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture) -> None:
    """A library imported earlier in the process may have made SIGINT its own (dask-jobqueue's
    runner ends the process with ``sys.exit()``): a command still ends "interrupted", and the
    library's handler is back once it is done."""
    def library(*_):
        sys.exit()

    previous = signal.signal(signal.SIGINT, library)
    try:
        function, after, argv = MOMENTS["reading the input"]
        _self_signal(monkeypatch, function, signal.SIGINT, after)
        before = tree(tmp_path)
        assert refused([a.format(**where) for a in argv], capsys, code=130) == "lassm: error: interrupted"
        assert tree(tmp_path) == before
        assert signal.getsignal(signal.SIGINT) is library
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_real_process_stopped_while_it_writes(sig: int, where: dict[str, str]) -> None:
    """A process stopped from outside while its temporary grows: one line, 130 or 143, nothing left."""
    out = Path(where["tmp"]) / "w.dat"
    proc = subprocess.Popen([sys.executable, "-m", "lassm", "data", "write", "sample-k77x400", "--out", str(out)],
                            stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 120  # a bound for a process that never writes, not a wait
    while not any(p.stat().st_size for p in Path(where["tmp"]).iterdir()):  # the signal comes mid-write
        assert time.monotonic() < deadline and proc.poll() is None, "its temporary never grew"
        time.sleep(0.05)
    proc.send_signal(sig)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 128 + sig
    assert one_line(err) == f"lassm: error: {'interrupted' if sig == signal.SIGINT else 'terminated'}"
    assert not list(Path(where["tmp"]).iterdir())


# ------------------------------------------------------------------------------ the cases met first

def test_a_shard_folder_replaces_only_its_own(where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    """A user's folder is refused (their ``weights.npy`` kept); a folder holding the input is
    refused; a folder ``data shard`` made is replaced whole (no part of the earlier sharding left)."""
    tmp = Path(where["tmp"])
    mine = tmp / "mine"
    mine.mkdir()
    (mine / "weights.npy").write_text("the user's\n")
    line = refused(["data", "shard", "sample-k21x2", "--shards", "2", "--out", str(mine)], capsys)
    assert "a folder holding weights.npy" in line and (mine / "weights.npy").read_text() == "the user's\n"
    holder = tmp / "holder"
    holder.mkdir()
    shutil.copy(where["data"], holder / "in.dat")
    line = refused(["data", "shard", str(holder / "in.dat"), "--shards", "1", "--out", str(holder)], capsys)
    assert "holds the input" in line
    shards = tmp / "shards"
    assert cli.main(["data", "shard", "sample-k21x4", "--shards", "3", "--out", str(shards)]) == 0
    assert cli.main(["data", "shard", "sample-k21x4", "--shards", "2", "--out", str(shards)]) == 0
    assert sorted(p.name for p in shards.iterdir()) == sorted([atomic.MARKER, stream.MANIFEST, stream.WEIGHTS,
                                                              stream.part_file(0), stream.part_file(1)])
    assert sorted(p.name for p in tmp.iterdir()) == ["holder", "mine", "shards"]


@pytest.mark.parametrize("argv, what", [
    (["data", "write", "sample-k77x100000000", "--out", "{tmp}/x.dat"], "on disk"),
    (["data", "write", "sample-k77x100000000", "--out", "{tmp}/x.parquet"], "on disk"),
    (["data", "shard", "sample-k77x100000000", "--shards", "2", "--out", "{tmp}/s"], "of memory"),
])
def test_an_impossible_size_is_refused_before_writing(argv: list[str], what: str,
                                                                    where: dict[str, str],
                                                                    capsys: pytest.CaptureFixture) -> None:
    """The rule ``run --dry-run`` applies (:mod:`lassm.fits`), before the first byte or the folder."""
    t0 = time.perf_counter()
    line = refused([a.format(**where) for a in argv], capsys)
    assert "sample-k77x100000000" in line and what in line and "at most" in line, line
    assert time.perf_counter() - t0 < 10 and not list(Path(where["tmp"]).iterdir())


def test_a_shard_folder_on_a_full_disk_leaves_no_folder(where: dict[str, str], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    with small_file_system(tmp_path) as small:
        if small is None:
            pytest.skip("no tmpfs can be mounted here")
        line = refused(["data", "shard", "sample-k21x2", "--shards", "2", "--out", str(small / "s")], capsys)
        assert f"{small / 's'}" in line and "No space left on device" in line
        assert sorted(p.name for p in small.iterdir()) == ["filler"]


@pytest.mark.parametrize("name", ["long", "loop"])
def test_a_name_too_long_or_a_link_loop(name: str, where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    tmp = Path(where["tmp"])
    out = tmp / ("n" * 300 + ".txt")
    if name == "loop":
        out = tmp / "loop"
        out.symlink_to("loop")
    before = tree(tmp)
    line = refused(["extend", where["data"], "--k", "21", "--out", str(out)], capsys)
    assert str(out) in line and ("File name too long" in line or "Too many levels of symbolic links" in line), line
    assert tree(tmp) == before
    line = refused(["extend", where["data"], "--k", "21", "--out", str(tmp / ("n" * 240 + ".txt"))], capsys)
    assert "a temporary named after it is written first: at most" in line


@pytest.mark.parametrize("fault", ["a part deleted", "a part replaced by another", "a byte changed"])
def test_a_shard_folder_not_as_written(fault: str, where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    """Checked against ``shards.json``: the part is named, not what the change made it hold."""
    shards = Path(where["tmp"]) / "shards"
    assert cli.main(["data", "shard", "sample-k77", "--shards", "3", "--out", str(shards)]) == 0
    part = shards / stream.part_file(1)
    if fault == "a part deleted":
        part.unlink()
    elif fault == "a part replaced by another":
        shutil.copy(shards / stream.part_file(0), part)
    else:
        raw = bytearray(part.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        part.write_bytes(raw)
    capsys.readouterr()
    line = refused(["extend", str(shards), "--out", str(Path(where["tmp"]) / "o.txt")], capsys)
    assert str(part) in line and ("missing" in line or "changed since lassm data shard wrote it" in line), line
    assert not (Path(where["tmp"]) / "o.txt").exists()


@pytest.mark.parametrize("damage", ["not JSON", "no ceilings in it"])
def test_a_damaged_ceilings_file_is_named(damage: str, where: dict[str, str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    box = _machine_with_counters(where)
    (box / "ceilings.json").write_text("{" if damage == "not JSON" else json.dumps({"device": "x"}))
    line = refused(["metrics", "derive", "--machine", where["machine"], "--out", str(tmp_path / "m.csv")], capsys)
    assert f"{box / 'ceilings.json'}: " in line and "restore it" in line, line
    assert not (tmp_path / "m.csv").exists()


def test_a_binary_genome_is_named(where: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    if shutil.which("megahit") is None:
        pytest.skip("data real checks its tools first (make deps)")
    genome = tmp_path / "binary.fa"
    genome.write_bytes(bytes(range(256)) * 8)
    line = refused(["data", "real", "--genomes", str(genome), "--out", str(tmp_path / "real"), "--quiet"], capsys)
    assert f"{genome}: file: not a readable FASTA file" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binary.fa", "one.dat", "pairs.tsv", "results", "scratch"]


@pytest.mark.parametrize("byte, name", [(0x0B, "vertical tab"), (0x0C, "form feed"), (0x1C, "file separator"),
                                        (0x1F, "unit separator")])
def test_a_control_byte_is_named_where_it_is(byte: int, name: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    """At its own line and column, not as a line break or a space moving the fault elsewhere."""
    lines = (GOOD + GOOD.replace("7 ", "8 ", 1)).encode().split(b"\n")
    column = lines[1].index(b" @a/1") + 1
    lines[1] = lines[1][:column - 1] + bytes([byte]) + lines[1][column:]
    data = tmp_path / "in.dat"
    data.write_bytes(b"\n".join(lines))
    line = refused(["extend", str(data), "--k", "21", "--out", str(tmp_path / "o.txt")], capsys)
    assert line == (f"lassm: error: {data}:2: encoding: control byte 0x{byte:02x} ({name}) at column {column}: "
                    "a .dat file holds printable text, spaces, tabs and line breaks only")


@pytest.mark.parametrize("cut", ["inside its header", "after its header", "inside its last row"])
def test_a_counters_file_cut_short(cut: str, where: dict[str, str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    """Refused, by ``counters parse`` and by ``metrics derive``, never read as fewer launches."""
    def cut_short(text: bytes) -> bytes:
        header = text.index(b'"ID",')
        end = text.index(b"\n", header) + 1
        return text[:{"inside its header": (header + end) // 2, "after its header": end,
                      "inside its last row": len(text) - 20}[cut]]

    raw = tmp_path / "cut.csv"
    raw.write_bytes(cut_short(COUNTERS.read_bytes()))
    line = refused(["counters", "parse", "--tool", "ncu", str(raw)], capsys)
    assert str(raw) in line and "cut short" in line, line
    box = _machine_with_counters(where)
    victim = sorted((box / "counters").glob("ncu__*__cuda__*.csv"))[-1]  # a file of the CUDA metrics it writes
    victim.write_bytes(cut_short(victim.read_bytes()))
    line = refused(["metrics", "derive", "--machine", where["machine"], "--out", str(tmp_path / "m.csv")], capsys)
    assert str(victim) in line, line
    assert not (tmp_path / "m.csv").exists()


def test_a_compressed_input_is_named(where: dict[str, str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    for name in ("in.dat", "in.parquet"):
        data = tmp_path / name
        data.write_bytes(gzip.compress(Path(where["data"]).read_bytes()))
        line = refused(["extend", str(data), "--k", "21", "--out", str(tmp_path / "o.txt")], capsys)
        assert line == (f"lassm: error: {data}: file: compressed input (gzip): decompress it first "
                        f"(gunzip -k {data}) and give the file it makes")


@pytest.mark.parametrize("out, said", [("", "'': an empty name"), ("{tmp}/newdir/", "{tmp}/newdir/: names a folder")])
def test_an_output_name_that_is_no_file(out: str, said: str, where: dict[str, str],
                                                capsys: pytest.CaptureFixture) -> None:
    line = refused(["extend", where["data"], "--k", "21", "--out", out.format(**where)], capsys)
    assert said.format(**where) in line and not list(Path(where["tmp"]).iterdir())


@pytest.mark.parametrize("value", ["-1", "0", "inf"])
def test_a_memory_stand_in_that_is_no_size(value: str, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("LASSM_MEMORY_BYTES", value)
    line = refused(["run", "--datasets", "sample-k77x20", "--dry-run"], capsys)
    assert f"LASSM_MEMORY_BYTES={value!r}: not a number of bytes" in line


def test_the_cpu_bench_refuses_the_record_options(where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    for flag in (["--machine", "box"], ["--no-record"]):
        line = refused(["bench", where["data"], "--k", "21", *flag], capsys)
        assert flag[0] in line and "writes no record" in line


def test_a_dry_run_names_an_unusable_results_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "file" / "results"))
    for kernel in ([], ["--kernel", "xdrop"], ["--kernel", "local-assembly"]):
        line = refused(["run", "--quick", "--dry-run", *kernel], capsys)
        root = tmp_path / "file" / "results"
        assert f"LASSM_RESULTS={str(root)!r}: {tmp_path / 'file'}: not a folder, on the way to {root}" in line


def test_accented_machine_names_keep_their_letters(capsys: pytest.CaptureFixture) -> None:
    assert paths.machine_slug("mé-ünï") == "me-uni" != paths.machine_slug("m-n")
    line = refused(["run", "--machine", "日本", "--dry-run"], capsys)
    assert "letters without an ASCII form (日, 本)" in line


def test_ncu_that_prints_nothing_is_said_so(where: dict[str, str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    quiet = tmp_path / "ncu"
    quiet.write_text("#!/bin/sh\nexit 3\n")
    quiet.chmod(0o755)
    line = refused(["counters", "collect", where["data"], "--k", "21", "--ncu", str(quiet),
                    "--out", str(tmp_path / "raw.csv")], capsys)
    assert line.endswith("--version exited 3: it printed nothing"), line


def test_xdrop_real_names_its_options(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    if not GENOME.exists() or shutil.which("pbsim") is None:
        pytest.skip("xdrop real needs pbsim and the lambda genome (make deps)")
    line = refused(["xdrop", "real", "--genome", str(GENOME), "--min-overlap", "9000", "--pairs", "2",
                    "--out", str(tmp_path / "r.parquet")], capsys)
    assert line.endswith("raise the --depth or lower --min-overlap") and str(GENOME) in line, line


def test_a_gpu_bench_takes_the_given_k(where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    """``bench --backend opencl --datasets good.dat --k 21`` ran without the k it was given."""
    from lassm import backends

    if not backends.status()["opencl"][0]:
        pytest.skip("no OpenCL driver here")
    data = Path(where["tmp"]).parent / "good.dat"
    data.write_text(GOOD)
    assert cli.main(["bench", "--backend", "opencl", "--datasets", str(data), "--k", "21", "--repeat", "1",
                     "--protocols", "fast", "--no-record"]) == 0
    assert "k=21 opencl/fast" in capsys.readouterr().out

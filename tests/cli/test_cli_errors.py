# SPDX-License-Identifier: BSD-3-Clause
"""Every mistake a user can make on the command line: one ``lassm: error:`` line, exit code 2.

The tests walk the real argparse tree, so a new subcommand or option is covered as soon as it
exists: a subcommand needs a base command line in :data:`BASE`, and an option that takes a
value needs a ``type`` from :mod:`lassm.cli.args` (or ``choices``) whose impossible values are
listed in :data:`BAD`; otherwise :func:`test_every_option_is_checked` fails.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import backends, cli, paths
from lassm.cli import args as t

#: Impossible values of each argument type. ``{missing}``: a path that does not exist, ``{dir}``:
#: an existing folder, ``{file}``: an existing file.
BAD: dict = {
    t.arch_list: ["sm9", "", "sm_90,,sm_80", "compute_90"],
    t.k_value: ["x", "20", "122", "21.0"],
    t.k_list: ["21,x", "21,,33", "200", ""],
    t.odd_k_list: ["22", "21,x", "19", ""],
    t.count: ["0", "-3", "x", "1.5"],
    t.count_list: ["1,0", "x", "", "2,,4"],
    t.natural_list: ["-1", "x", "", "0,,4", "3,3"],
    t.register_caps: ["-1", "x", "", "64,,32", "Built"],
    t.natural: ["-1", "x", "1.5"],
    t.integer: ["x", "1.5"],
    t.qual_offset: ["-1", "128", "x"],
    t.negative: ["0", "1", "x", "-1.5"],
    t.fraction: ["-0.1", "1.5", "x", "nan"],
    t.positive_real: ["0", "-1", "x", "nan", "inf"],
    t.nonneg_real: ["-0.5", "x", "nan"],
    t.lane_width: ["12", "0", "256", "x"],
    t.lane_width_list: ["8,12", "x", ""],
    t.backend_name: ["nope", "CUDA"],
    t.backend_list: ["cpu,nope", "", "cpu,"],
    t.protocol_name: ["nope", ""],
    t.protocol_list: ["casptr,nope", ""],
    t.dataset_name: ["sample-k99", "gen-k20", "sample-k77x0", "{missing}", "{dir}"],
    t.dataset_list: ["sample-k99", "gen-k20", "gen-k21-s0", "sample-k77x0", "real-nope-k21", "{missing}", "{dir}"],
    t.stream_name: ["sample-k99", "gen-k20", "sample-k77x0", "sample-k21x2x0", "{missing}", "{dir}"],
    t.shard_name: ["sample-k99", "gen-k20-s2", "sample-k77x0", "{missing}", "{dir}"],
    t.run_backend_list: ["cpu,nope", "", "cpu,", "CUDA"],
    t.part_key: ["nope", "", "XDROP"],
    t.run_dataset_list: ["sample-k99", "gen-k20", "sample-k77x0", "xdrop-sim-0", "xdrop-real-mars-10", "xdrop-sim",
                         "{missing}", "{dir}"],
    t.xdrop_list: ["x", "-1", "10,,20", "", "16777217"],
    t.xdrop_layouts: ["fast", "logan,fast", "warps,warps", ""],
    t.machine_name: ["///", ""],
    t.recorded_machine: ["no-such-machine", "///"],
    t.label: ["", "two\nlines"],
    t.program: ["{missing}", "{file}"],
    t.shell_words: ["'unbalanced", 'say "hi'],
    t.cluster_spec: ["local:0", "local:x", "mars", "://", "{missing}.json", "slurm:debug:0", "slurm:gpu,gpus=x",
                     "slurm:gpu,nope=1", "slurm:gpu,walltime=1h"],
    t.input_file: ["{missing}", "{dir}"],
    t.input_dir: ["{missing}", "{file}"],
    t.dataset_input: ["{missing}", "{dir}"],
    t.pairs_input: ["{missing}", "{dir}", "xdrop-sim-0", "xdrop-nope-5"],
    t.output_file: ["{file}/sub/out.txt", "{dir}", ""],
    t.extended_output: ["{tmp}/o.parquet", "{tmp}/o.tsv", "{dir}"],
    t.ends_output: ["{tmp}/e.csv", "{tmp}/e", "{dir}"],
    t.dataset_output: ["{tmp}/g.csv", "{tmp}/g.fasta", "{dir}"],
    t.output_folder: ["{file}", "{file}/sub"],
}
#: The impossible value of an option with fixed choices.
NOT_A_CHOICE = "no-such-choice"

#: A valid command line of each subcommand, cheap where it runs: ``{data}`` is a one-contig
#: dataset (start k 21), ``{tmp}`` a scratch folder, ``{machine}`` a results folder that exists.
#: Positionals are keyed by their ``dest``, options by their first option string.
BASE: dict[tuple[str, ...], dict[str, str]] = {
    ("extend",): {"input": "{data}", "--k": "21", "--out": "{tmp}/out.txt"},
    ("data", "real"): {"--preset": "tiny", "--out": "{tmp}/real"},
    ("data", "generate"): {"--k": "21", "--out": "{tmp}/gen.parquet"},
    ("data", "stats"): {"input": "{data}", "--k": "21"},
    ("data", "convert"): {"input": "{data}", "out": "{tmp}/c.parquet"},
    ("data", "write"): {"name": "{data}", "--out": "{tmp}/w.parquet", "--k": "21"},
    ("data", "shard"): {"name": "sample-k21x2", "--shards": "2", "--out": "{tmp}/shards"},
    ("bench",): {"input": "{data}", "--k": "21", "--repeat": "1", "--threads": "1"},
    ("run",): {"--backends": "cpu", "--datasets": "{data}", "--ks": "21", "--machine": "box"},
    ("counters", "collect"): {"input": "{data}", "--k": "21", "--out": "{tmp}/raw.csv"},
    ("counters", "parse"): {"raw": "{data}", "--tool": "ncu"},
    ("metrics", "derive"): {"--machine": "{machine}"},
    ("paper", "tables"): {},
    ("backends",): {},
    ("build-kernels",): {"--arch": "sm_90"},
    ("xdrop", "generate"): {"--n-pairs": "2", "--min-length": "50", "--max-length": "60", "--out": "{tmp}/pairs.tsv"},
    ("xdrop", "real"): {"--genome": "{file}", "--pairs": "2", "--out": "{tmp}/real.parquet"},
    ("xdrop", "align"): {"input": "{pairs}", "--out": "{tmp}/aligned.tsv"},
    ("xdrop", "lanes"): {"--machine": "box"},
    ("measure", "published-race"): {"--machine": "box"},
    ("measure", "floor"): {"--machine": "box"},
    ("measure", "first-call"): {"--machine": "box"},
    ("measure", "ptx"): {},
    ("measure", "shard-contention"): {"dataset": "sample-k21x2"},
    ("measure", "command-time"): {"--command": "true"},
    ("measure", "scaling"): {"--machine": "box"},
    ("measure", "against-original"): {"--machine": "box"},
    ("measure", "against-logan"): {"--machine": "box"},
    ("measure", "fast-knobs"): {"datasets": "sample-k21"},
    ("merge-results",): {"new": "{dir}", "into": "{dir}"},
}


def leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every runnable subcommand: (its words, its parser)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from leaves(sub, path + (name,))


def _key(action: argparse.Action) -> str:
    return action.option_strings[0] if action.option_strings else action.dest


def _takes_value(action: argparse.Action) -> bool:
    return not isinstance(action, argparse._HelpAction) and action.nargs != 0


def _cases() -> list:
    out = []
    for path, parser in leaves(cli.build_parser()):
        for action in parser._actions:
            if not _takes_value(action):
                continue
            values = [NOT_A_CHOICE] if action.choices is not None else BAD.get(action.type, [])
            for i, value in enumerate(values):
                out.append(pytest.param(path, _key(action), value, id=f"{' '.join(path)} {_key(action)} #{i}"))
    return out


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The placeholders' values; results go to a scratch root that has one machine folder."""
    data = tmp_path / "one.dat"
    data.write_bytes(paths.sample("k21").read_bytes())
    (tmp_path / "results" / "box").mkdir(parents=True)
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("ACGTACGT\t2\tACGTACGT\t2\t3\n")
    return {"data": str(data), "pairs": str(pairs), "tmp": str(scratch), "machine": "box", "missing": str(tmp_path / "no-such-file"),
            "dir": str(scratch), "file": str(data)}


def _argv(path: tuple[str, ...], key: str | None, value: str | None, where: dict[str, str]) -> list[str]:
    """``path``'s base command line with option ``key`` set to ``value`` (placeholders filled)."""
    parser = dict(leaves(cli.build_parser()))[path]
    base = dict(BASE[path])
    if key is not None:
        action = next(a for a in parser._actions if _key(a) == key)
        for group in parser._mutually_exclusive_groups:  # the one given replaces the others
            if action in group._group_actions:
                for other in group._group_actions:
                    base.pop(_key(other), None)
        base[key] = value
    fill = lambda text: text.format(**where)  # noqa: E731
    positionals = [fill(base[a.dest]) for a in parser._actions if not a.option_strings and a.dest in base]
    options = [w for k, v in base.items() if k.startswith("-") for w in (k, fill(v))]
    return list(path) + positionals + options


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


def test_every_subcommand_has_a_base_command() -> None:
    assert {path for path, _ in leaves(cli.build_parser())} == set(BASE)


def test_base_commands_parse(where: dict[str, str]) -> None:
    """The base lines are valid, so an error in the walk comes from the value under test."""
    parser = cli.build_parser()
    for path in BASE:
        parser.parse_args(_argv(path, None, None, where))


def test_every_option_is_checked() -> None:
    """Each option that takes a value has a checked type (or fixed choices) with impossible values."""
    unchecked = [f"{' '.join(path)} {_key(a)} (type {getattr(a.type, '__name__', a.type)})"
                 for path, parser in leaves(cli.build_parser()) for a in parser._actions
                 if _takes_value(a) and a.choices is None and not BAD.get(a.type)]
    assert not unchecked, f"give these a lassm.cli.args type listed in BAD: {unchecked}"


@pytest.mark.parametrize("path, key, value", _cases())
def test_impossible_value_is_one_error_line(path: tuple[str, ...], key: str, value: str, where: dict[str, str],
                                            capsys: pytest.CaptureFixture) -> None:
    before = sorted(p.name for p in Path(where["tmp"]).iterdir())
    code = cli.main(_argv(path, key, value, where))
    out, err = capsys.readouterr()
    line = _one_error_line(err)
    assert code == 2
    assert f"argument {key}" in line, f"the error must name the option: {line}"
    assert out == ""
    assert sorted(p.name for p in Path(where["tmp"]).iterdir()) == before, "nothing may be written"


def _unbuilt() -> list:
    return [pytest.param(b, p, id=f"{b}-{p}") for b in backends.BACKENDS for p in backends.all_protocols()
            if p not in backends.protocols(b)]


@pytest.mark.parametrize("backend", [b for b in backends.BACKENDS if b != "cpu"])
def test_protocol_lists_are_the_backend_modules(backend: str) -> None:
    """:data:`lassm.backends.PROTOCOL_LISTS` (read without the runtimes) names each module's own builds."""
    import importlib

    try:
        module = importlib.import_module(backends.BACKENDS[backend][0])
    except ImportError as exc:
        pytest.skip(f"{backend}: {exc}")
    assert backends.protocols(backend) == tuple(module.PROTOCOLS)


def test_checking_a_protocol_imports_no_runtime() -> None:
    """``--protocol fast`` is checked without pyopencl or dpctl, which only their backend needs."""
    import json
    import subprocess
    import sys

    code = ("import sys\nfrom lassm.backends import all_protocols, check_protocol\n"
            "all_protocols(); check_protocol('cuda', 'fast')\n"
            "import json; print(json.dumps([m for m in ('pyopencl', 'dpctl', 'cupy') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("backend, protocol", _unbuilt())
def test_protocol_the_backend_does_not_build(backend: str, protocol: str, where: dict[str, str],
                                             capsys: pytest.CaptureFixture) -> None:
    argv = _argv(("extend",), "--backend", backend, where) + ["--protocol", protocol]
    assert cli.main(argv) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"--protocol {protocol}" in line and f"it builds {', '.join(backends.protocols(backend))}" in line, line


@pytest.mark.parametrize("path, extra", [
    (("run",), ["--backends", "sycl,cpu", "--protocols", "casptr,fast-bins"]),
    (("bench",), ["--backend", "sycl", "--protocols", "fast-bins"]),
    (("bench",), ["--backend", "cpu", "--protocols", "casptr"]),
    (("bench",), ["--backend", "cpu", "--subgroup", "16"]),
    (("counters", "collect"), ["--backend", "hip", "--protocol", "matchany"]),
], ids=["run", "bench-sycl", "bench-cpu", "bench-subgroup", "collect"])
def test_options_that_do_not_go_together(path: tuple[str, ...], extra: list[str], where: dict[str, str],
                                         capsys: pytest.CaptureFixture) -> None:
    assert cli.main(_argv(path, None, None, where) + extra) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "--protocol" in line or "--subgroup" in line, line
    assert not list(Path(where["tmp"]).iterdir())


@pytest.mark.parametrize("extra, option", [
    (["--notebooks", "--repeats", "3"], "--repeats"),
    (["--notebooks", "--warmup", "0"], "--warmup"),
    (["--cluster", "local:1", "--repeats", "2"], "--repeats"),
], ids=["notebooks-repeats", "notebooks-warmup", "cluster-repeats"])
def test_run_timing_options_need_the_direct_path(extra: list[str], option: str, where: dict[str, str],
                                                 capsys: pytest.CaptureFixture) -> None:
    """The notebook and cluster paths run each point once: repeats asked with them are refused first."""
    assert cli.main(_argv(("run",), None, None, where) + extra) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith(f"lassm: error: {option}: ") and "runs each point once" in line, line
    assert not list(Path(where["tmp"]).iterdir())


OUTPUTS = [(("extend",), "--out"), (("extend",), "--ends"), (("data", "convert"), "out"), (("data", "write"), "--out"),
           (("counters", "collect"), "--out"), (("counters", "parse"), "--out")]


@pytest.mark.parametrize("how", ["same path", "hard link", "symbolic link", "relative path"])
@pytest.mark.parametrize("path, key", OUTPUTS, ids=[" ".join(p) + " " + k for p, k in OUTPUTS])
def test_an_output_may_not_be_an_input(path: tuple[str, ...], key: str, how: str, where: dict[str, str],
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """An output that is the input by any name is refused before anything is read or written."""
    data = Path(where["data"])
    before = data.read_bytes()
    alias = data
    if how == "hard link":
        alias = data.with_name("hard.dat")
        os.link(data, alias)
    elif how == "symbolic link":
        alias = data.with_name("soft.dat")
        alias.symlink_to(data)
    elif how == "relative path":
        monkeypatch.chdir(where["tmp"])
        alias = Path("..") / "scratch" / ".." / data.name
    assert cli.main(_argv(path, key, str(alias), where)) == 2
    line = _one_error_line(capsys.readouterr().err)
    # --ends takes .parquet or .tsv only: an input named .dat is refused by its suffix first
    assert (f"{key} {alias}: is the input {data}" in line
            or (key == "--ends" and f"{alias}: .dat is not a format this writes" in line)), line
    assert data.read_bytes() == before and not list(Path(where["tmp"]).iterdir())


def test_two_outputs_may_not_be_one_file(where: dict[str, str], capsys: pytest.CaptureFixture) -> None:
    """--out takes text, --ends a table (.parquet, .tsv): one file only by a link, which is refused."""
    out = Path(where["tmp"]) / "o.txt"
    ends = out.with_name("e.tsv")
    ends.symlink_to(out.name)  # dangling: o.txt is not written yet
    argv = _argv(("extend",), "--out", str(out), where) + ["--ends", str(ends)]
    assert cli.main(argv) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"--ends {ends}: is also --out {out}" in line, line
    assert [p.name for p in Path(where["tmp"]).iterdir()] == ["e.tsv"]


def test_collect_may_not_overwrite_its_input_with_the_extended_contigs(where: dict[str, str],
                                                                      capsys: pytest.CaptureFixture) -> None:
    """``counters collect --out X`` also writes ``X.extended.txt``: that may not be the input either."""
    data = Path(where["data"])
    alias = data.with_name("raw.csv.extended.txt")
    os.link(data, alias)
    assert cli.main(_argv(("counters", "collect"), "--out", str(data.with_name("raw.csv")), where)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "(its extended contigs)" in line and f"is the input {data}" in line, line


@pytest.mark.parametrize("path, key", [(("extend",), "--backend"), (("data", "stats"), "--backend"),
                                       (("bench",), "--backend"), (("run",), "--backends")])
def test_a_backend_that_cannot_run_here(path: tuple[str, ...], key: str, where: dict[str, str],
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """Named before any work, with why; whatever this machine has, cuda is made absent here."""
    import lassm.backends.cuda as cuda

    monkeypatch.setattr(cuda, "available", lambda: (False, "no CUDA device in this test"))
    assert cli.main(_argv(path, key, "cuda", where)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "backend 'cuda' cannot run here: no CUDA device in this test" in line, line
    assert not list(Path(where["tmp"]).iterdir())


def test_a_subgroup_width_the_device_does_not_have(where: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    import lassm.backends.sycl as sycl

    monkeypatch.setattr(sycl, "available", lambda: (True, "a test device"))
    monkeypatch.setattr(sycl, "subgroup_sizes", lambda: (8, 16))
    monkeypatch.setattr(sycl, "device_name", lambda: "test device")
    assert cli.main(_argv(("bench",), "--backend", "sycl", where) + ["--subgroup", "8,32"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "--subgroup 32: test device builds sub-groups of 8, 16 lanes only" in line, line


def test_an_ablation_protocol_on_sycl_as_a_user_runs_it(where: dict[str, str]) -> None:
    """``lassm extend one.dat --k 77 --backend sycl --protocol fast-bins`` (an ablation build, CUDA's
    and HIP's only; sycl builds ``fast`` itself), in a fresh process."""
    res = subprocess.run([sys.executable, "-m", "lassm.cli", "extend", where["data"], "--k", "77", "--backend", "sycl",
                          "--protocol", "fast-bins", "--out", f"{where['tmp']}/o.txt"], capture_output=True, text=True,
                         cwd=where["tmp"], timeout=120)
    assert res.returncode == 2
    line = _one_error_line(res.stderr)
    assert "sycl" in line and "casptr" in line, line
    assert not list(Path(where["tmp"]).iterdir())


def test_programming_errors_keep_their_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug is not reported as a user's mistake: the exception leaves :func:`lassm.cli.main`."""
    def bug(args):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "cmd_backends", bug)
    with pytest.raises(KeyError):
        cli.main(["backends"])

    def no_file(args):
        raise OSError(22, "Invalid argument")  # names no file and is no fault of the machine's: a bug

    monkeypatch.setattr(cli, "cmd_backends", no_file)
    with pytest.raises(OSError):
        cli.main(["backends"])


def test_help_and_version_exit_zero(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["--version"]) == 0
    assert cli.main(["extend", "--help"]) == 0
    assert "usage" in capsys.readouterr().out

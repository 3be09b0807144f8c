# SPDX-License-Identifier: BSD-3-Clause
"""Nothing wrong, silently: a name means one thing, standard output carries only what a user pipes,
and a failed run leaves no folder behind.

Each test is a case that once gave a plausible result, or a silent exit, where it should have
said one line: a preset read from a file of its name in the working folder, a progress bar on
standard output lost down a closed pipe with exit 1, a machine folder made by a run that failed.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lassm import paths
from lassm.cli import main
from lassm.errors import LassmError
from lassm.workloads.local_assembly import real
from lassm.workloads.local_assembly.real_genomes import presets

REPO = Path(__file__).resolve().parents[2]


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_preset_is_never_a_path_in_the_working_folder(kind: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``--preset tiny`` beside a file or folder named ``tiny`` read that instead of the preset
    (provenance "custom"); the name is the preset's whatever the working folder holds."""
    absent = tmp_path / "no-such-genome.fa"
    tiny = presets.PRESETS["tiny"]
    monkeypatch.setitem(presets.PRESETS, "tiny", dataclasses.replace(
        tiny, genomes=tuple(dataclasses.replace(g, path=str(absent)) for g in tiny.genomes)))
    monkeypatch.chdir(tmp_path)
    if kind == "file":
        (tmp_path / "tiny").write_text(">g\nACGTACGTAC\n")
    else:
        (tmp_path / "tiny").mkdir()
    with pytest.raises(LassmError, match="preset 'tiny' needs .*no-such-genome.fa"):
        real._genomes_of("tiny")
    monkeypatch.setitem(presets.PRESETS, "tiny", tiny)
    label, sources, preset = real._genomes_of("tiny")
    assert (label, preset) == ("tiny", tiny) and [p for _, p in sources] == [Path(g.path) for g in tiny.genomes]
    genome = tmp_path / "g.fa"
    genome.write_text(">g\nACGTACGTAC\n")
    assert real._genomes_of(genome)[0] == real._genomes_of([genome])[0] == "custom"


def test_progress_is_on_standard_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """``data generate``'s bar was drawn on standard output, so ``| head`` or ``| true`` lost it."""
    assert main(["data", "generate", "--k", "21", "--scale", "0.005", "--out", str(tmp_path / "g.parquet")]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "generate k=21" in err and "wrote" in err


def test_a_closed_pipe_on_standard_output_loses_nothing(tmp_path: Path) -> None:
    """``lassm data generate ... | true``: exit 0 and the file written (it was exit 1, nothing said,
    no file); ``lassm counters parse`` into a closed pipe: one line, not a traceback."""
    out = tmp_path / "g.parquet"
    proc = subprocess.Popen([sys.executable, "-m", "lassm", "data", "generate", "--k", "21", "--scale", "0.005",
                             "--out", str(out)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # a reader that has gone: `| true`
    err = proc.stderr.read().decode()
    assert proc.wait() == 0, err
    assert "Traceback" not in err and out.is_file()


def _failed_run(monkeypatch: pytest.MonkeyPatch, machine: str, fault: str) -> None:
    """``lassm run``'s whole run replaced by one that makes ``machine``'s folder, appends a failed
    row to its account, then fails (an outcome with failures, or a full disk)."""
    from lassm.campaign import whole

    def run_whole(plan, how=None):
        folder = paths.results_dir(machine)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "campaign.json").write_text(json.dumps({"entries": [{"status": "failed"}]}))
        (folder / ".campaign.json.lock").write_text("")
        if fault == "disk":
            raise OSError(28, "No space left on device", str(folder / "runs.json"))
        return whole.WholeOutcome(outcomes={"local-assembly": type("O", (), {"failed": [{"status": "failed"}]})()})

    monkeypatch.setattr(whole, "run_whole", run_whole)


@pytest.mark.parametrize("fault", ["failed rows", "disk"])
def test_a_failed_run_leaves_no_new_machine_folder(fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    """A run that failed left a new machine folder holding only its failed rows (or nothing),
    which reads as a machine of the study; a folder that was there before stays as it was."""
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path / "results"))
    (tmp_path / "results" / "old").mkdir(parents=True)
    (tmp_path / "results" / "old" / "campaign.json").write_text("{}")
    _failed_run(monkeypatch, "new-gpu", fault)
    code = main(["run", "--quick", "--kernel", "suite", "--machine", "new-gpu"])
    err = capsys.readouterr().err
    assert code == (2 if fault == "disk" else 1), err
    if fault == "disk":
        assert "No space left" in _one_line(err)
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["old"]
    _failed_run(monkeypatch, "old", fault)
    main(["run", "--quick", "--kernel", "suite", "--machine", "old"])
    assert (tmp_path / "results" / "old" / "campaign.json").is_file()


# ------------------------------------------------------------------------------ tracebacks become one line

def _gzip_genome(path: Path, flip_at: int) -> Path:
    """A gzip'ed FASTA with one byte of its deflate stream changed: the decoder's ``zlib.error``."""
    import gzip

    data = bytearray(gzip.compress((">g\n" + "ACGTTGCAAC" * 400 + "\n").encode()))
    data[flip_at] ^= 0x10
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("flip_at", [12, 14, 20])
def test_a_corrupt_gzip_genome_is_one_line(flip_at: int, tmp_path: Path) -> None:
    """A flipped bit in a ``.fa.gz`` genome was ``zlib.error``'s traceback in ``data real`` and in
    ``xdrop real``; both readers now name the file."""
    from lassm.workloads.local_assembly.real_genomes.sequence_files import read_fasta
    from lassm.workloads.xdrop.real_pairs import read_genome

    bad = _gzip_genome(tmp_path / "g.fa.gz", flip_at)
    for read in (lambda p: list(read_fasta(p)), read_genome):
        with pytest.raises(LassmError, match=r"g.fa.gz: file: not a readable FASTA file"):
            read(bad)


@pytest.mark.parametrize("k", [b"abc", b"-5", b"0", b"21.5", b"9" * 40, b"\xff"])
def test_a_parquet_start_k_that_is_no_number_is_one_line(k: bytes, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    """A Parquet dataset whose ``lassm.k`` metadata is ``"abc"`` was ``int()``'s traceback."""
    import pyarrow.parquet as pq

    from lassm.workloads.local_assembly import formats
    from tests.helpers import random_dataset

    good = tmp_path / "good.parquet"
    formats.write_dataset(random_dataset(3, n=4, k=21), good)
    table = pq.read_table(good)
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"lassm.k": k}), tmp_path / "bad.parquet")
    code = main(["extend", str(tmp_path / "bad.parquet"), "--out", str(tmp_path / "o.txt")])
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and "bad.parquet: lassm.k: " in line and "is no start k" in line, line
    assert not (tmp_path / "o.txt").exists()


@pytest.mark.parametrize("blocks", [20, 30])
def test_a_file_size_limit_during_data_shard_is_one_line(blocks: int, tmp_path: Path) -> None:
    """``ulimit -f``: NumPy reports a short write without an errno ("3296 requested and 2544
    written"), which was a traceback; it is a write the file system refused, and nothing is left."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (blocks * 1024, resource.RLIM_INFINITY))

    out = tmp_path / "S"
    proc = subprocess.run([sys.executable, "-m", "lassm", "data", "shard", "sample-k77", "--shards", "3", "--out",
                           str(out)], cwd=REPO, capture_output=True, text=True, preexec_fn=limit)
    line = _one_line(proc.stderr)
    assert proc.returncode == 2 and "nothing of it was kept" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == []

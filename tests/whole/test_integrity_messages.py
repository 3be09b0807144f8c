# SPDX-License-Identifier: BSD-3-Clause
"""Lines that said something else than what went wrong, each as it once read.

``--out /proc/version`` read "No such file or directory" (the folder exists; it takes no new
file); a UTF-16 file was blamed on a field ("'\\x007\\x00' is not a non-negative integer") or
called "a truncated copy"; a full disk under ``data real`` read "ART wrote 145 and 133 mates"
(or gave fewer pairs, silently); a full disk under a GPU bench named no file; an ``n_left`` of
2^63 read "the file ends inside the record: 8 of 27670116110564327429 fields". Full disks are
real ones (a small tmpfs), skipped where none can be mounted.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from lassm import paths
from lassm.cli import main
from lassm.errors import LassmError

#: The genome ``data real`` is tried on (the lambda phage, bowtie2's example, gzip'ed).
GENOME = Path("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz")
COUNTERS = paths.REPO / "tests" / "fixtures" / "counters" / "ncu_raw_h100_measured.csv"


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("lassm: error: "), err
    return lines[0]


def _refused(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    code = main(argv)
    line = _one_line(capsys.readouterr().err)
    assert code == 2, (code, line)
    return line


@contextlib.contextmanager
def _disk(tmp_path: Path, size_kib: int, room_kib: int | None = None) -> Iterator[Path]:
    """A folder on a tmpfs of ``size_kib`` KiB (``room_kib`` of them left free, where given);
    skips where this user may mount none."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("no tmpfs can be mounted here")
    try:
        if room_kib is not None:
            (mount / "filler").write_bytes(b"\0" * ((size_kib - room_kib) * 1024))
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


# ------------------------------------------------------------------------------ an output no file can be

@pytest.mark.parametrize("argv", [["extend", "{data}", "--k", "77", "--out", "/proc/version"],
                                  ["extend", "{data}", "--k", "77", "--out", "/proc/version.txt"],
                                  ["data", "generate", "--k", "21", "--scale", "0.005", "--out", "/proc/new.parquet"]])
def test_an_output_where_no_file_can_be_made_says_so(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    if not Path("/proc/version").is_file():
        pytest.skip("no /proc here")
    data = str(paths.REPO / "data" / "metahipmer-sample" / "localassm_562299.dat")
    line = _refused([a.format(data=data) for a in argv], capsys)
    assert "/proc takes no new file" in line and "No such file" not in line, line


# ------------------------------------------------------------------------------ text in UTF-16

_CODECS = {"UTF-16": "utf-16", "UTF-16LE": "utf-16-le", "UTF-16BE": "utf-16-be", "UTF-32": "utf-32"}


def _wide(text: bytes, path: Path, encoding: str) -> Path:
    path.write_bytes(text.decode("ascii").encode(_CODECS[encoding]))
    return path


def _said(line: str, path: Path, encoding: str) -> None:
    assert f"{path}: " in line and f"text in {encoding}, not UTF-8 or ASCII" in line, line
    assert f"iconv -f {encoding} -t UTF-8 {path}" in line, line
    assert "truncated" not in line and "not a non-negative integer" not in line and "codec" not in line, line


@pytest.mark.parametrize("encoding", list(_CODECS))
def test_a_wide_encoding_is_named_by_every_text_reader(encoding: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    """A dataset, a pairs file, a counters CSV: each reader names the encoding, and the line
    that converts it (without a byte-order mark, the byte order iconv needs)."""
    sample = paths.REPO / "data" / "metahipmer-sample" / "localassm_extend_9-77.dat"
    dat = _wide(sample.read_bytes()[:4000].rsplit(b"\n", 1)[0] + b"\n", tmp_path / "in.dat", encoding)
    _said(_refused(["extend", str(dat), "--k", "77", "--out", str(tmp_path / "o.txt")], capsys), dat, encoding)
    pairs = _wide(b"ACGTACGTAC\t72\tACGTACGTAC\t2\t3\n" * 3, tmp_path / "p.tsv", encoding)
    _said(_refused(["xdrop", "align", str(pairs), "--out", str(tmp_path / "o.tsv")], capsys), pairs, encoding)
    csv = _wide(COUNTERS.read_bytes(), tmp_path / "c.csv", encoding)
    _said(_refused(["counters", "parse", "--tool", "ncu", str(csv)], capsys), csv, encoding)
    assert not (tmp_path / "o.txt").exists() and not (tmp_path / "o.tsv").exists()


@pytest.mark.parametrize("encoding", list(_CODECS))
def test_a_wide_genome_is_named(encoding: str, tmp_path: Path) -> None:
    """The genome readers of ``data real`` and ``xdrop real``: UTF-16 without a mark decoded as
    UTF-8, a NUL between every base, and gave MEGAHIT nothing to assemble."""
    from lassm.workloads.local_assembly.real_genomes.sequence_files import read_fasta
    from lassm.workloads.xdrop.real_pairs import read_genome

    genome = _wide(b">g\n" + b"ACGTTGCAAC" * 40 + b"\n", tmp_path / "g.fa", encoding)
    for read in (lambda p: list(read_fasta(p)), read_genome):
        with pytest.raises(LassmError, match=f"g.fa: file: text in {encoding}, not UTF-8 or ASCII"):
            read(genome)


# ------------------------------------------------------------------------------ full disks

@pytest.mark.parametrize("size_kib", [400, 700], ids=["ART's files cut evenly", "ART's mates unequal"])
def test_a_full_disk_under_data_real_says_the_disk_is_full(size_kib: int, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    """ART exits 0 on a full disk: its reads end where the disk did. 519 pairs of 1,376 were
    then a dataset (at 400 KiB), or "ART wrote 977 and 965 mates" the line (at 700 KiB)."""
    if not GENOME.exists() or shutil.which("art_illumina") is None or shutil.which("megahit") is None:
        pytest.skip("data real needs ART, MEGAHIT and the lambda genome (make deps)")
    with _disk(tmp_path, size_kib) as disk:
        out = disk / "real"
        line = _refused(["data", "real", "--genomes", str(GENOME), "--out", str(out), "--quiet"], capsys)
        assert f"{out}/work: No space left on device; nothing of it was kept" in line, line
        assert "mates" not in line and not list(disk.iterdir())


def test_a_full_disk_under_a_gpu_bench_names_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    """Room for the pre-run check, not for the record: "a write failed: No space left on device"
    was all it said (pyarrow's error names no file)."""
    from lassm import backends

    if not backends.status()["opencl"][0]:
        pytest.skip("no OpenCL driver here")
    with _disk(tmp_path, 256, room_kib=8) as disk:
        monkeypatch.setenv("LASSM_RESULTS", str(disk / "results"))
        monkeypatch.setenv("LASSM_MACHINE", "box")
        line = _refused(["bench", "--backend", "opencl", "--datasets", "sample-k21", "--protocols", "fast",
                         "--repeat", "1"], capsys)
        record = disk / "results" / "box" / "bench__sample-k21__k21__opencl__fast"
        assert line == f"lassm: error: {record}: No space left on device; nothing of it was kept", line
        assert not record.exists()


# ------------------------------------------------------------------------------ a count out of range

@pytest.mark.parametrize("count", [str(2**63), "300000000000000000000", "12"])
@pytest.mark.parametrize("field", ["n_left", "n_right"])
def test_a_read_count_past_the_file_is_out_of_range(count: str, field: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    """Said as the count's fault, at its line and field, not as a file that ends too soon."""
    counts = f"{count} 0" if field == "n_left" else f"0 {count}"
    data = tmp_path / "in.dat"
    data.write_text(f"1 ACGTACGTACGTACGTACGTACGT 3.0 {counts}\nr1 ACGT IIII\n")
    line = _refused(["extend", str(data), "--k", "21", "--out", str(tmp_path / "o.txt")], capsys)
    assert line == (f"lassm: error: {data}:1: contig 1 {field}: {count} is out of range: a file of "
                    f"{data.stat().st_size} bytes holds at most {data.stat().st_size // 6} reads"), line

# SPDX-License-Identifier: BSD-3-Clause
"""Property-based fuzzing of what lassm writes and reads back: shard folders, counter files, run records.

The property, for every reader: a damaged input gives the answer of the undamaged one, or one
:class:`~lassm.errors.LassmError` (through the command line: one ``lassm: error:`` line, exit
2), never another exception and never another answer that looks right. The damage is
hypothesis's: bit flips, random bytes, truncation (at every line end too), other encodings,
huge and negative numbers, values of the wrong type. Each test's examples are bounded
(:data:`EXAMPLES`) so the file stays within the suite's budget; the database of failing
examples is off, so a run is the same on every machine.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lassm.analysis import counters  # noqa: E402
from lassm.cli import main  # noqa: E402
from lassm.errors import LassmError  # noqa: E402
from lassm.workloads.local_assembly import stream  # noqa: E402

FIX = Path(__file__).parent.parent / "fixtures" / "counters"
#: Examples each property is tried on: enough to meet each kind of damage several times.
EXAMPLES = 60
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: Any JSON value a field may be given in place of its own: huge, negative, of another type.
JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                        st.lists(st.integers(-3, 3), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _one_line_or_ok(code: int, err: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, err
    assert code == 0 or (code == 2 and len(lines) == 1 and lines[0].startswith("lassm: error: ")), (code, err)


# ------------------------------------------------------------------------------ shard folders

@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz-shards") / "S"
    stream.write_shards("sample-k21", folder, 1)
    return folder


def _copy(folder: Path, tmp: Path) -> Path:
    out = tmp / "S"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(folder, out)
    return out


def _same(a, b) -> bool:
    return (np.array_equal(a.cids, b.cids) and a.seqs.tobytes() == b.seqs.tobytes() and
            np.array_equal(a.offsets, b.offsets) and a.right.seqs.tobytes() == b.right.seqs.tobytes()
            and a.left.quals.tobytes() == b.left.quals.tobytes())


@FUZZ
@given(data=st.data())
def test_a_damaged_shard_part_is_never_read(shards: Path, tmp_path: Path, data: st.DataObject) -> None:
    """Bit flips, random bytes and truncation of a part: refused by its SHA-256, every time."""
    folder = _copy(shards, tmp_path)
    part = folder / stream.manifest(folder)["shards"][0]["file"]
    raw = bytearray(part.read_bytes())
    how = data.draw(st.sampled_from(["flip", "bytes", "cut"]))
    if how == "flip":
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] ^= 1 << data.draw(st.integers(0, 7))
    elif how == "bytes":
        at = data.draw(st.integers(0, len(raw) - 1))
        new = data.draw(st.binary(min_size=1, max_size=16))
        if raw[at:at + len(new)] == new:
            return
        raw[at:at + len(new)] = new
    else:
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    part.write_bytes(bytes(raw))
    with pytest.raises(LassmError, match=part.name):
        stream.read_range(folder, 0, stream.manifest(folder)["contigs"])


MANIFEST_FIELDS = ["format", "name", "k", "contigs", "row_group", "shards", "weights",
                   "shards.0.file", "shards.0.start", "shards.0.stop", "shards.0.sha256", "shards.0.bytes",
                   "weights.file", "weights.sha256", "weights.bytes"]


@FUZZ
@given(field=st.sampled_from(MANIFEST_FIELDS), value=JSON_VALUES, drop=st.booleans())
def test_a_damaged_manifest_is_one_line_or_the_same_contigs(shards: Path, tmp_path: Path, field: str,
                                                            value: object, drop: bool) -> None:
    """A field of ``shards.json`` given another value, of any type, or taken out: the folder
    reads as it was written, or is refused naming what is wrong; never a traceback."""
    folder = _copy(shards, tmp_path)
    doc = json.loads((folder / stream.MANIFEST).read_text())
    whole = stream.read_range(shards, 0, doc["contigs"])
    *parents, key = field.split(".")
    where = doc
    for p in parents:
        where = where[int(p)] if isinstance(where, list) else where[p]
    if drop:
        del where[int(key) if isinstance(where, list) else key]
    else:
        where[int(key) if isinstance(where, list) else key] = value
    (folder / stream.MANIFEST).write_text(json.dumps(doc))
    try:
        opened = stream.ShardFolder.open(folder)
        opened.weights()
        got = opened.load()
    except LassmError:
        return
    assert _same(got, whole), f"{field} = {value!r} read other contigs"


# ------------------------------------------------------------------------------ counter files

RAW = FIX / "ncu_raw_h200_lassm_k77_casptr_measured.csv"


def _collected(tmp: Path) -> Path:
    """The measured raw file with the sidecar ``collect`` writes now (its launches and SHA-256)."""
    raw = tmp / "raw.csv"
    raw.write_bytes(RAW.read_bytes())
    counters.write_sidecars(raw, "Version 2025.3.1.0\n", {"tool": "ncu", "dataset": "sample-k77", "k": 77,
                                                          "protocol": "casptr"},
                            launches=len(counters.parse([RAW], "ncu")))
    return raw


def test_a_collected_profile_cut_at_any_line_end_is_refused(tmp_path: Path) -> None:
    """Truncation at every line end of a collected file: each one refused (it was accepted with
    fewer launches where the cut fell after the header)."""
    raw = _collected(tmp_path)
    lines = RAW.read_bytes().splitlines(keepends=True)
    for n in range(len(lines)):
        raw.write_bytes(b"".join(lines[:n]))
        with pytest.raises((ValueError, LassmError)):
            counters.parse([raw], "ncu")


def _cells(line: bytes) -> list[bytes]:
    return line.split(b'","')


@FUZZ
@given(data=st.data())
def test_a_damaged_counter_file_is_one_line_or_parsed(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                      data: st.DataObject) -> None:
    """A raw file without its record, damaged: a cell given a huge, negative, empty or wordy
    value, a line dropped or doubled, random bytes, UTF-16, a cut anywhere. ``counters parse``
    gives a table or one line, never a traceback."""
    lines = RAW.read_bytes().splitlines(keepends=True)
    how = data.draw(st.sampled_from(["cell", "drop", "double", "bytes", "utf16", "cut"]))
    if how == "cell":
        row = data.draw(st.integers(6, len(lines) - 1))
        cells = _cells(lines[row])
        at = data.draw(st.integers(1, len(cells) - 2))
        cells[at] = data.draw(st.one_of(
            st.integers(-10**30, 10**30).map(lambda v: str(v).encode()),
            st.sampled_from([b"", b"nan", b"inf", b"-inf", b"1e400", b"n/a", b"1,2,3", b"\xff\xfe", b'"']),
            st.binary(max_size=8)))
        lines[row] = b'","'.join(cells)
        text = b"".join(lines)
    elif how in ("drop", "double"):
        row = data.draw(st.integers(0, len(lines) - 1))
        lines[row:row + 1] = [] if how == "drop" else [lines[row], lines[row]]
        text = b"".join(lines)
    elif how == "bytes":
        text = bytearray(b"".join(lines))
        at = data.draw(st.integers(0, len(text) - 1))
        text[at:at + 4] = data.draw(st.binary(min_size=1, max_size=4))
        text = bytes(text)
    elif how == "utf16":
        text = b"".join(lines).decode().encode("utf-16")
    else:
        text = b"".join(lines)[:data.draw(st.integers(0, sum(map(len, lines))))]
    raw = tmp_path / "fuzzed.csv"
    raw.write_bytes(text)
    code = main(["counters", "parse", str(raw), "--tool", "ncu", "--simd-width", "32", "--aggregate"])
    _one_line_or_ok(code, capsys.readouterr().err)


@FUZZ
@given(data=st.data())
def test_a_damaged_sidecar_is_one_line_or_parsed(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                 data: st.DataObject) -> None:
    """The ``.meta.json`` beside a raw file, damaged: cut, another JSON value, a label or a record
    of another type. ``counters parse`` gives a table or one line naming the sidecar's fault."""
    raw = _collected(tmp_path)
    meta_path = counters.sidecar_paths(raw)[1]
    meta = json.loads(meta_path.read_text())
    how = data.draw(st.sampled_from(["cut", "value", "field"]))
    if how == "cut":
        text = meta_path.read_bytes()
        meta_path.write_bytes(text[:data.draw(st.integers(0, len(text) - 1))])
    elif how == "value":
        meta_path.write_text(json.dumps(data.draw(JSON_VALUES)))
    else:
        key = data.draw(st.sampled_from(["k", "dataset", "protocol", "device", "tool_version", "vendor", "launches",
                                         "raw_sha256"]))
        meta_path.write_text(json.dumps({**meta, key: data.draw(JSON_VALUES)}))
    code = main(["counters", "parse", str(raw), "--tool", "ncu", "--aggregate"])
    _one_line_or_ok(code, capsys.readouterr().err)


# ------------------------------------------------------------------------------ run records

@FUZZ
@given(data=st.data())
def test_a_damaged_run_record_is_one_line_or_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  data: st.DataObject) -> None:
    """A record's ``summary.json`` cut, changed by random bytes, or holding another JSON value (a
    list, a number, a field of another type): the records are read as a table, or refused in one
    line naming the file."""
    from lassm.runs import results

    root = tmp_path / "results"
    if root.exists():
        shutil.rmtree(root)
    folder = root / "box" / "sample-k21__k21__cpu__none"
    folder.mkdir(parents=True)
    good = {"dataset": "sample-k21", "k": 21, "backend": "cpu", "protocol": "none", "kernel_seconds": 0.5,
            "contigs": 1, "matches_cpu": True}
    how = data.draw(st.sampled_from(["cut", "bytes", "value", "field"]))
    text = json.dumps(good).encode()
    if how == "cut":
        text = text[:data.draw(st.integers(0, len(text) - 1))]
    elif how == "bytes":
        at = data.draw(st.integers(0, len(text) - 1))
        text = text[:at] + data.draw(st.binary(min_size=1, max_size=6)) + text[at + 1:]
    elif how == "value":
        text = json.dumps(data.draw(JSON_VALUES)).encode()
    else:
        text = json.dumps({**good, data.draw(st.sampled_from(sorted(good))): data.draw(JSON_VALUES)}).encode()
    (folder / "summary.json").write_bytes(text)
    monkeypatch.setenv("LASSM_RESULTS", str(root))
    try:
        table = results.load_records("box")
    except LassmError as exc:
        assert "summary.json" in str(exc) or "no run record" in str(exc), exc
        return
    assert len(table) == 1

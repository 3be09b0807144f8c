# SPDX-License-Identifier: BSD-3-Clause
"""lassm.analysis.ptx: static instruction mixes of PTX, counted exactly on hand-written fixtures.

``tests/fixtures/ptx/nvrtc_style.ptx`` and ``opencl_style.ptx`` are written by hand in the style
of NVRTC's and NVIDIA's OpenCL compiler's PTX (not compiler output); every expected count below
was counted by hand from those files, instruction by instruction.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from lassm.analysis import ptx
from lassm.backends import nvrtc
from lassm.errors import InputError

FIX = Path(__file__).parent.parent / "fixtures" / "ptx"
CUDA = FIX / "nvrtc_style.ptx"
OPENCL = FIX / "opencl_style.ptx"


def _by_category(df: pd.DataFrame, function: str) -> dict[str, int]:
    sub = df[df["function"] == function]
    return {c: int(n) for c, n in sub.groupby("category")["count"].sum().items()}


def _count(df: pd.DataFrame, **where) -> int:
    mask = pd.Series(True, index=df.index)
    for col, value in where.items():
        mask &= df[col] == value
    return int(df.loc[mask, "count"].sum())


@pytest.fixture(scope="module")
def cuda() -> pd.DataFrame:
    return ptx.read(CUDA, backend="cuda", protocol="casptr")


@pytest.fixture(scope="module")
def opencl() -> pd.DataFrame:
    return ptx.read(OPENCL, backend="opencl", protocol="casptr")


# ----------------------------------------------------------------------------------------------
# Parsing: functions, categories, fields


def test_columns_and_labels(cuda):
    assert list(cuda.columns) == ["backend", "protocol", *ptx.COLUMNS]
    assert set(cuda["backend"]) == {"cuda"}


def test_functions_in_file_order_with_their_kind(cuda, opencl):
    assert list(dict.fromkeys(zip(cuda["function"], cuda["kind"]))) == [("lane_hash", "func"), ("walk_kernel", "entry")]
    assert list(dict.fromkeys(zip(opencl["function"], opencl["kind"]))) == [("walk_kernel", "entry"),
                                                                          ("_Z6k_shifti", "func")]


def test_nvrtc_style_categories(cuda):
    assert _by_category(cuda, "lane_hash") == {"load": 1, "int32": 2, "store": 1, "branch": 1}
    assert _by_category(cuda, "walk_kernel") == {
        "int32": 4, "int64_addr": 4, "int64": 1, "float": 1, "conversion": 3, "address": 2, "move": 4,
        "load": 7, "store": 4, "atomic": 1, "barrier": 1, "warp": 6, "predicate": 3, "branch": 5, "pragma": 1}


def test_opencl_style_categories(opencl):
    """The closing ``.metadata_section`` block and the ``.const`` initializer are no instructions."""
    assert _by_category(opencl, "walk_kernel") == {
        "int32": 1, "int64_addr": 5, "int64": 1, "conversion": 2, "move": 5, "load": 10, "store": 3,
        "atomic": 2, "barrier": 1, "fence": 1, "predicate": 2, "branch": 3}
    assert _by_category(opencl, "_Z6k_shifti") == {"load": 1, "int32": 2, "store": 1, "branch": 1}


def test_loads_by_space_width_and_vector(cuda, opencl):
    assert _count(cuda, category="load", space="global", width=128, vector=4) == 1
    assert _count(cuda, opcode="ld.global.nc.v4.u32", type="u32") == 1
    assert _count(cuda, category="load", space="global", width=8) == 1
    assert _count(cuda, category="load", space="param") == 5  # 3 kernel params, a call return, lane_hash's
    assert _count(opencl, category="load", space="global", width=8, vector=1) == 4
    assert _count(opencl, category="load", space="global", width=128) == 0
    assert _count(opencl, category="load", space="const", width=8, addr_bits=0) == 1
    assert _count(cuda, category="store", space="local") == 1
    assert _count(cuda, category="store", space="global", width=8) == 1


def test_shared_memory_address_width(cuda, opencl):
    """Jin & Vetter's shared-memory point: 32-bit addresses in one, 64-bit in the other."""
    shared = lambda df, bits: _count(df, space="shared", addr_bits=bits)  # noqa: E731
    assert (shared(cuda, 32), shared(cuda, 64)) == (2, 0)
    assert (shared(opencl, 32), shared(opencl, 64)) == (0, 3)
    assert _count(cuda, opcode="st.local.u32", addr_bits=64) == 1  # %SPL, a named .b64 register
    assert _count(cuda, category="load", space="param", addr_bits=0) == 5  # symbols, no register


def test_conversions_keep_from_and_to(cuda, opencl):
    assert _count(cuda, category="conversion", type="u16->u32", width=32) == 1
    assert _count(cuda, category="conversion", type="u32->f64", width=64) == 1
    assert _count(cuda, category="conversion", type="f64->s32", width=32) == 1
    assert _count(opencl, category="conversion", type="u32->u64") == 2


def test_address_arithmetic_is_apart_from_other_64_bit_work(cuda, opencl):
    assert _count(cuda, opcode="mul.wide.u32", category="int64_addr", width=64) == 1
    assert _count(cuda, opcode="shr.u64", category="int64") == 1
    assert _count(opencl, opcode="shl.b64", category="int64_addr") == 1
    assert _count(opencl, opcode="and.b64", category="int64") == 1
    assert _count(opencl, opcode="add.s64") == 3


def test_warp_collectives_and_predicated_branches(cuda):
    warp = cuda[cuda["category"] == "warp"].groupby("opcode")["count"].sum().to_dict()
    assert warp == {"activemask.b32": 1, "bar.warp.sync": 1, "match.any.sync.b64": 1,
                    "shfl.sync.bfly.b32": 1, "shfl.sync.idx.b32": 1, "vote.sync.ballot.b32": 1}
    branches = cuda[cuda["category"] == "branch"].groupby("opcode")["count"].sum().to_dict()
    assert branches == {"bra": 2, "bra.uni": 1, "call.uni": 1, "ret": 2}


def test_pragma_is_counted_apart(cuda):
    assert _count(cuda, category="pragma", opcode='.pragma "nounroll"') == 1


@pytest.mark.parametrize("opcode, category, space, kind, vector, width", [
    ("ld.shared::cta.v2.u64", "load", "shared", "u64", 2, 128),
    ("atom.add.u32", "atomic", "generic", "u32", 1, 32),
    ("red.global.add.u64", "atomic", "global", "u64", 1, 64),
    ("cvta.shared.u64", "address", "shared", "u64", 1, 64),
    ("and.pred", "predicate", "", "pred", 1, 1),
    ("fence.acq_rel.gpu", "fence", "", "", 1, 0),
    ("barrier.sync.aligned", "barrier", "", "", 1, 0),
    ("max.f64", "float", "", "f64", 1, 64),
    ("mad.wide.s32", "int64_addr", "", "s32", 1, 64),
    ("mul.wide.u16", "int32", "", "u16", 1, 32),
    ("bfi.b64", "int64", "", "b64", 1, 64),
    ("nanosleep.u32", "other", "", "u32", 1, 32),
])
def test_classify(opcode, category, space, kind, vector, width):
    row = ptx.classify(opcode)
    assert (row["category"], row["space"], row["type"], row["vector"], row["width"]) == (category, space, kind,
                                                                                         vector, width)


# ----------------------------------------------------------------------------------------------
# Summary, comparison, counters


def test_summary_per_build_and_input_unchanged(cuda, opencl):
    both = pd.concat([cuda, opencl], ignore_index=True)
    before = both.copy()
    s = ptx.summary(both, by=("backend", "protocol"))
    pd.testing.assert_frame_equal(both, before)
    assert list(s.columns) == ["backend", "protocol", *ptx.CATEGORIES, "instructions"]
    rows = s.set_index("backend")
    assert rows.loc["cuda", "instructions"] == 51 and rows.loc["opencl", "instructions"] == 41
    assert rows.loc["cuda", "pragma"] == 1 and rows.loc["opencl", "fence"] == 1 and rows.loc["opencl", "warp"] == 0
    per_function = ptx.summary(cuda)
    assert per_function.set_index("function")["instructions"].to_dict() == {"lane_hash": 5, "walk_kernel": 46}


def test_summary_requires_its_columns(cuda):
    with pytest.raises(ValueError, match="dataset"):
        ptx.summary(cuda, by=("dataset",))


def test_compare_lines_up_two_mixes(cuda, opencl):
    side = ptx.compare(cuda, opencl).set_index("category")
    assert list(side.columns) == ["cuda", "opencl", "opencl/cuda"]
    assert side.loc["int64_addr"].tolist() == [4, 5, 1.25]
    assert side.loc["load", "opencl"] == 11 and side.loc["load", "cuda"] == 8
    assert side.loc["warp", "opencl"] == 0 and side.loc["fence", "cuda"] == 0
    assert pd.isna(side.loc["fence", "opencl/cuda"])  # none on the CUDA side: no ratio
    assert list(side.index) == [c for c in ptx.CATEGORIES if c in side.index]
    loads = ptx.compare(cuda[cuda.category == "load"], opencl[opencl.category == "load"],
                        keys=("space", "width")).set_index(["space", "width"])
    assert loads.loc[("global", 8)].tolist()[:2] == [1, 4]
    assert loads.loc[("global", 128)].tolist()[:2] == [1, 0]


# ----------------------------------------------------------------------------------------------
# Bad input: one error naming the file, the line and what is wrong


@pytest.mark.parametrize("text, line, field", [
    (".version 8.0\nadd.s32 %r1, %r2, 1;\n", 2, "instruction"),
    (".entry k()\n{\n\tret;\n}\n}\n", 5, "brace"),
    (".entry k()\n{\n\tret;\n", None, "brace"),
    (".entry k()\n{\n\tret;\n}\nmov.u32 %r1, 0\n", 5, "statement"),
    ("{\n}\n", 1, "brace"),
    (".entry k()\n{\n\tret;\n}\n.metadata_section {\n.metadata 0 {\n\t\"a\"\n}\n", 5, "brace"),
])
def test_bad_ptx_is_one_located_error(text, line, field):
    with pytest.raises(InputError) as err:
        ptx.parse(text, source="bad.ptx")
    assert (err.value.path, err.value.line, err.value.field) == ("bad.ptx", line, field)


def test_empty_module_has_no_rows():
    assert ptx.parse(".version 8.0\n.target sm_90\n.address_size 64\n") == []
    assert list(ptx.mix("").columns) == list(ptx.COLUMNS)


# ----------------------------------------------------------------------------------------------
# Real NVRTC output


@pytest.mark.skipif(nvrtc.find_library() is None, reason="NVRTC is not installed")
def test_every_instruction_line_of_nvrtc_ptx_is_counted_once():
    """NVRTC writes one instruction a line: the parser's total is the number of such lines."""
    text, _ = nvrtc.compile_build("casptr", "compute_90")
    lines = [ln for ln in text.splitlines() if re.match(r"\s*(@|[a-z])", ln) and ";" in ln]
    s = ptx.summary(ptx.mix(text))
    assert int(s["instructions"].sum()) == len(lines)
    assert s.loc[0, "function"] == nvrtc.ENTRY


# ----------------------------------------------------------------------------------------------
# lassm measure ptx, its compilers replaced by the fixtures


def _dump_tool(tmp_path: Path, monkeypatch):
    """The dump's module, writing under ``tmp_path/m/ptx``, and the command line that runs it."""
    from lassm import cli
    from lassm.campaign import ptx_dump

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    return ptx_dump, lambda *argv: cli.main(["measure", "ptx", "--machine", "m", *argv])


def test_dump_writes_ptx_mix_comparison_and_provenance(tmp_path, monkeypatch, capsys):
    tool, main = _dump_tool(tmp_path, monkeypatch)
    out = tmp_path / "m" / "ptx"
    monkeypatch.setattr(tool, "_cupy_device", lambda: {})
    monkeypatch.setattr(tool, "cuda_ptx", lambda build, arch: (CUDA.read_text(), {"arch": arch}))

    def opencl_ptx(build, team, extra):
        if build == "fast":
            raise tool.Skipped("local_assembly/opencl/fast.cl is not in this tree")
        return OPENCL.read_text(), {"team": team}

    monkeypatch.setattr(tool, "opencl_ptx", opencl_ptx)
    assert main("--builds", "casptr,fast") == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["compare-casptr.csv", "cuda-casptr.ptx", "cuda-fast.ptx", "mix.csv", "opencl-casptr.ptx",
                     "provenance.json", "summary.csv"]
    summary = pd.read_csv(out / "summary.csv").set_index(["backend", "protocol"])
    assert summary.loc[("cuda", "casptr"), "instructions"] == 51
    assert summary.loc[("opencl", "casptr"), "instructions"] == 41
    side = pd.read_csv(out / "compare-casptr.csv").set_index("category")
    assert side.loc["int64_addr", "opencl/cuda"] == 1.25
    import json

    prov = json.loads((out / "provenance.json").read_text())
    assert prov["arch"] == "compute_90" and prov["problems"] == []
    statuses = {(r["backend"], r["protocol"]): r["status"] for r in prov["builds"]}
    assert statuses[("opencl", "fast")].startswith("skipped: ") and statuses[("cuda", "fast")] == "ok"
    assert "skipped" in capsys.readouterr().err


def test_dump_says_what_is_missing_and_writes_the_rest(tmp_path, monkeypatch, capsys):
    tool, main = _dump_tool(tmp_path, monkeypatch)
    out = tmp_path / "m" / "ptx"
    monkeypatch.setattr(tool, "_cupy_device", lambda: {})
    monkeypatch.setattr(tool, "cuda_ptx", lambda build, arch: (CUDA.read_text(), {}))

    def no_opencl(build, team, extra):
        raise tool.Missing("pyopencl is not installed")

    monkeypatch.setattr(tool, "opencl_ptx", no_opencl)
    assert main("--builds", "casptr") == 2
    assert sorted(p.name for p in out.iterdir()) == ["cuda-casptr.ptx", "mix.csv", "provenance.json",
                                                         "summary.csv"]
    err = capsys.readouterr().err
    assert "lassm measure ptx: opencl casptr: pyopencl is not installed" in err and "Traceback" not in err


def test_dump_keeps_a_ptx_it_cannot_parse(tmp_path, monkeypatch, capsys):
    tool, main = _dump_tool(tmp_path, monkeypatch)
    out = tmp_path / "m" / "ptx"
    monkeypatch.setattr(tool, "_cupy_device", lambda: {})
    monkeypatch.setattr(tool, "cuda_ptx", lambda build, arch: (".entry k()\n{\n\tret;\n", {}))
    monkeypatch.setattr(tool, "opencl_ptx", lambda build, team, extra: (OPENCL.read_text(), {}))
    assert main("--builds", "casptr") == 2
    assert (out / "cuda-casptr.ptx").is_file() and (out / "mix.csv").is_file()
    assert "cuda-casptr.ptx written, not parsed: cuda-casptr.ptx: brace:" in capsys.readouterr().err

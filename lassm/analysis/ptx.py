# SPDX-License-Identifier: BSD-3-Clause
"""The static instruction mix of PTX text, to compare what two compilers made of one kernel.

Jin & Vetter explained a CUDA-vs-SYCL gap from the emitted PTX: 64-bit address arithmetic where
32 bits would do, scalar byte loads instead of vector loads, shared memory addressed through
64-bit registers, loops left rolled. This module counts those, per function, in any PTX (NVRTC's,
or NVIDIA's OpenCL program binary), with the standard library only (pandas only where frames are
returned).

The tidy mix (:data:`COLUMNS`) has one row per (function, category, opcode, state space, type,
vector, width, address register width) with its static ``count``:

``category``
    one of :data:`CATEGORIES`: ``int64_addr`` (64-bit add/sub/mul/mad/shl results and
    ``mul.wide``/``mad.wide``: address arithmetic), ``int64`` (other 64-bit integer ops),
    ``int32`` (32 bits or fewer), ``address`` (``cvta``/``isspacep``/``mapa``), ``warp`` (shfl,
    vote, match, activemask, redux, ``bar.warp.sync``), ``pragma`` (``.pragma`` directives, e.g.
    ``"nounroll"``; no instruction).
``space``
    ``global``, ``shared``, ``local``, ``param``, ``const``, or ``generic`` for a memory op that
    names none.
``type``, ``vector``, ``width``
    operand type (``u32->f64`` for ``cvt``), vector length (1, 2, 4), and bits moved (memory)
    or produced (``mul.wide.u32`` is 64); 0 without a type.
``addr_bits``
    for memory operations, the width of the address register (64 for ``[%rd5]``, 32 for
    ``[%r5]``); 0 for a symbol and every other instruction."""
from __future__ import annotations

import bisect
import re
from collections import Counter
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import InputError

#: Instruction categories, in the order summaries list them; ``pragma`` is no instruction.
CATEGORIES: tuple[str, ...] = ("int32", "int64_addr", "int64", "float", "conversion", "address", "move",
                               "load", "store", "atomic", "barrier", "fence", "warp", "predicate", "branch",
                               "other", "pragma")
#: Columns of the tidy mix, in order.
COLUMNS: tuple[str, ...] = ("function", "kind", "category", "opcode", "space", "type", "vector", "width",
                            "addr_bits", "count")
SPACES = frozenset({"global", "shared", "local", "param", "const", "tex"})
MEMORY = frozenset({"ld", "ldu", "st", "atom", "red"})
#: 64-bit integer operations that make addresses (Jin & Vetter's "64-bit address arithmetic").
ADDRESS_OPS = frozenset({"add", "sub", "mul", "mad", "shl"})
INTEGER_OPS = frozenset({"add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
                         "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext", "dp4a",
                         "dp2a", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "prmt", "addc",
                         "subc", "madc"})
FIXED = {"cvt": "conversion", "cvta": "address", "isspacep": "address", "mapa": "address", "mov": "move",
         "membar": "fence", "fence": "fence", "bar": "barrier", "barrier": "barrier", "shfl": "warp",
         "vote": "warp", "match": "warp", "activemask": "warp", "redux": "warp", "elect": "warp",
         "setp": "predicate", "selp": "predicate", "set": "predicate", "slct": "predicate", "bra": "branch",
         "brx": "branch", "ret": "branch", "call": "branch", "exit": "branch", "ld": "load", "ldu": "load",
         "st": "store", "atom": "atomic", "red": "atomic"}

_TYPE = re.compile(r"^(?:[subf](?:8|16|32|64|128)|pred|f16x2|bf16|bf16x2|tf32)$")
_STRIP = re.compile(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*.*?\*/', re.S)  # strings kept, comments dropped
#: Directives that take their line and end with no ';' (debug ``.section`` blocks of -G are not read).
_LINE_DIRECTIVE = re.compile(r"^[ \t]*\.(?:version|target|address_size|file|loc)\b[^\n]*", re.M)
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[;{}]')
_LABELS = re.compile(r"^\s*(?:[A-Za-z_$%][\w$]*\s*:(?!:)\s*)+")
_HEADER = re.compile(r"^(?:\.\w+\s+)*\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)")
_INSTR = re.compile(r"^(@!?%?[\w$]+\s+)?([A-Za-z][\w.:]*)\s*(.*)$", re.S)
_REG = re.compile(r"(%[A-Za-z_$][\w$]*?)(?:<\d+>)?\s*(?:,|$)")
_ADDRESS = re.compile(r"\[\s*(%[A-Za-z_$][\w$]*)")


def _bits(t: str) -> int:
    if t == "pred":
        return 1
    digits = re.sub(r"\D", "", t.split("x")[0])
    return int(digits) * (2 if t.endswith("x2") else 1) if digits else 0


def _statements(text: str, source: str) -> Iterator[tuple[str, str, int]]:
    """(event, text, line): ``stmt`` up to each ``;``, ``header`` of a body, ``open`` and ``close`` of
    a scope. Braces inside a statement (vector operands, initializers) stay part of it; a directive's
    block (NVIDIA OpenCL's closing ``.metadata_section { ... }``) is skipped whole."""
    text = _STRIP.sub(lambda m: m.group(1) or re.sub(r"[^\n]", " ", m.group(0)), text)
    text = _LINE_DIRECTIVE.sub("", text)
    newlines = [i for i, c in enumerate(text) if c == "\n"]

    def line(pos: int) -> int:  # of the first character at or after pos that is no blank
        pos += len(text[pos:pos + 4096]) - len(text[pos:pos + 4096].lstrip())
        return bisect.bisect_left(newlines, pos) + 1

    start, tokens = 0, _TOKEN.finditer(text)
    for m in tokens:
        tok = m.group(0)
        if tok.startswith('"'):
            continue
        pending = _LABELS.sub("", text[start:m.start()]).strip()
        if tok == ";":
            yield "stmt", pending, line(start)
        elif tok == "{" and pending.startswith(".") and not _HEADER.match(pending) and not pending.endswith("="):
            depth = 1
            for m in tokens:
                depth += {"{": 1, "}": -1}.get(m.group(0), 0)
                if depth == 0:
                    break
            if depth:
                raise InputError(source, line(start), "brace", f"the block of {pending[:40]!r} is left open")
        elif pending and not (tok == "{" and _HEADER.match(pending)):
            continue  # a brace inside a statement
        else:
            if pending:
                yield "header", pending, line(start)
            yield ("open" if tok == "{" else "close"), "", line(m.start())
        start = m.end()
    rest = _LABELS.sub("", text[start:]).strip()
    if rest:
        raise InputError(source, line(start), "statement", f"{rest[:40]!r} is not closed by ';'")


def _regs(decl: str, widths: dict[str, int]) -> None:
    """Adds the registers of ``.reg .b64 %rd<503>, %x;`` to ``widths`` (name or prefix -> bits)."""
    parts = decl.split(None, 2)
    if len(parts) == 3 and _TYPE.match(parts[1].lstrip(".")):
        for m in _REG.finditer(parts[2]):
            widths[m.group(1)] = _bits(parts[1].lstrip("."))


def classify(opcode: str, operands: str = "", widths: dict[str, int] | None = None) -> dict:
    """One instruction's row fields (``category``, ``opcode``, ``space``, ``type``, ``vector``,
    ``width``, ``addr_bits``) from its ``opcode`` with modifiers (``ld.global.nc.v4.u32``), its
    ``operands`` (the first ``[...]`` gives ``addr_bits``) and ``widths``, register name or prefix
    -> bits from the function's ``.reg`` declarations."""
    base, *mods = opcode.split(".")
    types = [m for m in mods if _TYPE.match(m)]
    spaces = [m.split("::")[0] for m in mods if m.split("::")[0] in SPACES]
    space = spaces[0] if spaces else ("generic" if base in MEMORY else "")
    vector = next((int(m[1:]) for m in mods if m in ("v2", "v4", "v8")), 1)
    kind = types[-1] if types else ""
    bits = _bits(kind) if kind else 0
    if base == "cvt" and len(types) == 2:
        kind, bits = f"{types[1]}->{types[0]}", _bits(types[0])
    elif base in MEMORY:
        bits *= vector
    elif "wide" in mods:
        bits *= 2
    category = FIXED.get(base, "other")
    if base == "bar" and "warp" in mods:
        category = "warp"
    elif kind == "pred" and base in INTEGER_OPS | {"mov"}:
        category = "predicate"
    elif base in INTEGER_OPS and kind[:1] in ("s", "u", "b"):
        category = "int32" if bits <= 32 else ("int64_addr" if base in ADDRESS_OPS else "int64")
    elif category == "other" and kind.startswith(("f", "bf")):
        category = "float"
    reg = _ADDRESS.search(operands) if base in MEMORY else None
    widths, addr = widths or {}, 0
    if reg:  # %rd12 -> the width declared for %rd<N> (or for %rd12 itself)
        addr = widths.get(reg.group(1), widths.get(reg.group(1).rstrip("0123456789"), 0))
    return {"category": category, "opcode": opcode, "space": space, "type": kind, "vector": vector,
            "width": bits, "addr_bits": addr}


def parse(text: str, source: str = "<ptx>") -> list[dict]:
    """The tidy mix of a PTX module: one dict per :data:`COLUMNS` row, functions in file order.

    Counts every instruction in an ``.entry`` or ``.func`` body (nested scopes included, predicated
    ones once) and ``.pragma`` directives. :class:`InputError` on an instruction outside any body, an
    unbalanced brace, or a body or statement left open."""
    counts: Counter = Counter()
    order: dict[tuple[str, str], int] = {}
    func: tuple[str, str] | None = None
    header: tuple[str, str] | None = None
    depth = 0
    widths: dict[str, int] = {}
    for event, stmt, line in _statements(text, source):
        if event == "header":
            m = _HEADER.match(stmt)
            if m is None:
                raise InputError(source, line, "header", f"not an .entry or .func header: {stmt[:60]!r}")
            header = (m.group(2), m.group(1))
        elif event == "open":
            if depth == 0:
                if header is None:
                    raise InputError(source, line, "brace", "'{' at module level opens no .entry or .func")
                func, header, widths = header, None, {}
                order.setdefault(func, len(order))
            depth += 1
        elif event == "close":
            depth -= 1
            if depth < 0:
                raise InputError(source, line, "brace", "'}' closes no scope")
            func = func if depth else None
        elif stmt.startswith("."):
            if func and stmt.startswith(".reg"):
                _regs(stmt, widths)
            elif func and stmt.startswith(".pragma"):
                row = {"category": "pragma", "opcode": " ".join(stmt.split()), "space": "", "type": "",
                       "vector": 1, "width": 0, "addr_bits": 0}
                counts[func + tuple(row.values())] += 1
        elif stmt:
            m = _INSTR.match(stmt)
            if func is None or m is None:
                raise InputError(source, line, "instruction", f"{stmt[:40]!r} is outside any .entry or .func body"
                                 if m else f"{stmt[:40]!r} is no instruction")
            counts[func + tuple(classify(m.group(2), m.group(3), widths).values())] += 1
    if depth:
        raise InputError(source, None, "brace", f"{depth} scope(s) of {func[0] if func else '?'} left open")
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    rows = [dict(zip(COLUMNS, key + (n,))) for key, n in counts.items()]
    return sorted(rows, key=lambda r: (order[(r["function"], r["kind"])], rank[r["category"]], r["opcode"],
                                       r["addr_bits"]))


def mix(text: str, source: str = "<ptx>", **labels):
    """:func:`parse` as a DataFrame, with constant label columns first (e.g. ``backend="cuda"``)."""
    import pandas as pd

    df = pd.DataFrame(parse(text, source), columns=list(COLUMNS))
    for i, (name, value) in enumerate(labels.items()):
        df.insert(i, name, value)
    return df


def read(path: str | Path, **labels):
    """:func:`mix` of a ``.ptx`` file (NVIDIA's OpenCL binaries end in NUL bytes, dropped here)."""
    return mix(Path(path).read_text(encoding="utf-8", errors="replace").rstrip("\0"), str(path), **labels)


def _require(df, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"DataFrame lacks the required column(s) {missing}")


def summary(df, by: Sequence[str] = ("function",)):
    """Counts per category for each ``by`` group (e.g. ``("backend", "protocol")``): one int64 column
    per :data:`CATEGORIES` entry (0 where none), then ``instructions``, the total without
    ``pragma``. ``df`` is left unchanged."""
    _require(df, list(by) + ["category", "count"])
    wide = df.pivot_table(index=list(by), columns="category", values="count", aggfunc="sum", fill_value=0)
    wide = wide.reindex(columns=list(CATEGORIES), fill_value=0).astype("int64")
    wide["instructions"] = wide.drop(columns="pragma").sum(axis=1)
    wide.columns.name = None
    return wide.reset_index()


def compare(a, b, names: tuple[str, str] = ("cuda", "opencl"), keys: Sequence[str] = ("category",)):
    """Two mixes side by side: counts of ``a`` and ``b`` summed over ``keys`` (0 where a side has
    none) and the ratio column ``"<b>/<a>"`` (NaN where ``a`` has none). ``keys`` may be
    ``("category",)``, ``("category", "space", "width")`` or ``("opcode",)``."""
    import numpy as np

    keys = list(keys)
    for df in (a, b):
        _require(df, keys + ["count"])
    sums = [df.groupby(keys, sort=False)["count"].sum().rename(name) for df, name in zip((a, b), names)]
    out = sums[0].to_frame().join(sums[1], how="outer").fillna(0).astype("int64").reset_index()
    out[f"{names[1]}/{names[0]}"] = out[names[1]] / out[names[0]].replace(0, np.nan)
    if "category" in keys:
        out["_rank"] = out["category"].map({c: i for i, c in enumerate(CATEGORIES)})
        out = out.sort_values(["_rank"] + [k for k in keys if k != "category"]).drop(columns="_rank")
    return out.reset_index(drop=True)


#: Backends that run another backend's PTX: Nsight Compute counts NVIDIA's OpenCL kernel as
#: ``opencl-ptx`` (its PTX launched by CUDA, :mod:`lassm.backends.opencl_ptx`), the ``opencl`` PTX.
SAME_PTX: dict[str, str] = {"opencl-ptx": "opencl"}


__all__ = ["CATEGORIES", "COLUMNS", "classify", "parse", "mix", "read", "summary", "compare"]

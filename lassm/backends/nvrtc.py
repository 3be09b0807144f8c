# SPDX-License-Identifier: BSD-3-Clause
"""Compile-checks the CUDA kernel with NVRTC alone: no driver, no GPU, so it runs in CI.

NVRTC comes from PyPI (``nvidia-cuda-nvrtc-cu12``) through :mod:`ctypes`, no CuPy or toolkit
(``LASSM_NVRTC`` names another ``libnvrtc``). Each build's source (:func:`kernel_file`) is
compiled to PTX for each virtual architecture, protocol and warp width the backends build, with
their options plus :func:`include_options`.
"""
from __future__ import annotations

import ctypes
import os
import site
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from .. import settings
from ..workloads.local_assembly import config
from ..paths import kernel_source

#: Protocol name -> the macro value passed as ``-DLASSM_PROTOCOL=...``.
PROTOCOLS: dict[str, str] = {
    "casptr": "LASSM_PROTO_CASPTR",
    "matchany": "LASSM_PROTO_MATCHANY",
    "doneflag": "LASSM_PROTO_DONEFLAG",
    "barrier": "LASSM_PROTO_BARRIER",
}


@dataclass(frozen=True)
class Variant:
    """An optimized build of the kernel (no published protocol's port), and how the host drives it.

    ``fast`` has every optimization of book/fast-kernel.md's table; each ``fast-*`` build undoes one
    (a kernel knob in ``defines`` or a host flag), or adds one left off in ``fast`` (:data:`ADDED`;
    its ``undoes`` begins "nothing: adds")."""

    macro: str
    #: Extra ``-D`` options: the kernel knob this build sets.
    defines: tuple[str, ...] = ()
    #: The walk buffer and visited set in dynamic shared memory (else global, epoch-tagged).
    shared_walk: bool = True
    #: Both sides and every bin in one launch, most read bases first (else MetaHipMer's launches).
    one_launch: bool = True
    #: The heaviest contig ends of a launch get a block each (else a warp each, like the rest).
    block_teams: bool = True
    #: Register cap passed to NVRTC (``--maxrregcount``), None for the compiler's choice.
    max_registers: int | None = None
    #: Register cap of the second build the host launches instead for a launch of many ends per
    #: SM (:func:`lassm.backends.launch.many_ends`: the register cap at scale), None for one build
    #: at every size.
    scale_registers: int | None = None
    #: Lanes of a warp team (``-DLASSM_FAST_TEAM_LANES``): a warp walks ``warp size / team_lanes``
    #: contig ends at once; None for a whole warp per end.
    team_lanes: int | None = None
    #: Contig ends to a warp whose lanes walk them at once (``-DLASSM_FAST_LANE_WALKS``, lane walks;
    #: a warp team's inserts and scans take the ends in turn); None for one end to a warp team.
    lane_walks: int | None = None
    #: The sorted table: bytes of shared memory each warp team has for an end's sorted k-mer records
    #: (``-DLASSM_FAST_SORTED=1 -DLASSM_FAST_SORT_BYTES=...``); None for the hash table alone.
    sort_bytes: int | None = None
    #: The largest k the many-ends build sorts (``-DLASSM_SORT_MAX_K``; None: the source's, every k):
    #: a sorted-table build's records of several words cost the register-capped build more than
    #: they save at scale.
    scale_sort_max_k: int | None = None
    #: The build a launch at a start k of at most :data:`SORT_MAX_K` runs instead (fast's
    #: ``fast-sorted``, the sorted table; :func:`launch_build`); None for this build at every k.
    small_k_build: str | None = None
    #: What this build undoes, for tables and the book ('' for fast itself; "nothing: adds ..."
    #: for a build of :data:`ADDED`).
    undoes: str = ""

    def ends_per_warp(self, warp_size: int) -> int:
        """Contig ends one warp walks at once on a device of ``warp_size`` lanes."""
        if self.lane_walks is not None:
            if not 1 <= int(self.lane_walks) <= int(warp_size):
                raise ValueError(f"lane_walks = {self.lane_walks}: from 1 to the warp's {warp_size} lanes")
            return int(self.lane_walks)
        if self.team_lanes is None:
            return 1
        lanes, ws = int(self.team_lanes), int(warp_size)
        if lanes < 4 or lanes > ws or lanes & (lanes - 1):
            raise ValueError(f"team_lanes = {self.team_lanes}: a power of two from 4 to the warp's {ws} lanes")
        return ws // lanes


#: The register cap at scale: fast's cap for launches of many ends per SM. The kernel is
#: latency-bound at scale (Nsight Compute on gen-k21x20: 96 registers hold 5 blocks per SM, 23.6 % achieved
#: occupancy), and 72 registers let more warps hide the latency there (13 % on gen-k21x20, 7 % on
#: the x20 sample) but slow each warp with spills, which costs a launch of few waves its tail (8 %
#: on gen-k21), as lassm measure fast-knobs measured them. HIP builds one.
SCALE_REGISTERS = 72
#: The sorted table: shared memory per warp team for its records (fast_sorted.cuh), at least the
#: visited set's (2 KiB at the default walk limit), so fast's shared memory stays as it was; an
#: end whose records take more sorts them in its table memory. On the H200, 2 KiB was fastest on
#: gen-k21x20 of 2, 4, 6, 8 and 12 KiB, 4 KiB a few percent faster on the smaller k = 21 sets
#: (``lassm measure fast-knobs``).
SORT_BYTES = 2048
#: The largest start k at which ``fast`` launches its sorted build, and the largest k that build
#: sorts (``LASSM_SORT_MAX_K`` in fast_sorted.cuh: records of one to four words, so every k up to
#: the kernel's largest).
SORT_MAX_K = config.MAX_KMER_LEN
#: The largest k the register-capped build for launches of many ends sorts: one-word records. On
#: the H100, sorting every k in that build made ``sample-k77x20``'s kernel more than twice as slow,
#: while the uncapped build sorted every k faster (``sorted-rule.csv``).
SCALE_SORT_MAX_K = 30

#: Optimized variants, built like a protocol (``-DLASSM_PROTOCOL=...``). Measured on CUDA; the HIP
#: backend builds them too, compile-checked only (no AMD GPU has run them). Each ablation keeps
#: every optimization but the one it undoes, the register cap at scale included.
_FAST = Variant("LASSM_PROTO_FAST", scale_registers=SCALE_REGISTERS)
VARIANTS: dict[str, Variant] = {
    "fast": _FAST,
    "fast-reset": replace(_FAST, defines=("-DLASSM_FAST_RESET=1",),
                          undoes="epoch-tagged keys (the whole table reset per k)"),
    "fast-fulltable": replace(_FAST, defines=("-DLASSM_FAST_FULL_TABLE=1",),
                              undoes="per-k table size (all slots at every k)"),
    "fast-votescan": replace(_FAST, defines=("-DLASSM_FAST_SCAN=1",), undoes="votes on demand (the vote scan per k)"),
    "fast-globalwalk": replace(_FAST, defines=("-DLASSM_FAST_GLOBAL_WALK=1",), shared_walk=False,
                               undoes="the walk in shared memory"),
    "fast-perread": replace(_FAST, defines=("-DLASSM_FAST_PER_READ=1",), undoes="flat inserts (read-by-read rounds)"),
    "fast-plainbytes": replace(_FAST, defines=("-DLASSM_FAST_PLAIN_BYTES=1",),
                               undoes="fewer dependent loads (the faithful hash and compare)"),
    "fast-tables": replace(_FAST, defines=("-DLASSM_FAST_SCAN_STEPS=0",),
                           undoes="table-free short walks (the table built at every k)"),
    "fast-bins": replace(_FAST, one_launch=False, block_teams=False,
                         undoes="one launch ordered by work, and block teams (MetaHipMer's four launches, a warp "
                                "per end)"),
    "fast-warps": replace(_FAST, block_teams=False, undoes="block teams (a warp for every end)"),
    "fast-regs": replace(_FAST, scale_registers=None,
                         undoes="the register cap at scale (the compiler's registers at every launch size)"),
    # Added optimizations, each off in fast and measured beside it: look-ahead finds, early votes, packed keys.
    "fast-spec": replace(_FAST, defines=("-DLASSM_FAST_SPEC_WALK=1",),
                         undoes="nothing: adds look-ahead finds, one step ahead on idle lanes"),
    "fast-spec2": replace(_FAST, defines=("-DLASSM_FAST_SPEC_WALK=2",),
                          undoes="nothing: adds look-ahead finds, two steps ahead on idle lanes"),
    "fast-earlyvotes": replace(_FAST, defines=("-DLASSM_FAST_EARLY_VOTES=1",),
                               undoes="nothing: adds early votes, an insert's vote loaded before its claim"),
    "fast-packed": replace(_FAST, defines=("-DLASSM_FAST_PACKED_KEYS=1",),
                           undoes="nothing: adds packed keys, keys holding a k-mer of at most 23 bases itself"),
    "fast-sorted": replace(_FAST, sort_bytes=SORT_BYTES, scale_sort_max_k=SCALE_SORT_MAX_K,
                           undoes="nothing: adds the sorted table, built by sorting in shared memory where it fits"),
}
for _w in (8, 32):  # lane walks: the lanes of a warp walk 8 or 32 ends at once (global walk buffers)
    VARIANTS[f"fast-lanes{_w}"] = replace(
        _FAST, defines=("-DLASSM_FAST_GLOBAL_WALK=1", f"-DLASSM_FAST_LANE_WALKS={_w}"), shared_walk=False,
        lane_walks=_w, undoes=f"nothing: adds lane walks, {_w} ends to a warp whose lanes walk them at once")
# The sorted table is fast's at a start k of at most SORT_MAX_K (and only fast's: each ablation
# build undoes its optimization against the hash table it was measured with).
VARIANTS["fast"] = replace(_FAST, small_k_build="fast-sorted")
#: The variants that add an optimization to fast rather than undo one (not part of the ablation).
ADDED: tuple[str, ...] = ("fast-spec", "fast-spec2", "fast-earlyvotes", "fast-packed", "fast-lanes8", "fast-lanes32",
                          "fast-sorted")
#: Everything the CUDA backend can build, name -> the protocol macro: the protocols, then the variants.
BUILDS: dict[str, str] = {**PROTOCOLS, **{name: v.macro for name, v in VARIANTS.items()}}
#: Virtual architectures checked: Ampere (A100) and Hopper (H100/H200).
ARCHS: tuple[str, ...] = ("compute_80", "compute_90")
#: The CUDA sources' folder: the two kernel files and the headers they include.
KERNEL_DIR = "local_assembly/cuda"
#: The four faithful protocols' source, and fast's (its ablations are -D variants of it).
FAITHFUL_KERNEL = f"{KERNEL_DIR}/faithful.cu"
FAST_KERNEL = f"{KERNEL_DIR}/fast.cu"
ENTRY = "iterative_walks_kernel"


def kernel_file(protocol: str) -> str:
    """The source that builds ``protocol`` (a key of :data:`BUILDS`), for :func:`lassm.paths.kernel_source`."""
    if protocol not in BUILDS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(BUILDS)}")
    return FAST_KERNEL if protocol in VARIANTS else FAITHFUL_KERNEL


def launch_build(protocol: str, k: int, many_ends: bool = False) -> str:
    """The build a launch of ``protocol`` at start k runs: ``fast-sorted`` for ``fast`` where k is at
    most :data:`SORT_MAX_K`, else ``protocol``'s own. A many-ends launch (``many_ends``) sorts only
    up to :data:`SCALE_SORT_MAX_K` (one-word records); above, the hash build's smaller shared memory
    keeps more blocks on an SM."""
    variant = VARIANTS.get(protocol)
    small = SCALE_SORT_MAX_K if many_ends else SORT_MAX_K
    if variant is not None and variant.small_k_build is not None and int(k) <= small:
        return variant.small_k_build
    return protocol


def include_options() -> tuple[str, ...]:
    """``-I`` of the headers' folder: NVRTC and hipRTC see a source as a string, not a file, and
    find its ``#include "x.cuh"`` only there (nvcc and hipcc look beside the file themselves).
    Kept out of :func:`kernel_options`, which runs record, so that no machine's path lands there."""
    return (f"-I{kernel_source(KERNEL_DIR)}",)


def sources_digest() -> str:
    """SHA-256 over every file of :data:`KERNEL_DIR` (name and text): CuPy's on-disk cache keys on
    the source string and the options, never on included headers, so the CUDA backend passes this
    along to recompile after a header changes."""
    from .headers import folder_digest

    return folder_digest(kernel_source(KERNEL_DIR))


class NvrtcError(RuntimeError):
    """NVRTC rejected the source; the message holds its log."""


#: Protocols whose published (racy) form can be built with ``published=True``, for the study.
PUBLISHED: tuple[str, ...] = ("matchany", "doneflag")


def kernel_options(protocol: str, warp_size: int, published: bool = False, scaled: bool = False) -> tuple[str, ...]:
    """The ``-D`` options every build of the kernel gets (CuPy, hipRTC and this check alike); part of
    the compiled-module memo key.

    ``protocol`` is a key of :data:`BUILDS`; ``published`` builds the published races (only
    :data:`PUBLISHED`); ``scaled`` the many-ends build (its ``scale_registers`` cap)."""
    if protocol not in BUILDS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(BUILDS)}")
    if published and protocol not in PUBLISHED:
        raise ValueError(f"protocol {protocol!r} has no buildable published form; those are {', '.join(PUBLISHED)}")
    extra: tuple[str, ...] = ("-DLASSM_PUBLISHED=1",) if published else ()
    variant = VARIANTS.get(protocol)
    if variant is not None:
        extra += variant.defines
        cap = variant.scale_registers if scaled and variant.scale_registers is not None else variant.max_registers
        if cap is not None:
            extra += (f"--maxrregcount={int(cap)}",)
        if variant.team_lanes is not None:
            variant.ends_per_warp(warp_size)  # refuses a width the warp cannot hold
            extra += (f"-DLASSM_FAST_TEAM_LANES={int(variant.team_lanes)}",)
        if variant.sort_bytes is not None:
            extra += ("-DLASSM_FAST_SORTED=1", f"-DLASSM_FAST_SORT_BYTES={int(variant.sort_bytes)}")
            if scaled and variant.scale_sort_max_k is not None and not any("LASSM_SORT_MAX_K" in d for d in extra):
                extra += (f"-DLASSM_SORT_MAX_K={int(variant.scale_sort_max_k)}",)
    return extra + (
        f"-DLASSM_PROTOCOL={BUILDS[protocol]}",
        f"-DWARP_SIZE={int(warp_size)}",
        f"-DLASSM_MIN_QUAL={config.MIN_QUAL}",
        f"-DLASSM_MIN_HI_QUAL={config.MIN_HI_QUAL}",
        f"-DLASSM_MIN_VIABLE_DEPTH={config.MIN_VIABLE_DEPTH!r}",
        f"-DLASSM_MIN_EXPECTED_DEPTH={config.MIN_EXPECTED_DEPTH!r}",
        f"-DLASSM_RATING_THRES={config.RATING_THRES}",
        f"-DLASSM_MIN_KMER_LEN={config.MIN_KMER_LEN}",
        f"-DLASSM_SHIFT_SIZE={config.SHIFT_SIZE}",
        f"-DLASSM_MAX_KMER_LEN={config.MAX_KMER_LEN}",
        "--std=c++17",
    )


def _candidates() -> list[Path]:
    named = settings.value("LASSM_NVRTC")
    if named is not None:
        return [named]
    roots = list(site.getsitepackages()) + [site.getusersitepackages()] + list(sys.path)
    names = ("libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so", "nvrtc64_120_0.dll")
    out = []
    for root in roots:
        for name in names:
            for sub in ("nvidia/cuda_nvrtc/lib", "nvidia/cuda_nvrtc/bin", "nvidia/cu13/lib"):
                out.append(Path(root) / sub / name)
    # a CUDA toolkit's, where no wheel brought one (CuPy finds it there too)
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            out += [Path(home) / "lib64" / name for name in names[:3]]
    return out


def find_library() -> Path | None:
    """Path of the NVRTC shared library from the ``nvidia-cuda-nvrtc-cu12`` wheel, or None."""
    for path in _candidates():
        if path.is_file():
            return path
    return None


_LIB: ctypes.CDLL | None = None


def load() -> ctypes.CDLL:
    """Loads NVRTC (and its builtins library beside it, which it opens by name)."""
    global _LIB
    if _LIB is not None:
        return _LIB
    path = find_library()
    if path is None:
        raise FileNotFoundError("NVRTC is not installed: pip install nvidia-cuda-nvrtc-cu12")
    for builtins in sorted(path.parent.glob("libnvrtc-builtins.so*")):
        if ".alt." not in builtins.name:
            ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(path))
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    _LIB = lib
    return lib


def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    lib = load()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def _check(lib: ctypes.CDLL, status: int, what: str, log: str = "") -> None:
    if status != 0:
        raise NvrtcError(f"{what}: {lib.nvrtcGetErrorString(status).decode()}\n{log}".rstrip())


def compile_ptx(source: str, options: Sequence[str], name: str = "faithful.cu") -> tuple[str, str]:
    """Compiles CUDA C++ ``source`` to PTX; returns ``(ptx, log)``, raises NvrtcError on failure."""
    ptx, log = _compile(source, options, name, "PTX")
    return ptx.rstrip(b"\0").decode(), log


def compile_cubin(source: str, options: Sequence[str], name: str = "fast.cu") -> tuple[bytes, str]:
    """Compiles ``source`` to a cubin (``options`` name a real architecture, ``sm_XY``): what the
    driver loads with no JIT step (:mod:`.cudadrv`). Returns ``(cubin, log)``."""
    return _compile(source, options, name, "CUBIN")


def _compile(source: str, options: Sequence[str], name: str, what: str) -> tuple[bytes, str]:
    """NVRTC's compile of ``source``, then its ``what`` (``PTX`` or ``CUBIN``) image and the log."""
    lib = load()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
           "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in options]
        argv = (ctypes.c_char_p * len(opts))(*opts)
        status = lib.nvrtcCompileProgram(prog, len(opts), argv)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")
        _check(lib, status, f"nvrtcCompileProgram {' '.join(options)}", log)
        _check(lib, getattr(lib, f"nvrtcGet{what}Size")(prog, ctypes.byref(size)), f"nvrtcGet{what}Size")
        image = ctypes.create_string_buffer(size.value)
        _check(lib, getattr(lib, f"nvrtcGet{what}")(prog, image), f"nvrtcGet{what}")
        return image.raw, log
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


@dataclass(frozen=True)
class CheckResult:
    """One compile of the kernel: what was asked, and NVRTC's log."""

    arch: str
    protocol: str
    warp_size: int
    ptx_bytes: int
    log: str


def check_kernel(archs: Iterable[str] = ARCHS, protocols: Iterable[str] = tuple(BUILDS),
                 warp_sizes: Iterable[int] = (32, 64)) -> list[CheckResult]:
    """Compiles the kernel for every combination; returns a :class:`CheckResult` per compile, raises
    NvrtcError on the first failure. 64-lane warps are checked for the protocols HIP builds."""
    out = []
    for arch in archs:
        for protocol in protocols:
            for ws in warp_sizes:
                if ws != 32 and protocol == "matchany":
                    continue
                ptx, log = compile_build(protocol, arch, ws)
                if f".entry {ENTRY}" not in ptx:
                    raise NvrtcError(f"{arch} {protocol} WARP_SIZE={ws}: no entry {ENTRY} in the PTX")
                out.append(CheckResult(arch, protocol, ws, len(ptx), log))
    return out


def compile_build(protocol: str, arch: str, warp_size: int = 32, published: bool = False,
                  extra: Sequence[str] = ()) -> tuple[str, str]:
    """Compiles one build to PTX as the backends do (:func:`kernel_file`, :func:`kernel_options`, the
    headers' ``-I``, ``arch``, ``extra``; ``-DLASSM_ALLOW_WIDE_WARP`` past 32 lanes); returns
    ``(ptx, log)``, raises :class:`NvrtcError` when NVRTC rejects the source."""
    path = kernel_source(kernel_file(protocol))
    opts = [*kernel_options(protocol, warp_size, published), *include_options(), f"--gpu-architecture={arch}"]
    if warp_size != 32:
        opts.append("-DLASSM_ALLOW_WIDE_WARP")
    return compile_ptx(path.read_text(), [*opts, *extra], name=path.name)

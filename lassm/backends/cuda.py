# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA backend: ``kernels/local_assembly/cuda/`` driven by CuPy, one warp per contig end.

Follows MetaHipMer's GPU layout: ends binned by read count (0 not launched, 1-9, >= 10), one
launch per bin (sliced to fit device memory), the k-shift loop on the device. Protocols
(``protocol=``): ``casptr`` (default, lock-free) and the published ``matchany``, ``doneflag``
and ``barrier``, made race-free; each equals the CPU oracle bit for bit. :mod:`.hip` reuses
this driver with 64-lane wavefronts.
"""
from __future__ import annotations

import dataclasses
import functools
import time

import numpy as np

from ..errors import BackendUnavailable
from .nvrtc import BUILDS, VARIANTS, Variant, include_options, kernel_file, kernel_options, launch_build, sources_digest
from ..paths import kernel_source
from ..workloads.local_assembly.dataset import Reads
from ..workloads.local_assembly.figures import SideFigures
from ..workloads.local_assembly.result import SideResult
from . import cuda_runtime, device_segments, launch
from .cuda_runtime import device_info, driver_info, is_driver, probe
from .cuda_runtime import RUNTIME_ENV, device_name, lean_runtime  # noqa: F401  (this backend's API, as the registry asks it)
from .cuda_slice import SliceRun, require_dtype, run_slice
from .launch import fast_table_slots, work_order
from .sides import Side, Sides

#: Warps per block unless told otherwise.
DEFAULT_BLOCK_WARPS = 4
#: Share of the free device memory one launch may use.
MEMORY_FRACTION = 0.8
#: What this backend builds (the sweep enumerates it): the four protocols and the fast variant.
PROTOCOLS: dict[str, str] = dict(BUILDS)
#: Label of the launch that holds every contig end (the one-launch variants).
ALL_ENDS = "all"
#: Share of the device budget a run's bases may take to stay resident (uploaded once, each launch
#: cut out on the device, :mod:`.device_segments`); past it, launches are gathered on the host.
RESIDENT_FRACTION = 0.5
#: :func:`extend_sides` takes ``left_ctgs=None`` and reverse-complements on the device.
revcomp_on_device = True


def visited_slots(max_walk: int) -> int:
    """Entries of fast's visited set: the power of two above ``max_walk`` (``fast_visited_slots``
    in the kernel; at most ``max_walk`` k-mers are recorded, so one entry stays empty)."""
    v = 1
    while v < int(max_walk) + 1:
        v *= 2
    return v


#: Shared memory a block team sums through with 32-lane warps (NVIDIA; RDNA under HIP): 32 warps x
#: 8 counters x 8 bytes (``Team<true>``); :func:`launch.team_scratch_bytes` gives any width's.
TEAM_SCRATCH_BYTES = launch.team_scratch_bytes(32)
#: Read bases from which a contig end gets a block team instead of a warp: about ten reads, the
#: size MetaHipMer's larger bin starts at.
TEAM_MIN_BASES = 1536
#: The same threshold in a launch of many ends per SM (:func:`lassm.backends.launch.many_ends`): there
#: the warps of the other ends keep every SM busy, and a block team's end waits on its team's
#: barriers. On the H100, gen-k21x20's walk kernel took 11.57 ms with block teams from 3072 bases,
#: 11.90 ms from 1536 and 13.42 ms from 768 (``lassm measure fast-knobs --team-bases``).
TEAM_MIN_BASES_SCALE = 3072


def fast_sort_region(max_walk: int, sort_bytes: int) -> int:
    """Bytes of a warp team's region in a sorted-table build (``fast_sort_region`` in the
    kernel): ``sort_bytes``, or the visited set's 16-bit entries where those take more, rounded to 16."""
    return (max(2 * visited_slots(max_walk), int(sort_bytes)) + 15) // 16 * 16


def fast_shared_bytes(block_warps: int, max_walk: int, shared_walk: bool = True, warp_size: int = 32,
                      ends_per_warp: int = 1, sort_bytes: int | None = None) -> int:
    """Dynamic shared memory of one block of a fast build: per warp team its walk buffer and (with
    ``shared_walk``) a 16-bit visited set, then the team scratch, then (``sort_bytes``) each team's
    sorted-table region.

    ``warp_size`` is the device's warp (wavefront) width; a block past
    :data:`launch.MAX_BLOCK_THREADS` threads is refused."""
    scratch = launch.team_scratch_bytes(warp_size, block_warps)
    if not shared_walk:
        return scratch
    if int(max_walk) >= 0xFFFF:
        raise ValueError(f"max_walk = {max_walk}: fast keeps walk offsets in 16 bits; use a walk limit below 65535")
    teams = int(block_warps) * int(ends_per_warp)
    if sort_bytes is not None:
        return teams * (launch.walk_stride(max_walk) + fast_sort_region(max_walk, sort_bytes)) + scratch
    return teams * (launch.walk_stride(max_walk) + 2 * visited_slots(max_walk)) + scratch


def launch_scratch(variant: Variant | None, n: int, block_warps: int, max_walk: int, warp_size: int,
                   ends_per_warp: int = 1) -> tuple[int, int]:
    """(visited-set entries in global memory, dynamic shared bytes of a block) of a launch of ``n``
    contig ends: the faithful kernels clear ``max_walk`` pointers per end themselves; fast keeps its
    visited set in shared memory (one placeholder entry), or, walking in global memory, epoch-tagged
    entries zeroed once. The CUDA and HIP-CPU hosts both size their launches with it."""
    if variant is None:
        return n * int(max_walk), 0
    if variant.shared_walk:
        return 1, fast_shared_bytes(block_warps, max_walk, warp_size=warp_size, ends_per_warp=ends_per_warp,
                                    sort_bytes=variant.sort_bytes)
    return n * visited_slots(max_walk), fast_shared_bytes(block_warps, max_walk, False, warp_size)


def team_count(read_bases: np.ndarray, min_bases: int | None = None) -> int:
    """How many leading ends of a launch (in work order) get a block team: those with at least
    ``min_bases`` read bases (default :data:`TEAM_MIN_BASES`)."""
    bases = np.asarray(read_bases, dtype=np.int64)
    small = np.flatnonzero(bases < (TEAM_MIN_BASES if min_bases is None else int(min_bases)))
    return int(small[0]) if len(small) else len(bases)


def launch_teams(read_bases: np.ndarray, multiprocessors: int, teams: bool, capped: bool) -> tuple[int, bool]:
    """``(block-team ends, many ends)`` of a launch whose ends, in work order, have ``read_bases``.

    Ends of at least :data:`TEAM_MIN_BASES` bases get a block team (none without ``teams``); with
    ``capped``, a launch whose other ends fill the device many times runs the many-ends build, its
    teams from :data:`TEAM_MIN_BASES_SCALE` bases."""
    n_team = team_count(read_bases) if teams else 0
    many = capped and launch.many_ends(len(read_bases) - n_team, int(multiprocessors))
    if many and teams:
        n_team = team_count(read_bases, TEAM_MIN_BASES_SCALE)
    return n_team, many


def _cupy():
    """CuPy, imported on first use so that this module imports without it."""
    return cuda_runtime.cupy_module()


def runtime_for(protocol: str | None, hip: bool = False):
    """The runtime of ``protocol``'s runs: :func:`lassm.backends.cuda_runtime.for_protocol`."""
    return cuda_runtime.for_protocol(protocol, hip)


def available() -> tuple[bool, str]:
    """Whether CuPy for CUDA and a CUDA device are present, and which; asked of the driver
    (:mod:`.cudadrv`) without importing CuPy, whose import the fast kernels do without."""
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        return False, "CuPy is not installed; install it with: pip install 'lassm[cuda12]' (cupy-cuda12x)"
    from . import cudadrv

    ok, why = cudadrv.available()
    return (True, why) if ok else (False, f"no CUDA driver or device: {why}")


@functools.lru_cache(maxsize=None)
def _kernel(options: tuple[str, ...], code: str):
    """The compiled ``iterative_walks_kernel``, memoized on the options and the source text."""
    cupy = _cupy()
    module = cupy.RawModule(code=code, options=options)
    return module.get_function("iterative_walks_kernel")


def kernel(protocol: str, warp_size: int, published: bool = False, scaled: bool = False, rt=None):
    """The kernel for ``protocol`` and ``warp_size``, compiled once per process; ``scaled`` picks the
    many-ends build, ``rt`` the runtime that loads it (default CuPy).

    The headers' digest rides as an unused ``-D``, so CuPy's disk cache never reuses a module built
    before a header changed."""
    name, code, options = _build(protocol, warp_size, published, scaled)
    if rt is not None and is_driver(rt):
        return rt.load(code, options, name.rsplit("/", 1)[-1], "iterative_walks_kernel")
    return _kernel(options, code)


def _build(protocol: str, warp_size: int, published: bool, scaled: bool) -> tuple[str, str, tuple[str, ...]]:
    """(file, source, options) of one build of the local-assembly kernel."""
    name = kernel_file(protocol)
    options = kernel_options(protocol, warp_size, published, scaled) + include_options()
    return name, kernel_source(name).read_text(), options + (f"-DLASSM_SOURCES_SHA256={sources_digest()}",)


def warm_up(protocol: str | None = None) -> None:
    """Makes the context and loads ``protocol``'s kernel and the segment kernels (from the disk
    cache): start-up that ``lassm extend`` overlaps with reading its input."""
    rt = runtime_for(protocol or "casptr")
    info = driver_info() if is_driver(rt) else device_info()
    variant = VARIANTS.get(protocol or "")
    if protocol and is_driver(rt) and variant is not None and variant.scale_registers is not None:
        # a many-ends build loads when used; its cubin is built now, beside the command, where none
        # is cached, so that the first command on a large input finds it (its compile cost seconds)
        name, code, options = _build(protocol, int(info["warp_size"]), False, True)
        rt.prebuild(code, options, name.rsplit("/", 1)[-1])
    kernel(protocol or "casptr", int(info["warp_size"]), rt=rt)
    device_segments.warm_up(rt)


def _validate(ctg_seqs: np.ndarray, ctg_off: np.ndarray, depths: np.ndarray, reads: Reads, run_mask: np.ndarray) -> int:
    require_dtype("ctg_seqs", ctg_seqs, np.uint8)
    require_dtype("ctg_off", ctg_off, np.int64)
    require_dtype("depths", depths, np.float64)
    require_dtype("reads.seqs", reads.seqs, np.uint8)
    require_dtype("reads.quals", reads.quals, np.uint8)
    require_dtype("reads.offsets", reads.offsets, np.int64)
    require_dtype("reads.contig_offsets", reads.contig_offsets, np.int64)
    n = len(ctg_off) - 1
    if len(depths) != n or len(run_mask) != n or len(reads.contig_offsets) != n + 1:
        raise ValueError("contigs, depths, run_mask and reads disagree on the number of contigs")
    return n


def extend_side_gpu(side: Side, protocol: str = "casptr", block_warps: int = DEFAULT_BLOCK_WARPS,
                    max_bytes: int | None = None, hip: bool = False, warp_size: int | None = None,
                    as_published: bool = False) -> SideResult:
    """The shared CUDA/HIP driver behind :func:`extend_side` (``hip`` picks the platform)."""
    ctg_seqs, ctg_off, depths, reads, run_mask, params, bin_counts = (
        side.ctg_seqs, side.ctg_off, side.depths, side.reads, side.run_mask, side.params, side.bin_counts)
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
    try:
        rt = runtime_for(protocol, hip)
    except ImportError:  # no CuPy for a protocol that needs it: the probe says so, naming what to install
        rt = None
    driver = rt is not None and is_driver(rt)
    ok, why = available() if driver else probe(hip)
    if not ok:
        raise BackendUnavailable(why)
    cupy = rt if driver else _cupy()
    n = _validate(ctg_seqs, ctg_off, depths, reads, run_mask)
    info = driver_info() if driver else device_info()
    ws = int(warp_size or info["warp_size"])
    build = launch_build(protocol, params.k)  # fast's sorted-table build at a small start k
    kern = kernel(build, ws, as_published, rt=cupy)
    parts: list[tuple[np.ndarray, SideResult]] = []
    counts = reads.counts.astype(np.int64) if bin_counts is None else np.asarray(bin_counts, dtype=np.int64)
    if len(counts) != n:
        raise ValueError(f"bin_counts has {len(counts)} entries for {n} contigs")
    max_read_len = int(reads.lengths.max(initial=0))
    variant = VARIANTS.get(build)
    slots_all = (launch.table_slots if variant is None else fast_table_slots)(counts, max_read_len)
    rd_bytes = reads.offsets[reads.contig_offsets[1:]] - reads.offsets[reads.contig_offsets[:-1]]
    nbytes = launch.end_bytes(np.diff(ctg_off), rd_bytes, reads.counts, slots_all, int(params.max_walk)).total
    if variant is not None and variant.one_launch:  # every end at once, the most read bases first
        groups = [(ALL_ENDS, work_order(np.flatnonzero(np.asarray(run_mask, dtype=bool)), rd_bytes))]
    else:
        groups = launch.bins(run_mask, counts)
    if max_bytes is None:
        free, _ = cupy.mem_get_info() if driver else cupy.cuda.runtime.memGetInfo()
        budget = int((free + cupy.get_default_memory_pool().free_bytes()) * MEMORY_FRACTION)
    else:
        budget = int(max_bytes)
    resident, source_bytes = None, int(ctg_seqs.nbytes + reads.seqs.nbytes + reads.quals.nbytes)
    t_up, on_device = time.perf_counter(), not isinstance(ctg_seqs, np.ndarray)
    if not hip and source_bytes <= budget * RESIDENT_FRACTION:
        pad = launch.PAD_BYTES  # fast's ends point into these (spans); the others' launches gather from them
        resident, budget = {"ctg": device_segments.padded(ctg_seqs, pad, rt=cupy),
                            "seqs": device_segments.padded(reads.seqs, pad, rt=cupy),
                            "quals": device_segments.padded(reads.quals, pad, rt=cupy),
                            "rd_off": cupy.asarray(reads.offsets)}, budget - source_bytes
    elif on_device:  # reverse-complemented on the device, too big to stay
        ctg_seqs = cupy.asnumpy(ctg_seqs)
    # The inputs copied up to stay, or contigs made on the device copied back to be gathered here.
    resident_upload = time.perf_counter() - t_up if resident is not None or on_device else 0.0
    launches = []
    high_water = 0
    run = SliceRun(ctg_seqs, ctg_off, depths, reads, params, int(block_warps), ws, variant=variant, hip=hip,
                   resident=resident, rt=cupy)
    # A launch of many ends runs the capped build of the build launch_build names for it.
    scale_build = launch_build(protocol, params.k, many_ends=True)
    scale_run = run if scale_build == build else dataclasses.replace(run, variant=VARIANTS.get(scale_build))
    for label, idx in groups:
        if not len(idx):
            continue
        for number, (a, b) in enumerate(launch.slices(nbytes[idx], budget)):
            index = idx[a:b]
            n_team, scaled = launch_teams(rd_bytes[index], int(info["multiprocessors"]),
                                          variant is not None and variant.block_teams,
                                          variant is not None and variant.scale_registers is not None and not hip)
            per_warp = 1 if variant is None else variant.ends_per_warp(ws)
            scratch = launch_scratch(variant, len(index), int(block_warps), int(params.max_walk), ws, per_warp)
            ran = scale_build if scaled else build
            part, seconds, used, clock = run_slice(scale_run if scaled else run,
                                                   kernel(ran, ws, as_published, True, rt=cupy) if scaled else kern,
                                                   index, slots_all[index], scratch, n_team=n_team)
            parts.append((index, part))
            high_water = max(high_water, used)
            launches.append({"bin": label, "slice": number, "contigs": int(len(index)), "seconds": seconds,
                             "bytes": int(nbytes[index].sum()), "block_teams": n_team, "build": ran,
                             "max_registers": variant.scale_registers if scaled and variant is not None else None,
                             **clock})
    # Ragged: the walked bases end to end (a dense result of 2.7 million ends would be 1.7 GB of host
    # memory, nearly all zeros, touched page by page), each launch's placed by one copy.
    out = SideResult.gathered(n, int(params.max_walk), parts)
    out.extra = SideFigures(
        backend="hip" if hip else "cuda",
        protocol=protocol,
        build=build,
        as_published=bool(as_published),
        warp_size=ws,
        block_warps=int(block_warps),
        launches=launches,
        resident_upload_seconds=resident_upload,
        mem_high_water_bytes=high_water,
        budget_bytes=budget,
        device=info["device"],
        compute_capability=info["compute_capability"],
        driver=info["driver"],
        hip=info["runtime"] if hip else None,
        cuda=None if hip else info["runtime"],
        cupy=info["cupy"],
        runtime_library="driver" if driver else ("hip" if hip else "cupy"),
        options=list(kernel_options(build, ws, as_published)),
        gathered_on="device" if resident is not None else "host",
    )
    return out


def extend_side(side: Side, protocol: str = "casptr", block_warps: int = DEFAULT_BLOCK_WARPS,
                max_bytes: int | None = None, as_published: bool = False) -> SideResult:
    """Walks one side of every contig whose ``run_mask`` is set, on the GPU; contigs arrive oriented.

    Parameters
    ----------
    side : the side (:class:`lassm.backends.sides.Side`); MetaHipMer bins by the larger side's read count.
    protocol : ``casptr`` (default), ``matchany``, ``doneflag``, ``barrier``, or ``fast``, the
        optimized variant (casptr's claim with epoch-tagged, per-k sized tables).
    max_bytes : device bytes one launch may use (default: a share of the free memory).
    as_published : build ``matchany`` or ``doneflag`` with their published races; results may then
        differ from the oracle.

    Returns
    -------
    SideResult, ``kernel_seconds`` summing the launches' CUDA-event times.
    """
    return extend_side_gpu(side, protocol=protocol, block_warps=block_warps, max_bytes=max_bytes, hip=False,
                           as_published=as_published)


def one_launch(protocol: str) -> bool:
    """Whether ``protocol`` walks both sides in one launch (:func:`extend_sides`)."""
    variant = VARIANTS.get(protocol)
    return variant is not None and variant.one_launch


#: Two sides as one list of ends, and back (shared with the OpenCL host: :mod:`.launch`).
_stack_reads = launch.stack_reads
_split = launch.split_sides


def extend_sides(sides: Sides, protocol: str = "fast", block_warps: int = DEFAULT_BLOCK_WARPS,
                 max_bytes: int | None = None, as_published: bool = False) -> tuple[SideResult, SideResult]:
    """Both sides in one launch (more only where memory forces slices): right ends as given and left
    ends (``left_ctgs``, or reverse-complemented on the device when None) stacked into 2n ends and
    scheduled together by work. Parameters as :func:`extend_side`; returns ``(right, left)``."""
    return extend_sides_gpu(sides, protocol=protocol, block_warps=block_warps, max_bytes=max_bytes,
                            as_published=as_published, hip=False)


def extend_sides_gpu(sides: Sides, protocol: str = "fast", block_warps: int = DEFAULT_BLOCK_WARPS,
                     max_bytes: int | None = None, as_published: bool = False,
                     hip: bool = False) -> tuple[SideResult, SideResult]:
    """The shared CUDA/HIP driver behind :func:`extend_sides` (``hip`` picks the platform, as in
    :func:`extend_side_gpu`)."""
    n = sides.n_contigs
    uploaded, ctgs = 0.0, None  # ctgs: both sides' contigs where made on the device, else stacked on the host
    if sides.left_ctgs is None and hip:  # the device reverse complement is checked on NVIDIA only
        raise ValueError("the hip backend takes left_ctgs: its contigs are reverse-complemented on the host")
    if sides.left_ctgs is None:  # the contigs go up once; their reverse complement is made there
        t_up = time.perf_counter()
        rt = runtime_for(protocol)
        d_right = rt.asarray(sides.right_ctgs)
        ctgs = rt.concatenate((d_right, device_segments.revcomp(d_right, sides.ctg_off, rt=rt)))
        uploaded = time.perf_counter() - t_up
    res = extend_side_gpu(sides.stacked(ctgs), protocol=protocol, block_warps=block_warps, max_bytes=max_bytes,
                          hip=hip, as_published=as_published)
    for lc in res.extra.launches:
        lc["side"] = "both"
    res.extra = dataclasses.replace(res.extra,
                                    resident_upload_seconds=(res.extra.resident_upload_seconds or 0.0) + uploaded)
    return _split(res, n)

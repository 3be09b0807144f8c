# SPDX-License-Identifier: BSD-3-Clause
"""What a backend reports beside one side's walks: its device, its build, its launches, its memory.

:class:`SideFigures` rides in ``SideResult.extra`` from the backend that fills it to the run
records, which pick its fields by name (``summary.json``: device, driver, protocol, warp size,
launch count, memory high-water; ``launches.parquet``: the launches). A field the backend does
not report stays ``None`` (the CPU oracle reports none), so that a record can tell "not measured"
from zero. A sharded run adds :class:`ShardedRun` to the right side: the figures of its shards.

The launches stay small mappings (:data:`Launch`): their keys differ from backend to backend and
become the columns of ``launches.parquet`` as they come, so a fixed type would have to hold the
union of every host's columns and would change those files.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: One launch, a row of ``launches.parquet``. Every GPU host writes ``bin`` (the read-count bin,
#: ``all`` when ends are ordered by work), ``slice`` (the slice's number in its bin), ``contigs``
#: (contig ends launched) and ``seconds`` (kernel seconds, by the host's :attr:`SideFigures.timer`).
#: Beside them, by host: ``bytes`` (read bases launched), ``block_teams``, ``build`` and
#: ``max_registers`` (CUDA, HIP); ``setup_seconds``, ``upload_seconds``, ``download_seconds``
#: (CUDA, HIP: wall seconds around the kernel); ``slots``, ``global``, ``local`` (OpenCL, SYCL:
#: hash-table slots and work sizes); ``blocks``, ``threads`` (HIP-CPU); ``side`` (``both``: a
#: stacked launch of both sides); ``shard`` (a sharded run's shard number).
Launch = dict[str, Any]


@dataclass(frozen=True)
class ShardedRun:
    """The figures of a run cut into shards (:mod:`lassm.runs.distributed`), on its right side only.

    Set by ``distributed.merge`` (the shards' figures, and the memory figures of
    ``memory.summarize``) and ``distributed.extend_sharded`` (the plan and the phases); read by
    the parent's record of a written run (``shard_files``) and by the strong-scaling study.
    """

    #: Shards in the plan.
    shards: int
    #: Kernel seconds of the slowest shard (both sides): the run's critical path.
    kernel_seconds_max_shard: float
    #: Kernel seconds summed over the shards: the work.
    kernel_seconds_sum: float
    #: Kernel seconds of each shard (both sides), in plan order.
    shard_kernel_seconds: list[float]
    #: Wall seconds of each shard's extension (its compaction excluded).
    shard_wall_seconds: list[float]
    #: Wall seconds of each shard's preparation (loading and cutting its data).
    shard_prep_seconds: list[float]
    #: Wall seconds of each shard's compaction into the ragged layout.
    shard_pack_seconds: list[float]
    #: Wall seconds each shard spent copying between host and device (None: its backend does not say).
    shard_transfer_seconds: list[float | None]
    #: Where each shard ran: ``host:gpu`` (``host:pid`` without a GPU).
    shard_places: list[str]
    #: GPUs the run used (0 on the CPU).
    gpus: int
    #: Worker processes the run used.
    workers: int
    #: Each shard's host peak resident bytes (None: not measured).
    shard_peak_rss_bytes: list[int | None]
    #: Each shard's device high-water bytes (None: its backend does not say).
    shard_device_high_water_bytes: list[int | None]
    #: Each shard's input bytes (contigs and reads).
    shard_input_bytes: list[int | None]
    #: Each shard's host memory budget, bytes (None: no cap).
    shard_budget_bytes: list[int | None]
    #: Pieces each shard was cut into to fit its budget.
    shard_pieces: list[int]
    #: How the host peaks were measured, each way once.
    host_peak_source: list[str]
    #: Where the budgets came from, each once.
    budget_source: list[str]
    #: Each worker's host peak bytes (its largest shard's), by place.
    worker_peak_rss_bytes: dict[str, int]
    #: Each worker's device high-water bytes, by place.
    worker_device_high_water_bytes: dict[str, int]
    #: The run's largest host peak, bytes (None: none measured).
    peak_rss_bytes: int | None
    #: The run's largest device high-water, bytes (None: none reported).
    device_high_water_bytes: int | None
    #: Each shard's estimated work (the plan's weights); set by ``extend_sharded``.
    shard_work: list[float] | None = None
    #: The plan's largest shard work over the mean; set by ``extend_sharded``.
    max_over_mean: float | None = None
    #: The bound on ``max_over_mean`` that the plan guarantees; set by ``extend_sharded``.
    bound: float | None = None
    #: Contigs in each shard; set by ``extend_sharded``.
    shard_contigs: list[int] | None = None
    #: Wall seconds spent planning the shards; set by ``extend_sharded``.
    plan_seconds: float | None = None
    #: Wall seconds from the shards' submission to their gathering; set by ``extend_sharded``.
    compute_wall_seconds: float | None = None
    #: Wall seconds merging the shards' walks; set by ``extend_sharded``.
    merge_seconds: float | None = None


@dataclass(frozen=True)
class SideFigures:
    """What a backend reports of one side's extension (``None``: not reported by that backend).

    The hosts that set each field are named in its comment: ``cuda`` and ``hip`` share one
    driver (:mod:`lassm.backends.cuda`), ``opencl`` and ``sycl`` another
    (:mod:`lassm.backends.clhost`, which ``opencl-ptx`` shares too: an opencl field is its field
    as well), ``hip-cpu`` has its own (:mod:`lassm.backends.hip_cpu`).
    """

    #: Which host made the side: ``cuda``, ``hip``, ``hip-cpu``, ``opencl``, ``opencl-ptx`` or ``sycl``;
    #: every GPU host.
    backend: str | None = None
    #: The device's name; every GPU host. Names the record's machine folder.
    device: str | None = None
    #: The driver's version: nvidia-smi's text or the CUDA driver API's number (cuda, hip), the
    #: OpenCL device's driver version (opencl, sycl).
    driver: str | int | None = None
    #: The device's compute capability, e.g. ``"90"`` (cuda, hip).
    compute_capability: str | None = None
    #: The CUDA runtime's version number (cuda).
    cuda: int | None = None
    #: The HIP runtime's version number (hip).
    hip: int | None = None
    #: CuPy's version (cuda, hip, opencl-ptx; ``None`` as well where the driver API launches without CuPy).
    cupy: str | None = None
    #: What loads and launches the kernels: ``driver``, ``cupy`` or ``hip`` (cuda, hip).
    runtime_library: str | None = None
    #: PyOpenCL's version (opencl).
    pyopencl: str | None = None
    #: dpctl's version (sycl).
    dpctl: str | None = None
    #: The HIP-CPU checkout's label (hip-cpu).
    hip_cpu: str | None = None
    #: The C++ compiler's version that built the driver (hip-cpu).
    compiler: str | None = None
    #: The collision protocol, e.g. ``casptr`` or ``fast``; every GPU host.
    protocol: str | None = None
    #: The kernel build launched (cuda, hip, hip-cpu).
    build: str | None = None
    #: Whether the protocol was built as published, races included (cuda, hip, hip-cpu).
    as_published: bool | None = None
    #: Lanes per contig end: warp, team or sub-group width; every GPU host.
    warp_size: int | None = None
    #: HIP-CPU's wavefront width (hip-cpu).
    wavefront: int | None = None
    #: Warps (contig ends) per block (cuda, hip, hip-cpu).
    block_warps: int | None = None
    #: Work-items per contig end (opencl).
    team: int | None = None
    #: Work-items of the wide teams of ``fast`` (opencl; ``None`` as well without wide teams).
    block_team: int | None = None
    #: The sub-group width (sycl).
    subgroup: int | None = None
    #: Sub-groups per work-group (sycl).
    block_subgroups: int | None = None
    #: Bits of a hash-table key, 32 or 64 (opencl, sycl).
    key_bits: int | None = None
    #: Whether the kernel was built with fp64 (opencl, sycl).
    fp64: bool | None = None
    #: The kernel's build options (cuda, hip, hip-cpu, opencl, sycl).
    options: list[str] | None = None
    #: Seconds spent building the kernel (opencl, sycl).
    build_seconds: float | None = None
    #: Device bytes one launch may use (cuda, hip, opencl, sycl).
    budget_bytes: int | None = None
    #: What times the launches: ``event profiling``, ``wall clock`` (opencl, sycl), ``CUDA events``
    #: (opencl-ptx) or ``driver wall clock`` (hip-cpu); CUDA events on cuda and hip, which leave it unset.
    timer: str | None = None
    #: Wall seconds from the first launch until the queue finished (opencl, sycl).
    wall_seconds: float | None = None
    #: Every launch in order (:data:`Launch`); empty for the CPU oracle and for the left half of a
    #: stacked launch, whose records stay with the right half.
    launches: list[Launch] = field(default_factory=list)
    #: Wall seconds copying the inputs that stay on the device (cuda, hip; 0.0 on the left half
    #: of a stacked launch, every host).
    resident_upload_seconds: float | None = None
    #: The most device bytes in use at once (cuda, hip, opencl, sycl; the shards' largest in a
    #: sharded run).
    mem_high_water_bytes: int | None = None
    #: Where the walks were gathered: ``device`` or ``host`` (cuda, hip).
    gathered_on: str | None = None
    #: A sharded run's figures, on its right side (:class:`ShardedRun`).
    sharded: ShardedRun | None = None

    def sharded_figures(self) -> ShardedRun:
        """:attr:`sharded`, where the caller holds the right side of a sharded run (raises elsewhere)."""
        if self.sharded is None:
            raise ValueError("these are not the figures of a sharded run's right side")
        return self.sharded


__all__ = ["Launch", "ShardedRun", "SideFigures"]

# SPDX-License-Identifier: BSD-3-Clause
"""k3, the connectivity-map p-value (Jin and Vetter): random signatures against a query's score.

HeCBench's ``cm-cuda`` p-value step: each random signature draws up- or down-regulated genes
from the reference profile (22,283 genes) with one uniform number per gene; the p-value is the
share scoring at least the query's. Jin and Vetter traced the portable gap to the random-number
library, so the variants differ in where numbers come from: a library (cuRAND; pyopencl's
Philox), our Philox-4x32-10 kernel, or ``fused`` (Philox in registers inside the scoring kernel).
A variant matches when its integer sums and count equal the reference's from the same numbers;
our Philox must draw the reference's numbers bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import (CUDA_LAUNCHED, Run, cuda_launched, cuda_time, device, opencl_input, opencl_kernel, opencl_queue,
                     opencl_time, round_up, sources)

NAME = "cmap"
#: The sources, and the kernel that scores the signatures (they also hold cmap_uniforms and cmap_count).
CUDA_KERNEL, OPENCL_KERNEL, ENTRY = sources(NAME, "cmap_scores")
#: Every kernel of a run, in launch order: the draw (ours), the scores, the count.
ENTRIES: tuple[str, ...] = ("cmap_uniforms", "cmap_scores", "cmap_count")
#: Genes of the reference profile: the Affymetrix U133A array's probes, as cudaMap's U133AArrayLength.
GENES = 22283
#: (random signatures, genes per signature) per size class: Jin and Vetter's 10^6 on a GPU, small on a CPU.
SIZES: dict[str, tuple[int, int]] = {"gpu": (1_000_000, 100), "cpu": (10_000, 100), "tiny": (37, 5)}
#: Threads per block of the three kernels, and the count's blocks.
THREADS = 256
COUNT_BLOCKS = 64
#: Runs take ``fetch``: a run whose output is not checked leaves its drawn numbers on the device
#: (:func:`lassm.backends.suite.common.unchecked_run`).
LARGE_OUTPUT = True
#: The generator's key: the two 32-bit words of the seed every variant draws with.
SEED = (0x5EED0001, 0x0000C0DE)
#: Variants: where the uniform numbers come from, per model.
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "cuda": {"philox": (), "curand": (), "fused": ()},
    "opencl": {"philox": (), "clrandom": (), "fused": ()},
}
#: ``opencl-ptx``: the OpenCL build launched by CUDA on one stream.
VARIANTS["opencl-ptx"] = {"philox": (), "fused": ()}
#: The variant whose one kernel draws, scores and counts (its entry, in the same sources).
OWN_SOURCES: dict[str, tuple[str, str, str]] = {"fused": (CUDA_KERNEL, OPENCL_KERNEL, "cmap_fused")}
#: The fused kernel's blocks per multiprocessor (each holds the profile: 44,566 bytes of shared memory).
FUSED_BLOCKS_PER_UNIT = 4
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)


@dataclass(frozen=True)
class Inputs:
    """The reference profile (signed ranks, int32), the signatures to draw and the query's sum."""

    profile: np.ndarray
    signatures: int
    set_size: int
    threshold: int

    @property
    def draws(self) -> int:
        return self.signatures * self.set_size


@dataclass
class Output:
    """What a run yields: the numbers it drew, every signature's sum, how many reach the query."""

    uniforms: np.ndarray | None  # None: drawn in registers and never stored (``fused``)
    sums: np.ndarray
    count: int

    @property
    def shape(self) -> tuple[int, ...]:
        return self.sums.shape


@dataclass
class Reference:
    """The reference's output from its own Philox numbers, with the inputs it came from."""

    inputs: Inputs
    output: Output


def philox4x32_10(counters: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """Philox-4x32-10 (Salmon et al., SC'11) of each row of ``counters`` (n x 4 uint32) under ``key``."""
    c = [counters[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    mask = np.uint64(0xFFFFFFFF)
    m0, m1 = np.uint64(PHILOX_M[0]), np.uint64(PHILOX_M[1])
    for r in range(10):
        if r:
            k0, k1 = (k0 + np.uint64(PHILOX_W[0])) & mask, (k1 + np.uint64(PHILOX_W[1])) & mask
        p0, p1 = m0 * c[0], m1 * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & mask]
    return np.stack(c, axis=1).astype(np.uint32)


def philox_uniforms(draws: int, key: tuple[int, int] = SEED, chunk: int = 1 << 22) -> np.ndarray:
    """Draws 0..draws-1 of the stream: word d % 4 of counter (d / 4, 0, 0, 0), as top-24-bit floats."""
    out = np.empty(draws, dtype=np.float32)
    blocks = -(-draws // 4)
    for start in range(0, blocks, chunk):
        idx = np.arange(start, min(start + chunk, blocks), dtype=np.uint64)
        ctr = np.zeros((len(idx), 4), dtype=np.uint32)
        ctr[:, 0], ctr[:, 1] = (idx & np.uint64(0xFFFFFFFF)).astype(np.uint32), (idx >> np.uint64(32)).astype(np.uint32)
        words = (philox4x32_10(ctr, key).reshape(-1) >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)
        lo = 4 * start
        out[lo:lo + min(len(words), draws - lo)] = words[:draws - lo]
    return out


def signed_genes(uniforms: np.ndarray, genes: int) -> tuple[np.ndarray, np.ndarray]:
    """cudaMap's selection of each draw: (gene, +1 or -1), in the kernels' single-precision steps."""
    n = np.float32(1.0) - uniforms.astype(np.float32)
    down = n >= np.float32(0.5)
    n = np.where(down, n - np.float32(0.5), n).astype(np.float32)
    g = np.minimum(np.floor(n * np.float32(2 * genes)).astype(np.int64), genes - 1)
    return g, np.where(down, -1, 1)


def score_sums(inp: Inputs, uniforms: np.ndarray) -> np.ndarray:
    """Every signature's signed sum of profile values (int64)."""
    g, sign = signed_genes(uniforms, len(inp.profile))
    return (sign * inp.profile[g].astype(np.int64)).reshape(inp.signatures, inp.set_size).sum(axis=1)


def inputs(size: str = "cpu", seed: int = 0) -> Inputs:
    """A profile of signed ranks (a permutation of the genes, centred) and a random query of the set's size."""
    signatures, set_size = SIZES[size]
    rng = np.random.default_rng(seed)
    profile = (GENES // 2 - rng.permutation(GENES)).astype(np.int32)
    genes = rng.choice(GENES, set_size, replace=False)
    signs = rng.choice([-1, 1], set_size)
    return Inputs(profile, signatures, set_size, int((signs * profile[genes].astype(np.int64)).sum()))


def reference(inp: Inputs) -> Reference:
    """The sums and count from the reference's own Philox draws (NumPy)."""
    u = philox_uniforms(inp.draws)
    sums = score_sums(inp, u)
    return Reference(inp, Output(u, sums, int(np.count_nonzero(sums >= inp.threshold))))


def check(output: Output, ref: Reference) -> tuple[bool, float]:
    """``(matches, signatures that differ)``: sums and count checked against the reference's from the
    same numbers (our Philox's must be the reference's own; ``fused`` keeps none and must give the
    reference's sums and count)."""
    inp = ref.inputs
    if output.sums.shape != (inp.signatures,):
        return False, float("inf")
    if output.uniforms is None:
        sums = ref.output.sums
    elif output.uniforms.shape != (inp.draws,):
        return False, float("inf")
    elif ref.output.uniforms is not None and np.array_equal(output.uniforms, ref.output.uniforms):
        sums = ref.output.sums  # the reference's own numbers: its sums are theirs (seconds not spent again)
    else:
        sums = score_sums(inp, output.uniforms)
    differ = int(np.count_nonzero(sums != output.sums)) + int(output.count != np.count_nonzero(sums >= inp.threshold))
    return differ == 0, float(differ)


def build_options(backend: str, variant: str) -> tuple[str, ...]:
    """The options every variant's kernels are built with (the variants differ in where the numbers come from)."""
    return (*VARIANTS[backend][variant], f"-DCMAP_THREADS={THREADS}", f"-DCMAP_GENES={GENES}")


def short_profile(inp: Inputs) -> np.ndarray:
    """The profile as the fused kernel holds it: :data:`GENES` 16-bit values (cudaMap's signed ranks fit)."""
    p = np.asarray(inp.profile)
    if p.shape != (GENES,) or int(np.abs(p.astype(np.int64)).max(initial=0)) > np.iinfo(np.int16).max:
        raise ValueError(f"the fused kernel holds a profile of {GENES} values within +-32,767, not {p.shape[0]} "
                         f"up to {int(np.abs(p.astype(np.int64)).max(initial=0)):,}")
    return p.astype(np.int16)


def run(backend: str, inp: Inputs, variant: str, *, fetch: bool = True) -> Run:
    """One p-value: draw (our kernel or the library), score, count; three or more launches, or one
    (``fused``). ``fetch=False`` leaves the drawn numbers on the device; the output keeps the sums
    and the count, from which the p-value comes."""
    if variant in OWN_SOURCES:
        return _fused(backend, inp, variant)
    n, draws = inp.signatures, inp.draws
    blocks = round_up(n, THREADS) // THREADS
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        kernels = {e: cuda_launched(backend, (CUDA_KERNEL, OPENCL_KERNEL), e, build_options(backend, variant))
                   for e in ENTRIES}
        profile = cupy.asarray(inp.profile)
        uniforms = cupy.empty(draws, dtype=cupy.float32)
        sums = cupy.empty(n, dtype=cupy.int64)
        partial = cupy.zeros(COUNT_BLOCKS, dtype=cupy.int32)
        generator = cupy.random.RandomState(seed=SEED[0]) if variant == "curand" else None

        def launch() -> int:
            nonlocal uniforms
            if generator is None:
                kernels["cmap_uniforms"]((round_up(-(-draws // 4), THREADS) // THREADS,), (THREADS,),
                                         (uniforms, np.int64(draws), np.uint32(SEED[0]), np.uint32(SEED[1])))
            else:
                uniforms = generator.random_sample(draws, dtype=cupy.float32)
            kernels["cmap_scores"]((blocks,), (THREADS,), (uniforms, profile, sums, np.int32(n),
                                                         np.int32(inp.set_size), np.int32(len(inp.profile))))
            kernels["cmap_count"]((COUNT_BLOCKS,), (THREADS,), (sums, np.int64(inp.threshold), np.int32(n), partial))
            return 3 if generator is None else 2  # ours; the library's own launches are counted by a profiler

        seconds, host, launches = cuda_time(launch)
        out = Output(cupy.asnumpy(uniforms) if fetch else None, cupy.asnumpy(sums), int(cupy.asnumpy(partial).sum()))
    else:
        from .. import opencl as ocl

        cl = ocl.cl
        queue = opencl_queue()
        kern = {e: opencl_kernel(OPENCL_KERNEL, e, build_options(backend, variant))
                for e in ENTRIES}
        mf = cl.mem_flags
        profile = opencl_input(queue, inp.profile)
        sums = cl.Buffer(queue.context, mf.READ_WRITE, size=8 * n)
        partial = cl.Buffer(queue.context, mf.READ_WRITE, size=4 * COUNT_BLOCKS)
        uniforms = None if variant == "clrandom" else cl.Buffer(queue.context, mf.READ_WRITE, size=4 * draws)
        ours = () if uniforms is None else (uniforms,)  # the library allocates its own inside the span

        def enqueue() -> list:
            nonlocal uniforms
            events = []
            if variant == "clrandom":
                import warnings

                from pyopencl import clrandom

                with warnings.catch_warnings():  # its build log is no error
                    warnings.simplefilter("ignore", cl.CompilerWarning)
                    drawn = clrandom.PhiloxGenerator(queue.context, seed=SEED[0]).uniform(queue, (draws,), np.float32)
                uniforms, events = drawn.data, list(drawn.events)
            else:
                kern["cmap_uniforms"].set_args(uniforms, np.int64(draws), np.uint32(SEED[0]), np.uint32(SEED[1]))
                events.append(cl.enqueue_nd_range_kernel(queue, kern["cmap_uniforms"],
                                                         (round_up(-(-draws // 4), THREADS),), (THREADS,)))
            kern["cmap_scores"].set_args(uniforms, profile, sums, np.int32(n), np.int32(inp.set_size),
                                         np.int32(len(inp.profile)))
            events.append(cl.enqueue_nd_range_kernel(queue, kern["cmap_scores"], (blocks * THREADS,), (THREADS,)))
            kern["cmap_count"].set_args(sums, np.int64(inp.threshold), np.int32(n), partial)
            events.append(cl.enqueue_nd_range_kernel(queue, kern["cmap_count"], (COUNT_BLOCKS * THREADS,),
                                                     (THREADS,)))
            return events

        seconds, host, launches = opencl_time(queue, enqueue, (profile, sums, partial, *ours))
        out = _opencl_output(queue, sums, partial, n, COUNT_BLOCKS, uniforms if fetch else None, draws)
    return _run(backend, variant, out, seconds, host, launches)


def _opencl_output(queue, sums, partial, n: int, blocks: int, uniforms=None, draws: int = 0) -> Output:
    """A run's output read back from its OpenCL buffers (the numbers too where ``uniforms`` is one)."""
    from .. import opencl as ocl

    cl = ocl.cl
    out = Output(None if uniforms is None else np.empty(draws, np.float32), np.empty(n, np.int64), 0)
    counts = np.empty(blocks, np.int32)
    if uniforms is not None and out.uniforms is not None:
        cl.enqueue_copy(queue, out.uniforms, uniforms)
    cl.enqueue_copy(queue, out.sums, sums)
    cl.enqueue_copy(queue, counts, partial).wait()
    out.count = int(counts.sum())
    return out


def _run(backend: str, variant: str, out: Output, seconds: float, host: float, launches: int) -> Run:
    """The run's record (its p-value is ``out.count / len(out.sums)``)."""
    name, driver = device(backend)
    return Run(NAME, backend, variant, out, seconds, host, launches, name, driver)


def _fused(backend: str, inp: Inputs, variant: str) -> Run:
    """``fused``: one launch draws, scores and counts; a grid of :data:`FUSED_BLOCKS_PER_UNIT`
    blocks per multiprocessor (compute unit), each block's signatures strided over the grid."""
    cu_src, cl_src, entry = OWN_SOURCES[variant]
    n, profile16 = inp.signatures, short_profile(inp)
    args = (np.int32(n), np.int32(inp.set_size), np.int64(inp.threshold), np.uint32(SEED[0]), np.uint32(SEED[1]))
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        kernel = cuda_launched(backend, (cu_src, cl_src), entry, build_options(backend, variant))
        blocks = FUSED_BLOCKS_PER_UNIT * int(cupy.cuda.Device().attributes["MultiProcessorCount"])
        profile = cupy.asarray(profile16)
        sums = cupy.empty(n, dtype=cupy.int64)
        partial = cupy.zeros(blocks, dtype=cupy.int32)

        def launch() -> int:
            kernel((blocks,), (THREADS,), (profile, sums, partial, *args))
            return 1

        seconds, host, launches = cuda_time(launch)
        out = Output(None, cupy.asnumpy(sums), int(cupy.asnumpy(partial).sum()))
    else:
        from .. import opencl as ocl

        cl = ocl.cl
        queue = opencl_queue()
        options = build_options(backend, variant)
        if queue.device.local_mem_size < profile16.nbytes + 4 * THREADS:  # Intel's CPU driver: 32 KiB
            options = (*options, "-DCMAP_GLOBAL_TABLE")
        kern = opencl_kernel(cl_src, entry, options)
        blocks = FUSED_BLOCKS_PER_UNIT * int(queue.device.max_compute_units)
        mf = cl.mem_flags
        profile = opencl_input(queue, profile16)
        sums = cl.Buffer(queue.context, mf.READ_WRITE, size=8 * n)
        partial = cl.Buffer(queue.context, mf.READ_WRITE, size=4 * blocks)
        kern.set_args(profile, sums, partial, *args)

        def enqueue() -> list:
            return [cl.enqueue_nd_range_kernel(queue, kern, (blocks * THREADS,), (THREADS,))]

        seconds, host, launches = opencl_time(queue, enqueue, (profile, sums, partial))
        out = _opencl_output(queue, sums, partial, n, blocks)
    return _run(backend, variant, out, seconds, host, launches)


def scored(backend: str, inp: Inputs, uniforms: np.ndarray, variant: str = "philox") -> Output:
    """Our score and count kernels (``variant``'s build) on numbers drawn elsewhere, such as an
    original program's own, laid out as ours: signature s's draws at s * set_size onwards. The
    comparison with HeCBench's ``cm-cuda`` needs it: its p-values come from its own numbers."""
    if backend not in CUDA_LAUNCHED:
        raise ValueError(f"scored runs on {', '.join(CUDA_LAUNCHED)}, not {backend}")
    if uniforms.shape != (inp.draws,):
        raise ValueError(f"{uniforms.size} numbers for {inp.signatures} signatures of {inp.set_size}")
    from .. import cuda as cu

    cupy = cu._cupy()
    n = inp.signatures
    kernels = {e: cuda_launched(backend, (CUDA_KERNEL, OPENCL_KERNEL), e, build_options(backend, variant))
               for e in ENTRIES[1:]}
    drawn = cupy.asarray(np.ascontiguousarray(uniforms, dtype=np.float32))
    sums = cupy.empty(n, dtype=cupy.int64)
    partial = cupy.zeros(COUNT_BLOCKS, dtype=cupy.int32)
    profile = cupy.asarray(np.asarray(inp.profile, dtype=np.int32))
    kernels["cmap_scores"]((round_up(n, THREADS) // THREADS,), (THREADS,),
                           (drawn, profile, sums, np.int32(n), np.int32(inp.set_size), np.int32(len(inp.profile))))
    kernels["cmap_count"]((COUNT_BLOCKS,), (THREADS,), (sums, np.int64(inp.threshold), np.int32(n), partial))
    return Output(np.asarray(uniforms, dtype=np.float32), cupy.asnumpy(sums), int(cupy.asnumpy(partial).sum()))


__all__ = ["CUDA_KERNEL", "ENTRIES", "ENTRY", "FUSED_BLOCKS_PER_UNIT", "GENES", "Inputs", "NAME", "OPENCL_KERNEL",
           "OWN_SOURCES", "Output", "Reference", "SEED", "SIZES", "THREADS", "VARIANTS", "build_options", "check", "inputs",
           "philox4x32_10", "philox_uniforms", "reference", "run", "score_sums", "scored", "short_profile", "signed_genes"]

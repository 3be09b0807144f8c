# SPDX-License-Identifier: BSD-3-Clause
"""k2, epistasis detection (Jin and Vetter): every pair of SNPs scored on the phenotype.

HeCBench's ``epistasis-cuda``: per pair (i < j), the 3 x 3 genotype counts per phenotype as
popcounts of bit-packed genotypes, scored ``|sum_c g(n0 + n1 + 1) - g(n0) - g(n1)|`` with
``g(n) = (n + 1/2) ln n - (n - 1)`` (0 becomes FLT_MAX). Jin and Vetter found only CUDA unrolled
the genotype loops: ``auto`` and ``unroll`` leave it to the compiler or ask with a pragma;
``margins``, our fastest shape, counts each SNP's margins once, then four popcounts a word per
pair. Counts are exact; a single-precision score matches within :data:`TOLERANCE` of the
double-precision reference, relative to the sum of its terms' sizes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import (CUDA_LAUNCHED, Run, cuda_launched, cuda_time, device, opencl_input, opencl_kernel,
                     opencl_launching, opencl_time, round_up, same_variants, sources)

NAME = "epistasis"
CUDA_KERNEL, OPENCL_KERNEL, ENTRY = sources(NAME)
#: Variants that are kernels of their own: (CUDA source, OpenCL source, entry of the pairs).
OWN_SOURCES: dict[str, tuple[str, str, str]] = {"margins": sources("epistasis_margins", "epistasis_pairs")}
#: The margins' kernel that ``margins`` launches first, and its threads per block.
MARGINS_ENTRY, MARGINS_THREADS = "epistasis_margins", 256
#: Every entry the variants launch.
ENTRIES: tuple[str, ...] = (ENTRY, MARGINS_ENTRY)
#: Threads (work-items) per block along each of its two dimensions.
BLOCK = 16
#: (SNPs, samples) per size class: Jin and Vetter's on a GPU, small on a CPU.
SIZES: dict[str, tuple[int, int]] = {"gpu": (4096, 8192), "cpu": (256, 1024), "tiny": (13, 70)}
#: A score's largest error, relative to the sum of its 27 terms' sizes (single-precision logs and sums).
TOLERANCE = 1e-5
#: Variants: build options (the unroll asked for or not), the same in every model.
VARIANTS: dict[str, dict[str, tuple[str, ...]]] = same_variants(
    {"auto": ("-DEPI_UNROLL=0",), "unroll": ("-DEPI_UNROLL=1",), "margins": ()})


@dataclass(frozen=True)
class Inputs:
    """Genotypes (samples x SNPs, 0/1/2), phenotypes (0/1) and the bit-packed form the kernels read."""

    genotypes: np.ndarray
    phenotypes: np.ndarray
    packed: tuple[np.ndarray, np.ndarray]
    words: tuple[int, int]
    masks: tuple[int, int]

    @property
    def snps(self) -> int:
        return self.genotypes.shape[1]


def pack(genotypes: np.ndarray) -> tuple[np.ndarray, int, int]:
    """One phenotype's samples as [word][snp][2] uint32 masks (genotype 0, genotype 1), the word
    count and the last word's mask of valid samples."""
    samples, snps = genotypes.shape
    words = -(-samples // 32)
    out = np.zeros((words, snps, 2), dtype=np.uint32)
    for s in range(samples):
        bit = np.uint32(1 << (s % 32))
        out[s // 32, :, 0] |= np.where(genotypes[s] == 0, bit, 0).astype(np.uint32)
        out[s // 32, :, 1] |= np.where(genotypes[s] == 1, bit, 0).astype(np.uint32)
    tail = samples % 32
    return out, words, (1 << tail) - 1 if tail else 0xFFFFFFFF


def inputs(size: str = "cpu", seed: int = 0) -> Inputs:
    """Genotypes uniform in {0, 1, 2} and phenotypes uniform in {0, 1}, drawn with ``seed``."""
    snps, samples = SIZES[size]
    rng = np.random.default_rng(seed)
    geno = rng.integers(0, 3, (samples, snps)).astype(np.uint8)
    return from_genotypes(geno, rng.integers(0, 2, samples).astype(np.uint8))


def from_genotypes(genotypes: np.ndarray, phenotypes: np.ndarray) -> Inputs:
    """The kernels' inputs of these genotypes (samples x SNPs) and phenotypes (one per sample)."""
    z, wz, mz = pack(genotypes[phenotypes == 0])
    o, wo, mo = pack(genotypes[phenotypes == 1])
    return Inputs(genotypes, phenotypes, (z, o), (wz, wo), (mz, mo))


def _g(n: np.ndarray) -> np.ndarray:
    n = n.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n == 0, 0.0, (n + 0.5) * np.log(np.where(n == 0, 1.0, n)) - (n - 1.0))


def tables(inp: Inputs, rows: slice = slice(None)) -> np.ndarray:
    """The exact int64 counts, [i][j][phenotype][3 x 3], of the SNP pairs whose i is in ``rows``: one
    single-precision matrix product per phenotype (partial sums stay below 2**24)."""
    g, snps = inp.genotypes, inp.snps
    first = range(snps)[rows]
    out = np.zeros((len(first), snps, 2, 9), dtype=np.int64)
    for c in (0, 1):
        samples = g[inp.phenotypes == c]
        if len(samples) >= 1 << 24:
            raise ValueError("more samples than single precision counts exactly")
        onehot = (samples[:, :, None] == np.arange(3)).astype(np.float32).reshape(len(samples), snps * 3)
        left = onehot.reshape(len(samples), snps, 3)[:, first.start:first.stop:first.step].reshape(len(samples), -1)
        both = (left.T @ onehot).reshape(len(first), 3, snps, 3).transpose(0, 2, 1, 3)
        out[:, :, c, :] = np.rint(both).astype(np.int64).reshape(len(first), snps, 9)
    return out


#: SNPs (rows of the score matrix) scored at once by :func:`reference`: bounds its memory.
REFERENCE_ROWS = 256


def reference(inp: Inputs) -> np.ndarray:
    """[0] the scores (i < j; 0 elsewhere), [1] each score's scale: the sum of its terms' sizes."""
    snps = inp.snps
    out = np.zeros((2, snps, snps))
    for start in range(0, snps, REFERENCE_ROWS):
        rows = slice(start, min(start + REFERENCE_ROWS, snps))
        t = tables(inp, rows)
        n0, n1 = t[:, :, 0, :], t[:, :, 1, :]
        terms = np.stack([_g(n0 + n1 + 1), -_g(n0), -_g(n1)], axis=-1)
        score = np.abs(terms.sum(axis=(-1, -2)))
        upper = np.arange(snps)[None, :] > np.arange(rows.start, rows.stop)[:, None]
        out[0, rows] = np.where(upper, np.where(score == 0.0, np.finfo(np.float32).max, score), 0.0)
        out[1, rows] = np.where(upper, np.abs(terms).sum(axis=(-1, -2)), 0.0)
    return out


def check(output: np.ndarray, ref: np.ndarray) -> tuple[bool, float]:
    """(every score within :data:`TOLERANCE` of its scale, the largest error so measured)."""
    score, scale = ref
    if output.shape != score.shape:
        return False, float("inf")
    err = np.abs(output.astype(np.float64) - score) / np.maximum(scale, 1.0)
    worst = float(err.max()) if err.size else 0.0
    return bool(np.isfinite(worst) and worst <= TOLERANCE), worst


def build_options(backend: str, variant: str) -> tuple[str, ...]:
    """The options ``variant`` is built with on ``backend`` (its PTX is made with the same)."""
    return (*VARIANTS[backend][variant], f"-DEPI_BLOCK={BLOCK}")


def _samples(inp: Inputs) -> tuple[np.uint32, np.uint32]:
    """Samples of each phenotype: the margins' ``N``."""
    return np.uint32(np.count_nonzero(inp.phenotypes == 0)), np.uint32(np.count_nonzero(inp.phenotypes == 1))


def run(backend: str, inp: Inputs, variant: str) -> Run:
    """One run of ``variant`` on ``backend``: a thread per pair of SNPs (after the margins' launch
    for ``margins``)."""
    options = build_options(backend, variant)
    cu_src, cl_src, entry = OWN_SOURCES.get(variant, (CUDA_KERNEL, OPENCL_KERNEL, ENTRY))
    own = variant in OWN_SOURCES
    snps = inp.snps
    out = np.zeros((snps, snps), dtype=np.float32)
    words = (np.int32(inp.words[0]), np.int32(inp.words[1]))
    args = ((np.int32(snps), *words, *_samples(inp)) if own
            else (np.int32(snps), *words, np.uint32(inp.masks[0]), np.uint32(inp.masks[1])))
    side = round_up(snps, BLOCK)
    margin_blocks = -(-snps // MARGINS_THREADS)
    if backend in CUDA_LAUNCHED:
        from .. import cuda as cu

        cupy = cu._cupy()
        fn = cuda_launched(backend, (cu_src, cl_src), entry, options)
        zeros, ones = (cupy.asarray(p if p.size else np.zeros(2, np.uint32)) for p in inp.packed)
        scores = cupy.zeros((snps, snps), dtype=cupy.float32)
        if own:
            margins_fn = cuda_launched(backend, (cu_src, cl_src), MARGINS_ENTRY, options)
            margins = cupy.zeros((2, snps, 2), dtype=cupy.uint32)

        def launch() -> int:
            if own:
                margins_fn((margin_blocks, 2), (MARGINS_THREADS,), (zeros, ones, margins, np.int32(snps), *words))
                fn((side // BLOCK, side // BLOCK), (BLOCK, BLOCK), (zeros, ones, margins, scores, *args))
                return 2
            fn((side // BLOCK, side // BLOCK), (BLOCK, BLOCK), (zeros, ones, scores, *args))
            return 1

        seconds, host, launches = cuda_time(launch)
        out[...] = cupy.asnumpy(scores)
    else:
        cl, kern, queue = opencl_launching(cl_src, entry, options)
        mf = cl.mem_flags
        zeros, ones = (opencl_input(queue, p if p.size else np.zeros(2, np.uint32)) for p in inp.packed)
        scores = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
        if own:
            margins_kern = opencl_kernel(cl_src, MARGINS_ENTRY, options)
            margins = cl.Buffer(queue.context, mf.READ_WRITE, size=2 * snps * 2 * 4)
            margins_kern.set_args(zeros, ones, margins, np.int32(snps), *words)
            kern.set_args(zeros, ones, margins, scores, *args)
        else:
            kern.set_args(zeros, ones, scores, *args)

        def enqueue() -> list:
            events = []
            if own:
                events.append(cl.enqueue_nd_range_kernel(queue, margins_kern, (margin_blocks * MARGINS_THREADS, 2),
                                                         (MARGINS_THREADS, 1)))
            events.append(cl.enqueue_nd_range_kernel(queue, kern, (side, side), (BLOCK, BLOCK)))
            return events

        seconds, host, launches = opencl_time(queue, enqueue, (zeros, ones, scores, *((margins,) if own else ())))
        cl.enqueue_copy(queue, out, scores).wait()
    name, driver = device(backend)
    return Run(NAME, backend, variant, out, seconds, host, launches, name, driver)


__all__ = ["BLOCK", "CUDA_KERNEL", "ENTRIES", "ENTRY", "Inputs", "MARGINS_ENTRY", "MARGINS_THREADS", "NAME",
           "OPENCL_KERNEL", "OWN_SOURCES", "SIZES", "TOLERANCE", "VARIANTS",
           "build_options", "check", "from_genotypes", "inputs", "pack", "reference", "run", "tables"]

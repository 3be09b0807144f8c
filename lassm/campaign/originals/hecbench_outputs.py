# SPDX-License-Identifier: BSD-3-Clause
"""Each HeCBench program's own output beside our CUDA kernel's, on the program's own inputs.

The programs print only a time and PASS/FAIL. Linked to the shared CUDA runtime and run with
``memcpy_capture.c`` preloaded, every ``cudaMemcpy`` in (inputs) and out (outputs) lands in a
file; our kernel runs on those inputs. Integer kernels (all-pairs distance, Needleman-Wunsch) are
compared cell for cell; floating-point ones (epistasis, Minkowski) within the suite's bound of
the double-precision reference, the largest difference reported. Epistasis's packed inputs are
redrawn from glibc's ``rand`` with its seed (:func:`glibc_rand`) and checked against the copies.
``cm-cuda`` draws on the host: :func:`cmap_compared`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

#: The library preloaded into the capture builds.
SHIM = Path(__file__).with_name("memcpy_capture.c")
#: Seconds a capture run may take.
CAPTURE_TIMEOUT = 300.0
_FILE = re.compile(r"^(\d{4})-(h2d|d2h)\.bin$")


@dataclass(frozen=True)
class Compared:
    """One program's output beside ours: equal (within the stated bound for floats), the size of the
    difference (cells that differ, or the largest relative difference) and what was compared."""

    equal: bool
    difference: float
    what: str


def glibc_rand(seed: int, count: int) -> np.ndarray:
    """The first ``count`` values of glibc's ``rand()`` after ``srand(seed)`` (its TYPE_3 additive
    generator: 31 words of state seeded by a Lehmer generator, 310 outputs discarded), int64."""
    from numba import njit

    @njit(cache=True)
    def draw(seed: int, count: int, out: np.ndarray) -> None:
        r = np.empty(count + 344, dtype=np.int64)
        r[0] = seed if seed != 0 else 1
        for i in range(1, 31):
            hi, lo = r[i - 1] // 127773, r[i - 1] % 127773
            word = 16807 * lo - 2836 * hi
            r[i] = word + 2147483647 if word < 0 else word
        for i in range(31, 34):
            r[i] = r[i - 31]
        for i in range(34, count + 344):
            r[i] = (r[i - 31] + r[i - 3]) & 0xFFFFFFFF
        for k in range(count):
            out[k] = r[k + 344] >> 1

    out = np.empty(int(count), dtype=np.int64)
    draw(int(seed), int(count), out)
    return out


def copies(folder: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(host-to-device, device-to-host) copies a capture run left in ``folder``, in call order, as bytes."""
    found = sorted((int(m.group(1)), m.group(2), p) for p in folder.iterdir() if (m := _FILE.match(p.name)))
    h2d = [np.fromfile(p, dtype=np.uint8) for _n, d, p in found if d == "h2d"]
    d2h = [np.fromfile(p, dtype=np.uint8) for _n, d, p in found if d == "d2h"]
    return h2d, d2h


def capture(program: Path, args: Sequence[str], shim: Path, folder: Path, timeout: float = CAPTURE_TIMEOUT) -> str:
    """Runs ``program args`` with ``shim`` preloaded, its copies written to ``folder``; returns its output."""
    from .timing import run

    return run([str(program), *args], timeout, env={"LD_PRELOAD": str(shim), "LASSM_CAPTURE": str(folder)})[1]


def _shaped(raw: np.ndarray, dtype, shape: tuple[int, ...], what: str) -> np.ndarray:
    data = raw.view(dtype)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{what}: {data.size} values copied, {int(np.prod(shape))} expected")
    return data.reshape(shape)


def _all_pairs(h2d, d2h, args, variant: str) -> Compared:
    from ...backends.suite import all_pairs

    rows, cols = all_pairs.SIZES["gpu"]
    data = _shaped(h2d[0], np.int8, (rows, cols), "all-pairs data")
    ours = all_pairs.run("cuda", all_pairs.Inputs(data.copy()), variant).output
    theirs = [_shaped(c, np.int32, (rows, rows), "all-pairs distances") for c in d2h]
    differ = sum(int(np.count_nonzero(t != ours)) for t in theirs)
    return Compared(differ == 0 and len(theirs) > 0, float(differ),
                    f"{rows} x {rows} distances of each of its {len(theirs)} kernels")


def _popcounts(words: np.ndarray) -> np.ndarray:
    return np.unpackbits(words.astype("<u4").view(np.uint8).reshape(*words.shape, 4), axis=-1).sum(axis=(-1, -2))


def _epistasis(h2d, d2h, args, variant: str) -> Compared:
    from ...backends.suite import epistasis

    samples, snps = int(args[0]), int(args[1])  # its arguments: samples, SNPs, iterations
    drawn = glibc_rand(100, samples * snps + samples)
    inp = epistasis.from_genotypes((drawn[:samples * snps] % 3).reshape(samples, snps).astype(np.uint8),
                                   (drawn[samples * snps:] % 2).astype(np.uint8))
    for ours, raw, name in zip(inp.packed, h2d[:2], ("zeros", "ones")):
        theirs = _shaped(raw, np.uint32, ours.shape, f"epistasis {name}")
        if not np.array_equal(_popcounts(theirs), _popcounts(ours)):
            raise ValueError(f"epistasis: the {name} drawn again are not the program's (glibc rand differs?)")
    upper = np.triu(np.ones((snps, snps), dtype=bool), 1)
    theirs = np.where(upper, _shaped(d2h[-1], np.float32, (snps, snps), "epistasis scores"), 0.0)
    ours = epistasis.run("cuda", inp, variant).read_back()
    ref = epistasis.reference(inp)
    both = epistasis.check(theirs, ref)[0] and epistasis.check(ours, ref)[0]
    diff = np.abs(theirs.astype(np.float64) - ours) / np.maximum(ref[1], 1.0)
    return Compared(bool(both), float(diff.max()), f"{snps * (snps - 1) // 2:,} scores, each within "
                    f"{epistasis.TOLERANCE:g} of its scale")


def _nw(h2d, d2h, args, variant: str) -> Compared:
    from ...backends.suite import nw

    n, penalty = int(args[0]), int(args[1])  # its arguments: length, penalty, iterations
    start = _shaped(h2d[0], np.int32, (n + 1, n + 1), "nw input_itemsets")
    ref = _shaped(h2d[1], np.int32, (n + 1, n + 1), "nw reference").copy()
    ref[0, :], ref[:, 0] = 0, 0  # never read (the program leaves them uninitialised)
    seq = np.zeros(n, dtype=np.int32)  # only their length is read
    ours = nw.run("cuda", nw.Inputs(seq, seq, ref, start.copy(), penalty), variant).output
    theirs = _shaped(d2h[-1], np.int32, (n + 1, n + 1), "nw output")
    differ = int(np.count_nonzero(theirs != ours))
    return Compared(differ == 0, float(differ), f"{(n + 1) ** 2:,} cells of the score matrix")


def _minkowski(h2d, d2h, args, variant: str) -> Compared:
    from ...backends.suite import minkowski

    m, n, k = minkowski.SIZES["gpu"]
    inp = minkowski.Inputs(_shaped(h2d[0], np.float32, (m, n), "minkowski a").copy(),
                           _shaped(h2d[1], np.float32, (n, k), "minkowski b").copy())
    theirs = np.stack([_shaped(c, np.float32, (m, k), "minkowski c") for c in d2h])
    ours = minkowski.run("cuda", inp, variant).read_back()
    ref = minkowski.reference(inp)
    both = minkowski.check(theirs, ref)[0] and minkowski.check(ours, ref)[0]
    diff = np.abs(theirs.astype(np.float64) - ours) / np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    return Compared(bool(both), float(diff.max()), f"{m} x {k} distances at p = 1 to {len(d2h)}, each within "
                    f"{minkowski.TOLERANCE:g} of the reference")


#: Signatures per block of cm-cuda's count (its ``threadsPerBlock``): its copies give one count per block.
CMAP_BLOCK = 128
#: Standard errors a share above the query may differ by between its draws and ours (plus one of its signatures).
CMAP_SIGMAS = 5.0


def _cmap_indices(draws: np.ndarray, genes: int) -> np.ndarray:
    """The profile index cm-cuda's kernel reads for each draw, in its single-precision steps
    (``1 - u``, less 1/2 where down-regulated, times the genes, times 2, rounded down); unclamped."""
    n = np.float32(1.0) - draws
    n = np.where(n >= np.float32(0.5), n - np.float32(0.5), n).astype(np.float32)
    return np.floor((n * np.float32(genes)) * np.float32(2.0)).astype(np.int64)


def _six(x: float) -> float:
    """``x`` as a C++ stream prints a double by default (6 significant digits), read back."""
    return float(f"{x:.6g}")


def cmap_compared(h2d: Sequence[np.ndarray], d2h: Sequence[np.ndarray], folder: Path, *,
                  scored: Callable, drawn: Callable, signatures: int) -> Compared:
    """cm-cuda's copies and results table (its data set in ``folder``) beside ours.

    Per drug the program copies in its profile and 100,000 x genes uniform numbers (draw t of
    signature s at t x 100,000 + s) and back one count per block of :data:`CMAP_BLOCK`. Two checks:

    - exact: ``scored(inputs, numbers)`` on its numbers with :func:`.cmap_data.threshold` gives every
      block's count, except where a draw's 1 - u rounds to 1 (u below 2^-25: its kernel reads one
      past the profile, ours clamps). Its printed table must hold the p-value, ENFP and significance
      of its counts and the query's score;
    - stochastic: ``drawn(inputs)`` (our own ``signatures`` numbers) within :data:`CMAP_SIGMAS`
      pooled standard errors of its share above the query, plus one signature.

    ``difference`` is a drug's largest count difference on its numbers."""
    from ...backends.suite import cmap
    from . import cmap_data as cd

    data = cd.read(folder)
    table = cd.read_results(folder)
    genes, n, drugs = len(data.probes), len(data.query_genes), len(data.files)
    if len(set(data.drugs)) != drugs:
        raise ValueError("cm-cuda's data set has a drug of several profiles: only one profile per drug is compared")
    if len(h2d) != 1 + 2 * drugs or len(d2h) != 2 * drugs or len(table) != drugs:
        raise ValueError(f"cm-cuda: {len(h2d)} copies in, {len(d2h)} back and {len(table)} results for {drugs} drugs "
                         f"({1 + 2 * drugs}, {2 * drugs} and {drugs} expected)")
    if not np.array_equal(_shaped(h2d[0], np.int32, (genes,), "cm-cuda query"), data.query_vector()):
        raise ValueError("cm-cuda: the query it copied is not the data set's")
    problems: list[str] = []
    worst, ratio, reads_past = 0, 0.0, 0
    for k, drug in enumerate(data.drugs):
        profile = _shaped(h2d[1 + 2 * k], np.int32, (genes,), f"cm-cuda {drug} profile")
        if not np.array_equal(profile, data.profiles[k]):
            raise ValueError(f"cm-cuda: the profile of {drug} it copied is not the data set's")
        raw = h2d[2 + 2 * k].view(np.float32)
        total = raw.size // n
        theirs = _shaped(h2d[2 + 2 * k], np.float32, (n, total), f"cm-cuda {drug} numbers")
        blocks = -(-total // CMAP_BLOCK)
        counted = _shaped(d2h[1 + 2 * k], np.int32, (blocks,), f"cm-cuda {drug} counts").astype(np.int64)
        dot = int(_shaped(d2h[2 * k], np.int32, (d2h[2 * k].size // 4,), "cm-cuda dot product").astype(np.int64).sum())
        want = int(data.dots()[k])
        if dot != want:
            problems.append(f"{drug}: its dot product {dot}, the data set's {want}")
        limit = cd.threshold(want, n, genes)
        out = scored(cmap.Inputs(profile.copy(), total, n, limit), np.ascontiguousarray(theirs.T).reshape(-1))
        above = np.zeros(blocks * CMAP_BLOCK, dtype=np.int64)
        above[:total] = out.sums >= limit
        ours = above.reshape(blocks, CMAP_BLOCK).sum(axis=1)
        past = np.zeros(blocks * CMAP_BLOCK, dtype=np.int64)
        past[:total] = (_cmap_indices(theirs, genes) >= genes).any(axis=0)
        past = past.reshape(blocks, CMAP_BLOCK).sum(axis=1)
        reads_past += int(past.sum())
        if out.count != int(ours.sum()):
            problems.append(f"{drug}: our count kernel {out.count}, our sums {int(ours.sum())}")
        beyond = int(np.count_nonzero(np.abs(counted - ours) > past))
        if beyond:
            problems.append(f"{drug}: {beyond} blocks' counts differ")
        mine, got = int(counted.sum()), table[k]
        worst = max(worst, abs(mine - out.count))
        p = cd.p_value(mine, total)
        printed = (got.compound, got.set_size, got.average_set_score, got.p_value, got.enfp, got.significant)
        if printed != (drug, 1, _six(want / cd.ucmax(n, genes)), _six(p), _six(p * cd.ENFP_DRUGS),
                       int(p * cd.ENFP_DRUGS < 1)):
            problems.append(f"{drug}: its printed row {printed} is not that of its own counts")
        own = drawn(cmap.Inputs(profile.copy(), int(signatures), n, limit)).count
        pooled = (mine + own) / (total + signatures)
        bound = CMAP_SIGMAS * np.sqrt(pooled * (1 - pooled) * (1 / total + 1 / signatures)) + 1 / total
        ratio = max(ratio, abs(mine / total - own / signatures) / bound)
    if ratio > 1:
        problems.append(f"with our own numbers a share above the query is {ratio:.2f} of its bound")
    what = (f"{drugs} p-values of {total:,} random signatures of {n} genes: its counts per block of {CMAP_BLOCK} "
            f"beside our kernels' on its own numbers ({reads_past} signatures read past its profile, each allowed "
            f"to differ); with our own {signatures:,} draws each, every share above the query within "
            f"{CMAP_SIGMAS:g} standard errors + 1/{total:,} (largest {ratio:.2f} of it)")
    if problems:
        what += f"; differs: {'; '.join(problems[:3])}"
    return Compared(not problems, float(worst), what)


def _cmap(h2d, d2h, args, variant: str) -> Compared:
    from ...backends.suite import cmap

    return cmap_compared(h2d, d2h, Path(args[0]), scored=lambda inp, u: cmap.scored("cuda", inp, u),
                         drawn=lambda inp: cmap.run("cuda", inp, variant).output, signatures=cmap.SIZES["gpu"][0])


_COMPARE = {"all_pairs": _all_pairs, "epistasis": _epistasis, "nw": _nw, "minkowski": _minkowski,
            "cmap": _cmap}


def compare(kernel: str, folder: Path, args: Sequence[str], variant: str) -> Compared:
    """The output in ``folder`` of a capture run of ``kernel``'s program (``args``) beside our CUDA
    kernel's (``variant``) on its inputs; ``ValueError`` when the copies are not those expected."""
    h2d, d2h = copies(folder)
    if not d2h:
        raise ValueError("the program copied nothing back (the capture library was not used)")
    return _COMPARE[kernel](h2d, d2h, tuple(args), variant)


__all__ = ["CAPTURE_TIMEOUT", "CMAP_BLOCK", "CMAP_SIGMAS", "SHIM", "Compared", "capture", "cmap_compared", "compare",
           "copies", "glibc_rand"]

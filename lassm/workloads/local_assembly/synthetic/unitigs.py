# SPDX-License-Identifier: BSD-3-Clause
"""Step 3, the contigs: unitigs of the de Bruijn graph of solid k-mers over the strain genomes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrays import unique
from .community import Community
from .sequencing import ReadIntervals

#: MetaHipMer's k-mer depth floor: k-mers seen fewer times are not in the graph.
MIN_KMER_COUNT = 2


def _kmer_ids(genome: np.ndarray, k: int) -> np.ndarray:
    """A 64-bit polynomial hash of every k-mer start (rolling, mod 2^64, odd base)."""
    n = len(genome)
    base = np.uint64(0x9E3779B97F4A7C15)
    inv = np.uint64(pow(int(base), -1, 1 << 64))
    with np.errstate(over="ignore"):
        pw = np.empty(n + 1, dtype=np.uint64)
        pw[0] = 1
        pw[1:] = base
        np.cumprod(pw, out=pw)
        ipw = np.empty(n, dtype=np.uint64)
        ipw[0] = 1
        ipw[1:] = inv
        np.cumprod(ipw, out=ipw)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum((genome.astype(np.uint64) + np.uint64(1)) * pw[:n], out=prefix[1:])
        m = n - k + 1
        h = (prefix[k:] - prefix[:m]) * ipw[:m]
    return h


@dataclass
class Unitigs:
    """Contigs (unitigs) and where each occurs in the strain genomes."""

    occ_start: np.ndarray  # genome start of each occurrence
    occ_end: np.ndarray  # genome end (exclusive)
    occ_contig: np.ndarray
    first_occ: np.ndarray  # one occurrence per contig (its sequence)
    depth: np.ndarray


def find_unitigs(com: Community, reads: ReadIntervals, k: int) -> Unitigs:
    """Unitigs of the graph of solid k-mers (count >= 2) over all strain genomes."""
    n = len(com.genome)
    m = n - k + 1
    pos = np.arange(m, dtype=np.int64)
    owner = np.searchsorted(com.starts, pos, side="right") - 1
    valid = pos + k <= com.starts[owner] + com.lengths[owner]
    # Reads containing each k-mer position (every read lies in one strain).
    diff = np.zeros(n + 1, dtype=np.int64)
    ok = reads.end - reads.start >= k
    np.add.at(diff, reads.start[ok], 1)
    np.add.at(diff, reads.end[ok] - k + 1, -1)
    per_pos = np.cumsum(diff[:m])
    h = _kmer_ids(com.genome, k)
    uniq, uid, _ = unique(h[valid])
    full_uid = np.full(m, -1, dtype=np.int64)
    full_uid[valid] = uid
    count = np.bincount(uid, weights=per_pos[valid], minlength=len(uniq))
    solid = valid.copy()
    solid[valid] = count[uid] >= MIN_KMER_COUNT
    pair = solid[:-1] & solid[1:]
    src, dst = full_uid[:-1][pair], full_uid[1:][pair]
    nu = np.int64(len(uniq))
    edges = unique(src * nu + dst)[0]
    outdeg = np.bincount(edges // nu, minlength=len(uniq))
    indeg = np.bincount(edges % nu, minlength=len(uniq))
    link = np.zeros(m, dtype=bool)
    link[:-1][pair] = (outdeg[src] == 1) & (indeg[dst] == 1)
    prev_link = np.zeros(m, dtype=bool)
    prev_link[1:] = link[:-1]
    run_start = np.flatnonzero(solid & ~prev_link)
    run_end = np.flatnonzero(solid & ~link)
    key = full_uid[run_start] * nu + full_uid[run_end]
    _, occ_contig, first_occ = unique(key)
    # Depth: mean k-mer count along the contig.
    kc = np.where(solid, count[np.maximum(full_uid, 0)], 0.0)
    csum = np.concatenate([[0.0], np.cumsum(kc)])
    fs, fe = run_start[first_occ], run_end[first_occ]
    depth = (csum[fe + 1] - csum[fs]) / (fe - fs + 1)
    return Unitigs(run_start, run_end + k, occ_contig.ravel(), first_occ, depth)

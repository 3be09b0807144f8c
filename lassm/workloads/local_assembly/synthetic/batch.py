# SPDX-License-Identifier: BSD-3-Clause
"""One simulated community, steps 1 to 5 in turn, reduced to the contigs, depths and selected
reads that the extraction draws from.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ....byte_sets import offsets_of
from .arrays import ASCII, ranges, unique
from .community import make_community
from .earlier_rounds import MHM_KS, PRE_K, join_rounds, new_tails, walk_ext
from .end_reads import PAIR_SPAN, align_reads, seed_index, select_end_reads
from .profiles import Profile
from .generator_progress import Steps
from .sequencing import ReadBases, read_bases, sequence_reads
from .unitigs import find_unitigs

#: Bases (0, 1, 2) a contig end stops short of its earlier walk, with these probabilities: the
#: sample's walks of 0, 1 and 2 bases (29, 51 and 11 % of its ends), normalised.
TRIM_P = (0.32, 0.56, 0.12)


@dataclass
class Batch:
    """One simulated community, reduced to what the extraction needs."""

    contig_seq: np.ndarray  # ASCII bases, flat
    contig_off: np.ndarray
    depth: np.ndarray
    has_reads: np.ndarray
    sel_contig: np.ndarray
    sel_side: np.ndarray
    sel_read: np.ndarray  # index into frag / first / bases
    frag: np.ndarray  # fragment number of each kept read
    first: np.ndarray  # whether it is ``/1``
    n_frags: int
    bases: ReadBases  # the kept reads only


def batch_steps(k: int) -> int:
    """Progress steps of one :func:`simulate_batch` at ``k``."""
    return 5 + sum(x < k for x in MHM_KS)


def simulate_batch(rng: np.random.Generator, ref_bases: int, prof: Profile, k: int, steps: Steps) -> Batch:
    """Community, reads, graph, earlier rounds' extension and read selection."""
    com = steps.step(f"community ({ref_bases / 1e3:,.0f} kb of genomes)", make_community, rng, ref_bases, prof)
    reads = steps.step(f"reads ({len(com.genome) / 1e6:.1f} Mb of strains)", sequence_reads, rng, com, prof)
    utg = steps.step(f"de Bruijn graph at k={k}", find_unitigs, com, reads, k)
    rb = steps.step(f"bases and qualities ({len(reads.start):,} reads)", read_bases, rng, com, reads)
    n_c = len(utg.first_occ)
    p, e = utg.occ_start, utg.occ_end
    seeds = seed_index(com, reads, rb, k)
    # Earlier rounds' local assembly: extend every end to where its reads stop agreeing.
    fs, fe = p[utg.first_occ], e[utg.first_occ]
    cols = np.arange(k)
    tails = np.empty((2 * n_c, k), dtype=np.uint8)
    tails[0::2] = com.genome[fs[:, None] + cols[None, :]]
    tails[1::2] = com.genome[fe[:, None] - 1 - cols[None, :]]
    llen = np.zeros(n_c, dtype=np.int64)
    rlen = np.zeros(n_c, dtype=np.int64)
    lparts: list[tuple[np.ndarray, np.ndarray]] = []
    rparts: list[tuple[np.ndarray, np.ndarray]] = []
    rounds = sum(x < k for x in MHM_KS)
    for i in range(rounds):
        steps.stage(f"earlier round {i + 1}/{rounds} ({n_c:,} contigs)")
        p2 = p - llen[utg.occ_contig]
        e2 = e + rlen[utg.occ_contig]
        occ, r = align_reads(reads, rb, seeds, p2, e2, k)
        chosen = select_end_reads(reads, occ, r, p2, e2, PAIR_SPAN)
        length, bases = walk_ext(reads, rb, chosen, replace(utg, occ_start=p2, occ_end=e2), tails, PRE_K)
        tails = new_tails(tails, length, bases)
        is_right = np.repeat(np.arange(2 * n_c) % 2 == 1, length)
        rparts.append((length[1::2], bases[is_right]))
        lparts.append((length[0::2], bases[~is_right]))
        rlen += length[1::2]
        llen += length[0::2]
        steps.advance()
        if not length.any():
            steps.advance(rounds - 1 - i)
            break
    steps.stage("read selection")
    rext = join_rounds(rparts, n_c)
    lext = join_rounds(lparts, n_c)
    # MetaHipMer's graph traversal leaves out the k-mer where a walk stopped, so most contig
    # ends sit a base or two short of where their reads stop agreeing, and the kernel walks
    # those bases again: 0/1/2 bases in the sample's proportions (of its ends with reads, 29 %
    # walk no base, 51 % one, 11 % two).
    ulen = fe - fs
    t = rng.choice(3, size=2 * n_c, p=TRIM_P)
    trim_l = np.minimum(t[0::2], llen + ulen - k)
    used = np.maximum(trim_l - llen, 0)
    trim_r = np.minimum(t[1::2], rlen + ulen - k - used)
    lshift = llen - trim_l
    rshift = rlen - trim_r
    p2 = p - lshift[utg.occ_contig]
    e2 = e + rshift[utg.occ_contig]
    occ, r = align_reads(reads, rb, seeds, p2, e2, k)
    chosen = select_end_reads(reads, occ, r, p2, e2, PAIR_SPAN)
    sel_c, sel_s, sel_r = utg.occ_contig[chosen.occ], chosen.side, chosen.read
    nr = len(reads.start)
    key = unique((sel_c * 2 + sel_s) * nr + sel_r)[0]
    sel_c, sel_s, sel_r = key // nr // 2, (key // nr) % 2, key % nr
    # Contig = left walk (reversed to forward order) + unitig (trimmed) + right walk.
    lkeep, rkeep = np.maximum(lshift, 0), np.maximum(rshift, 0)
    u0 = fs + np.maximum(-lshift, 0)
    u1 = fe - np.maximum(-rshift, 0)
    lens = lkeep + (u1 - u0) + rkeep
    off = offsets_of(lens)
    seq = np.empty(off[-1], dtype=np.uint8)
    _, dst = ranges(off[:-1] + lkeep, u1 - u0)
    _, src = ranges(u0, u1 - u0)
    seq[dst] = com.genome[src]
    _, dst = ranges(off[1:] - rkeep, rkeep)
    _, src = ranges(np.cumsum(rlen) - rlen, rkeep)
    seq[dst] = rext[src]
    owner, src = ranges(np.cumsum(llen) - llen, lkeep)
    first = np.cumsum(lkeep) - lkeep
    seq[off[:-1][owner] + lkeep[owner] - 1 - (np.arange(len(owner)) - first[owner])] = lext[src]
    has = np.zeros(n_c, dtype=bool)
    has[sel_c] = True
    # Keep only the reads some contig end uses.
    kept, sel_r, _ = unique(sel_r)
    klen = np.diff(rb.offsets)[kept]
    koff = offsets_of(klen)
    _, src = ranges(rb.offsets[kept], klen)
    kept_bases = ReadBases(rb.seqs[src], rb.quals[src], koff)
    steps.advance()
    return Batch(ASCII[seq], off, utg.depth, has, sel_c, sel_s, sel_r, reads.frag[kept],
                  reads.first[kept], int(reads.frag.max(initial=-1)) + 1, kept_bases)

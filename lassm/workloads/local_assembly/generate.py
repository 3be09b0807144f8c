# SPDX-License-Identifier: BSD-3-Clause
"""A synthetic metagenome in MetaHipMer's local-assembly input form, calibrated to Table II.

The paper's k = 21/33/55 datasets are not public and the k = 77 one (``data/metahipmer-sample``,
whose figures are Table II's row) is small, so scale runs need generated data; and it must look
like the real thing to the kernel: contig ends where the de Bruijn graph forks or coverage runs
out, reads of several strains, low-quality bases that cast no votes, merged pairs. The generator
follows MetaHipMer's pipeline in miniature:

1. **Community.** Species genomes (random, GC 30-70 %, short:
   ``synthetic.community.GENOME_MEDIAN``) with diverged internal repeats and short tandem
   repeats. A species has 1-4 strains (SNPs and 1-4 bp indels against a common reference);
   species abundance is log-normal, strain shares Dirichlet.
2. **Sequencing.** Read pairs (2 x 150 bp) from normally distributed fragments; mates that
   overlap by >= 12 bases are merged into one read of up to 288 bp, as in the sample. Qualities
   follow the sample: mostly ``@`` (Q31), mid values as in its histogram, ``$`` (Q3) growing
   towards the 3' end, per-read variation. Substitutions occur with probability
   ``0.66 x 10^(-Q/10)`` (fitted on the sample's reads against their contigs: Q3 bases are
   wrong a third of the time, Q31 bases 1 in 2,000). In a merged overlap the better base wins;
   a disagreement becomes ``#`` (Q2), as in the sample.
3. **Contigs.** Unitigs of the de Bruijn graph at k of the strain genomes, over k-mers that two
   or more reads cover (MetaHipMer's depth floor; the sample's depths start at 2.0): a contig
   ends where a k-mer has several successors (strain SNP, repeat copy), the next k-mer several
   predecessors, or coverage drops. Depth is the mean k-mer count.
4. **Read selection**, as MetaHipMer's ``localassm`` does it: a read aligns to a contig where it
   holds an error-free k-mer of it (a seed), and keeps only its best (longest) alignment; it
   goes to the end it runs off, and its mate is projected to the end it points at when the pair
   could reach past it (``min_pair_len`` = ``synthetic.end_reads.PAIR_SPAN``). Right reads are
   stored forward, left reads reverse complemented.
5. **Earlier rounds.** MetaHipMer runs local assembly at k = 21, 33, 55, 77 in turn, feeding
   each round's extended contigs to the next, so a dataset at k holds contigs that every
   smaller k already walked (``synthetic.earlier_rounds.walk_ext``: the kernel's vote rules,
   column by column, then reselection) and that stop a base or two short of that walk
   (``synthetic.batch.TRIM_P``). That is why the kernel's walks are short: the sample's ends
   walk 0 (30 %), 1 (52 %) or 2 (11 %) bases.
6. **Extraction.** Like the paper, a dataset is cut from a larger assembly (:data:`POOL_KB`):
   ``round(scale x contigs)`` random contigs with reads, and the same share of contigs without
   (MetaHipMer's rules leave many short contigs without reads: about 79 % at k = 21 and 27 % at
   k = 77, against 23 % in the sample).

Calibration (``synthetic.profiles.PROFILES``): the per-k knobs were tuned against
:data:`lassm.workloads.local_assembly.stats.PAPER_TABLE2` by running the numba CPU kernel on
the generated data and taking :func:`lassm.workloads.local_assembly.stats.table2_row`
(``tests/test_generate.py`` repeats that check at scale 1), over several seeds:

* ``frag_mean`` sets the share of merged pairs and so ``avg read length`` (155/159/166/175);
* ``cov_median`` sets reads per contig (5.22/4.65/3.97/3.08);
* ``snp_rate`` and ``strains`` set how often the graph forks and so contig length, the bulk of
  ``avg extension length`` (48.2/88.2/161/227);
* ``contigs`` is Table II's count of contigs with reads (the scale-1 size).

Other k values interpolate the profiles linearly (clamped outside 21..77). Only numpy and the
standard library are used: the generator must run on GPU nodes that lack numba and pyarrow.

Each step is a module of :mod:`lassm.workloads.local_assembly.synthetic` (``community``,
``sequencing``, ``unitigs``, ``end_reads``, ``earlier_rounds``, ``profiles``; ``batch`` runs steps
1-5 on one community, ``extract`` is step 6); this module sizes the pool and draws the batches.
"""
from __future__ import annotations

import numpy as np

from ...errors import LassmError
from .dataset import Dataset
from .synthetic.batch import Batch, batch_steps, simulate_batch
from .synthetic.extract import extract
from .synthetic.profiles import profile_for
from .synthetic.progress import Steps

#: Reference bases (kb) the extraction draws from, where that is at most 3x what it keeps.
POOL_KB = 1200
#: Largest community simulated at once (kb of reference); larger datasets take several, which
#: bounds memory (about 0.7 GB at k = 21).
MAX_BATCH_KB = 1500


#: The generator's peak memory per contig with reads it makes: 26 kB measured at k = 21 (scale 2,
#: the largest profile), rounded up.
PEAK_BYTES_PER_CONTIG = 32_000


def check_fits(k: int, scale: float, what: str = "--scale") -> None:
    """Refuses a ``scale`` whose contigs would not fit this machine's memory (:mod:`lassm.fits`)."""
    from ...fits import refuse_beyond

    contigs = profile_for(int(k)).contigs
    try:
        refuse_beyond(what, scale, contigs * PEAK_BYTES_PER_CONTIG)
    except LassmError as exc:
        raise LassmError(f"{exc} (as a scale of Table II's {contigs:,.0f} contigs at k = {k})") from None


def generate(k: int, scale: float = 1.0, seed: int = 0, progress: bool = False) -> Dataset:
    """A synthetic local-assembly dataset for start ``k``, sized ``scale`` x Table II's row.

    Parameters
    ----------
    k : start k (21..121); the profile is calibrated at 21, 33, 55 and 77.
    scale : 1 gives Table II's number of contigs with reads at ``k``.
    seed : seed of ``numpy.random.default_rng``; the output is a function of (k, scale, seed).
    progress : show a rich progress bar.

    Returns
    -------
    Dataset named ``gen-k{k}-s{scale}-seed{seed}`` (``gen-k21-s1.0-seed0``), a name
    :func:`lassm.workloads.local_assembly.datasets.load` reads back.
    """
    k = int(k)
    if not 21 <= k <= 121:
        raise ValueError(f"k = {k} is outside 21..121")
    if not scale > 0:
        raise ValueError(f"scale = {scale} must be positive")
    check_fits(k, scale, f"scale {scale:g}")
    prof = profile_for(k)
    rng = np.random.default_rng(seed)
    target = max(1, int(round(prof.contigs * scale)))
    steps = Steps(progress, batch_steps(k) + 1, f"generate k={k} scale={scale:g}")
    with steps.running():
        batches: list[Batch] = []
        have = 0
        need_kb = target / prof.yield_per_kb
        # Draw from a pool of at least POOL_KB (up to 3x the need): more species, steadier figures.
        need_kb = need_kb * max(1.1, min(3.0, POOL_KB / need_kb)) + 20
        while have < target:
            if batches:
                steps.add_total(batch_steps(k))
            bt = simulate_batch(rng, int(min(need_kb, MAX_BATCH_KB) * 1000), prof, k, steps)
            batches.append(bt)
            got = int(bt.has_reads.sum())
            have += got
            need_kb = (target - have) / max(got, 1) * min(need_kb, MAX_BATCH_KB) * 1.2 + 20
        steps.stage(f"extract {target:,} contigs with reads")
        ds = extract(rng, batches, target, k, f"gen-k{k}-s{float(scale)}-seed{seed}")
        steps.stage(f"{ds.n_contigs:,} contigs, {ds.left.n_reads + ds.right.n_reads:,} reads")
        steps.advance()
    return ds

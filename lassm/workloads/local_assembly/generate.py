# SPDX-License-Identifier: BSD-3-Clause
"""A synthetic metagenome in MetaHipMer's local-assembly input form, calibrated to Table II.

The paper's k = 21/33/55 datasets are not public and the k = 77 sample is small, so scale runs
need generated data that looks real to the kernel. The steps follow MetaHipMer's pipeline in
miniature, each a module of :mod:`lassm.workloads.local_assembly.synthetic`: ``community``
(genomes with repeats and strains), ``sequencing`` (pairs, merged mates, the sample's qualities
and error rates), ``unitigs`` (de Bruijn contigs over k-mers two reads cover), ``end_reads``
(``localassm``'s read selection), ``earlier_rounds`` (contigs already walked at every smaller k,
which is why walks are short) and ``extract`` (``round(scale x contigs)`` contigs with reads
from a larger pool, :data:`POOL_KB`, plus the matching share without).

The per-k knobs (``synthetic.profiles.PROFILES``) are tuned so that
:func:`lassm.workloads.local_assembly.stats.table2_row` meets
:data:`lassm.workloads.local_assembly.stats.PAPER_TABLE2` (``tests/workloads/test_generate.py`` checks at
scale 1); other k interpolate linearly, clamped to 21..77. Only numpy and the standard library:
GPU nodes may lack numba and pyarrow.
"""
from __future__ import annotations

import numpy as np

from ...errors import LassmError
from .dataset import Dataset
from .synthetic.batch import Batch, batch_steps, simulate_batch
from .synthetic.extract import extract
from .synthetic.profiles import profile_for
from .synthetic.generator_progress import Steps

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
    """A synthetic local-assembly dataset for start ``k`` (21..121; calibrated at 21, 33, 55, 77),
    ``scale`` x Table II's contigs with reads, a function of (k, scale, seed) alone.

    Named ``gen-k{k}-s{scale}-seed{seed}``, a name
    :func:`lassm.workloads.local_assembly.datasets.load` reads back; ``progress`` shows a rich bar."""
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

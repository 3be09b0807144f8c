# SPDX-License-Identifier: BSD-3-Clause
"""The per-k knobs of the simulation, calibrated to Table II (``generate``'s docstring says
what each one calibrates), and their interpolation at other k.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Profile:
    """Per-k knobs of the simulation (what each calibrates: :mod:`lassm.workloads.local_assembly.generate`).

    Parameters
    ----------
    contigs : contigs with reads at scale 1 (Table II).
    cov_median, cov_sigma : species read coverage, log-normal.
    snp_rate : per-strain SNP rate against the species reference.
    strains : mean number of extra strains per species (Poisson, capped at 3).
    yield_per_kb : contigs with reads per kb of reference genome, as measured (sizes the pool).
    """

    contigs: float
    frag_mean: float
    frag_sd: float
    cov_median: float
    cov_sigma: float
    snp_rate: float
    strains: float
    yield_per_kb: float

#: Calibrated profiles (k -> knobs); targets from :data:`lassm.workloads.local_assembly.stats.PAPER_TABLE2`.
PROFILES: dict[int, Profile] = {
    21: Profile(contigs=14195, frag_mean=340.0, frag_sd=60.0, cov_median=4.5, cov_sigma=0.4,
                snp_rate=0.025, strains=3.0, yield_per_kb=18.0),
    33: Profile(contigs=4394, frag_mean=325.0, frag_sd=60.0, cov_median=3.8, cov_sigma=0.4,
                snp_rate=0.030, strains=2.5, yield_per_kb=12.4),
    55: Profile(contigs=3319, frag_mean=297.0, frag_sd=60.0, cov_median=4.0, cov_sigma=0.4,
                snp_rate=0.033, strains=2.5, yield_per_kb=8.2),
    77: Profile(contigs=2544, frag_mean=270.0, frag_sd=60.0, cov_median=4.1, cov_sigma=0.4,
                snp_rate=0.034, strains=0.8, yield_per_kb=5.0),
}


def profile_for(k: int) -> Profile:
    """The calibrated profile at ``k``, interpolated linearly between the table's k values."""
    ks = sorted(PROFILES)
    if k <= ks[0]:
        return PROFILES[ks[0]]
    if k >= ks[-1]:
        return PROFILES[ks[-1]]
    hi = next(x for x in ks if x >= k)
    lo = max(x for x in ks if x <= k)
    if hi == lo:
        return PROFILES[lo]
    t = (k - lo) / (hi - lo)
    a, b = PROFILES[lo], PROFILES[hi]
    return Profile(**{f.name: (1 - t) * getattr(a, f.name) + t * getattr(b, f.name) for f in fields(Profile)})

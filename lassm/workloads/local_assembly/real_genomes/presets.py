# SPDX-License-Identifier: BSD-3-Clause
"""The sequencing library's defaults and the named communities (:data:`PRESETS`): which Debian
package ships each genome, and each community's coverage, insert and MEGAHIT settings.
"""
from __future__ import annotations

from dataclasses import dataclass

#: Read length and fragment size (mean, sd) of the sequenced library.
READ_LEN = 150
INSERT_MEAN = 300
INSERT_SD = 30
#: MetaHipMer's k schedule, and the one MEGAHIT is run with (here, not in ``real``, so that the
#: command line's parser reads it without importing the pipeline).
DEFAULT_KS = (21, 33, 55, 77)
#: MetaHipMer's ``min_pair_len``: a mate is projected past a contig end only if the pair could
#: reach past it.
PAIR_SPAN = INSERT_MEAN + 3 * INSERT_SD
#: mock5's calibration (book/real-genomes.md): bases per chromosome window, coverage, insert.
MOCK5_WINDOW = 100_000
MOCK5_COV_MEDIAN = 3.5
MOCK5_COV_SIGMA = 0.6
MOCK5_INSERT_MEAN = 300
MOCK5_INSERT_SD = 40
MOCK5_QUALITY_SHIFT = -5
MOCK5_MEGAHIT = ("--min-count", "1", "--bubble-level", "0", "--prune-level", "0", "--disconnect-ratio", "0")


@dataclass(frozen=True)
class Genome:
    """One genome of a preset community, a FASTA file from a Debian package; ``length`` sequences only
    the first record's first ``length`` bases (None: every record whole)."""

    name: str
    path: str
    package: str
    accession: str
    description: str
    length: int | None = None


@dataclass(frozen=True)
class Preset:
    """A named community: its genomes, their coverage distribution and the library's insert.

    ``insert_mean``/``insert_sd`` set ART's fragment size, hence merging and read length;
    ``megahit_options`` follow :data:`lassm.workloads.local_assembly.real.MEGAHIT_OPTIONS` (a
    ``--min-count`` replaces the fixed one); ``quality_shift`` shifts both mates' ART qualities (a
    negative shift raises the error rate by about ``10**(-shift/10)``)."""

    genomes: tuple[Genome, ...]
    cov_median: float
    cov_sigma: float
    insert_mean: int = INSERT_MEAN
    insert_sd: int = INSERT_SD
    megahit_options: tuple[str, ...] = ()
    quality_shift: int = 0

    @property
    def packages(self) -> tuple[str, ...]:
        """The Debian packages that ship this preset's genomes, sorted, once each."""
        return tuple(sorted({g.package for g in self.genomes}))


@dataclass(frozen=True)
class Overrides:
    """What a build sets over its preset's library and assembly (:class:`Preset`'s fields of the
    same names); None keeps the preset's, or without a preset the library's defaults."""

    cov_median: float | None = None
    cov_sigma: float | None = None
    insert_mean: int | None = None
    insert_sd: int | None = None
    megahit_options: tuple[str, ...] | None = None
    quality_shift: int | None = None


PRESETS: dict[str, Preset] = {
    # Low coverage, as MetaHipMer's sample (depths 2-12): contigs break where coverage runs out.
    "tiny": Preset(
        genomes=(
            Genome("lambda", "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz",
                   "bowtie2-examples", "NC_001416.1", "Enterobacteria phage lambda, complete genome"),
            Genome("mp1", "/usr/share/doc/shovill-examples/test.fna.gz", "shovill-examples",
                   "NC_000958.1", "Deinococcus radiodurans R1 plasmid MP1, complete sequence"),
        ),
        cov_median=8.0,
        cov_sigma=0.5,
    ),
}

_RAGOUT = "/usr/share/doc/ragout/examples"
# Five bacterial species, one chromosome window each (Genome.length), at MetaHipMer's sample's
# low coverage and a wide log-normal spread; the insert is longer than tiny's so that few pairs
# merge, as in the paper's reads (average length 155-175). book/real-genomes.md shows the
# calibration against Table II.
PRESETS["mock5"] = Preset(
    genomes=(
        Genome("ecoli", "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz", "bowtie-examples",
               "NC_008253.1", "Escherichia coli 536, complete genome", length=MOCK5_WINDOW),
        Genome("kpneumoniae", "/usr/share/doc/kleborate/examples/data/NTUH-K2044.fna.xz", "kleborate-examples",
               "AP006725.1", "Klebsiella pneumoniae subsp. pneumoniae NTUH-K2044 DNA, complete genome",
               length=MOCK5_WINDOW),
        Genome("vcholerae", f"{_RAGOUT}/V.Cholerae/references/O1_biovar.fasta.gz", "ragout-examples",
               "AE003852.1", "Vibrio cholerae O1 biovar eltor str. N16961 chromosome I, complete sequence",
               length=MOCK5_WINDOW),
        Genome("saureus", f"{_RAGOUT}/S.Aureus/references/N315.fasta.gz", "ragout-examples",
               "NC_002745.2", "Staphylococcus aureus subsp. aureus N315 chromosome, complete genome",
               length=MOCK5_WINDOW),
        Genome("hpylori", f"{_RAGOUT}/H.Pylori/references/G27.fasta.gz", "ragout-examples",
               "NC_011333.1", "Helicobacter pylori G27 chromosome, complete genome", length=MOCK5_WINDOW),
    ),
    cov_median=MOCK5_COV_MEDIAN,
    cov_sigma=MOCK5_COV_SIGMA,
    insert_mean=MOCK5_INSERT_MEAN,
    insert_sd=MOCK5_INSERT_SD,
    megahit_options=MOCK5_MEGAHIT,
    quality_shift=MOCK5_QUALITY_SHIFT,
)

# SPDX-License-Identifier: BSD-3-Clause
"""``lassm data real``: the command line of :mod:`lassm.workloads.local_assembly.real`."""
from __future__ import annotations

import shlex
from pathlib import Path

from ..atomic import atomic_folder
from ..errors import LassmError
from ..workloads.local_assembly.real_genomes.presets import DEFAULT_KS, PRESETS
from . import args as t


#: The command whose output folders ``data real`` replaces whole (:func:`lassm.atomic.atomic_folder`).
REAL_MAKER = "lassm data real"


def add_real_parser(data_subparsers) -> None:
    """Adds ``lassm data real`` to the ``data`` subparser group of :mod:`lassm.cli`."""
    p = data_subparsers.add_parser(
        "real", help="datasets from real genomes with ART, MEGAHIT and minimap2 (MetaHipMer's pipeline)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--preset", choices=sorted(PRESETS), help="a community of genomes shipped by Debian packages")
    src.add_argument("--genomes", "--genome", dest="genome", action="extend", nargs="+", metavar="FASTA", type=t.input_file,
                     help="genome FASTA files (.gz, .xz, .bz2 too), one genome each")
    p.add_argument("--k", "--k-list", dest="k_list", type=t.odd_k_list, default=",".join(map(str, DEFAULT_KS)),
                   help="contig k values, comma-separated (default %(default)s)")
    p.add_argument("--seed", type=t.natural, default=0)
    p.add_argument("--cov-median", type=t.positive_real, default=None, help="median read coverage (default: the preset's)")
    p.add_argument("--cov-sigma", type=t.nonneg_real, default=None, help="log-normal sigma of coverage")
    p.add_argument("--insert-mean", type=t.count, default=None, help="fragment size mean (default: the preset's)")
    p.add_argument("--insert-sd", type=t.natural, default=None, help="fragment size sd (default: the preset's)")
    p.add_argument("--quality-shift", type=t.integer, default=None, help="ART's -qs/-qs2 (default: the preset's)")
    p.add_argument("--megahit-options", type=t.shell_words, default=None, metavar="OPTIONS",
                   help="MEGAHIT options after the fixed ones, one string (default: the preset's)")
    p.add_argument("--out", type=t.output_folder, required=True, help="output folder")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_real)


def cmd_real(args) -> int:
    """``lassm data real``: runs :func:`build` and lists what it wrote."""
    from ..workloads.local_assembly.real import build  # the pipeline and NumPy: only for this command
    from ..workloads.local_assembly.real_genomes.presets import Overrides

    try:
        ks = [int(t) for t in args.k_list.split(",") if t.strip()]
    except ValueError:
        raise LassmError(f"--k {args.k_list!r}: expected comma-separated integers") from None
    with atomic_folder(args.out, REAL_MAKER) as built:  # the whole folder, or nothing
        over = Overrides(cov_median=args.cov_median, cov_sigma=args.cov_sigma, insert_mean=args.insert_mean,
                         insert_sd=args.insert_sd, quality_shift=args.quality_shift,
                         megahit_options=None if args.megahit_options is None else tuple(shlex.split(args.megahit_options)))
        out = build(args.preset or args.genome, ks, seed=args.seed, out_dir=built, progress=not args.quiet, over=over)
    for k, path in out.items():
        print(f"{k}\t{Path(args.out) / Path(path).name}")
    return 0

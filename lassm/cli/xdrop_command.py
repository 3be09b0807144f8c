# SPDX-License-Identifier: BSD-3-Clause
"""``lassm xdrop generate|real|align``: the command line of the X-drop kernel (:mod:`lassm.workloads.xdrop`).

The flags follow ``lassm extend`` and ``lassm data generate``: the input first, ``--backend``,
``--threads``, ``--out``; a mistake is one ``lassm: error:`` line and exit code 2.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from .. import stderr
from . import args as t
from ..errors import LassmError
from ..workloads.xdrop.scoring import DEFAULT_GAP, DEFAULT_MATCH, DEFAULT_MISMATCH, DEFAULT_SEED_LENGTH, DEFAULT_XDROP

#: The X-drop backends by name (kept here so that the parser imports no backend).
BACKEND_NAMES = ("cpu", "seqan", "opencl", "cuda", "hip-cpu")
PAIR_SUFFIXES = (".parquet", ".tsv")


def _suffix(path: str, option: str) -> None:
    if Path(path).suffix not in PAIR_SUFFIXES:
        raise LassmError(f"{option} {path}: unknown format {Path(path).suffix!r}; use one of {', '.join(PAIR_SUFFIXES)}")


def _as_options(message: str, knobs) -> str:
    """A knob's check in the options' words: ``seed_length`` is ``--seed-length`` on this command line."""
    import dataclasses

    names = sorted((f.name for f in dataclasses.fields(knobs)), key=len, reverse=True)
    return re.sub(rf"(?<![-\w])({'|'.join(names)})\b", lambda m: "--" + m[1].replace("_", "-"), message)


def _cmd_generate(args: argparse.Namespace) -> int:
    from ..workloads.xdrop.pair_sets import refuse_pairs_beyond
    from ..workloads.xdrop.pair_files import write_pairs
    from ..workloads.xdrop.synthetic_pairs import PairKnobs, generate

    _suffix(args.out, "--out")
    try:
        knobs = PairKnobs(n_pairs=args.n_pairs, min_length=args.min_length, max_length=args.max_length,
                          error_rate=args.error_rate, indel_share=args.indel_share, seed_length=args.seed_length,
                          unrelated=args.unrelated, seed=args.seed)
    except ValueError as exc:
        raise LassmError(_as_options(str(exc), PairKnobs)) from None
    refuse_pairs_beyond("--n-pairs", knobs.n_pairs, knobs.min_length, knobs.max_length)  # the lengths in order first
    try:
        pairs = generate(knobs, name=args.name)
    except ValueError as exc:
        raise LassmError(_as_options(str(exc), PairKnobs)) from None
    write_pairs(pairs, args.out)
    stderr.line(f"wrote {pairs.n_pairs} pairs ({int(pairs.lengths_h.sum()) + int(pairs.lengths_v.sum())} bases) -> {args.out}")
    return 0


def _cmd_real(args: argparse.Namespace) -> int:
    from ..workloads.xdrop.pair_files import write_pairs
    from ..workloads.xdrop.pair_sets import refuse_pairs_beyond
    from ..workloads.xdrop.pbsim import check_pbsim
    from ..workloads.xdrop.real_pairs import RealKnobs, real_pairs, refuse_depth_beyond

    _suffix(args.out, "--out")
    try:
        knobs = RealKnobs(n_pairs=args.pairs, depth=args.depth, length_mean=args.length_mean, length_sd=args.length_sd,
                          min_length=args.min_length, max_length=args.max_length, accuracy_mean=args.accuracy_mean,
                          accuracy_sd=args.accuracy_sd, min_overlap=args.min_overlap, seed_length=args.seed_length,
                          seed=args.seed)
    except ValueError as exc:
        raise LassmError(_as_options(str(exc), RealKnobs)) from None
    refuse_pairs_beyond("--pairs", knobs.n_pairs, knobs.min_length, knobs.max_length)
    check_pbsim()  # before anything is read: one line naming the Debian package
    refuse_depth_beyond(args.genome, knobs.depth, knobs.min_length)  # reads the genome, not pbsim's reads
    try:
        pairs = real_pairs(args.genome, knobs, name=args.name)
    except LassmError as exc:  # in the options' words after the genome's name (a path is left as typed)
        message = str(exc)
        named = f"{args.genome}: " if message.startswith(f"{args.genome}: ") else ""
        raise LassmError(named + _as_options(message[len(named):], RealKnobs)) from None
    write_pairs(pairs, args.out)
    stderr.line(f"wrote {pairs.n_pairs} pairs ({int(pairs.lengths_h.sum()) + int(pairs.lengths_v.sum())} bases) "
         f"from {args.genome} (pbsim {pairs.provenance['pbsim_version']}) -> {args.out}")
    return 0


def _cmd_align(args: argparse.Namespace) -> int:
    from ..backends.xdrop import get
    from ..workloads.xdrop.scoring import Scoring
    from ..workloads.xdrop.pair_files import read_pairs, write_alignments
    from .prepare import in_background

    named = not Path(args.input).exists()  # a set's name (the parser checked it)
    if not named:
        _suffix(args.input, "input")
    _suffix(args.out, "--out")
    try:
        scoring = Scoring(match=args.match, mismatch=args.mismatch, gap=args.gap, xdrop=args.xdrop)
    except ValueError as exc:
        raise LassmError(_as_options(str(exc), Scoring)) from None
    reference = get(args.against) if args.against else None  # fails now, naming what to install
    # The backend is found and warmed (CuPy and the context, the kernel from its disk cache) while
    # a pairs file is read; its failure, naming what to install, is raised once it is. A named set
    # may first be built (minutes): the backend is waited for before that, so no mistake is found
    # after the work.
    kernel = {} if args.lanes == "auto" else {"lanes": int(args.lanes)}  # the CUDA kernel's layout and plan
    if kernel and args.backend != "cuda":
        raise LassmError(f"--lanes {args.lanes}: only the cuda backend has the lanes kernel")
    if args.layout is not None:
        if args.backend != "cuda":
            raise LassmError(f"--layout {args.layout}: only the cuda backend has the two plans")
        kernel["layout"] = args.layout
    warm = (scoring.xdrop, kernel.get("lanes"), kernel.get("layout")) if args.backend == "cuda" else ()
    ready = in_background(lambda: get(args.backend), *warm, name=args.backend)
    if named:
        from ..workloads.xdrop.pair_sets import load

        backend = ready()
        pairs = load(args.input)
    else:
        try:
            pairs = read_pairs(args.input)
        finally:
            backend = ready()
    assert backend is not None  # None only while reading's own error is raised
    result = backend.align(pairs, scoring, threads=args.threads, **kernel)
    write_alignments(result, args.out, input_name=pairs.name)
    stderr.line(f"aligned {pairs.n_pairs} pairs with {args.backend} at X = {scoring.xdrop} "
         f"in {result.wall_seconds:.3f} s -> {args.out}")
    figures = result.extra
    if figures.gcups is not None:  # the GPU backends: LOGAN's cells computed per second of kernel time
        stderr.line(f"{figures.cells} cells in {figures.kernel_seconds:.6f} s of kernel time on "
             f"{figures.device}: {figures.gcups:.3f} GCUPS")
    if reference is None:
        return 0
    diffs = reference.align(pairs, scoring, threads=args.threads).differences(result)
    if diffs:
        stderr.line(f"{len(diffs)}{'+' if len(diffs) == 10 else ''} pairs differ from {args.against}:")
        for line in diffs:
            stderr.line(f"  {line}")
        return 1
    stderr.line(f"all {pairs.n_pairs} pairs equal {args.against}'s, score for score and end for end")
    return 0


def run_campaign(args: argparse.Namespace) -> int:
    """``lassm run --kernel xdrop``: the X-drop campaign (:mod:`lassm.campaign.xdrop_run`) with ``run``'s flags."""
    from ..campaign.part import Ask
    from ..campaign.xdrop_plan import describe, make_plan
    from ..campaign.xdrop_run import report, run_xdrop_campaign

    for option, given in (("--protocols", args.protocols), ("--ks", args.ks), ("--notebooks", args.notebooks),
                          ("--cluster", args.cluster), ("--no-ceilings", args.no_ceilings),
                          ("--originals", args.originals), ("--no-originals", args.no_originals)):
        if given:
            raise LassmError(f"{option}: a local-assembly option; the xdrop kernel has no such axis or step")
    unknown = [b for b in args.backends or [] if b not in BACKEND_NAMES]
    if unknown:
        raise LassmError(f"--backends {','.join(unknown)}: not an X-drop backend; choose among {', '.join(BACKEND_NAMES)}")
    for name in args.datasets or []:
        if not name.startswith("xdrop-") and Path(name).suffix not in PAIR_SUFFIXES:
            raise LassmError(f"--datasets {name}: not an X-drop pair set (xdrop-sim-<N>, xdrop-short-<N>, "
                             f"xdrop-real-<genome>-<N>, or a .parquet/.tsv pairs file)")
    if args.backends:
        from ..backends.xdrop import get

        for name in args.backends:
            get(name)  # fails now, naming what to install
    plan = make_plan(Ask(args.quick, backends=args.backends, datasets=args.datasets, xdrops=args.xdrops,
                         repeats=args.repeats, warmup=args.warmup, profile=not args.no_profile))
    from ..runs.folders import run_folder
    from ..runs.preflight import check_run

    check_run([run_folder(plan.backends, args.machine, dry=args.dry_run)])  # the run's checks, its dry run's too
    if args.dry_run:
        from ..campaign.estimate import dry_run
        from ..campaign.whole import WholePlan

        notes, _total = dry_run(WholePlan({"xdrop": plan}), machine=args.machine, force=args.force)
        print(f"{describe(plan)}\n{notes['xdrop']}")
        return 0
    outcome = run_xdrop_campaign(plan, machine=args.machine, force=args.force, progress=not args.quiet)
    report(outcome)
    return 1 if outcome.failed else 0


def _defaults(p: argparse.ArgumentParser, rows: tuple[tuple[str, Any, object, str], ...]) -> None:
    """One option per ``(flag, type, default, help)`` row; the help names the default unless it does."""
    for flag, kind, default, text in rows:
        p.add_argument(flag, type=kind, default=default,
                       help=text if "(default" in text else f"{text} (default %(default)s)")


def _pair_set_options(p: argparse.ArgumentParser, seed_help: str) -> None:
    """The options every maker of a pair set takes: the seed k-mer's length, the random seed,
    the set's label and its output file."""
    p.add_argument("--seed-length", type=t.count, default=DEFAULT_SEED_LENGTH, help="seed k-mer length (default %(default)s)")
    p.add_argument("--seed", type=t.natural, default=0, help=seed_help)
    p.add_argument("--name", type=t.label, default=None, help="label recorded with the pairs")
    p.add_argument("--out", type=t.output_file, required=True, help=".parquet or .tsv (the SeqAn driver's input)")


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """``lassm xdrop generate``, ``real``, ``align`` and ``lanes``."""
    p = subparsers.add_parser("xdrop", help="LOGAN's X-drop alignment kernel: synthetic pairs, alignment, SeqAn")
    sub = p.add_subparsers(dest="xdrop_command", required=True)

    g = sub.add_parser("generate", help="synthetic read pairs with seeds, like LOGAN's (2.5-7.5 kb, 15%% errors)")
    _defaults(g, (("--n-pairs", t.count, 100, "pairs to draw"), ("--min-length", t.count, 2500, "shortest H read"),
                  ("--max-length", t.count, 7500, "longest H read"), ("--error-rate", t.fraction, 0.15,
                  "errors per base between the reads"), ("--indel-share", t.fraction, 0.5, "share of errors that are "
                  "indels"), ("--unrelated", t.fraction, 0.0, "share of pairs whose reads are unrelated (default 0)")))
    _pair_set_options(g, "random seed (default 0)")
    g.set_defaults(func=_cmd_generate)

    r = sub.add_parser("real", help="overlapping long-read pairs simulated from a genome FASTA by pbsim, seeded by shared k-mers")
    r.add_argument("--genome", type=t.input_file, required=True,
                   help="FASTA (plain, .gz, .xz), e.g. the tiny preset's /usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz")
    _defaults(r, (("--pairs", t.count, 100, "pairs to pick"), ("--depth", t.positive_real, 10.0, "pbsim's coverage"),
                  ("--length-mean", t.count, 5000, "pbsim's mean read length"), ("--length-sd", t.natural, 1500,
                  "its standard deviation"), ("--min-length", t.count, 2500, "shortest read"),
                  ("--max-length", t.count, 7500, "longest read"), ("--accuracy-mean", t.fraction, 0.925,
                  "pbsim's mean read accuracy"), ("--accuracy-sd", t.fraction, 0.02, "its standard deviation"),
                  ("--min-overlap", t.count, 1000, "genome bases two reads must share")))
    _pair_set_options(r, "pbsim's --seed and the pair draw's (default 0)")
    r.set_defaults(func=_cmd_real)

    a = sub.add_parser("align", help="extend every pair's seed both ways (SeqAn's extendSeed, GappedXDrop)")
    a.add_argument("input", type=t.pairs_input, help=".parquet or .tsv pairs, or a set's name (xdrop-sim-20k, "
                   "xdrop-short-50, xdrop-real-lambda-2k: built and cached on first use)")
    a.add_argument("--backend", choices=BACKEND_NAMES, default="cpu", help="cpu (numba, the oracle), seqan, opencl, cuda or hip-cpu (default cpu)")
    _defaults(a, (("--match", t.count, DEFAULT_MATCH, "match score"), ("--mismatch", t.negative, DEFAULT_MISMATCH,
                  "mismatch score"), ("--gap", t.negative, DEFAULT_GAP, "linear gap score"),
                  ("--xdrop", t.natural, DEFAULT_XDROP, "X, the drop-off")))
    a.add_argument("--threads", type=t.count, default=None, help="CPU threads (default: all cores)")
    a.add_argument("--lanes", choices=("auto", "0", "8", "16", "32"), default="auto",
                   help="cuda: threads per direction, 0 for LOGAN's one block per direction, 8/16/32 for "
                        "several directions per warp (default auto: chosen by X)")
    a.add_argument("--layout", choices=("logan", "warps"), default=None,
                   help="cuda: the plan; logan runs the tasks in order, the lanes kernel up to X = 1000 and LOGAN's "
                        "block above; warps runs them by expected cells (heaviest first), the lanes kernel "
                        "up to X = 200 and the wide-band block above (default: LASSM_XDROP_LAYOUT, else logan)")
    a.add_argument("--against", choices=BACKEND_NAMES, default=None,
                   help="also run this backend and compare pair for pair (exit 1 on a difference)")
    a.add_argument("--out", type=t.output_file, required=True, help="results, .parquet or .tsv")
    a.set_defaults(func=_cmd_align)

    from .measure import add_lanes

    add_lanes(sub)

# SPDX-License-Identifier: BSD-3-Clause
"""The ``lassm`` command line. Every subcommand is a thin call into the package.

A mistake a user can fix (bad input or option, a missing backend) is one ``lassm: error:`` line
naming the file, line and field (or the option), exit 2, nothing half-written. Option values are
checked when parsed (:mod:`lassm.cli.args`), outputs against inputs before the command runs
(:mod:`lassm.cli.guard`), option pairs first thing in each subcommand, so no mistake surfaces
after expensive work. Machine faults are one line too (:mod:`lassm.cli.faults`); anything else
is a bug and keeps its traceback."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from .. import stderr
from .. import paths, settings, timeline
from ..version import __version__
from . import args as t
from .run_command import cmd_run
from ..workloads.local_assembly.config import DEFAULT_MAX_WALK, DEFAULT_QUAL_OFFSET, MAX_KMER_LEN, MIN_KMER_LEN, Params
from ..errors import LassmError, Terminated
from . import faults, guard


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``lassm: error:`` line (exit 2); every
    subcommand's parser, other modules' included, is of this class."""

    def error(self, message: str):
        where = self.prog.removeprefix("lassm").strip()
        self.exit(2, f"lassm: error: {where + ': ' if where else ''}{message} (see {self.prog} --help)\n")

    def _get_value(self, action: argparse.Action, arg_string: str):
        """A value's type check, with a path the system could not look up (a name too long, a
        link loop) refused like any impossible value, wherever in the check it was met."""
        try:
            return super()._get_value(action, arg_string)
        except OSError as exc:
            raise argparse.ArgumentError(action, f"{arg_string}: {exc.strerror or exc}") from None


def _add_run_params(p: argparse.ArgumentParser, k_required: bool = True) -> None:
    p.add_argument("--k", type=t.k_value, required=k_required, default=None, help=f"start k-mer length ({MIN_KMER_LEN}..{MAX_KMER_LEN})")
    p.add_argument("--max-walk", type=t.count, default=DEFAULT_MAX_WALK, help="walk limit in bases (default %(default)s)")
    p.add_argument("--qual-offset", type=t.qual_offset, default=DEFAULT_QUAL_OFFSET, help="Phred offset (default %(default)s)")


def _params(args: argparse.Namespace, k: int) -> Params:
    try:
        return Params(k=k, max_walk=args.max_walk, qual_offset=args.qual_offset)
    except ValueError as exc:
        raise LassmError(str(exc)) from None


def _start_k(args: argparse.Namespace, ds) -> int:
    k = args.k if args.k is not None else ds.k
    if k is None:
        raise LassmError(f"{args.input}: the start k is not recorded in the file; pass --k")
    return k


def cmd_extend(args: argparse.Namespace) -> int:
    from ..atomic import together
    from ..workloads.local_assembly import formats
    from ..backends import check_protocol
    from ..runs.extend import extend

    if args.protocol is not None:
        check_protocol(args.backend, args.protocol)
    if args.cluster:  # a running scheduler answers now, or the command ends before reading anything
        from ..runs.dask_address import check

        check(args.cluster)
    ready = None
    if not args.cluster:  # the workers of a cluster may have what this machine lacks
        ready = _prepare_backend(args.backend, args.protocol, args.k)
    try:
        ds, source = _read_input(args.input, whole=not args.cluster)  # a cluster's shard folder: its manifest only
        timeline.mark("read")
    finally:
        if ready is not None:
            ready()  # re-raises the backend's failure (naming what to install) unless reading failed first
            timeline.mark("backend-ready")
    params = _params(args, _start_k(args, ds))
    options = {"threads": args.threads} if args.backend == "cpu" and args.threads else {}
    if args.protocol and args.backend != "cpu":
        options["protocol"] = args.protocol
    if args.cluster:  # the workers write their blocks of the files; this process joins them
        from ..runs.distributed import Sharding, connect
        from ..runs.shard_files import extend_to_files

        with connect(args.cluster) as client, together():  # --out and --ends appear together, or neither
            stats = extend_to_files(ds, params, args.backend, client, args.out, args.ends,
                                    Sharding(source=source and (source, params.k)), **options)
        stderr.line(f"extended {ds.n_contigs} contigs with {args.backend} at k = {params.k} on {stats['shards']} shards "
             f"in {stats['wall_seconds']:.3f} s, files included -> {args.out}")
        return 0
    ext = extend(ds, params, backend=args.backend, **options)
    timeline.mark("extended")
    with together():  # --out and --ends appear together, or neither
        formats.write_extended(ext, args.out)
        if args.ends:
            formats.write_ends(ext, args.ends)
    timeline.mark("written")
    stderr.line(f"extended {ds.n_contigs} contigs with {args.backend} at k = {params.k} "
         f"in {ext.wall_seconds:.3f} s -> {args.out}")
    return 0


def _read_input(path: str, whole: bool = True):
    """The dataset of ``lassm extend``'s input and its shard folder (None for a file). With ``whole``
    a shard folder is read whole; for a cluster it is a
    :class:`~lassm.workloads.local_assembly.stream.ShardFolder` (manifest, weights, start k, contig
    count), the workers reading their own ranges."""
    from ..workloads.local_assembly import formats, stream

    if not stream.is_shard_folder(path):
        return formats.read_dataset(path), None
    folder = stream.ShardFolder.open(path)
    return (folder.load() if whole else folder), path


def cmd_stats(args: argparse.Namespace) -> int:
    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.stats import PAPER_TABLE2
    from ..runs.table2 import dataset_stats

    _require_backend(args.backend)
    ds = formats.read_dataset(args.input)
    k = _start_k(args, ds)
    row = dataset_stats(ds, k, backend=args.backend, max_walk=args.max_walk, qual_offset=args.qual_offset)
    if args.json:
        print(json.dumps(row, indent=2))
        return 0
    from rich.table import Table

    from ..terminal import console

    table = Table(title=f"{ds.name}: Table II row at k = {k}")
    table.add_column("figure")
    table.add_column("this dataset", justify="right")
    table.add_column("paper (Table II)", justify="right")
    paper = PAPER_TABLE2.get(k, {})
    for key in ("contigs", "reads", "avg_read_length", "hash_insertions", "avg_extension_length", "total_extensions"):
        val = row[key]
        table.add_row(key, f"{val:,.1f}" if isinstance(val, float) else f"{val:,}",
                      f"{paper[key]:,}" if key in paper else "")
    for key in ("hash_insertions_table2", "extended_bases", "walk_steps", "insertions_all_k"):
        table.add_row(f"[dim]{key}[/dim]", f"{row[key]:,}", "")
    console().print(table)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from ..workloads.local_assembly import formats
    from ..workloads.local_assembly.generate import check_fits, generate

    check_fits(args.k, args.scale)
    ds = generate(k=args.k, scale=args.scale, seed=args.seed, progress=not args.quiet)
    formats.write_dataset(ds, args.out)
    stderr.line(f"wrote {ds.n_contigs} contigs, {ds.left.n_reads + ds.right.n_reads} reads -> {args.out}")
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from ..workloads.local_assembly import formats

    suffix = Path(args.out).suffix
    writers = {".dat": formats.write_dat, ".parquet": formats.write_parquet,
               ".fasta": formats.write_fasta, ".fa": formats.write_fasta,
               ".fastq": formats.write_fastq, ".fq": formats.write_fastq}
    if suffix not in writers:
        raise LassmError(f"{args.out}: unknown output format {suffix!r}; use one of {', '.join(writers)}")
    ds = formats.read_dataset(args.input, k=args.k)
    writers[suffix](ds, args.out)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from ..runs import bench
    from ..backends import check_protocol

    for proto in args.protocols or []:
        check_protocol(args.backend, proto, "--protocols")
    if args.subgroup and args.backend != "sycl":
        raise LassmError(f"--subgroup: sub-group widths are a sycl option, not one of the {args.backend} backend")
    if args.backend == "cpu":  # its bench scales threads, records nothing; these are not read there
        given = [flag for flag, value in (("--block-warps", args.block_warps), ("--max-bytes", args.max_bytes),
                                          ("--datasets", args.datasets), ("--protocols", args.protocols),
                                          ("--machine", args.machine), ("--no-record", args.no_record)) if value]
        if given:
            raise LassmError(f"{', '.join(given)}: GPU options; the cpu backend's bench compares one thread with "
                             "--threads on the input dataset and writes no record")
    if args.block_warps and args.backend in ("opencl", "opencl-ptx"):
        raise LassmError(f"--block-warps: the {args.backend} backend runs one contig end (a team of work-items) per work-group")
    _require_backend(args.backend)
    if args.subgroup:
        from ..backends import sycl

        sizes = sycl.subgroup_sizes()
        bad = [sg for sg in args.subgroup if sg not in sizes]
        if bad:
            raise LassmError(f"--subgroup {','.join(map(str, bad))}: {sycl.device_name()} builds sub-groups of "
                             f"{', '.join(map(str, sizes))} lanes only")
    if args.backend != "cpu":
        from ..runs.folders import kept_if_done

        return kept_if_done(lambda: _gpu_bench(args))
    report = bench.cpu_scaling(args.input, k=args.k, repeat=args.repeat, threads=args.threads,
                               max_walk=args.max_walk, qual_offset=args.qual_offset)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        bench.print_report(report)
    return 0


def _gpu_bench(args: argparse.Namespace) -> int:
    """``lassm bench`` on a GPU backend: its records' folder checked, then each sub-group width's points."""
    from ..runs import bench

    if not args.no_record:  # its records' folder, checked before the first point is measured
        from ..runs.preflight import check_results
        from ..runs.records import machine_for_backend

        check_results([args.machine or machine_for_backend(args.backend)], accounts=())
    options = {key: val for key, val in (("max_bytes", args.max_bytes), ("block_warps", args.block_warps)) if val}
    rows = []
    for sg in args.subgroup or [None]:
        if sg:
            options["subgroup"] = sg
        rows += bench.gpu_bench(args.datasets or ["sample-k77x20"], backend=args.backend, k=args.k,
                                protocols=args.protocols, repeat=args.repeat,
                                recording=bench.Recording(args.machine, not args.no_record, _command_line()),
                                **options)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    return 0 if all(r["matches_cpu"] for r in rows) else 1


def _require_backend(name: str) -> None:
    """Fails now, naming what to install, when backend ``name`` cannot run here (not after the work)."""
    from .. import backends

    backends.get(name)


def _prepare_backend(name: str, protocol: str | None, k: int | None = None) -> Callable[[], object]:
    """Checks backend ``name`` and warms it (its runtime imported, device context made, kernel
    loaded from the on-disk cache: ``warm_up``) in a thread while the caller reads its input
    (:func:`.prepare.in_background`). With the start ``k`` given, CUDA and HIP-CPU warm the build
    that k launches (fast's sorted build at a small k). Returns the call that waits for it and re-raises
    its failure, which names what to install."""
    from .. import backends
    from ..backends.nvrtc import launch_build
    from .prepare import in_background

    if name in ("cuda", "hip-cpu") and protocol and k:
        protocol = launch_build(protocol, k)
    return in_background(lambda: backends.get(name), protocol, name=name)


def _command_line() -> str:
    return "lassm " + " ".join(sys.argv[1:])


def cmd_backends(args: argparse.Namespace) -> int:
    from .. import backends

    width = max(map(len, backends.BACKENDS))
    for name, (ok, why) in backends.status().items():
        print(f"{name:{width}s} {'yes' if ok else 'no ':3s} {why}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``lassm`` argument parser (also read by the tests that keep notebooks in step)."""
    parser = Parser(prog="lassm", description="MetaHipMer local assembly, measured on GPUs.")
    parser.add_argument("--version", action="version", version=f"lassm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("extend", help="extend the contigs of a dataset")
    p.add_argument("input", type=t.dataset_input, help=".dat or .parquet dataset, or a shard folder (lassm data shard)")
    _add_run_params(p, k_required=False)
    p.add_argument("--backend", type=t.backend_name, default="cpu",
                   help="cpu, cuda, hip, sycl, opencl, opencl-ptx or hip-cpu (the HIP kernels on the CPU) (default cpu)")
    p.add_argument("--protocol", type=t.protocol_name, default=None,
                   help="GPU insert protocol (casptr, matchany, doneflag, barrier; cuda, hip and hip-cpu: fast and its "
                        "ablation builds; opencl and sycl: fast)")
    p.add_argument("--threads", type=t.count, default=None, help="CPU threads (default: all cores)")
    p.add_argument("--out", type=t.extended_output, required=True,
                   help="output file, MetaHipMer's 'cid extended_sequence' text (not .parquet, .tsv, ...)")
    p.add_argument("--ends", type=t.ends_output, default=None,
                   help="also write per-end walk figures (.parquet or .tsv)")
    p.add_argument("--cluster", type=t.cluster_spec, default=None, help="shard the contigs over Dask workers, balanced by work: "
                   "local[:N], local-cuda[:N], slurm[:PARTITION[:N]][,gpus=G,cores=C,memory=M,walltime=T,...] "
                   "(workers as Slurm jobs), tcp://HOST:PORT or a scheduler file (needs lassm[dask])")
    p.set_defaults(func=cmd_extend)

    data = sub.add_parser("data", help="datasets: generate, stats, convert, write, shard").add_subparsers(dest="data_command", required=True)
    from .data_real import add_real_parser
    from .data_stream import add_stream_parsers

    add_real_parser(data)
    add_stream_parsers(data)
    p = data.add_parser("generate", help="a synthetic metagenome calibrated to the paper's Table II")
    p.add_argument("--k", type=t.k_value, required=True)
    p.add_argument("--scale", type=t.positive_real, default=1.0, help="1 = the size of Table II's row for k")
    p.add_argument("--seed", type=t.natural, default=0)
    p.add_argument("--out", type=t.dataset_output, required=True, help=".parquet or .dat")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_generate)

    p = data.add_parser("stats", help="the paper's Table II row for a dataset")
    p.add_argument("input", type=t.input_file)
    _add_run_params(p, k_required=False)
    p.add_argument("--backend", type=t.backend_name, default="cpu")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = data.add_parser("convert", help="convert between .dat, .parquet, .fasta (contigs) and .fastq (reads)")
    p.add_argument("input", type=t.input_file)
    p.add_argument("out", type=t.output_file)
    p.add_argument("--k", type=t.k_value, default=None, help="start k to record in a parquet file")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("bench", help="CPU backend: contig ends/s and insertions/s, one thread vs all cores")
    p.add_argument("input", nargs="?", type=t.input_file, default=None, help="dataset (default: the embedded k = 77 sample)")
    _add_run_params(p, k_required=False)
    p.add_argument("--repeat", type=t.count, default=3)
    p.add_argument("--threads", type=t.count, default=None, help="the 'all cores' thread count (default: all)")
    p.add_argument("--backend", type=t.backend_name, default="cpu", help="cpu (thread scaling) or a GPU backend (protocols vs the CPU)")
    p.add_argument("--datasets", type=t.dataset_list, default=None, help="GPU: comma list of dataset names (default sample-k77x20)")
    p.add_argument("--protocols", type=t.protocol_list, default=None, help="GPU: comma list of insert protocols (default: all)")
    p.add_argument("--max-bytes", type=t.count, default=None, help="GPU: device bytes per launch (forces slicing)")
    p.add_argument("--block-warps", type=t.count, default=None, help="GPU: warps per block (HIP: wavefronts)")
    p.add_argument("--subgroup", type=t.lane_width_list, default=None, help="sycl: comma list of sub-group widths to sweep (8,16,32,64)")
    p.add_argument("--machine", type=t.machine_name, default=None, help="results folder name (default: from the device)")
    p.add_argument("--no-record", action="store_true", help="do not write run records")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("run", help="the main job: the campaign that measures this machine, recorded under data/results/<machine>/")
    p.add_argument("--kernel", type=t.part_key, default=None,
                   help="one part alone, by its key: local-assembly, xdrop (LOGAN's X-drop alignment: results under "
                        "<machine>/xdrop/), suite (Jin and Vetter's kernels on CUDA and OpenCL: <machine>/suite/), "
                        "originals (ht_loc and LOGAN built from their sources beside ours) or any other part of the "
                        "main job's list; default: every part, in that order")
    p.add_argument("--machine", type=t.machine_name, default=None, help="results folder name (default: from the device)")
    p.add_argument("--backends", type=t.run_backend_list, default=None,
                   help="comma list (default: the best GPU backend, sycl where it runs, opencl where it finds a GPU, and cpu; "
                        "xdrop: cuda, opencl, cpu and seqan where they run)")
    p.add_argument("--datasets", type=t.run_dataset_list, default=None,
                   help="comma list of sample-k77, sample-k21, gen-k21[-s0.1], real-mock5-k21, any of them + x<N>, or paths "
                        "(default: the campaign's ten); xdrop: xdrop-sim-<N>, xdrop-short-<N>, xdrop-real-<genome>-<N>, "
                        "or pairs files (default: the machine's sets)")
    p.add_argument("--xdrops", type=t.xdrop_list, default=None,
                   help="xdrop: comma list of X values (default 10,20,50,100,500,1000,5000)")
    p.add_argument("--protocols", type=t.protocol_list, default=None,
                   help="comma list of GPU insert protocols (default: every one, fast included, without its ablations)")
    p.add_argument("--ks", type=t.k_list, default=None, help="comma list of start k (default: each dataset's own)")
    p.add_argument("--force", action="store_true", help="re-run points already recorded, count and measure again")
    p.add_argument("--quick", action="store_true",
                   help="the small job: sample-k77 alone (--datasets, where given, wins), no counters, no ceilings")
    p.add_argument("--repeats", type=t.count, default=None,
                   help="timed runs per point (default: more with a GPU than without; --dry-run prints the number)")
    p.add_argument("--warmup", type=t.natural, default=None, help="untimed runs before them (default: as --dry-run prints)")
    p.add_argument("--no-profile", action="store_true", help="skip the hardware counters")
    p.add_argument("--no-ceilings", action="store_true", help="skip the ceilings microbenchmarks")
    p.add_argument("--all-counters", action="store_true",
                   help="suite: also count Needleman-Wunsch's 2,047-launch variants (minutes each under Nsight "
                        "Compute's application replay; the chapter reads strips)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan, its number of points and each part's estimated time (from this machine's "
                        "accounts, else the nearest device's committed ones), run nothing")
    p.add_argument("--notebooks", action="store_true",
                   help="run each point by executing notebooks/run.ipynb with Papermill; the executed "
                        "notebook is kept in the point's record folder (needs the book extra)")
    p.add_argument("--cluster", type=t.cluster_spec, default=None, help="run the points as Dask tasks, one worker (GPU) each: "
                   "local[:N], local-cuda[:N], slurm[:PARTITION[:N]][,gpus=G,cores=C,memory=M,walltime=T,...] "
                   "(workers as Slurm jobs), tcp://HOST:PORT or a scheduler file (needs lassm[dask])")
    p.add_argument("--originals", type=t.input_dir, default=None, metavar="DIR",
                   help="a folder holding the original programs' sources (gpu_local_ht/, LOGAN/) for a node without "
                        "internet (default: LASSM_ORIGINALS, else the cache, else a download)")
    p.add_argument("--no-originals", action="store_true", help="leave out the original programs")
    p.add_argument("--quiet", action="store_true",
                   help="no progress and no step lines (by default each part shows its points done, time spent "
                        "and time left on stderr: a live bar on a terminal, plain lines otherwise)")
    p.set_defaults(func=cmd_run)

    from .metrics_command import add_subcommands as add_metrics
    from .counters import add_subcommands as add_counters
    from .paper_command import add_subcommands as add_paper
    from .kernels import add_subcommands as add_kernels
    from .xdrop_command import add_subcommands as add_xdrop
    from .measure import add_subcommands as add_measure

    add_counters(sub)
    add_metrics(sub)
    add_paper(sub)
    add_kernels(sub)
    add_xdrop(sub)
    add_measure(sub)

    p = sub.add_parser("backends", help="which backends can run here")
    p.set_defaults(func=cmd_backends)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs one ``lassm`` command (``argv`` default ``sys.argv[1:]``) and returns its exit code.

    0 on success (``--help``, ``--version``, and a reader closing standard output early too); 1 when
    a run finished but a point failed or differed from the CPU; 2 for a mistake the user can fix or
    a machine fault such as a full disk (one ``lassm: error:`` line); 130 after Ctrl-C and 143 after
    SIGTERM (one line, temporaries removed: :mod:`lassm.cli.faults`)."""
    from ..backends.cuinit import start_early

    start_early(sys.argv[1:] if argv is None else argv)  # before the imports below: they overlap it
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed as one line
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    try:
        with faults.guarded():
            settings.check_all()  # every LASSM_* variable set, checked before any work
            paths.env_machine()
            guard.check(parser, args)
            code = int(args.func(args) or 0)
            settings.check_timeline()
            faults.flush_stdout()
            return code
    except LassmError as exc:  # one line, whatever a library's message it quotes holds
        stderr.line("lassm: error: " + " ".join(part.strip() for part in str(exc).splitlines() if part.strip()))
        return 2
    except KeyboardInterrupt:  # Ctrl-C: the temporaries are gone (lassm.atomic's finally clauses)
        stderr.line("lassm: error: interrupted")
        return faults.INTERRUPTED
    except Terminated:
        stderr.line("lassm: error: terminated")
        return faults.TERMINATED
    except BrokenPipeError:  # the reader of standard output stopped reading: quietly, as Unix tools do
        faults.silence_stdout()
        return 0
    except MemoryError:
        stderr.line("lassm: error: out of memory: this machine could not hold what the command needed")
        return 2
    except OSError as exc:
        line = faults.describe(exc)
        if line is None:  # not about a file, nor the machine's: a bug
            raise
        if line.startswith(faults.STDOUT):  # what it holds cannot be flushed at exit either
            faults.silence_stdout()
        stderr.line(f"lassm: error: {line}")
        return 2


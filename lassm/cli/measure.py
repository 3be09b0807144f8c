# SPDX-License-Identifier: BSD-3-Clause
"""``lassm measure ...``, ``lassm xdrop lanes`` and ``lassm merge-results``: the measurements the
chapters read beside ``lassm run``'s parts, each a thin call into its stage's module."""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
from dataclasses import fields
from pathlib import Path

from .. import stderr
from . import args as t
from ..errors import LassmError


def _line(words: list[str], args: argparse.Namespace, options: dict[str, str]) -> str:
    """The command as given, for the rows' provenance: ``words`` then each option set."""
    shown = [*words]
    for option, dest in options.items():
        value = getattr(args, dest)
        if value not in (None, False, "", []):
            shown += [option] if value is True else [option, ",".join(map(str, value)) if isinstance(value, list)
                                                     else str(value)]
    return shlex.join(shown)


def _cmd_published_race(args: argparse.Namespace) -> int:
    from ..campaign import published_race

    rows = published_race.measure(args.datasets, args.protocols, args.runs, args.machine)
    print(f"-> {published_race.write(rows, args.machine)}")
    return 0


def _cmd_floor(args: argparse.Namespace) -> int:
    from .. import paths
    from ..analysis import floor
    from ..backends import cuda
    from ..runs.records import git_sha

    args.datasets = args.datasets or list(floor.DEFAULT_DATASETS)
    info = cuda.device_info()
    command = _line(["lassm", "measure", "floor", "--datasets", ",".join(args.datasets)], args,
                    {"--machine": "machine", "--repeats": "repeats", "--top": "top"})
    provenance = {"device": info["device"], "driver": str(info["driver"]), "git_sha": git_sha(), "command": command}
    rows = [row for name in args.datasets for row in floor.measure_ends(name, args.top, args.repeats, provenance)]
    print(f"-> {floor.write_critical_path(rows, paths.results_dir(args.machine) / floor.CRITICAL_FILE)}")
    return 0 if all(r["matches_oracle"] for r in rows) else 1


def _cmd_first_call(args: argparse.Namespace) -> int:
    from ..campaign import first_call

    rows = [row for name in args.datasets
            for row in first_call.measure(args.machine, name, args.pairs, args.xdrop, args.repeats)]
    print(f"-> {first_call.write(rows, args.machine)}")
    return 0


def _cmd_ptx(args: argparse.Namespace) -> int:
    from ..campaign import ptx_dump

    command = _line(["lassm", "measure", "ptx"], args, {"--machine": "machine", "--builds": "builds", "--arch": "arch",
                                                       "--team": "team", "--opencl-fast-options": "opencl_fast_options"})
    return ptx_dump.dump(args.machine, args.builds, args.arch, args.team, tuple(shlex.split(args.opencl_fast_options)),
                         command)


def _cmd_shard_contention(args: argparse.Namespace) -> int:
    from ..runs import contention, results

    if args.devices and args.machine:
        raise LassmError("--devices shares GPUs between shards: its figures are not the machine's scaling; "
                         "drop --machine")
    devices = args.devices.split(",") if args.devices else [str(i) for i in range(args.gpus)]
    doc = contention.measure(args.dataset, args.gpus, args.backend, args.protocol, args.repeat, devices)
    if args.machine:
        command = _line(["lassm", "measure", "shard-contention", args.dataset], args,
                        {"--gpus": "gpus", "--protocol": "protocol", "--repeat": "repeat", "--backend": "backend",
                         "--machine": "machine"})
        stderr.line(f"-> {contention.write(doc, args.machine, command)}")
    bound = results.contention_bound(doc)
    print(f"whole / slowest shard together: {bound['bare_speedup']:.2f}x; "
          f"whole / slowest shard alone: {bound['alone_speedup']:.2f}x")
    return 0


def _cmd_command_time(args: argparse.Namespace) -> int:
    from ..atomic import atomic_open
    from ..campaign.originals.timing import command_time

    f = command_time(shlex.split(args.command), args.repeat, args.warmup, args.top)
    print(f"{f['command']}\n"
          f"  wall: median {f['median_seconds']:.3f} s, best {f['min_seconds']:.3f} s, worst {f['max_seconds']:.3f} s "
          f"over {args.repeat} fresh processes ({args.warmup} warm-up)\n"
          f"  imports: {f['import_seconds']:.3f} s (one run under -X importtime, {f['traced_wall_seconds']:.3f} s wall "
          f"with the tracing)\n"
          f"  python -c pass: median {f['python_seconds']:.3f} s ({f['python']})")
    for imp in f["top_imports"]:
        print(f"    {imp['seconds']:7.3f} s  {imp['module']}")
    if args.json:
        with atomic_open(args.json) as fh:
            fh.write(json.dumps(f, indent=2) + "\n")
    return 0


def _cmd_scaling(args: argparse.Namespace) -> int:
    from ..runs import strong_scaling
    from ..runs.distributed import gpu_devices

    gpus = args.gpus or len(gpu_devices())
    if gpus < 1:
        raise LassmError("no GPU seen here (CUDA_VISIBLE_DEVICES, nvidia-smi, CuPy); give --gpus")
    counts = args.gpu_counts or list(range(1, gpus + 1))
    if max(counts) > gpus:
        raise LassmError(f"--gpu-counts {','.join(map(str, counts))}: more than the {gpus} GPUs of --gpus")
    machine = args.machine or _this_machine()
    if not args.no_scaling:
        command = _line(["lassm", "measure", "scaling"], args, {"--dataset": "dataset", "--gpus": "gpus",
                                                              "--gpu-counts": "gpu_counts", "--repeat": "repeat",
                                                              "--protocol": "protocol"})
        strong_scaling.measure(args.dataset, gpus, counts, args.repeat, args.protocol, machine, command)
    for g in [] if args.no_sweep else args.sweep_gpus or [gpus]:
        print(f"-> {strong_scaling.sweep(machine, g, args.sweep, args.protocol)}")
    return 0


def _this_machine() -> str:
    """This node's results folder: ``LASSM_MACHINE``, else the CUDA device's name."""
    from .. import paths
    from ..backends import cuda
    from ..runs import records

    return paths.env_machine() or records.slug(cuda.device_name())


def _cmd_lanes(args: argparse.Namespace) -> int:
    from ..backends.xdrop import xdrop_cuda as cuda
    from ..campaign import xdrop_lanes

    ok, why = cuda.available()
    if not ok:
        raise LassmError(f"the CUDA backend cannot run here: {why}")
    command = _line(["lassm", "xdrop", "lanes"], args, {"--machine": "machine", "--dataset": "dataset",
                                                      "--xdrops": "xdrops", "--repeats": "repeats", "--force": "force"})
    agreed = xdrop_lanes.measure(args.machine, args.dataset, args.xdrops, args.repeats, args.force, command)
    if args.counters_xdrops:
        xdrop_lanes.counters(args.machine, args.dataset, args.counters_xdrops, args.force)
    return 0 if agreed else 1


def _cmd_against_original(args: argparse.Namespace) -> int:
    from ..campaign.originals import build, ht_loc

    program = shutil.which(args.program) if args.program else None  # a path, or a name on PATH
    given = build.Given(args.source and Path(args.source), {"ht_loc": Path(program)} if program else None, args.arch)
    table, ok = ht_loc.against(args.datasets, args.machine, given, repeats=args.repeats, profile=not args.no_ncu,
                               force=args.force)
    print(f"-> {table}")
    return 0 if ok else 1


def _cmd_against_logan(args: argparse.Namespace) -> int:
    from ..campaign.originals import build, logan

    if args.layouts and args.backend != "cuda":
        raise LassmError("--layouts names plans of the cuda backend only")
    programs = {name: Path(args.program) / name for name in ("demo", "logan_scores")} if args.program else None
    asked = logan.Asked(args.machine, args.dataset, tuple(args.xdrops), tuple(args.counters_xdrops), args.repeats,
                        args.backend, args.layouts, args.force, not args.no_ncu)
    table, ok = logan.against(asked, build.Given(args.source and Path(args.source), programs, args.arch))
    print(f"-> {table}")
    return 0 if ok else 1


def _cmd_fast_knobs(args: argparse.Namespace) -> int:
    from ..campaign import fast_knobs

    knobs = fast_knobs.Knobs(*(tuple(getattr(args, f.name) or ()) for f in fields(fast_knobs.Knobs)))
    rows = fast_knobs.explore(args.datasets, args.protocols, knobs, args.repeat)
    print(fast_knobs.table(rows, args.datasets, fast_knobs.ht_loc_seconds(args.ht_loc)), flush=True)
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from ..campaign.merge import merge

    for line in merge(Path(args.new), Path(args.into)):
        print(line)
    return 0


def add_lanes(xdrop: argparse._SubParsersAction) -> None:
    """``lassm xdrop lanes``: the layouts' ablation (:mod:`lassm.campaign.xdrop_lanes`)."""
    p = xdrop.add_parser("lanes", help="the kernel's layouts side by side on this GPU: xdrop/lanes.csv")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--dataset", type=t.pairs_input, default="xdrop-sim-20k", help="an X-drop set (default %(default)s)")
    p.add_argument("--xdrops", type=t.xdrop_list, default=[10, 20, 50, 100, 500, 1000, 5000], help="comma list of X")
    p.add_argument("--repeats", type=t.count, default=3, help="timed runs per layout (default 3)")
    p.add_argument("--force", action="store_true", help="measure again rows recorded at this commit")
    p.add_argument("--counters-xdrops", type=t.xdrop_list, default=[],
                   help="X at which every layout also runs under Nsight Compute (xdrop/counters.csv)")
    p.set_defaults(func=_cmd_lanes)


def _add_originals(m: argparse._SubParsersAction) -> None:
    """``measure against-original | against-logan | fast-knobs``: the originals beside ours on inputs
    the campaign leaves out, and fast's knobs tried."""
    p = m.add_parser("against-original", help="MetaHipMer's ht_loc beside lassm extend on named datasets: "
                                              "against-original.csv")
    p.add_argument("--source", type=t.input_dir, help="the original's tree (or its src/) at the pinned commit "
                                                      "(default: the cache, or a download)")
    p.add_argument("--program", type=t.program, help="an ht_loc already built (instead of building it)")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--datasets", type=t.dataset_list, default=["sample-k77x20", "gen-k21", "gen-k33", "gen-k55", "gen-k77"])
    p.add_argument("--repeats", type=t.count, default=3, help="timed whole runs of each (default %(default)s)")
    p.add_argument("--arch", type=t.label, default=None, help="nvcc's sm_XY (default: the GPU's)")
    p.add_argument("--no-ncu", action="store_true", help="no kernel times from Nsight Compute")
    p.add_argument("--force", action="store_true", help="measure again datasets recorded at this commit")
    p.set_defaults(func=_cmd_against_original)

    p = m.add_parser("against-logan", help="LOGAN's demo beside lassm xdrop align on a set and X values: "
                                           "xdrop/against-logan.csv")
    p.add_argument("--source", type=t.input_dir, help="LOGAN's tree at the pinned commit (default: the cache, or a download)")
    p.add_argument("--program", type=t.input_dir, help="a folder holding LOGAN's demo and logan_scores already built")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--dataset", type=t.pairs_input, default="xdrop-sim-20k", help="an X-drop set (default %(default)s)")
    p.add_argument("--xdrops", type=t.xdrop_list, default=[10, 20, 50, 100, 500, 1000, 5000], help="comma list of X")
    p.add_argument("--repeats", type=t.count, default=1, help="timed whole runs per program and X (default 1)")
    p.add_argument("--arch", type=t.label, default=None, help="nvcc's sm_XY (default: the GPU's)")
    p.add_argument("--no-ncu", action="store_true", help="no kernel times from Nsight Compute")
    p.add_argument("--counters-xdrops", type=t.xdrop_list, default=[],
                   help="X values at which LOGAN also runs under the study's whole metric list (counters.csv)")
    p.add_argument("--backend", default="cuda", choices=("cuda", "opencl", "cpu"),
                   help="our backend (default cuda; cpu for a dry run without a GPU)")
    p.add_argument("--layouts", type=t.xdrop_layouts, default=(),
                   help="cuda: the X-drop plans to run ours with, a comma list of logan,warps, one row each beside "
                        "one LOGAN run (default: the environment's LASSM_XDROP_LAYOUT, one row)")
    p.add_argument("--force", action="store_true", help="measure again rows recorded at this commit")
    p.set_defaults(func=_cmd_against_logan)

    p = m.add_parser("fast-knobs", help="fast's builds and knobs tried: registers, kernel times, a table against "
                                        "fast's (nothing recorded)")
    p.add_argument("datasets", type=t.dataset_name, nargs="+", help="local-assembly datasets (names or files)")
    p.add_argument("--caps", type=t.register_caps, default=[0, 64, 48, 40, 32],
                   help="register caps to try (0: the compiler's choice; 'built': as the backend builds it)")
    p.add_argument("--protocols", type=t.protocol_list, default=["casptr", "fast"],
                   help="builds timed at every cap (fast*) or once")
    p.add_argument("--steps", type=t.natural_list, help="LASSM_FAST_SCAN_STEPS values to try on fast builds "
                                                        "(default: the source's)")
    p.add_argument("--team-bases", type=t.natural_list, help="TEAM_MIN_BASES values to try (default: the module's)")
    p.add_argument("--scale-team-bases", type=t.natural_list,
                   help="TEAM_MIN_BASES_SCALE values to try: block teams' threshold in a launch of many ends")
    p.add_argument("--team-lanes", type=t.natural_list,
                   help="warp-team widths to try, 0 for a whole warp (default: the build's)")
    p.add_argument("--lane-walks", type=t.count_list, help="ends to a warp to try on the lane-walk builds")
    p.add_argument("--sort-bytes", type=t.count_list,
                   help="shared bytes per warp team for the sorted records to try on sorted-table builds")
    p.add_argument("--sort-max-k", type=t.count_list,
                   help="largest k the sorted-table builds sort (LASSM_SORT_MAX_K), values to try: 30 keeps "
                        "one-word records, the hash table beyond")
    p.add_argument("--repeat", type=t.count, default=3, help="timed runs per dataset (default %(default)s)")
    p.add_argument("--ht-loc", type=t.input_file, default=None,
                   help="an against-original.csv: adds each time's ratio to ht_loc's kernel")
    p.set_defaults(func=_cmd_fast_knobs)


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """``lassm measure ...`` and ``lassm merge-results``."""
    group = sub.add_parser("measure", help="measurements the chapters read beside lassm run's parts")
    m = group.add_subparsers(dest="measure_command", required=True)

    p = m.add_parser("published-race", help="the published (racy) protocols' wrong ends against the fixed builds")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--datasets", type=t.dataset_list, default=["sample-k77x20", "gen-k21"])
    p.add_argument("--protocols", type=t.protocol_list, default=["doneflag", "matchany"])
    p.add_argument("--runs", type=t.count, default=5, help="runs of each build (default %(default)s)")
    p.set_defaults(func=_cmd_published_race)

    p = m.add_parser("floor", help="fast's critical path: each dataset's heaviest contig end launched alone")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--datasets", type=t.dataset_list, default=None,
                   help="default: lassm.analysis.floor.DEFAULT_DATASETS (read when it runs: pandas is not imported to parse)")
    p.add_argument("--repeats", type=t.count, default=5, help="timed runs per end, after one warm-up (default 5)")
    p.add_argument("--top", type=t.count, default=1, help="the heaviest ends to time per dataset (default 1)")
    p.set_defaults(func=_cmd_floor)

    p = m.add_parser("first-call", help="a GPU command's first call against its warm calls")
    p.add_argument("--machine", type=t.machine_name, required=True, help="results folder name")
    p.add_argument("--datasets", type=t.dataset_list, default=["gen-k77"], help="local-assembly datasets")
    p.add_argument("--pairs", type=t.pairs_input, default="xdrop-sim-20k", help="an X-drop set")
    p.add_argument("--xdrop", type=t.count, default=100, help="X of the X-drop command (default %(default)s)")
    p.add_argument("--repeats", type=t.count, default=5, help="warm calls (default %(default)s)")
    p.set_defaults(func=_cmd_first_call)

    p = m.add_parser("ptx", help="the PTX of the CUDA and OpenCL builds and their instruction mixes")
    p.add_argument("--machine", type=t.machine_name, default=None, help="results folder name (default: this GPU's)")
    p.add_argument("--builds", type=t.protocol_list, default=["casptr", "fast"],
                   help="builds to dump; on OpenCL, fast is fast.cl and the others portable.cl")
    p.add_argument("--arch", type=t.label, default=None, help="NVRTC virtual architecture (default: this GPU's)")
    p.add_argument("--team", type=t.count, default=32, help="OpenCL work-items per contig end (default %(default)s)")
    p.add_argument("--opencl-fast-options", type=t.shell_words, default="", help="extra build options for fast.cl")
    p.set_defaults(func=_cmd_ptx)

    p = m.add_parser("shard-contention", help="whether a sharded extend's shards slow each other down without Dask")
    p.add_argument("dataset", type=t.stream_name)
    p.add_argument("--gpus", type=t.count, default=4, help="shards, one process and GPU each (default 4)")
    p.add_argument("--protocol", type=t.protocol_name, default="casptr")
    p.add_argument("--repeat", type=t.count, default=3)
    p.add_argument("--backend", type=t.backend_name, default="cuda", help="cuda, or cpu to try it without a GPU")
    p.add_argument("--machine", type=t.machine_name, default=None,
                   help="also write the machine's shard-contention__DATASET.json")
    p.add_argument("--devices", type=t.label, default=None,
                   help="comma list of GPUs the shards' processes take in turn (default: shard i on GPU i)")
    p.set_defaults(func=_cmd_shard_contention)

    p = m.add_parser("command-time", help="a whole command's wall time in fresh processes, start-up and imports included")
    p.add_argument("--command", type=t.shell_words, required=True, help="the command, quoted as one argument")
    p.add_argument("--repeat", type=t.count, default=5, help="timed runs (default %(default)s)")
    p.add_argument("--warmup", type=t.natural, default=1, help="untimed runs first (default %(default)s)")
    p.add_argument("--top", type=t.count, default=8, help="heaviest top-level imports to list (default %(default)s)")
    p.add_argument("--json", type=t.output_file, default=None, help="also write the figures to this file")
    p.set_defaults(func=_cmd_command_time)

    p = m.add_parser("scaling", help="strong scaling of the sharded extension on this node's GPUs, and the sweep "
                                     "with and without Dask")
    p.add_argument("--dataset", type=t.stream_name, default="gen-k21x20", help="the set (default %(default)s)")
    p.add_argument("--gpus", type=t.count, default=None, help="workers of local-cuda (default: every GPU seen)")
    p.add_argument("--gpu-counts", type=t.count_list, default=None, help="GPU counts to measure (default 1..--gpus)")
    p.add_argument("--repeat", type=t.count, default=3, help="timed runs per GPU count (default %(default)s)")
    p.add_argument("--protocol", type=t.protocol_name, default="casptr")
    p.add_argument("--machine", type=t.machine_name, default=None, help="results folder name (default: this GPU's)")
    p.add_argument("--sweep", type=t.dataset_list, default=["gen-k21", "gen-k33", "gen-k55", "gen-k77"],
                   help="datasets of the sweep timed with and without --cluster")
    p.add_argument("--sweep-gpus", type=t.count_list, default=None, help="the sweep's worker counts (default --gpus)")
    p.add_argument("--no-scaling", action="store_true", help="leave out the strong scaling")
    p.add_argument("--no-sweep", action="store_true", help="leave out the sweep")
    p.set_defaults(func=_cmd_scaling)

    _add_originals(m)

    p = sub.add_parser("merge-results", help="lay a from-scratch run's machine folder onto the committed one")
    p.add_argument("new", type=t.input_dir, help="the new run's machine folder")
    p.add_argument("into", type=t.input_dir, help="the committed machine folder, updated in place")
    p.set_defaults(func=_cmd_merge)


__all__ = ["add_lanes", "add_subcommands"]

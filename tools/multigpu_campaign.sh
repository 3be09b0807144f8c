#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Multi-GPU campaign of one node, in one call (< 9 min): strong scaling of the sharded
# extension (lassm.runs.distributed.extend_sharded) on 1..N GPUs of gen-k21x20 (20x Table II, k = 21,
# cuda backend, $PROTOCOL: casptr unless set), each merged output checked against the 1-GPU output (and that one
# against the CPU oracle), recorded as run records with gpus = 1..N; then the sweep's wall time
# with and without `--cluster local-cuda`. Results: data/results/<machine>/ -> $OUT/results.tgz.
# The scaling step also times, in the same call, a plain single-process `lassm extend` of the
# same input (whole command, its output file compared byte for byte with each sharded output),
# and per GPU count the sharded phases (plan, compute, merge, then writing the output): each
# record then holds both scaling ratios (speedup_vs_1gpu, speedup_vs_single_process).
# Both sharded paths are timed: the in-memory merge (extend_sharded, then this process writes:
# wall_seconds + write_seconds) and the path of `lassm extend --cluster` (shard_files.extend_to_files: the
# workers write their blocks of the file, this process joins them), whole, the file included:
# files_seconds, files_speedup_vs_1gpu, files_speedup_vs_single_process.
#
# Each record also holds every worker's peak host memory (VmHWM, the shard's own) and device
# high-water (the backend's), per shard and per worker (lassm.runs.memory.MEMORY_KEYS; files_*: the
# same for the files path), and how many pieces a shard over its worker's budget was cut into.
# The larger inputs: DATASET=gen-k21x40 or gen-k21x80 (replicas of gen-k21; REPEAT=1 keeps x80 in time).
# The files path reads a shard folder (lassm data shard, NGPU files): its parent plans from the
# folder's weights and each worker reads and writes its own range, as `lassm extend DIR --cluster`.
# GPUS="1 2" runs those GPU counts only (default 1..NGPU). On a node with fewer GPUs than NGPU,
# local-cuda:NGPU shares them in turn: four workers on one GPU bound the host's part, never a
# scaling record (set LASSM_MACHINE=proxy-... and LASSM_RESULTS outside data/results).
# Needs wheelhouse-dask/ (dask + distributed wheels, cp312) carried with the tree, and numba on
# the node (or in wheelhouse/). Usage, repository root:  bash tools/multigpu_campaign.sh
# Knobs: NGPU (default: all), REPEAT (timed runs per GPU count, default 3), DATASET, STEPS, PROTOCOL,
# GPUS, TIMEOUT (seconds the scaling step may take, default 420; gen-k21x80 on 1 and 2 GPUs took more).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"scaling sweep"}
DATASET=${DATASET:-gen-k21x20}
PROTOCOL=${PROTOCOL:-casptr}
REPEAT=${REPEAT:-3}
SWEEP=${SWEEP:-gen-k21,gen-k33,gen-k55,gen-k77}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD LASSM_GIT_SHA=${LASSM_GIT_SHA:-unknown}
log() { echo "== $(date +%T) $*"; }
log "offline install of dask"
python3 -m pip install -q --no-index --find-links wheelhouse-dask dask distributed 2>&1 | tail -2
python3 -c "import numba" 2>/dev/null || python3 -m pip install -q --no-index --find-links wheelhouse numba llvmlite 2>&1 | tail -2
python3 -c "import dask, distributed, numba, cupy; print('dask', dask.__version__, 'distributed', distributed.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__)" || exit 1
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
NGPU=${NGPU:-$(nvidia-smi -L | grep -c '^GPU ')}
SWEEP_GPUS=${SWEEP_GPUS:-$NGPU}
export NGPU SWEEP PROTOCOL
# The machine folder: GPU name (from a subprocess, so this shell's python keeps no CUDA context).
MACHINE=${LASSM_MACHINE:-$(python3 -c "from lassm.runs import records; from lassm.backends import cuda; print(records.slug(cuda.device_name()))")}
export LASSM_MACHINE=$MACHINE
mkdir -p "data/results/$MACHINE"
log "machine $MACHINE, $NGPU GPUs"
for step in $STEPS; do
  case $step in
    scaling)
      log "strong scaling of $DATASET on 1..$NGPU GPUs"
      # A file, not stdin: Dask's spawned workers re-import the main module by its path.
      cat > /tmp/lassm_scaling.py <<'PY'
import cProfile, hashlib, io, os, pstats, statistics, subprocess, sys, time
import numpy as np
from lassm.workloads.local_assembly import datasets, formats, stream
from lassm.runs import distributed as D, records, shard_files as F, shard_plan as P
from lassm.runs.memory import MEMORY_KEYS
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend
from lassm.workloads.local_assembly.result import Extension, SideResult

PROTOCOL = os.environ.get("PROTOCOL", "casptr")  # the kernel build every step runs

def tiled(side: SideResult, times: int) -> SideResult:
    out = SideResult.empty(len(side.walk_len) * times, side.max_walk)
    for f in ("walks", "walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions"):
        setattr(out, f, np.tile(getattr(side, f), times))
    return out

def digest(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

def fresh(path: str) -> str:
    """`path` with no file there: every timed run writes a new output, none pays for freeing the
    previous run's (a rename over the last run's output frees its pages inside the timed run)."""
    if os.path.exists(path):
        os.remove(path)
    return path

def whole_runs(cmd: list, repeat: int) -> list:
    """Wall seconds of the whole command, `repeat` runs after one untimed one (kernel cache warm);
    its output (the last argument) removed before each."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    runs = []
    for _ in range(repeat):
        fresh(cmd[-1])
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t0)
    return runs

def profile_shard(source: tuple, index: np.ndarray, params: dict, top: int) -> str:
    """On a worker: cProfile of one shard's extension (its cached cut), heaviest own time first."""
    data = D._load(*source)[0].subset(index)
    prof = cProfile.Profile()
    prof.enable()
    extend(data, Params(**params), backend="cuda", protocol=PROTOCOL)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()

def main() -> None:
    """Dask spawns its workers: the work must not run again when they import __main__."""
    n_gpu, repeat, name = int(os.environ["NGPU"]), int(os.environ["REPEAT"]), os.environ["DATASET"]
    machine = os.environ["LASSM_MACHINE"]
    gpu_counts = [int(g) for g in os.environ.get("GPUS", "").split()] or list(range(1, n_gpu + 1))
    command = f"NGPU={n_gpu} REPEAT={repeat} DATASET={name} GPUS='{' '.join(map(str, gpu_counts))}' bash tools/multigpu_campaign.sh"
    t0 = time.perf_counter()
    ds, k = datasets.load(name)
    params = Params(k=k)
    print(f"{name}: {ds.n_contigs} contigs, loaded in {time.perf_counter() - t0:.1f} s", flush=True)

    # The CPU oracle: on the base dataset when the name is a replication (every replica walks alike).
    base_name, times = (name.rsplit("x", 1)[0], int(name.rsplit("x", 1)[1])) if "x" in name.split("-")[-1] else (name, 1)
    t0 = time.perf_counter()
    base, _ = datasets.load(base_name, k)
    cpu = extend(base, params, backend="cpu")
    oracle = Extension(ds, tiled(cpu.right, times), tiled(cpu.left, times), "cpu", params.as_dict())
    print(f"cpu oracle on {base_name} x{times}: {time.perf_counter() - t0:.1f} s", flush=True)

    # The plain single-process command on the same input, before any worker holds a GPU.
    inp, single_out, sharded_out = f"/tmp/lassm_scaling_{name}.parquet", "/tmp/lassm_single.txt", "/tmp/lassm_sharded.txt"
    files_out = "/tmp/lassm_files.txt"
    stream.write(name, inp)  # a block at a time: the same bytes as writing ds whole
    t0 = time.perf_counter()
    folder = f"/tmp/lassm_scaling_{name}.shards"
    stream.write_shards(name, folder, n_gpu)  # what `lassm data shard NAME --shards NGPU` writes
    shard_folder = stream.ShardFolder.open(folder)
    print(f"shard folder of {n_gpu} files in {time.perf_counter() - t0:.1f} s", flush=True)
    cmd = [sys.executable, "-m", "lassm.cli", "extend", inp, "--k", str(k), "--backend", "cuda", "--protocol", PROTOCOL,
           "--out", single_out]
    single = whole_runs(cmd, repeat)
    single_digest = digest(single_out)
    print(f"single-process lassm extend (whole command): {statistics.median(single):.3f} s "
          f"(runs {[round(w, 3) for w in single]})", flush=True)

    with D.connect(f"local-cuda:{n_gpu}") as client:
        workers = D.workers_of(client)
        t0 = time.perf_counter()
        for w in D.warm(client, params, "cuda", source=(name, k), protocol=PROTOCOL):
            print("warm", w, flush=True)
        print(f"warmed {len(workers)} workers in {time.perf_counter() - t0:.1f} s", flush=True)
        ref = None
        for g in gpu_counts:
            plan = P.plan_shards(ds, g)
            # Untimed pass: each worker cuts its shard once (cached) and the output is checked.
            ext = D.extend_sharded(ds, params, "cuda", client, D.Sharding(plan, workers=workers[:g], source=(name, k)), protocol=PROTOCOL)
            walls, kernels, crit, writes = [], [], [], []
            phases = {key: [] for key in ("plan_seconds", "compute_wall_seconds", "merge_seconds")}
            for _ in range(repeat):
                ext = D.extend_sharded(ds, params, "cuda", client, D.Sharding(plan, workers=workers[:g], source=(name, k)),
                                       protocol=PROTOCOL)
                fresh(sharded_out)
                t0 = time.perf_counter()
                formats.write_extended(ext, sharded_out)
                writes.append(time.perf_counter() - t0)
                walls.append(ext.wall_seconds)
                crit.append(ext.right.extra["kernel_seconds_max_shard"])
                kernels.append(ext.right.extra["kernel_seconds_sum"])
                for key, runs in phases.items():
                    runs.append(ext.right.extra[key])
            # The path of `lassm extend DIR --cluster`: the parent plans from the shard folder's weights,
            # each worker reads its range, extends it and writes its block of the output, this process
            # joins the parts; timed whole, the file included.
            F.extend_to_files(shard_folder, params, "cuda", client, files_out, sharding=D.Sharding(workers=workers[:g]),
                              protocol=PROTOCOL)  # untimed: the workers' first read of the folder
            files = [F.extend_to_files(shard_folder, params, "cuda", client, fresh(files_out),
                                       sharding=D.Sharding(workers=workers[:g]), protocol=PROTOCOL) for _ in range(repeat)]
            files_walls = [f["wall_seconds"] for f in files]
            diffs = ext.compare(oracle)
            out_digest = records.output_digest(ext)
            if g == 1:
                ref = {"digest": out_digest, "wall": statistics.median(walls), "files": statistics.median(files_walls)}
            ref = ref or {"digest": None, "wall": float("nan"), "files": float("nan")}  # no 1-GPU run: no speedup
            same_as_1 = (ref["digest"] is None or out_digest == ref["digest"]) and not diffs
            sharded = [w + x for w, x in zip(walls, writes)]
            extra = {
                "gpus": g, "scaling": "strong", "shards": g, "wall_seconds": statistics.median(walls),
                "wall_seconds_runs": walls, "kernel_seconds": statistics.median(crit), "kernel_seconds_runs": crit,
                "kernel_seconds_sum_runs": kernels, "speedup_vs_1gpu": ref["wall"] / statistics.median(walls),
                "matches_1gpu": same_as_1, "cpu_oracle": f"{base_name} tiled x{times}",
                **{key: statistics.median(runs) for key, runs in phases.items()},
                "write_seconds": statistics.median(writes), "write_seconds_runs": writes,
                "sharded_seconds": statistics.median(sharded), "single_process_seconds": statistics.median(single),
                "single_process_seconds_runs": single,
                "speedup_vs_single_process": statistics.median(single) / statistics.median(sharded),
                "matches_single_process": digest(sharded_out) == single_digest,
                "files_seconds": statistics.median(files_walls), "files_seconds_runs": files_walls,
                "files_speedup_vs_1gpu": ref["files"] / statistics.median(files_walls),
                "files_speedup_vs_single_process": statistics.median(single) / statistics.median(files_walls),
                "files_matches_single_process": digest(files_out) == single_digest,
                **{f"files_{key}": statistics.median(f[key] for f in files)
                   for key in ("plan_seconds", "compute_wall_seconds", "concat_seconds")},
                **{f"files_{key}": files[-1][key] for key in ("shard_bounds", "shard_wall_seconds", "shard_write_seconds",
                                                             "shard_prep_seconds", "max_over_mean", "shard_places",
                                                             "shard_kernel_seconds", "shard_transfer_seconds",
                                                             "shard_threads", "shard_read_pieces")},
                "files_input": "shard folder",
                **{key: ext.right.extra.get(key) for key in MEMORY_KEYS},
                **{f"files_{key}": files[-1].get(key) for key in MEMORY_KEYS},
                **{key: ext.right.extra[key] for key in ("shard_work", "max_over_mean", "bound", "shard_contigs",
                                                       "shard_kernel_seconds", "shard_wall_seconds", "shard_prep_seconds",
                                                       "shard_pack_seconds", "shard_transfer_seconds", "shard_places")},
            }
            if diffs:
                extra["cpu_differences"] = diffs
            summary = records.summarize(ext, name, not diffs, command, machine=machine, extra=extra,
                                        digest=out_digest)  # sorting 5.5 M lines once, not twice
            run_id = f"scaling__{records.run_id_for(name, k, 'cuda', PROTOCOL)}__gpus{g}"
            records.write_record(summary, ext, run_id=run_id)
            print(f"[{time.strftime('%H:%M:%S')}] gpus={g}: wall {statistics.median(walls):.3f} s (runs {[round(w, 3) for w in walls]}) = plan "
                  f"{extra['plan_seconds']:.3f} + compute {extra['compute_wall_seconds']:.3f} + merge "
                  f"{extra['merge_seconds']:.3f}; write {extra['write_seconds']:.3f} s; kernel critical path "
                  f"{statistics.median(crit):.3f} s, sum {statistics.median(kernels):.3f} s, shard walls "
                  f"{[round(w, 3) for w in extra['shard_wall_seconds']]}, balance {extra['max_over_mean']:.3f}; "
                  f"vs 1 GPU {extra['speedup_vs_1gpu']:.2f}x, vs single process (wall + write) "
                  f"{extra['speedup_vs_single_process']:.2f}x; equal to 1 GPU: {same_as_1}, to cpu: {not diffs}, "
                  f"to the single-process file: {extra['matches_single_process']} -> {run_id}", flush=True)
            print(f"[{time.strftime('%H:%M:%S')}] gpus={g} written by the workers: {extra['files_seconds']:.3f} s (runs "
                  f"{[round(w, 3) for w in files_walls]}) = plan {extra['files_plan_seconds']:.3f} + compute and "
                  f"write {extra['files_compute_wall_seconds']:.3f} + join {extra['files_concat_seconds']:.3f}; shard "
                  f"walls {[round(w, 3) for w in extra['files_shard_wall_seconds']]}, writes "
                  f"{[round(w, 3) for w in extra['files_shard_write_seconds']]}, balance {extra['files_max_over_mean']:.3f}; "
                  f"vs 1 GPU {extra['files_speedup_vs_1gpu']:.2f}x, vs single process "
                  f"{extra['files_speedup_vs_single_process']:.2f}x; equal to the single-process file: "
                  f"{extra['files_matches_single_process']}", flush=True)
        # Where a worker's time goes besides its kernels: one shard of the widest plan, profiled there.
        shard = P.plan_shards(ds, n_gpu)[0]
        print(client.submit(profile_shard, (name, k), shard, params.as_dict(), 25, workers=[workers[0]],
                             pure=False).result(), flush=True)


if __name__ == "__main__":
    main()
PY
      NGPU=$NGPU REPEAT=$REPEAT DATASET=$DATASET timeout ${TIMEOUT:-420} python3 /tmp/lassm_scaling.py 2>&1 \
        | grep -v "distributed\.[a-z_.]* - INFO" | tee "$OUT/scaling.log"  # a worker's warnings and errors kept
      ;;
    sweep)
      log "sweep wall time: one process vs --cluster local-cuda:$NGPU (records kept apart under /tmp)"
      ARGS="--datasets $SWEEP --backends cuda --protocols $PROTOCOL --force --quiet"
      t0=$(date +%s.%N)
      LASSM_RESULTS=/tmp/sweep-direct timeout 200 python3 -m lassm.cli run $ARGS 2>&1 | tail -12
      rc1=${PIPESTATUS[0]}; t1=$(date +%s.%N)
      for G in $SWEEP_GPUS; do
      rm -rf /tmp/sweep-cluster
      tc=$(date +%s.%N)
      LASSM_RESULTS=/tmp/sweep-cluster timeout 200 python3 -m lassm.cli run $ARGS --cluster local-cuda:$G 2>&1 \
        | grep -v "distributed\.\(nanny\|scheduler\|core\|worker\|http\)" | tail -12
      rc2=${PIPESTATUS[0]}; t2=$(date +%s.%N)
      NGPU=$G python3 - "$t0" "$t1" "$tc" "$t2" "$rc1" "$rc2" <<'PY'
import json, os, sys
from pathlib import Path
from lassm.runs import records
t0, t1, tc, t2 = map(float, sys.argv[1:5])
machine = os.environ["LASSM_MACHINE"]
out = {"machine": machine, "gpus": int(os.environ["NGPU"]), "datasets": os.environ["SWEEP"].split(","),
       "backend": "cuda", "protocol": os.environ["PROTOCOL"], "direct_wall_seconds": t1 - t0, "cluster_wall_seconds": t2 - tc,
       "direct_rc": int(sys.argv[5]), "cluster_rc": int(sys.argv[6]),
       "note": "wall clock of the whole `lassm run` (dataset generation, CPU oracle, CUDA compile, records)",
       "git_sha": records.git_sha(), "versions": records.versions()}
same = {}
for rec in sorted(Path("/tmp/sweep-direct", machine).glob("*/summary.json")):
    other = Path("/tmp/sweep-cluster", machine, rec.parent.name, "summary.json")
    same[rec.parent.name] = other.is_file() and \
        json.loads(rec.read_text())["output_sha256"] == json.loads(other.read_text())["output_sha256"]
out["same_output"] = same
Path("data/results", machine, f"scaling__sweep__gpus{out['gpus']}.json").write_text(json.dumps(out, indent=2) + "\n")
print(json.dumps(out, indent=1))
PY
      done
      ;;
  esac
done
find data/results -name '*.extended.txt' -delete
tar czf "$OUT/results.tgz" data/results
ls -l "$OUT/results.tgz"
log done

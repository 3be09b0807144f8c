#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Multi-GPU campaign of one lent node, in one call (< 9 min): strong scaling of the sharded
# extension (lassm.runs.distributed.extend_sharded) on 1..N GPUs of gen-k21x20 (20x Table II, k = 21,
# cuda backend, casptr), each merged output checked against the 1-GPU output (and that one
# against the CPU oracle), recorded as run records with gpus = 1..N; then the sweep's wall time
# with and without `--cluster local-cuda`. Results: data/results/<machine>/ -> $OUT/results.tgz.
#
# Needs wheelhouse-dask/ (dask + distributed wheels, cp312) carried with the tree, and numba on
# the node (or in wheelhouse/). Usage, repository root:  bash tools/multigpu_campaign.sh
# Knobs: NGPU (default: all), REPEAT (timed runs per GPU count, default 3), DATASET, STEPS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"scaling sweep"}
DATASET=${DATASET:-gen-k21x20}
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
export NGPU SWEEP
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
import os, statistics, time
import numpy as np
from lassm.workloads.local_assembly import datasets
from lassm.runs import distributed as D, records
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend
from lassm.workloads.local_assembly.result import Extension, SideResult

def tiled(side: SideResult, times: int) -> SideResult:
    out = SideResult.empty(len(side.walk_len) * times, side.max_walk)
    for f in ("walks", "walk_len", "final_k", "term", "n_k", "steps", "insertions", "start_insertions"):
        setattr(out, f, np.tile(getattr(side, f), times))
    return out

def main() -> None:
    """Dask spawns its workers: the work must not run again when they import __main__."""
    n_gpu, repeat, name = int(os.environ["NGPU"]), int(os.environ["REPEAT"]), os.environ["DATASET"]
    machine = os.environ["LASSM_MACHINE"]
    command = f"NGPU={n_gpu} REPEAT={repeat} DATASET={name} bash tools/multigpu_campaign.sh"
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

    with D.connect(f"local-cuda:{n_gpu}") as client:
        workers = D.workers_of(client)
        t0 = time.perf_counter()
        for w in D.warm(client, params, "cuda", source=(name, k), protocol="casptr"):
            print("warm", w, flush=True)
        print(f"warmed {len(workers)} workers in {time.perf_counter() - t0:.1f} s", flush=True)
        ref = None
        for g in range(1, n_gpu + 1):
            plan = D.plan_shards(ds, g)
            # Untimed pass: each worker cuts its shard once (cached) and the output is checked.
            ext = D.extend_sharded(ds, params, "cuda", client, plan, workers=workers[:g], source=(name, k), protocol="casptr")
            walls, kernels, crit = [], [], []
            for _ in range(repeat):
                ext = D.extend_sharded(ds, params, "cuda", client, plan, workers=workers[:g], source=(name, k),
                                       protocol="casptr")
                walls.append(ext.wall_seconds)
                crit.append(ext.right.extra["kernel_seconds_max_shard"])
                kernels.append(ext.right.extra["kernel_seconds_sum"])
            diffs = ext.compare(oracle)
            digest = records.output_digest(ext)
            ref = ref or {"digest": digest, "wall": statistics.median(walls)}
            same_as_1 = digest == ref["digest"] and not diffs
            extra = {
                "gpus": g, "scaling": "strong", "shards": g, "wall_seconds": statistics.median(walls),
                "wall_seconds_runs": walls, "kernel_seconds": statistics.median(crit), "kernel_seconds_runs": crit,
                "kernel_seconds_sum_runs": kernels, "speedup_vs_1gpu": ref["wall"] / statistics.median(walls),
                "matches_1gpu": same_as_1, "cpu_oracle": f"{base_name} tiled x{times}",
                **{key: ext.right.extra[key] for key in ("shard_work", "max_over_mean", "bound", "shard_contigs",
                                                       "shard_kernel_seconds", "shard_wall_seconds", "shard_places",
                                                       "plan_seconds", "compute_wall_seconds", "merge_seconds")},
            }
            if diffs:
                extra["cpu_differences"] = diffs
            summary = records.summarize(ext, name, not diffs, command, machine=machine, extra=extra)
            run_id = f"scaling__{records.run_id_for(name, k, 'cuda', 'casptr')}__gpus{g}"
            records.write_record(summary, ext, run_id=run_id)
            print(f"gpus={g}: wall {statistics.median(walls):.3f} s (runs {[round(w, 3) for w in walls]}), "
                  f"kernel critical path {statistics.median(crit):.3f} s, sum {statistics.median(kernels):.3f} s, "
                  f"balance {extra['max_over_mean']:.3f}, equal to 1 GPU: {same_as_1}, to cpu: {not diffs} -> {run_id}",
                  flush=True)


if __name__ == "__main__":
    main()
PY
      NGPU=$NGPU REPEAT=$REPEAT DATASET=$DATASET timeout 420 python3 /tmp/lassm_scaling.py 2>&1 \
        | grep -v "distributed\.\(nanny\|scheduler\|core\|worker\|http\)" | tee "$OUT/scaling.log"
      ;;
    sweep)
      log "sweep wall time: one process vs --cluster local-cuda:$NGPU (records kept apart under /tmp)"
      ARGS="--datasets $SWEEP --backends cuda --protocols casptr --force --quiet"
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
       "backend": "cuda", "protocol": "casptr", "direct_wall_seconds": t1 - t0, "cluster_wall_seconds": t2 - tc,
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

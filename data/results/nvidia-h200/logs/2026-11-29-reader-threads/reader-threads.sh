#!/usr/bin/env bash
# gen-k21x80 on the one H200 as one and as four Dask workers (local-cuda:4 shares its one GPU),
# after each worker reads with its share of the host's CPUs (Dask's nannies had left Arrow one
# thread: transfer-split.sh's 10.4 s read of one worker). Records kept out of the results tree: the host's
# part of a 4-GPU run, not a scaling figure. Then one process profiles a quarter's read and
# extension (casptr), to see where a shard's extension spends the time its kernel does not.
set -uo pipefail
export PYTHONPATH=$PWD
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=1 TIMEOUT=420 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 | grep -v "^\s*$"
for f in /tmp/proxy/*/scaling__*/summary.json; do cp "$f" "$OUT/proxy-$(basename "$(dirname "$f")").json"; done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/proxy/*/scaling__*/summary.json")):
    d = json.load(open(f))
    print(f, json.dumps({k: d[k] for k in ("gpus", "files_seconds", "files_plan_seconds", "files_compute_wall_seconds",
                                           "files_concat_seconds", "files_shard_threads", "files_shard_prep_seconds",
                                           "files_shard_wall_seconds", "files_shard_kernel_seconds",
                                           "files_shard_transfer_seconds", "files_shard_write_seconds") if k in d}))
PY
timeout 120 python3 - <<'PY'
import cProfile, pstats, time
from lassm.workloads.local_assembly import stream
from lassm.workloads.local_assembly.config import Params
from lassm.runs.extend import extend
folder = "/tmp/lassm_scaling_gen-k21x80.shards"
doc = stream.manifest(folder)
a, b = doc["shards"][0]["start"], doc["shards"][0]["stop"]
extend(stream.read_range(folder, 0, 1000), Params(k=21), backend="cuda", protocol="casptr")  # compile, warm
for label in ("first", "again"):
    t0 = time.perf_counter(); piece = stream.read_range(folder, a, b); t1 = time.perf_counter()
    ext = extend(piece, Params(k=21), backend="cuda", protocol="casptr"); t2 = time.perf_counter()
    print(f"{label}: read {t1 - t0:.3f} s, extend {t2 - t1:.3f} s, kernels {ext.kernel_seconds:.3f} s")
    del ext, piece
piece = stream.read_range(folder, a, b)
prof = cProfile.Profile(); prof.enable()
ext = extend(piece, Params(k=21), backend="cuda", protocol="casptr")
prof.disable()
pstats.Stats(prof).sort_stats("tottime").print_stats(30)
PY

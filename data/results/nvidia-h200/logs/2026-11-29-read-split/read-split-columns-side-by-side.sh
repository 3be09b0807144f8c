#!/usr/bin/env bash
# After the byte columns are copied and checked side by side on the reader's threads: read-split.sh's
# read split again, then gen-k21x80 on one and four workers sharing the one H200 (records kept
# out of the results tree, a proxy of the host's part of a 4-GPU run, not a scaling figure).
set -uo pipefail
export PYTHONPATH=$PWD
bash data/results/nvidia-h200/logs/2026-11-29-read-split/read-split.sh 2>&1 | grep -v "^\s*$"
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=1 TIMEOUT=400 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 \
  | grep -v "^\s*$" | grep -v "^ *[0-9/]* *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]* [/{<]"
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

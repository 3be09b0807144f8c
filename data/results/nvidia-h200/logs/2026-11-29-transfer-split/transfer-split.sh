#!/usr/bin/env bash
# The transfer test again after its fix, then gen-k21x80 on the one H200 as one and as four Dask
# workers (local-cuda:4 shares its one GPU): the workers-write path after the reader, join and
# worker-memory changes, with each shard's copies between host and device now recorded. Records
# kept out of the results tree (LASSM_RESULTS=/tmp/proxy): the host's part of a 4-GPU run, not a
# scaling figure (the kernels share one GPU). Their summaries come back as proxy-*.json.
set -uo pipefail
export PYTHONPATH=$PWD
timeout 60 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py -k transfers 2>&1 | tail -2
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=1 TIMEOUT=480 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 | grep -v "^\s*$"
for f in /tmp/proxy/*/scaling__*/summary.json; do cp "$f" "$OUT/proxy-$(basename "$(dirname "$f")").json"; done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/proxy/*/scaling__*/summary.json")):
    d = json.load(open(f))
    print(f, json.dumps({k: d[k] for k in ("gpus", "files_seconds", "files_plan_seconds", "files_compute_wall_seconds",
                                           "files_concat_seconds", "files_shard_prep_seconds", "files_shard_wall_seconds",
                                           "files_shard_kernel_seconds", "files_shard_transfer_seconds",
                                           "files_shard_write_seconds", "files_peak_rss_bytes") if k in d}))
PY

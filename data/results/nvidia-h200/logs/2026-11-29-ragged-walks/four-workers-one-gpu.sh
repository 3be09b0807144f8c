#!/usr/bin/env bash
# gen-k21x80 on the one H200 as four Dask workers (local-cuda:4 shares its one GPU): the campaign's
# 1-worker and 4-worker runs, records kept out of the results tree (LASSM_RESULTS=/tmp/proxy): the
# host's part of a 4-GPU run and where a shard's time goes, not a scaling figure (one GPU shared).
set -uo pipefail
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=1 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 | grep -v "^\s*$"
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/proxy/*/scaling__*/summary.json")):
    d = json.load(open(f))
    keys = [k for k in d if k.startswith("files_") or k in ("gpus", "wall_seconds", "single_process_seconds", "peak_rss_bytes", "device_high_water_bytes", "worker_peak_rss_bytes")]
    print(f, json.dumps({k: d[k] for k in keys}))
PY

#!/usr/bin/env bash
# After a worker reads its range in pieces at row-group edges, the next while it extends and
# writes this one: the GPU tests of the sharded runs, then gen-k21x80 on one and four workers
# sharing the one H200 (records kept out of the results tree: a proxy of the host's part of a
# 4-GPU run, not a scaling figure), two timed runs each.
set -uo pipefail
export PYTHONPATH=$PWD
python3 -m pip install -q --no-index --find-links wheelhouse-dask dask distributed 2>&1 | tail -2
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_distributed.py tests/test_stream.py 2>&1 | tail -2
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=2 TIMEOUT=380 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 \
  | grep -v "^\s*$" | grep -v "UserWarning\|warnings.warn\|This may cause\|Consider loading\|or using futures\|See also https"
for f in /tmp/proxy/*/scaling__*/summary.json; do cp "$f" "$OUT/proxy-$(basename "$(dirname "$f")").json"; done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/proxy/*/scaling__*/summary.json")):
    d = json.load(open(f))
    print(f, json.dumps({k: d[k] for k in ("gpus", "files_seconds", "files_seconds_runs", "files_plan_seconds",
                                           "files_compute_wall_seconds", "files_concat_seconds", "files_shard_threads",
                                           "files_shard_read_pieces", "files_shard_prep_seconds",
                                           "files_shard_wall_seconds", "files_shard_kernel_seconds",
                                           "files_shard_transfer_seconds", "files_shard_write_seconds",
                                           "single_process_seconds_runs", "files_matches_single_process") if k in d}))
PY

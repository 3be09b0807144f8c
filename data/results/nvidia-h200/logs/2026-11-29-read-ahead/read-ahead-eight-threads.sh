#!/usr/bin/env bash
# The read-ahead only on a worker with threads to spare (READ_AHEAD_MIN_THREADS): the sharded
# runs' tests on the GPU node (read-ahead.sh's two failures: the made-up second GPU met Dask's NVML
# diagnostics), then gen-k21x80 on one and four workers sharing the one H200 once more (records
# kept out of the results tree: a proxy of the host's part of a 4-GPU run, not a scaling figure).
set -uo pipefail
export PYTHONPATH=$PWD
python3 -m pip install -q --no-index --find-links wheelhouse-dask dask distributed 2>&1 | tail -2
timeout 110 python3 -m pytest -q -p no:cacheprovider tests/test_distributed.py tests/test_stream.py 2>&1 | tail -3
export LASSM_MACHINE=proxy-h200-four-workers-one-gpu LASSM_RESULTS=/tmp/proxy
NGPU=4 GPUS="1 4" REPEAT=1 TIMEOUT=300 DATASET=gen-k21x80 STEPS=scaling bash tools/multigpu_campaign.sh 2>&1 \
  | grep -v "^\s*$" | grep -v "UserWarning\|warnings.warn\|This may cause\|Consider loading\|or using futures\|See also https" \
  | grep -v "^ *[0-9/]* *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]* [/{<~]"
for f in /tmp/proxy/*/scaling__*/summary.json; do cp "$f" "$OUT/proxy-$(basename "$(dirname "$f")").json"; done

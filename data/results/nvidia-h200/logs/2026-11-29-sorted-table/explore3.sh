#!/bin/bash
# Change 15 with its extraction's words loaded at once, branch-free base codes and the vote on
# integer thresholds: CUDA tests, then kernel time beside fast's by region size and register cap.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-unknown}"
echo "== tests"
timeout 200 python3 -m pytest -q -x tests/test_cuda.py -k "sorted" 2>&1 | tail -2
echo "== explore"
timeout 330 python3 tools/fast_explore.py gen-k21x20 gen-k21 real-mock5-k21 \
  --caps built,96,80 --protocols fast,fast-sorted --sort-bytes 2048,4096 --repeat 3 \
  --ht-loc data/results/nvidia-h200/against-original.csv 2>&1 | grep -v Warning
